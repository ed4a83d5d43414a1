/* SPDX-License-Identifier: MIT */
/* Fuzz target: the kernel command line parser (hpfilld.* words), fed any bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "settings/cmdline.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct config c = CONFIG_INIT;
        struct error e = {};

        if (!s)
                return 0;
        (void) cmdline_apply(s, &c, &e);
        config_done(&c);
        free(s);
        return 0;
}
