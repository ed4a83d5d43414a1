/* SPDX-License-Identifier: MIT */
/* Claims in the state: their owner, their words, their want per node. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "settings/parse.h"
#include "state/claims.h"
#include "util/macro.h"

/* The want of @spec on each node of st->t (by index), and its page size */
static int spec_wants(struct state_store *st, const char *spec, uint64_t *ret_page_size, uint64_t *pages,
                      struct error *e) {
        _cleanup_(freep) bool *named = calloc(st->t->n_nodes + 1, sizeof(*named));
        struct claim_spec cl = {};
        struct pool_spec ps;
        int r;

        if (!named)
                return error_set(e, -ENOMEM, "out of memory");
        r = parse_pool_spec(spec, &ps, e);
        if (r < 0)
                return r;
        if (!topology_has_page_size(st->t, ps.page_size)) {
                amount_done(&ps.amount);
                return error_set(e, -EINVAL, "%s: this kernel offers no pages of that size", spec);
        }
        cl.page_size = ps.page_size;
        cl.amount = ps.amount;
        (void) snprintf(cl.origin, sizeof(cl.origin), "%s", spec);
        r = plan_claim_pages(st->t, &cl, pages, named, e);
        amount_done(&ps.amount);
        *ret_page_size = cl.page_size;
        return r;
}

/* The wants, page size by page size, all checked before any is set */
static int all_wants(struct state_store *st, char *const *specs, size_t n, uint64_t *sizes, uint64_t *pages,
                     struct error *e) {
        for (size_t k = 0; k < n; k++) {
                int r = spec_wants(st, specs[k], &sizes[k], pages + k * st->t->n_nodes, e);

                if (r < 0)
                        return r;
                for (size_t i = 0; i < k; i++)
                        if (sizes[i] == sizes[k])
                                return error_set(e, -EINVAL, "%s: a second pool of that page size", specs[k]);
        }
        return 0;
}

static int set_want(struct state_store *st, size_t owner, uint64_t page_size, unsigned node, uint64_t want) {
        struct state_share *sh;
        uint64_t now;
        int pool = state_pool_find(&st->s, page_size, node);

        if (pool < 0 && want == 0)
                return 0;
        if (pool < 0) {
                if (state_store_read_pool(st, page_size, node, &now) < 0)
                        now = 0;
                pool = state_pool_get(&st->s, page_size, node, now);
                if (pool < 0)
                        return pool;
        }
        sh = state_share(&st->s, (size_t) pool, owner, want > 0);
        if (sh)
                sh->want = want;
        return sh || want == 0 ? 0 : -ENOMEM;
}

int state_claim_set(struct state_store *st, const char *name, char *const *specs, size_t n, struct error *e) {
        _cleanup_(freep) uint64_t *pages = calloc(n * st->t->n_nodes + 1, sizeof(*pages));
        _cleanup_(freep) uint64_t *sizes = calloc(n + 1, sizeof(*sizes));
        char owner_name[STATE_OWNER_MAX], words[STATE_SPEC_MAX] = "";
        size_t len = 0;
        int o, r;

        if (!pages || !sizes)
                return error_set(e, -ENOMEM, "out of memory");
        r = all_wants(st, specs, n, sizes, pages, e);
        if (r < 0)
                return r;
        for (size_t k = 0; k < n; k++) {
                if (len + strlen(specs[k]) + 2 > sizeof(words))
                        return error_set(e, -EINVAL, "%s: more pools than a claim may have", specs[k]);
                len += (size_t) snprintf(words + len, sizeof(words) - len, "%s%s", len ? " " : "", specs[k]);
        }
        o = state_owner_find(&st->s, state_claim_owner(owner_name, name));
        if (o < 0 && st->s.n_owners >= STATE_CLAIMS_MAX)
                return error_set(e, -EUSERS, "claim %s: %u claims already, the most there may be (hpfilld unclaim NAME "
                                 "gives one back)", name, STATE_CLAIMS_MAX);
        o = state_owner_get(&st->s, owner_name);
        if (o < 0)
                return error_set(e, o, "claim %s: %s", name, o == -ENOMEM ? "out of memory" : "not a claim's name");
        st->s.owners[o].gone = false;
        memcpy(st->s.owners[o].spec, words, len + 1);
        /* what it asked of before and no longer does: 0 */
        for (size_t i = 0; i < st->s.n_shares; i++)
                if (st->s.shares[i].owner == (size_t) o)
                        st->s.shares[i].want = 0;
        for (size_t k = 0; k < n; k++)
                for (size_t i = 0; i < st->t->n_nodes; i++) {
                        r = set_want(st, (size_t) o, sizes[k], st->t->nodes[i].id, pages[k * st->t->n_nodes + i]);
                        if (r < 0)
                                return error_set(e, r, "out of memory");
                }
        return o;
}

int state_claim_drop(struct state_store *st, const char *name) {
        char owner_name[STATE_OWNER_MAX];
        int o = state_owner_find(&st->s, state_claim_owner(owner_name, name));

        if (o < 0)
                return o;
        st->s.owners[o].gone = true;
        for (size_t i = 0; i < st->s.n_shares; i++)
                if (st->s.shares[i].owner == (size_t) o)
                        st->s.shares[i].want = 0;
        return o;
}
