/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets: the libFuzzer entry point and a NUL-terminated copy of the input. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string, cut at its first NUL (the parsers take strings); NULL if too big. */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
        char *s;

        if (size > 64 * 1024)
                return NULL;
        s = malloc(size + 1);
        if (!s)
                return NULL;
        memcpy(s, data, size);
        s[size] = 0;
        return s;
}
