/* SPDX-License-Identifier: MIT */
/* A fill's plan with whose pages it moves (job_plan.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plan/budget.h"
#include "service/job_plan.h"
#include "util/macro.h"

/* Claim owner @o of @s as a [Claim] of its wants, node by node, for the pools of @page_size */
static int claim_spec_of(const struct state *s, const struct topology *t, size_t o, uint64_t page_size,
                         struct claim_spec *ret) {
        struct claim_spec cl = { .page_size = page_size, .amount = { .kind = AMOUNT_PER_NODE } };
        const char *name = s->owners[o].name + strlen(STATE_CLAIM_PREFIX);

        cl.amount.nodes = calloc(t->n_nodes + 1, sizeof(*cl.amount.nodes));
        if (!cl.amount.nodes)
                return -ENOMEM;
        /* the nodes it asks pages of, and those where it holds more than it asks (a claim made
         * smaller gives them back) */
        for (size_t i = 0; i < t->n_nodes; i++) {
                int p = state_pool_find(s, page_size, t->nodes[i].id);
                uint64_t want = p < 0 ? 0 : state_want(s, (size_t) p, o);

                if (want > 0 || (p >= 0 && state_held(s, (size_t) p, o) > 0))
                        cl.amount.nodes[cl.amount.n_nodes++] = (struct node_amount) { t->nodes[i].id, false, want };
        }
        (void) snprintf(cl.name, sizeof(cl.name), "%s", name);
        (void) snprintf(cl.origin, sizeof(cl.origin), "claim %s (hpfilld claim %s --pool %.64s)", name, name,
                        s->owners[o].spec);
        *ret = cl;
        return cl.amount.n_nodes > 0 ? 1 : 0;
}

int job_plan_config(const struct config *c, const struct state *s, const struct topology *t, const char *only,
                    struct config *ret) {
        size_t n = 0;
        int r = 0;

        *ret = *c;
        ret->claims = calloc(c->n_claims + s->n_owners * t->n_page_sizes + 1, sizeof(*ret->claims));
        if (!ret->claims)
                return -ENOMEM;
        if (c->n_claims > 0)
                memcpy(ret->claims, c->claims, c->n_claims * sizeof(*c->claims));
        n = c->n_claims;
        for (size_t o = 0; r >= 0 && o < s->n_owners; o++) {
                if (s->owners[o].kind != OWNER_CLAIM || s->owners[o].gone ||
                    (only && strcmp(s->owners[o].name + strlen(STATE_CLAIM_PREFIX), only) != 0))
                        continue;
                for (size_t k = 0; r >= 0 && k < t->n_page_sizes; k++) {
                        r = claim_spec_of(s, t, o, t->page_sizes[k], &ret->claims[n]);
                        if (r > 0)
                                n++;
                        else
                                amount_done(&ret->claims[n].amount);
                }
        }
        ret->n_claims = n;
        if (r < 0)
                job_plan_config_done(ret, c);
        return r < 0 ? r : 0;
}

void job_plan_config_done(struct config *c, const struct config *orig) {
        for (size_t i = orig->n_claims; i < c->n_claims; i++)
                amount_done(&c->claims[i].amount);
        free(c->claims);
        c->claims = NULL;
        c->n_claims = 0;
}

void job_plan_done(struct job_plan *jp) {
        for (size_t i = 0; i < jp->n_intents; i++)
                state_intent_done(&jp->intents[i]);
        free(jp->intents);
        plan_done(&jp->plan);
        *jp = (struct job_plan) {};
}

/* The wants of the fill's owner on plan node @n of @pp, from the planner's target: the
 * configuration's less what the state's claims add there (job_plan_config() put them in), a
 * one-off run's as it is; a claim's are set already */
static int set_want(struct state_store *st, size_t pool, enum state_fill kind, size_t owner, uint64_t target) {
        struct state_share *sh;
        uint64_t claims = 0;

        if (kind == STATE_FILL_CLAIM)
                return 0;
        for (size_t o = 0; kind == STATE_FILL_CONFIG && o < st->s.n_owners; o++)
                if (st->s.owners[o].kind == OWNER_CLAIM)
                        claims += state_want(&st->s, pool, o);
        sh = state_share(&st->s, pool, owner, true);
        if (!sh)
                return -ENOMEM;
        sh->want = target - MIN(target, claims);
        return 0;
}

/* Node @n as the intent moves it. One that does not move is at its target, or larger: a
 * claim's target is what the pool holds then (its pages are on top of whatever others have) */
static void node_set(struct plan_node *n, const struct state_intent *in, enum state_fill kind) {
        n->promote = n->kept = 0;
        if (in->to != in->from) {
                if (in->to < in->from && in->to > n->target)
                        n->kept = in->to - n->target;
                n->target = in->to;
                n->action = in->to > in->from ? PLAN_GROW : PLAN_SHRINK;
                if (n->action == PLAN_GROW)
                        n->promote = MIN(n->surplus, in->to - n->now);
                return;
        }
        if (kind == STATE_FILL_CLAIM)
                n->target = n->now;
        n->action = n->now > n->target ? PLAN_LARGER : PLAN_KEEP;
}

static int add_intent(struct job_plan *jp, const struct state_intent *in) {
        struct state_intent *a = realloc(jp->intents, (jp->n_intents + 1) * sizeof(*a));

        if (!a)
                return -ENOMEM;
        jp->intents = a;
        jp->intents[jp->n_intents++] = *in;
        return 0;
}

/* The claims that get pages of @pool by intent @in: marked (state_claim_mark()) */
static int mark_claims(struct state *s, size_t pool, const struct state_intent *in, uint64_t in_use) {
        int r = 0;

        for (size_t i = 0; r >= 0 && i < in->n_parts; i++)
                if (s->owners[in->parts[i].owner].kind == OWNER_CLAIM && in->parts[i].pages > 0)
                        r = state_claim_mark(s, pool, in->parts[i].owner, in_use);
        return r;
}

/* Pool @pp: each node's want set and its change made */
static int own_pool(struct state_store *st, const struct pool_counts *counts, struct plan_pool *pp,
                    enum state_fill kind, size_t owner, bool shrink, struct job_plan *jp) {
        const struct topology *t = st->t;
        size_t si = 0;

        while (si < t->n_page_sizes && t->page_sizes[si] != pp->page_size)
                si++;
        pp->target_total = 0;
        for (size_t k = 0; k < pp->n_nodes; k++) {
                struct plan_node *n = &pp->nodes[k];
                const struct pool_counts *pc = &counts[si * t->n_nodes + n->node_idx];
                struct state_fill_node fn = { .now = n->now, .shrink = shrink };
                struct state_intent in = {};
                int pool, r;

                pool = state_pool_get(&st->s, pp->page_size, n->node, n->now);
                r = pool < 0 ? pool : set_want(st, (size_t) pool, kind, owner, n->target);
                if (r >= 0) {
                        /* a claim made smaller gives back its own free pages, no other claim's */
                        fn.givable = MIN(n->now, state_givable(&st->s, (size_t) pool, pc->nr, pc->free, pc->resv, &owner,
                                                               kind == STATE_FILL_CLAIM ? 1 : 0));
                        r = state_fill_intent(&st->s, (size_t) pool, kind, owner, &fn, &in);
                }
                if (r >= 0 && in.to > in.from)
                        r = mark_claims(&st->s, (size_t) pool, &in, pc->nr - MIN(pc->nr, pc->free));
                if (r < 0) {
                        state_intent_done(&in);
                        return r;
                }
                node_set(n, &in, kind);
                pp->target_total += n->target;
                if (in.to != in.from)
                        r = add_intent(jp, &in);
                else
                        state_intent_done(&in);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The configuration asks nothing of the pools it no longer plans */
static void config_wants_elsewhere(struct state_store *st, const struct plan *p, size_t owner) {
        for (size_t i = 0; i < st->s.n_shares; i++) {
                struct state_share *sh = &st->s.shares[i];
                const struct state_pool *sp = &st->s.pools[sh->pool];
                bool planned = false;

                if (sh->owner != owner)
                        continue;
                for (size_t k = 0; k < p->n_pools && !planned; k++)
                        for (size_t j = 0; j < p->pools[k].n_nodes && !planned; j++)
                                planned = p->pools[k].page_size == sp->page_size && p->pools[k].nodes[j].node == sp->node;
                if (!planned)
                        sh->want = 0;
        }
}

int job_plan_build(struct state_store *st, const struct pool_counts *counts, const struct config *c,
                   const struct kernel_features *caps, enum state_fill kind, size_t owner, struct job_plan *ret,
                   struct error *e) {
        struct job_plan jp = {};
        int r;

        r = plan_build(st->t, counts, c, caps, &jp.plan, e);
        if (r < 0)
                return r;
        if (kind == STATE_FILL_CONFIG)
                config_wants_elsewhere(st, &jp.plan, owner);
        for (size_t i = 0; r >= 0 && i < jp.plan.n_pools; i++)
                r = own_pool(st, counts, &jp.plan.pools[i], kind, owner, c->shrink, &jp);
        if (r == -ENOMEM)
                (void) error_set(e, r, "Out of memory");
        /* the claims' pages on top of others' may not fit where the planner's targets did */
        if (r >= 0) {
                r = plan_check_budget(st->t, counts, &jp.plan, e);
                jp.plan.needs_uncounted = r > 0;
        }
        if (r < 0) {
                job_plan_done(&jp);
                return r;
        }
        *ret = jp;
        return 0;
}
