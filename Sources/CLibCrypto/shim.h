#ifndef CRUBATCH_CLIBCRYPTO_SHIM_H
#define CRUBATCH_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
