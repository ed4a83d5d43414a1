/* SPDX-License-Identifier: MIT */
/* Fuzz target: the --pool and --reserve parsers, fed any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "settings/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct pool_spec spec;
        struct reserve_spec rs;
        struct error e = {};

        if (!s)
                return 0;
        if (parse_pool_spec(s, &spec, &e) >= 0)
                amount_done(&spec.amount);
        (void) parse_reserve_spec(s, &rs, &e);
        free(s);
        return 0;
}
