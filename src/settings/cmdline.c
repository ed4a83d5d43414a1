/* SPDX-License-Identifier: MIT */
/* hpfilld.* settings on the kernel command line, so an initramfs needs no configuration file. */
#include <stdlib.h>
#include <string.h>

#include "settings/cmdline.h"

#define WHERE "kernel command line"

/* The next word of @p (the kernel's rules: spaces separate, double quotes group), unquoted
 * into @buf; NULL at the end. */
static const char *next_word(const char *p, char *buf, size_t size, bool *ret_too_long) {
        bool quoted = false;
        size_t n = 0;

        while (*p == ' ' || *p == '\t' || *p == '\n')
                p++;
        if (!*p)
                return NULL;
        *ret_too_long = false;
        for (; *p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
                if (*p == '"') {
                        quoted = !quoted;
                        continue;
                }
                if (n + 1 < size)
                        buf[n++] = *p;
                else
                        *ret_too_long = true;
        }
        buf[n] = 0;
        return p;
}

static int apply_word(const char *key, const char *value, struct config *next, bool *pools_seen, struct error *e) {
        int r;

        if (strcmp(key, "pool") == 0) {
                struct pool_spec spec;
                char name[32];

                r = parse_pool_spec(value, &spec, e);
                if (r < 0)
                        return error_prefix(e, r, WHERE ": hpfilld.pool=%s", value);
                (void) snprintf(spec.origin, sizeof(spec.origin), WHERE ": hpfilld.pool=%s", value);
                if (!*pools_seen)
                        config_drop_pools(next);
                *pools_seen = true;
                for (size_t i = 0; i < next->n_pools; i++)
                        if (next->pools[i].page_size == spec.page_size) {
                                amount_done(&spec.amount);
                                return error_set(e, -EINVAL, WHERE ": hpfilld.pool=%s: a second pool of page size %s",
                                                 value, page_size_name(spec.page_size, name));
                        }
                return config_put_pool(next, &spec);
        }
        if (strcmp(key, "mode") == 0) {
                if (fill_mode_from_string(value, &next->mode) < 0)
                        return error_set(e, -EINVAL, WHERE ": hpfilld.mode=%s: expected auto, sysfs or fault", value);
                return 0;
        }
        if (strcmp(key, "threads") == 0) {
                if (strcmp(value, "auto") == 0)
                        next->threads_per_node = 0;
                else if (parse_uint_range(value, 1, 1024, &next->threads_per_node) < 0)
                        return error_set(e, -EINVAL, WHERE ": hpfilld.threads=%s: expected auto or 1-1024", value);
                return 0;
        }
        if (strcmp(key, "min") == 0) {
                if (parse_uint_range(value, 1, 100, &next->min_percent) < 0)
                        return error_set(e, -EINVAL, WHERE ": hpfilld.min=%s: expected 1-100", value);
                return 0;
        }
        if (strcmp(key, "shrink") == 0) {
                if (parse_bool(value, &next->shrink) < 0)
                        return error_set(e, -EINVAL, WHERE ": hpfilld.shrink=%s: expected yes or no", value);
                return 0;
        }
        if (strcmp(key, "drop_caches") == 0) {
                if (parse_bool(value, &next->drop_caches) < 0)
                        return error_set(e, -EINVAL, WHERE ": hpfilld.drop_caches=%s: expected yes or no", value);
                return 0;
        }
        return error_set(e, -EINVAL, WHERE ": unknown setting 'hpfilld.%s'", key);
}

int cmdline_apply(const char *cmdline, struct config *c, struct error *e) {
        struct config next = *c;
        char word[1024];
        bool pools_seen = false, too_long;
        int n = 0, r = 0;

        /* Work on a copy of the pool list: @c stays as it was unless every word is good. */
        next.pools = NULL;
        next.n_pools = 0;
        for (size_t i = 0; i < c->n_pools && r >= 0; i++) {
                struct pool_spec spec = c->pools[i];

                r = amount_copy(&spec.amount, &c->pools[i].amount);
                if (r >= 0)
                        r = config_put_pool(&next, &spec);
        }
        for (const char *p = cmdline; r >= 0 && (p = next_word(p, word, sizeof(word), &too_long));) {
                char *eq;

                if (strcmp(word, "--") == 0)
                        break;
                if (strncmp(word, "hpfilld.", 8) != 0)
                        continue;
                n++;
                if (too_long) {
                        r = error_set(e, -E2BIG, WHERE ": '%.40s...' is too long", word);
                        break;
                }
                eq = strchr(word, '=');
                if (!eq) {
                        r = error_set(e, -EINVAL, WHERE ": '%s' has no value", word);
                        break;
                }
                *eq = 0;
                r = apply_word(word + 8, eq + 1, &next, &pools_seen, e);
        }
        if (r < 0) {
                config_drop_pools(&next);
                return r;
        }
        config_drop_pools(c);
        *c = next;
        return n;
}
