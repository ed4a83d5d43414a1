/* SPDX-License-Identifier: MIT */
/* Writing JSON values (RFC 8259): strings escaped, absent values as null. */
#include <inttypes.h>

#include "util/json.h"

void json_string(FILE *f, const char *s) {
        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;

                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\u%04x", c);
                else
                        fputc(c, f);
        }
        fputc('"', f);
}

void json_u64_or_null(FILE *f, const uint64_t *v) {
        if (v)
                fprintf(f, "%" PRIu64, *v);
        else
                fputs("null", f);
}
