/* SPDX-License-Identifier: MIT */
/* Parsers for the values an administrator types: numbers, sizes, amounts, pool specs. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

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

int parse_count_or_bytes(const char *s, uint64_t *ret, bool *ret_bytes, struct error *e) {
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
                return error_set(e, -EINVAL,
                                 "'%s' is not an amount (expected a page count, bytes like 4G, a percentage or nodeN=...)", s);
        if (v == 0)
                return error_set(e, -EINVAL, "amount '%s' is zero", s);
        *ret = v;
        *ret_bytes = has_unit;
        return 0;
}

static int parse_per_node(const char *s, struct amount *ret, struct error *e) {
        _cleanup_(freep) char *copy = NULL;
        _cleanup_(freep) struct node_amount *nodes = NULL;
        size_t n = 0, max = 1;
        char *save = NULL;
        int r;

        for (const char *p = s; *p; p++)
                max += *p == ',';
        copy = strdup(s);
        nodes = calloc(max, sizeof(*nodes));
        if (!copy || !nodes)
                return -ENOMEM;

        /* strtok_r would skip empty items; walk the separators by hand so "a,,b" is an error. */
        for (char *item = copy;; item = save) {
                char *comma = strchr(item, ','), *eq;
                uint64_t node;

                if (comma)
                        *comma = 0;
                save = comma ? comma + 1 : NULL;
                if (!*item)
                        return error_set(e, -EINVAL, "empty entry in node list '%s'", s);
                eq = strchr(item, '=');
                if (strncmp(item, "node", 4) != 0 || !eq)
                        return error_set(e, -EINVAL, "'%s' in '%s' is not nodeN=AMOUNT", item, s);
                *eq = 0;
                if (parse_u64(item + 4, &node) < 0 || node > 65535)
                        return error_set(e, -EINVAL, "'%s' in '%s' is not a node name", item, s);
                for (size_t i = 0; i < n; i++)
                        if (nodes[i].node == node)
                                return error_set(e, -EINVAL, "node%" PRIu64 " is listed twice in '%s'", node, s);
                r = parse_count_or_bytes(eq + 1, &nodes[n].value, &nodes[n].bytes, e);
                if (r < 0)
                        return error_prefix(e, r, "node%" PRIu64, node);
                nodes[n++].node = (unsigned) node;
                if (!save)
                        break;
        }

        *ret = (struct amount) {
                .kind = AMOUNT_PER_NODE,
                .nodes = TAKE_PTR(nodes),
                .n_nodes = n,
        };
        return 0;
}

int parse_amount(const char *s, struct amount *ret, struct error *e) {
        size_t len = strlen(s);
        uint64_t v;
        bool bytes;
        int r;

        if (len == 0)
                return error_set(e, -EINVAL, "amount is empty");
        if (strncmp(s, "node", 4) == 0)
                return parse_per_node(s, ret, e);
        if (s[len - 1] == '%') {
                char digits[16];

                if (len - 1 >= sizeof(digits))
                        return error_set(e, -ERANGE, "percentage '%s' is out of range", s);
                memcpy(digits, s, len - 1);
                digits[len - 1] = 0;
                r = parse_u64(digits, &v);
                if (r == -EINVAL)
                        return error_set(e, r, "'%s' is not a percentage", s);
                if (r < 0 || v > 100)
                        return error_set(e, -ERANGE, "percentage '%s' is over 100%%", s);
                if (v == 0)
                        return error_set(e, -EINVAL, "percentage '%s' is zero", s);
                *ret = (struct amount) { .kind = AMOUNT_PERCENT, .value = v };
                return 0;
        }
        r = parse_count_or_bytes(s, &v, &bytes, e);
        if (r < 0)
                return r;
        *ret = (struct amount) { .kind = bytes ? AMOUNT_BYTES : AMOUNT_PAGES, .value = v };
        return 0;
}

int parse_pool_spec(const char *s, struct pool_spec *ret, struct error *e) {
        _cleanup_(freep) char *size = NULL;
        const char *colon = strchr(s, ':');
        struct pool_spec spec = {};
        int r;

        if (!colon)
                return error_set(e, -EINVAL, "'%s' is not SIZE:AMOUNT", s);
        size = strndup(s, (size_t) (colon - s));
        if (!size)
                return -ENOMEM;
        r = parse_page_size(size, &spec.page_size, e);
        if (r < 0)
                return r;
        r = parse_amount(colon + 1, &spec.amount, e);
        if (r < 0)
                return r;
        (void) snprintf(spec.origin, sizeof(spec.origin), "--pool %s", s);
        *ret = spec;
        return 0;
}

bool reserve_name_valid(const char *s) {
        size_t n = strlen(s);

        return n > 0 && n < sizeof(((struct reserve_spec *) NULL)->name) && s[0] != '.' &&
               strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
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

int parse_reserve_spec(const char *s, struct reserve_spec *ret, struct error *e) {
        _cleanup_(freep) char *copy = strdup(s);
        struct reserve_spec r = { .node = -1, .mode = RESERVE_DEFAULT_MODE };
        char *size, *amount, *at;
        uint64_t node;
        int k;

        if (!copy)
                return -ENOMEM;
        size = strchr(copy, ':');
        amount = size ? strchr(size + 1, ':') : NULL;
        if (!amount)
                return error_set(e, -EINVAL, "'%s' is not NAME:SIZE:AMOUNT[@NODE]", s);
        *size++ = 0;
        *amount++ = 0;
        if (!reserve_name_valid(copy))
                return error_set(e, -EINVAL, "'%s' is not a reservation name (1-63 of A-Z a-z 0-9 _ . -, no leading .)",
                                 copy);
        memcpy(r.name, copy, strlen(copy) + 1);
        k = parse_page_size(size, &r.page_size, e);
        if (k < 0)
                return k;
        at = strchr(amount, '@');
        if (at) {
                *at++ = 0;
                if (strncmp(at, "node", 4) == 0)
                        at += 4;
                if (parse_u64(at, &node) < 0 || node > 65535)
                        return error_set(e, -EINVAL, "'%s' is not a node (expected @N or @nodeN)", at);
                r.node = (int) node;
        }
        k = parse_count_or_bytes(amount, &r.value, &r.bytes, e);
        if (k < 0)
                return k;
        (void) snprintf(r.origin, sizeof(r.origin), "--reserve %s", s);
        *ret = r;
        return 0;
}

void amount_done(struct amount *a) {
        free(a->nodes);
        a->nodes = NULL;
        a->n_nodes = 0;
}

int amount_copy(struct amount *dst, const struct amount *src) {
        struct amount a = *src;

        if (src->n_nodes) {
                a.nodes = calloc(src->n_nodes, sizeof(*a.nodes));
                if (!a.nodes)
                        return -ENOMEM;
                memcpy(a.nodes, src->nodes, src->n_nodes * sizeof(*a.nodes));
        }
        *dst = a;
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
