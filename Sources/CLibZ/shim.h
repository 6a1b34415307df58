#ifndef CRUBATCH_CLIBZ_SHIM_H
#define CRUBATCH_CLIBZ_SHIM_H
#include <zlib.h>
#endif
