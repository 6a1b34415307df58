#ifndef CRUBATCH_CLIBBSON_SHIM_H
#define CRUBATCH_CLIBBSON_SHIM_H
#include <bson/bson.h>

/* bson_iter_t is aligned to 128 bytes, which Swift cannot lay out, so it reaches Swift as an opaque
   pointer: these make and free one on the heap with its alignment. */
static inline bson_iter_t *crubatch_bson_iter_new(void) {
    return BSON_ALIGNED_ALLOC0(bson_iter_t);
}

static inline void crubatch_bson_iter_free(bson_iter_t *iter) {
    bson_free(iter);
}
#endif
