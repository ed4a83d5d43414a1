/* SPDX-License-Identifier: MIT */
/* Numbers an administrator or the kernel writes: plain counts, sizes with binary units, modes. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/number.h"

int parse_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        *ret = v;
        return 0;
}

int parse_uint_range(const char *s, unsigned min, unsigned max, unsigned *ret) {
        uint64_t v;
        int r;

        r = parse_u64(s, &v);
        if (r < 0)
                return r;
        if (v < min || v > max)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

int parse_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

/* Splits "2048kB" into 2048 and the shift of its binary unit; -EINVAL on an unknown unit. */
static int split_number_unit(const char *s, uint64_t *ret_number, unsigned *ret_shift, bool *ret_has_unit) {
        static const struct {
                const char *name;
                unsigned shift;
        } units[] = {
                { "k", 10 }, { "kb", 10 }, { "kib", 10 },
                { "m", 20 }, { "mb", 20 }, { "mib", 20 },
                { "g", 30 }, { "gb", 30 }, { "gib", 30 },
                { "t", 40 }, { "tb", 40 }, { "tib", 40 },
        };
        char digits[32];
        size_t n = strspn(s, "0123456789");
        int r;

        if (n == 0 || n >= sizeof(digits))
                return n == 0 ? -EINVAL : -ERANGE;
        memcpy(digits, s, n);
        digits[n] = 0;
        r = parse_u64(digits, ret_number);
        if (r < 0)
                return r;

        if (s[n] == 0) {
                *ret_shift = 0;
                *ret_has_unit = false;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (strcasecmp(s + n, units[i].name) == 0) {
                        *ret_shift = units[i].shift;
                        *ret_has_unit = true;
                        return 0;
                }
        return -EINVAL;
}

static int shift_checked(uint64_t v, unsigned shift, uint64_t *ret) {
        if (shift && v > (UINT64_MAX >> shift))
                return -ERANGE;
        *ret = v << shift;
        return 0;
}

int parse_page_size(const char *s, uint64_t *ret_bytes, struct error *e) {
        uint64_t n, bytes;
        unsigned shift;
        bool has_unit;
        int r;

        r = split_number_unit(s, &n, &shift, &has_unit);
        if (r == -ERANGE || (r >= 0 && shift_checked(n, shift, &bytes) < 0))
                return error_set(e, -ERANGE, "page size '%s' is out of range", s);
        if (r < 0)
                return error_set(e, -EINVAL, "'%s' is not a page size (expected e.g. 2M, 2MB, 2048kB, 1G)", s);
        if (!has_unit)
                return error_set(e, -EINVAL, "page size '%s' needs a unit (e.g. 2M, 1G, 2048kB)", s);
        if (bytes < 4096 || (bytes & (bytes - 1)) != 0)
                return error_set(e, -EINVAL, "'%s' is not a page size: not a power of two of at least 4 KiB", s);
        *ret_bytes = bytes;
        return 0;
}

static int count_or_bytes(const char *s, bool zero_ok, uint64_t *ret, bool *ret_bytes, struct error *e) {
        uint64_t n, v;
        unsigned shift;
        bool has_unit;
        int r;

        if (!*s)
                return error_set(e, -EINVAL, "amount is empty");
        if (*s == '-')
                return error_set(e, -EINVAL, "amount '%s' is negative", s);
        r = split_number_unit(s, &n, &shift, &has_unit);
        if (r == -ERANGE || (r >= 0 && shift_checked(n, shift, &v) < 0))
                return error_set(e, -ERANGE, "amount '%s' is too large", s);
        if (r < 0)
                return error_set(e, -EINVAL, "'%s' is not an amount (expected a page count or bytes like 4G)", s);
        if (v == 0 && !zero_ok)
                return error_set(e, -EINVAL, "amount '%s' is zero", s);
        *ret = v;
        *ret_bytes = has_unit;
        return 0;
}

int parse_count_or_bytes(const char *s, uint64_t *ret, bool *ret_bytes, struct error *e) {
        return count_or_bytes(s, false, ret, ret_bytes, e);
}

int parse_count_or_bytes_or_zero(const char *s, uint64_t *ret, bool *ret_bytes, struct error *e) {
        return count_or_bytes(s, true, ret, ret_bytes, e);
}

int parse_file_mode(const char *s, unsigned *ret) {
        unsigned v = 0;

        if (!*s || strlen(s) > 4)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '7')
                        return -EINVAL;
                v = v * 8 + (unsigned) (*p - '0');
        }
        if (v > 0777)
                return -ERANGE;
        *ret = v;
        return 0;
}

const char *page_size_name(uint64_t bytes, char buf[static 32]) {
        static const char units[] = "KMGT";
        unsigned i = 0;

        bytes >>= 10;
        while (i + 1 < sizeof(units) - 1 && bytes >= 1024 && bytes % 1024 == 0) {
                bytes >>= 10;
                i++;
        }
        (void) snprintf(buf, 32, "%" PRIu64 "%c", bytes, units[i]);
        return buf;
}
