#ifndef CRUBATCH_CLIBXLSXWRITER_SHIM_H
#define CRUBATCH_CLIBXLSXWRITER_SHIM_H
#include <xlsxwriter.h>
#endif
