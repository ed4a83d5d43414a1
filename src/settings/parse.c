/* SPDX-License-Identifier: MIT */
/* Parsers for what an administrator asks for: amounts, pool specs, reservation specs. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "settings/conf.h"
#include "settings/parse.h"
#include "settings/settings.h"

#define NODE_ID_MAX 65535

static int parse_per_node(const char *s, struct amount *ret, struct error *e) {
        _cleanup_(freep) char *copy = NULL;
        _cleanup_(freep) struct node_amount *nodes = NULL;
        _cleanup_(freep) uint64_t *seen = NULL;
        size_t n = 0, max = 1;
        char *save = NULL;
        int r;

        for (const char *p = s; *p; p++)
                max += *p == ',';
        copy = strdup(s);
        nodes = calloc(max, sizeof(*nodes));
        seen = calloc((NODE_ID_MAX + 1) / 64, sizeof(*seen));
        if (!copy || !nodes || !seen)
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
                if (parse_u64(item + 4, &node) < 0 || node > NODE_ID_MAX)
                        return error_set(e, -EINVAL, "'%s' in '%s' is not a node name", item, s);
                /* one bit per possible node: linear in the list, however long */
                if (seen[node / 64] & (UINT64_C(1) << (node % 64)))
                        return error_set(e, -EINVAL, "node%" PRIu64 " is listed twice in '%s'", node, s);
                seen[node / 64] |= UINT64_C(1) << (node % 64);
                /* never suggest what is refused here: a node's share takes no percentage */
                if (strchr(eq + 1, '%'))
                        return error_set(e, -EINVAL,
                                         "node%" PRIu64 "=%s: a node takes a page count or bytes like 4G; a percentage "
                                         "is of every node's memory (SIZE:25%%)", node, eq + 1);
                r = parse_count_or_bytes_or_zero(eq + 1, &nodes[n].value, &nodes[n].bytes, e);
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
                *ret = (struct amount) { .kind = AMOUNT_PERCENT, .value = v };
                return 0;
        }
        if (strspn(s, "0123456789") == 0 && *s != '-')
                return error_set(e, -EINVAL,
                                 "'%s' is not an amount (expected a page count, bytes like 4G, a percentage or nodeN=...)", s);
        /* zero: the pool given back, with --shrink (the planner checks) */
        r = parse_count_or_bytes_or_zero(s, &v, &bytes, e);
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

const struct pool_spec *pool_spec_find(const struct pool_spec *pools, size_t n, uint64_t page_size) {
        for (size_t i = 0; i < n; i++)
                if (pools[i].page_size == page_size)
                        return &pools[i];
        return NULL;
}

const struct reserve_spec *reserve_spec_find(const struct reserve_spec *reserves, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(reserves[i].name, name) == 0)
                        return &reserves[i];
        return NULL;
}

const struct claim_spec *claim_spec_find(const struct claim_spec *claims, size_t n, const char *name,
                                         uint64_t page_size) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(claims[i].name, name) == 0 && (page_size == 0 || claims[i].page_size == page_size))
                        return &claims[i];
        return NULL;
}

bool amount_has_zero(const struct amount *a) {
        if (a->kind != AMOUNT_PER_NODE)
                return a->value == 0;
        for (size_t i = 0; i < a->n_nodes; i++)
                if (a->nodes[i].value == 0)
                        return true;
        return false;
}

int check_reserve_name(const char *s, struct error *e) {
        return check_name(s, "reservation", e);
}

int check_name(const char *s, const char *what, struct error *e) {
        size_t n = strlen(s), max = sizeof(((struct reserve_spec *) NULL)->name) - 1;
        bool taken = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;

        /* the characters before the leading '.': '../x' is a path, not a hidden file */
        if (n == 0 || n > max || s[0] == '.' || !taken)
                return error_set(e, -EINVAL, "'%.64s' is not a %s name (%s)", s, what,
                                 n == 0      ? "empty"
                                 : n > max   ? "longer than 63 characters"
                                 : !taken    ? "only A-Z a-z 0-9 _ . - are taken"
                                             : "a leading '.' would hide its file");
        return 0;
}

static int copy_word(char *dst, size_t size, const char *value) {
        if (!*value || strlen(value) >= size)
                return -EINVAL;
        memcpy(dst, value, strlen(value) + 1);
        return 0;
}

int reserve_spec_set_attr(struct reserve_spec *rs, enum reserve_attr a, const char *value, struct error *e) {
        switch (a) {
        case RESERVE_ATTR_OWNER:
                if (copy_word(rs->owner, sizeof(rs->owner), value) < 0)
                        return error_set(e, -EINVAL, "must be a user name or uid of 1 to 63 characters");
                return 0;
        case RESERVE_ATTR_GROUP:
                if (copy_word(rs->group, sizeof(rs->group), value) < 0)
                        return error_set(e, -EINVAL, "must be a group name or gid of 1 to 63 characters");
                return 0;
        case RESERVE_ATTR_MODE:
                if (parse_file_mode(value, &rs->mode) < 0)
                        return error_set(e, -EINVAL, "must be an octal file mode such as 0640");
                return 0;
        case RESERVE_ATTR_MOUNT:
                if (!*value || config_check_path(value, sizeof(rs->mount)) < 0)
                        return error_set(e, -EINVAL, "must be the absolute path of a hugetlbfs mount");
                memcpy(rs->mount, value, strlen(value) + 1);
                return 0;
        }
        return -EINVAL;
}

/* ",owner=USER,mode=0660": each once. */
static int parse_reserve_attrs(char *list, struct reserve_spec *rs, struct error *e) {
        static const char *const names[] = {
                [RESERVE_ATTR_OWNER] = "owner", [RESERVE_ATTR_GROUP] = "group",
                [RESERVE_ATTR_MODE] = "mode",   [RESERVE_ATTR_MOUNT] = "mount",
        };
        unsigned seen = 0;

        for (char *item = list, *next; item; item = next) {
                char *eq;
                size_t a;

                next = strchr(item, ',');
                if (next)
                        *next++ = 0;
                eq = strchr(item, '=');
                if (!eq)
                        return error_set(e, -EINVAL, "'%.64s' is not KEY=VALUE (owner=, group=, mode=, mount=)", item);
                *eq = 0;
                for (a = 0; a < ELEMENTSOF(names) && strcmp(item, names[a]) != 0; a++)
                        ;
                if (a == ELEMENTSOF(names)) {
                        const char *close = name_closest(item, names, ELEMENTSOF(names));

                        return close ? error_set(e, -EINVAL, "unknown key '%.64s'; did you mean '%s'?", item, close)
                                     : error_set(e, -EINVAL, "unknown key '%.64s' (owner=, group=, mode=, mount=)", item);
                }
                if (seen & (1u << a))
                        return error_set(e, -EINVAL, "%s= given twice", names[a]);
                seen |= 1u << a;
                if (reserve_spec_set_attr(rs, (enum reserve_attr) a, eq + 1, e) < 0)
                        return error_prefix(e, -EINVAL, "%s=%.64s", names[a], eq + 1);
        }
        return 0;
}

int parse_reserve_spec(const char *s, struct reserve_spec *ret, struct error *e) {
        _cleanup_(freep) char *copy = strdup(s);
        struct reserve_spec r = { .node = -1, .mode = RESERVE_DEFAULT_MODE };
        char *size, *amount, *at, *attrs;
        uint64_t node;
        int k;

        if (!copy)
                return -ENOMEM;
        /* names, sizes, amounts and nodes have no comma: what follows the first is the attributes */
        attrs = strchr(copy, ',');
        if (attrs)
                *attrs++ = 0;
        size = strchr(copy, ':');
        amount = size ? strchr(size + 1, ':') : NULL;
        if (!amount)
                return error_set(e, -EINVAL, "'%s' is not NAME:SIZE:AMOUNT[@NODE][,owner=USER,group=GROUP,mode=MODE]", s);
        *size++ = 0;
        *amount++ = 0;
        k = check_reserve_name(copy, e);
        if (k < 0)
                return k;
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
        if (attrs) {
                k = parse_reserve_attrs(attrs, &r, e);
                if (k < 0)
                        return k;
        }
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
