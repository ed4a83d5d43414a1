/* SPDX-License-Identifier: MIT */
/* hpfilld.* settings on the kernel command line, so an initramfs needs no configuration file. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "settings/cmdline.h"
#include "settings/settings.h"
#include "util/cmdline_words.h"

#define WHERE "kernel command line"

static int apply_pool(const char *value, struct config *layer, struct error *e) {
        struct pool_spec spec;
        char name[32];
        int r;

        r = parse_pool_spec(value, &spec, e);
        if (r < 0)
                return error_prefix(e, r, WHERE ": hpfilld.pool=%s", value);
        (void) snprintf(spec.origin, sizeof(spec.origin), WHERE ": hpfilld.pool=%s", value);
        if (pool_spec_find(layer->pools, layer->n_pools, spec.page_size)) {
                amount_done(&spec.amount);
                return error_set(e, -EINVAL, WHERE ": hpfilld.pool=%s: a second pool of page size %s", value,
                                 page_size_name(spec.page_size, name));
        }
        return config_put_pool(layer, &spec);
}

static int apply_word(const char *key, const char *value, struct config *layer, struct error *e) {
        const struct setting *s;
        const char *words[32] = { "pool" }, *close;
        size_t n = 1;

        if (strcmp(key, "pool") == 0)
                return apply_pool(value, layer, e);
        s = setting_by_word(key);
        if (s)
                return setting_apply(s, SOURCE_CMDLINE, NULL, value, layer, e);
        for (size_t i = 0; i < settings_count && n < ELEMENTSOF(words); i++)
                if (settings_table[i].word)
                        words[n++] = settings_table[i].word;
        close = name_closest(key, words, n);
        if (close && strcasecmp(close, key) == 0)
                return error_set(e, -EINVAL,
                                 WHERE ": unknown setting 'hpfilld.%.64s'; names are case-sensitive: did you mean 'hpfilld.%s'?",
                                 key, close);
        if (close)
                return error_set(e, -EINVAL, WHERE ": unknown setting 'hpfilld.%.64s'; did you mean 'hpfilld.%s'?", key,
                                 close);
        return error_set(e, -EINVAL, WHERE ": unknown setting 'hpfilld.%.64s'", key);
}

int cmdline_apply(const char *cmdline, struct config *c, struct error *e) {
        _cleanup_(freep) char *word = NULL;
        struct config layer = {};
        int n = 0, r = 0;

        /* a word is never longer than the line: no limit on either */
        word = malloc(strlen(cmdline) + 1);
        if (!word)
                return -ENOMEM;
        for (const char *p = cmdline; r >= 0 && (p = cmdline_next_word(p, word));) {
                char *eq;

                if (strcmp(word, "--") == 0)
                        break;
                if (strncmp(word, "hpfilld.", 8) != 0)
                        continue;
                n++;
                eq = strchr(word, '=');
                if (!eq) {
                        r = error_set(e, -EINVAL, WHERE ": '%s' has no value", word);
                        break;
                }
                *eq = 0;
                r = apply_word(word + 8, eq + 1, &layer, e);
        }
        if (r < 0) {
                config_drop_pools(&layer);
                return r;
        }
        /* The whole line was understood: a layer on top of @c. Its pools replace @c's. */
        config_merge_settings(c, &layer);
        if (layer.n_pools > 0) {
                config_drop_pools(c);
                c->pools = TAKE_PTR(layer.pools);
                c->n_pools = layer.n_pools;
        }
        return n;
}
