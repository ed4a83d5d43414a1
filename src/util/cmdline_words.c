/* SPDX-License-Identifier: MIT */
/* The words of the kernel command line (cmdline_words.h). */
#include <stdbool.h>
#include <stddef.h>

#include "util/cmdline_words.h"

const char *cmdline_next_word(const char *p, char *buf) {
        bool quoted = false;
        size_t n = 0;

        while (*p == ' ' || *p == '\t' || *p == '\n')
                p++;
        if (!*p)
                return NULL;
        for (; *p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
                if (*p == '"') {
                        quoted = !quoted;
                        continue;
                }
                buf[n++] = *p;
        }
        buf[n] = 0;
        return p;
}
