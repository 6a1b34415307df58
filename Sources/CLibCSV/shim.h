#ifndef CRUBATCH_CLIBCSV_SHIM_H
#define CRUBATCH_CLIBCSV_SHIM_H
#include <stddef.h>
#include <csv.h>

/* libcsv keeps its state in public struct fields; these read it without exposing the layout to Swift.
   pstate: 0 row not begun, 1 field not begun, 2 field begun, 3 field might have ended (after a quote). */

/// True while the parser is inside a quoted field.
static inline int crubatch_csv_in_quoted_field(const struct csv_parser *p) {
    return p->quoted != 0 && p->pstate == 2;
}

/// True when the parser is between records.
static inline int crubatch_csv_between_records(const struct csv_parser *p) {
    return p->pstate == 0;
}

/// Bytes buffered for the field being parsed.
static inline size_t crubatch_csv_pending_field_length(const struct csv_parser *p) {
    return p->entry_pos;
}

/// A space function that treats no character as space: RFC 4180 says spaces are data.
static inline int crubatch_csv_no_spaces(unsigned char c) {
    (void)c;
    return 0;
}
#endif
