/* SPDX-License-Identifier: MIT */
/* Whose pages are whose: the owners, their shares of each pool, and how the pool's count moves
 * them. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "settings/parse.h"
#include "state/model.h"
#include "util/macro.h"

void state_intent_done(struct state_intent *in) {
        free(in->parts);
        in->parts = NULL;
        in->n_parts = 0;
}

void state_done(struct state *s) {
        for (size_t i = 0; i < s->n_intents; i++)
                state_intent_done(&s->intents[i]);
        free(s->intents);
        free(s->owners);
        free(s->pools);
        free(s->shares);
        free(s->settings);
        free(s->reserves);
        fill_record_done(&s->record);
        *s = (struct state) {};
}

int state_owner_kind(const char *name) {
        static const char *const fixed[] = { [OWNER_CONFIG] = "config", [OWNER_ONCE] = "once", [OWNER_BENCH] = "bench" };
        size_t k = strlen(STATE_CLAIM_PREFIX);

        for (size_t i = 0; i < ELEMENTSOF(fixed); i++)
                if (strcmp(name, fixed[i]) == 0)
                        return (int) i;
        if (strncmp(name, STATE_CLAIM_PREFIX, k) != 0 || check_name(name + k, "claim", NULL) < 0)
                return -EINVAL;
        return OWNER_CLAIM;
}

const char *state_claim_owner(char *buf, const char *claim) {
        (void) snprintf(buf, STATE_OWNER_MAX, STATE_CLAIM_PREFIX "%.63s", claim);
        return buf;
}

int state_owner_find(const struct state *s, const char *name) {
        for (size_t i = 0; i < s->n_owners; i++)
                if (strcmp(s->owners[i].name, name) == 0)
                        return (int) i;
        return -ENOENT;
}

int state_owner_get(struct state *s, const char *name) {
        struct state_owner *o;
        int kind, i = state_owner_find(s, name);

        if (i >= 0)
                return i;
        kind = state_owner_kind(name);
        if (kind < 0)
                return kind;
        o = GROW(s->owners, s->n_owners);
        if (!o)
                return -ENOMEM;
        *o = (struct state_owner) { .kind = (enum owner_kind) kind, .seq = ++s->next_seq };
        memcpy(o->name, name, strlen(name) + 1);
        return (int) s->n_owners - 1;
}

int state_pool_find(const struct state *s, uint64_t page_size, unsigned node) {
        for (size_t i = 0; i < s->n_pools; i++)
                if (s->pools[i].page_size == page_size && s->pools[i].node == node)
                        return (int) i;
        return -ENOENT;
}

int state_pool_get(struct state *s, uint64_t page_size, unsigned node, uint64_t persistent) {
        struct state_pool *p;
        int i = state_pool_find(s, page_size, node);

        if (i >= 0)
                return i;
        p = GROW(s->pools, s->n_pools);
        if (!p)
                return -ENOMEM;
        *p = (struct state_pool) { .page_size = page_size, .node = node, .last = persistent };
        return (int) s->n_pools - 1;
}

struct state_share *state_share(struct state *s, size_t pool, size_t owner, bool add) {
        struct state_share *sh;

        for (size_t i = 0; i < s->n_shares; i++)
                if (s->shares[i].pool == pool && s->shares[i].owner == owner)
                        return &s->shares[i];
        if (!add)
                return NULL;
        sh = GROW(s->shares, s->n_shares);
        if (sh)
                *sh = (struct state_share) { .pool = pool, .owner = owner };
        return sh;
}

uint64_t state_held(const struct state *s, size_t pool, size_t owner) {
        const struct state_share *sh = state_share((struct state *) s, pool, owner, false);

        return sh ? sh->held : 0;
}

uint64_t state_want(const struct state *s, size_t pool, size_t owner) {
        const struct state_share *sh = state_share((struct state *) s, pool, owner, false);

        return sh && !s->owners[owner].gone ? sh->want : 0;
}

/* Pages of @pool held (@want: wanted) by the owners of @kind (-1: by all); the gone ones hold
 * pages but want none */
static uint64_t sum_of(const struct state *s, size_t pool, int kind, bool want) {
        uint64_t sum = 0;

        for (size_t i = 0; i < s->n_shares; i++) {
                const struct state_owner *o = &s->owners[s->shares[i].owner];

                if (s->shares[i].pool == pool && (kind < 0 || (int) o->kind == kind) && !(want && o->gone))
                        sum += want ? s->shares[i].want : s->shares[i].held;
        }
        return sum;
}

uint64_t state_held_total(const struct state *s, size_t pool) {
        return sum_of(s, pool, -1, false);
}

uint64_t state_pool_target(const struct state *s, size_t pool) {
        return MAX(sum_of(s, pool, OWNER_CONFIG, true), sum_of(s, pool, OWNER_ONCE, true)) +
               sum_of(s, pool, OWNER_CLAIM, true);
}

/* The pages of @pool no claim (nor bench) holds: what the configuration's and the one-off runs'
 * targets count, the claims' pages being on top of them */
static uint64_t unclaimed(const struct state *s, size_t pool, uint64_t now) {
        uint64_t claimed = sum_of(s, pool, OWNER_CLAIM, false) + sum_of(s, pool, OWNER_BENCH, false);

        return now - MIN(now, claimed);
}

/* Where an owner stands when pages leave that nobody asked hpfilld to give back: the gone and
 * bench's first (they are leaving anyway), then the one-off runs', the configuration's, and the
 * claims' last, newest first (a claim is a promise to a consumer that is still to come). */
static int loss_rank(const struct state_owner *o) {
        if (o->gone || o->kind == OWNER_BENCH)
                return 0;
        return o->kind == OWNER_ONCE ? 1 : o->kind == OWNER_CONFIG ? 2 : 3;
}

static bool loses_before(const struct state_owner *a, const struct state_owner *b) {
        int ra = loss_rank(a), rb = loss_rank(b);

        return ra != rb ? ra < rb : a->seq > b->seq;
}

uint64_t state_see(struct state *s, size_t pool, uint64_t persistent) {
        uint64_t held = state_held_total(s, pool), taken = 0;
        /* what the owners lose: what left since, and anything they would hold beyond the pool */
        uint64_t lose = s->pools[pool].last > persistent ? s->pools[pool].last - persistent : 0;

        if (held > persistent)
                lose = MAX(lose, held - persistent);
        while (lose > 0) {
                struct state_share *first = NULL;

                for (size_t i = 0; i < s->n_shares; i++) {
                        struct state_share *sh = &s->shares[i];

                        if (sh->pool == pool && sh->held > 0 &&
                            (!first || loses_before(&s->owners[sh->owner], &s->owners[first->owner])))
                                first = sh;
                }
                if (!first)
                        break;
                uint64_t k = MIN(lose, first->held);
                first->held -= k;
                lose -= k;
                taken += k;
        }
        s->pools[pool].last = persistent;
        return taken;
}

int state_intent_find(const struct state *s, size_t pool) {
        for (size_t i = 0; i < s->n_intents; i++)
                if (s->intents[i].pool == pool)
                        return (int) i;
        return -ENOENT;
}

int state_intent_add(struct state *s, const struct state_intent *in) {
        struct state_intent *a, copy = *in;

        copy.parts = calloc(in->n_parts + 1, sizeof(*copy.parts));
        if (!copy.parts)
                return -ENOMEM;
        memcpy(copy.parts, in->parts, in->n_parts * sizeof(*in->parts));
        a = GROW(s->intents, s->n_intents);
        if (!a) {
                free(copy.parts);
                return -ENOMEM;
        }
        *a = copy;
        return 0;
}

uint64_t state_intent_settle(struct state *s, size_t i, uint64_t persistent) {
        struct state_intent in = s->intents[i];
        bool grow = in.to > in.from;
        uint64_t span = grow ? in.to - in.from : in.from - in.to;
        uint64_t moved = grow ? (persistent > in.from ? persistent - in.from : 0)
                              : (persistent < in.from ? in.from - persistent : 0);
        uint64_t left;

        moved = MIN(moved, span);
        left = moved;
        for (size_t k = 0; k < in.n_parts && left > 0; k++) {
                struct state_share *sh = state_share(s, in.pool, in.parts[k].owner, grow);
                uint64_t m;

                if (!sh)
                        continue; /* growing: out of memory for the share, the pages stay nobody's */
                m = MIN(left, grow ? in.parts[k].pages : MIN(in.parts[k].pages, sh->held));
                sh->held = grow ? sh->held + m : sh->held - m;
                left -= m;
        }
        s->pools[in.pool].last = grow ? in.from + moved : in.from - moved;
        state_intent_done(&s->intents[i]);
        s->intents[i] = s->intents[--s->n_intents];
        /* anything beyond the intent (a drop meanwhile) is seen as anybody's change */
        (void) state_see(s, in.pool, persistent);
        return moved;
}

static int part_add(struct state_intent *in, size_t owner, uint64_t pages) {
        struct state_part *p;

        if (pages == 0)
                return 0;
        p = GROW(in->parts, in->n_parts);
        if (!p)
                return -ENOMEM;
        *p = (struct state_part) { owner, pages };
        return 0;
}

/* Owners of @kind (active ones) in the order they were made */
static size_t owners_by_seq(const struct state *s, enum owner_kind kind, bool gone, size_t *ret) {
        size_t n = 0;

        for (size_t i = 0; i < s->n_owners; i++)
                if ((gone ? s->owners[i].gone || s->owners[i].kind == OWNER_BENCH
                          : !s->owners[i].gone && s->owners[i].kind == kind))
                        ret[n++] = i;
        for (size_t i = 1; i < n; i++)
                for (size_t k = i; k > 0 && s->owners[ret[k]].seq < s->owners[ret[k - 1]].seq; k--) {
                        size_t t = ret[k];
                        ret[k] = ret[k - 1];
                        ret[k - 1] = t;
                }
        return n;
}

/* What @pool grows by for the fill: each owner's lack, in order, as parts */
static int fill_grow(const struct state *s, size_t pool, enum state_fill kind, size_t owner, uint64_t now,
                     size_t *order, struct state_intent *in) {
        uint64_t want = state_want(s, pool, owner), held = state_held(s, pool, owner), others;
        size_t n;
        int r;

        if (kind == STATE_FILL_CLAIM)
                return part_add(in, owner, want > held ? want - held : 0);
        /* the configuration's or a one-off run's target over the pages no claim holds */
        others = unclaimed(s, pool, now);
        r = part_add(in, owner, want > others ? want - others : 0);
        if (kind == STATE_FILL_ONCE)
                return r;
        /* the configuration's fill brings every claim back to what it asks, on top */
        n = owners_by_seq(s, OWNER_CLAIM, false, order);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                uint64_t w = state_want(s, pool, order[i]), h = state_held(s, pool, order[i]);
                r = part_add(in, order[i], w > h ? w - h : 0);
        }
        return r;
}

/* Of claim share @sh's pages, those that may be in use: at most the pages that went into use
 * since its mark */
static uint64_t claim_maybe_in_use(const struct state_share *sh, uint64_t in_use) {
        return MIN(sh->held, in_use > sh->mark ? in_use - sh->mark : 0);
}

uint64_t state_claims_free(const struct state *s, size_t pool, uint64_t in_use, const size_t *except, size_t n_except) {
        uint64_t sum = 0;

        for (size_t i = 0; i < s->n_shares; i++) {
                const struct state_share *sh = &s->shares[i];
                const struct state_owner *o = &s->owners[sh->owner];
                bool skip = sh->pool != pool || o->kind != OWNER_CLAIM || o->gone;

                for (size_t k = 0; !skip && k < n_except; k++)
                        skip = except[k] == sh->owner;
                if (!skip)
                        sum += sh->held - claim_maybe_in_use(sh, in_use);
        }
        return sum;
}

uint64_t state_givable(const struct state *s, size_t pool, uint64_t nr, uint64_t free, uint64_t resv,
                       const size_t *except, size_t n_except) {
        uint64_t kept = resv + state_claims_free(s, pool, nr > free ? nr - free : 0, except, n_except);

        return free > kept ? free - kept : 0;
}

int state_claim_mark(struct state *s, size_t pool, size_t owner, uint64_t in_use) {
        struct state_share *sh = state_share(s, pool, owner, true);

        if (!sh)
                return -ENOMEM;
        sh->mark = in_use - claim_maybe_in_use(sh, in_use);
        return 0;
}

/* The fill's own pages beyond its target, which may leave */
static uint64_t fill_excess(const struct state *s, size_t pool, enum state_fill kind, size_t owner, uint64_t now,
                            bool shrink) {
        uint64_t want = state_want(s, pool, owner), held = state_held(s, pool, owner), others;

        /* a claim made smaller gives back what it holds beyond, with or without --shrink */
        if (kind == STATE_FILL_CLAIM)
                return held > want ? held - want : 0;
        others = unclaimed(s, pool, now);
        return shrink && others > want ? MIN(held, others - want) : 0;
}

int state_fill_intent(const struct state *s, size_t pool, enum state_fill kind, size_t owner,
                      const struct state_fill_node *n, struct state_intent *ret) {
        _cleanup_(freep) size_t *order = calloc(s->n_owners + 1, sizeof(*order));
        struct state_intent in = { .pool = pool, .from = n->now, .to = n->now };
        uint64_t give = n->givable, total = 0;
        size_t k;
        int r;

        if (!order)
                return -ENOMEM;
        r = fill_grow(s, pool, kind, owner, n->now, order, &in);
        for (size_t i = 0; r >= 0 && i < in.n_parts; i++)
                total += in.parts[i].pages;
        if (r >= 0 && total > 0) {
                in.to = n->now + total;
                *ret = in;
                return 0;
        }
        /* nothing to add: what may leave does, the gone owners' first, then the fill's own */
        k = owners_by_seq(s, OWNER_CLAIM, true, order);
        for (size_t i = 0; r >= 0 && i < k && give > 0; i++) {
                uint64_t m = MIN(give, state_held(s, pool, order[i]));
                r = part_add(&in, order[i], m);
                give -= m;
        }
        if (r >= 0 && give > 0 && !s->owners[owner].gone) {
                uint64_t m = MIN(give, fill_excess(s, pool, kind, owner, n->now, n->shrink));
                r = part_add(&in, owner, m);
                give -= m;
        }
        if (r < 0) {
                state_intent_done(&in);
                return r;
        }
        in.to = n->now - (n->givable - give);
        *ret = in;
        return 0;
}

int state_give_back_intent(const struct state *s, size_t pool, const size_t *owners, size_t n, uint64_t givable,
                           struct state_intent *ret) {
        struct state_intent in = { .pool = pool, .from = s->pools[pool].last };
        uint64_t give = givable;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n && give > 0; i++) {
                uint64_t m = MIN(give, state_held(s, pool, owners[i]));
                r = part_add(&in, owners[i], m);
                give -= m;
        }
        if (r < 0) {
                state_intent_done(&in);
                return r;
        }
        in.to = in.from - (givable - give);
        *ret = in;
        return 0;
}

/* Whether a share or an intent names owner @o */
static bool owner_named(const struct state *s, size_t o) {
        for (size_t i = 0; i < s->n_shares; i++)
                if (s->shares[i].owner == o)
                        return true;
        for (size_t i = 0; i < s->n_intents; i++)
                for (size_t k = 0; k < s->intents[i].n_parts; k++)
                        if (s->intents[i].parts[k].owner == o)
                                return true;
        return false;
}

/* Owner @o removed (nothing names it): the indices after it move down */
static void owner_remove(struct state *s, size_t o) {
        for (size_t i = 0; i < s->n_shares; i++)
                if (s->shares[i].owner > o)
                        s->shares[i].owner--;
        for (size_t i = 0; i < s->n_intents; i++)
                for (size_t k = 0; k < s->intents[i].n_parts; k++)
                        if (s->intents[i].parts[k].owner > o)
                                s->intents[i].parts[k].owner--;
        memmove(s->owners + o, s->owners + o + 1, (s->n_owners - o - 1) * sizeof(*s->owners));
        s->n_owners--;
}

/* Pool @p removed (it has no shares and no intent) */
static void pool_remove(struct state *s, size_t p) {
        for (size_t i = 0; i < s->n_shares; i++)
                if (s->shares[i].pool > p)
                        s->shares[i].pool--;
        for (size_t i = 0; i < s->n_intents; i++)
                if (s->intents[i].pool > p)
                        s->intents[i].pool--;
        memmove(s->pools + p, s->pools + p + 1, (s->n_pools - p - 1) * sizeof(*s->pools));
        s->n_pools--;
}

void state_owners_tidy(struct state *s) {
        for (size_t i = 0; i < s->n_shares;)
                if (s->shares[i].held == 0 && (s->shares[i].want == 0 || s->owners[s->shares[i].owner].gone))
                        s->shares[i] = s->shares[--s->n_shares];
                else
                        i++;
        /* an active claim stays until it is given back, whatever it holds */
        for (size_t o = s->n_owners; o-- > 0;)
                if (!owner_named(s, o) && (s->owners[o].kind != OWNER_CLAIM || s->owners[o].gone))
                        owner_remove(s, o);
        for (size_t p = s->n_pools; p-- > 0;) {
                bool any = state_intent_find(s, p) >= 0;

                for (size_t i = 0; i < s->n_shares && !any; i++)
                        any = s->shares[i].pool == p;
                if (!any)
                        pool_remove(s, p);
        }
}

int state_setting_find(const struct state *s, const char *path) {
        for (size_t i = 0; i < s->n_settings; i++)
                if (strcmp(s->settings[i].path, path) == 0)
                        return (int) i;
        return -ENOENT;
}

int state_setting_add(struct state *s, const char *path, uint64_t found, uint64_t set) {
        struct state_setting *a;
        int i = state_setting_find(s, path);

        if (strlen(path) >= STATE_PATH_MAX)
                return -ENAMETOOLONG;
        if (i >= 0) {
                /* raised again: what to put back is still what was found first */
                s->settings[i].set = set;
                return 0;
        }
        a = GROW(s->settings, s->n_settings);
        if (!a)
                return -ENOMEM;
        *a = (struct state_setting) { .found = found, .set = set };
        memcpy(a->path, path, strlen(path) + 1);
        return 0;
}

void state_setting_remove(struct state *s, size_t i) {
        memmove(s->settings + i, s->settings + i + 1, (s->n_settings - i - 1) * sizeof(*s->settings));
        s->n_settings--;
}

int state_reserve_find(const struct state *s, const char *name, uint64_t page_size) {
        for (size_t i = 0; i < s->n_reserves; i++)
                if (strcmp(s->reserves[i].name, name) == 0 && s->reserves[i].page_size == page_size)
                        return (int) i;
        return -ENOENT;
}

int state_reserve_add(struct state *s, const struct state_reserve *r) {
        struct state_reserve *a;
        int i = state_reserve_find(s, r->name, r->page_size);

        if (i >= 0) {
                s->reserves[i] = *r;
                return 0;
        }
        a = GROW(s->reserves, s->n_reserves);
        if (!a)
                return -ENOMEM;
        *a = *r;
        return 0;
}

void state_reserve_remove(struct state *s, size_t i) {
        memmove(s->reserves + i, s->reserves + i + 1, (s->n_reserves - i - 1) * sizeof(*s->reserves));
        s->n_reserves--;
}
