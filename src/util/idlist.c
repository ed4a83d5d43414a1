/* SPDX-License-Identifier: MIT */
/* Kernel id lists such as "0-3,6" (node and CPU lists in sysfs). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/idlist.h"
#include "util/macro.h"

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

struct range {
        unsigned a, b;
};

static int cmp_range(const void *x, const void *y) {
        const struct range *p = x, *q = y;

        return p->a < q->a ? -1 : p->a > q->a;
}

int idlist_parse(const char *s, unsigned **ret, size_t *ret_n) {
        _cleanup_(freep) struct range *ranges = NULL;
        _cleanup_(freep) unsigned *ids = NULL;
        size_t n_ranges = 0, max_ranges = 1, n = 0, k = 0;
        const char *p = s;
        int r;

        /* Memory in proportion to the text and the list, nothing per possible id: a bitmap of
         * every id cost this process 16 page faults per list, a millisecond of start-up. */
        for (const char *c = s; *c; c++)
                max_ranges += *c == ',';
        ranges = calloc(max_ranges, sizeof(*ranges));
        if (!ranges)
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
                ranges[n_ranges++] = (struct range) { a, b };
                if (*p == ',') {
                        p++;
                        if (!*p || *p == '\n')
                                return -EINVAL;
                } else if (*p && *p != '\n')
                        return -EINVAL;
        }
        if (*p == '\n' && p[1])
                return -EINVAL;

        /* Sorted by start and merged where they overlap or touch: then the ids are unique. */
        qsort(ranges, n_ranges, sizeof(*ranges), cmp_range);
        for (size_t i = 0; i < n_ranges; i++) {
                if (k > 0 && ranges[i].a <= ranges[k - 1].b + 1) {
                        ranges[k - 1].b = MAX(ranges[k - 1].b, ranges[i].b);
                        continue;
                }
                ranges[k++] = ranges[i];
        }
        for (size_t i = 0; i < k; i++)
                n += ranges[i].b - ranges[i].a + 1;
        if (n > 0) {
                ids = calloc(n, sizeof(*ids));
                if (!ids)
                        return -ENOMEM;
                n = 0;
                for (size_t i = 0; i < k; i++)
                        for (unsigned id = ranges[i].a; id <= ranges[i].b; id++)
                                ids[n++] = id;
        }
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}
