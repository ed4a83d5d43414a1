/* SPDX-License-Identifier: MIT */
/* Kernel id lists such as "0-3,6" (node and CPU lists in sysfs). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idlist.h"
#include "macro.h"

static int parse_id(const char **p, unsigned *ret) {
        uint64_t v = 0;
        const char *s = *p;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                v = v * 10 + (uint64_t) (*s - '0');
                if (v > IDLIST_MAX_ID)
                        return -ERANGE;
        }
        *p = s;
        *ret = (unsigned) v;
        return 0;
}

int idlist_parse(const char *s, unsigned **ret, size_t *ret_n) {
        _cleanup_(freep) bool *seen = NULL;
        _cleanup_(freep) unsigned *ids = NULL;
        unsigned max = 0;
        size_t n = 0;
        const char *p = s;
        int r;

        seen = calloc(IDLIST_MAX_ID + 1, sizeof(*seen));
        if (!seen)
                return -ENOMEM;
        while (*p && *p != '\n') {
                unsigned a, b;

                r = parse_id(&p, &a);
                if (r < 0)
                        return r;
                b = a;
                if (*p == '-') {
                        p++;
                        r = parse_id(&p, &b);
                        if (r < 0)
                                return r;
                        if (b < a)
                                return -EINVAL;
                }
                for (unsigned i = a; i <= b; i++)
                        seen[i] = true;
                max = MAX(max, b);
                if (*p == ',') {
                        p++;
                        if (!*p || *p == '\n')
                                return -EINVAL;
                } else if (*p && *p != '\n')
                        return -EINVAL;
        }
        if (*p == '\n' && p[1])
                return -EINVAL;

        for (unsigned i = 0; i <= max; i++)
                n += seen[i];
        if (n > 0) {
                ids = calloc(n, sizeof(*ids));
                if (!ids)
                        return -ENOMEM;
                n = 0;
                for (unsigned i = 0; i <= max; i++)
                        if (seen[i])
                                ids[n++] = i;
        }
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}
