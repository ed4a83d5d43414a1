/* SPDX-License-Identifier: MIT */
/* A minimal assertion kit for the unit tests: a failed check prints where and exits 1. */
#pragma once

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                            \
        do {                                                                                   \
                if (!(cond)) {                                                                 \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                        exit(1);                                                               \
                }                                                                              \
        } while (0)

#define CHECK_EQ(a, b)                                                                              \
        do {                                                                                        \
                long long _a = (long long) (a), _b = (long long) (b);                               \
                if (_a != _b) {                                                                     \
                        fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
                                _a, _b);                                                            \
                        exit(1);                                                                    \
                }                                                                                   \
        } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                                             \
        do {                                                                                             \
                if (!strstr((haystack), (needle))) {                                                     \
                        fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, (haystack), \
                                (needle));                                                               \
                        exit(1);                                                                         \
                }                                                                                        \
        } while (0)

#define TEST(name) static void name(void)
#define RUN(name)                                   \
        do {                                        \
                name();                             \
                fprintf(stderr, "ok   %s\n", #name); \
        } while (0)
