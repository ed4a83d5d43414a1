/* SPDX-License-Identifier: MIT */
/* Fuzz target: the configuration file parser, fed any bytes (NULs and bad UTF-8 included). */
#include <stdint.h>

#include "settings/conf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        (void) config_parse_text(&c, "fuzz.conf", (const char *) data, size, &e);
        config_done(&c);
        return 0;
}
