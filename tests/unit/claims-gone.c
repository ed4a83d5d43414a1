/* SPDX-License-Identifier: MIT */
/* claims-gone.h */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "claims-gone.h"
#include "settings/parse.h"

static bool amount_equal(const struct amount *a, const struct amount *b) {
        return a->kind == b->kind && a->value == b->value && a->n_nodes == b->n_nodes &&
               (a->n_nodes == 0 || memcmp(a->nodes, b->nodes, a->n_nodes * sizeof(*a->nodes)) == 0);
}

int claims_gone(const struct config *old, struct config *new) {
        for (size_t i = 0; i < old->n_claims; i++) {
                const struct claim_spec *o = &old->claims[i], *n;
                struct claim_spec *g;
                int r;

                n = claim_spec_find(new->claims, new->n_claims, o->name, o->page_size);
                if (n && amount_equal(&n->amount, &o->amount))
                        continue;
                g = realloc(new->gone, (new->n_gone + 1) * sizeof(*g));
                if (!g)
                        return -ENOMEM;
                new->gone = g;
                g = &new->gone[new->n_gone];
                *g = *o;
                r = amount_copy(&g->amount, &o->amount);
                if (r < 0)
                        return r;
                new->n_gone++;
        }
        return 0;
}
