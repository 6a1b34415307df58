#ifndef CRUBATCH_CLIBPQ_SHIM_H
#define CRUBATCH_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
