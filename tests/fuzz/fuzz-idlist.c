/* SPDX-License-Identifier: MIT */
/* Fuzz target: node and CPU lists (sysfs's "0-3,8"), fed any bytes: the ids come out sorted
 * and unique. */
#include <stdint.h>
#include <stdlib.h>

#include "util/idlist.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        unsigned *ids = NULL;
        size_t n = 0;

        if (!s)
                return 0;
        if (idlist_parse(s, &ids, &n) >= 0) {
                for (size_t i = 1; i < n; i++)
                        if (ids[i] <= ids[i - 1])
                                abort();
                free(ids);
        }
        free(s);
        return 0;
}
