/* SPDX-License-Identifier: MIT */
/* The model of whose pages are whose (state/model.h) and its text (state/text.h): tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/model.h"
#include "state/text.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)

/* A pool of 2M pages on node 0 seen at @last, with owners holding and wanting as given */
static size_t pool_with(struct state *s, uint64_t last) {
        int p = state_pool_get(s, 2 * MB, 0, last);

        CHECK(p >= 0);
        return (size_t) p;
}

static size_t owner(struct state *s, const char *name) {
        int o = state_owner_get(s, name);

        CHECK(o >= 0);
        return (size_t) o;
}

static void share(struct state *s, size_t pool, size_t o, uint64_t held, uint64_t want) {
        struct state_share *sh = state_share(s, pool, o, true);

        CHECK(sh);
        sh->held = held;
        sh->want = want;
}

TEST(test_owner_names) {
        CHECK_EQ(state_owner_kind("config"), OWNER_CONFIG);
        CHECK_EQ(state_owner_kind("once"), OWNER_ONCE);
        CHECK_EQ(state_owner_kind("bench"), OWNER_BENCH);
        CHECK_EQ(state_owner_kind("claim:vm1"), OWNER_CLAIM);
        CHECK_EQ(state_owner_kind("claim:lock"), OWNER_CLAIM);
        /* nothing a name may be turns into a path or another owner */
        CHECK(state_owner_kind("claim:") < 0);
        CHECK(state_owner_kind("claim:.x") < 0);
        CHECK(state_owner_kind("claim:a/b") < 0);
        CHECK(state_owner_kind("claim:a b") < 0);
        CHECK(state_owner_kind("claim:a=b") < 0);
        CHECK(state_owner_kind("Config") < 0);
        CHECK(state_owner_kind("claim:0123456789012345678901234567890123456789012345678901234567890123") < 0);
}

/* A drop is taken from hpfilld's owners, never more than they hold, in the documented order:
 * gone and bench, one-off, configuration, claims newest first */
TEST(test_see_order) {
        struct state s = {};
        size_t p = pool_with(&s, 100);
        size_t cfg = owner(&s, "config"), x = owner(&s, "claim:x"), y = owner(&s, "claim:y"), once = owner(&s, "once"),
               gone = owner(&s, "claim:g");

        s.owners[gone].gone = true;
        share(&s, p, cfg, 10, 10);
        share(&s, p, x, 20, 20);
        share(&s, p, y, 20, 20);
        share(&s, p, once, 5, 5);
        share(&s, p, gone, 3, 0);
        /* others hold 42 */
        CHECK_EQ(state_see(&s, p, 95), 5);
        CHECK_EQ(state_held(&s, p, gone), 0);
        CHECK_EQ(state_held(&s, p, once), 3);
        CHECK_EQ(state_see(&s, p, 80), 15);
        CHECK_EQ(state_held(&s, p, once), 0);
        CHECK_EQ(state_held(&s, p, cfg), 0);
        CHECK_EQ(state_held(&s, p, y), 18); /* y is newer than x: it loses first */
        CHECK_EQ(state_held(&s, p, x), 20);
        /* up again: others' */
        CHECK_EQ(state_see(&s, p, 90), 0);
        CHECK_EQ(state_held_total(&s, p), 38);
        /* a drop of all: never more than they hold, never below zero */
        CHECK_EQ(state_see(&s, p, 0), 38);
        CHECK_EQ(state_held_total(&s, p), 0);
        CHECK_EQ(s.pools[p].last, 0);
        state_done(&s);
}

/* Finding 8: a drop is charged once; the next fill gives the pages back to who lacks them */
TEST(test_drop_charged_once) {
        struct state s = {};
        size_t p = pool_with(&s, 50);
        size_t cfg = owner(&s, "config"), x = owner(&s, "claim:x"), y = owner(&s, "claim:y");
        struct state_fill_node n = { .now = 45 };
        struct state_intent in;

        share(&s, p, cfg, 10, 10);
        share(&s, p, x, 20, 20);
        share(&s, p, y, 20, 20);
        CHECK_EQ(state_see(&s, p, 45), 5);
        CHECK_EQ(state_held(&s, p, cfg), 5);
        /* seen again at the same count: nothing more */
        CHECK_EQ(state_see(&s, p, 45), 0);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CONFIG, cfg, &n, &in), 0);
        CHECK_EQ(in.from, 45);
        CHECK_EQ(in.to, 50);
        CHECK_EQ(in.n_parts, 1);
        CHECK_EQ(in.parts[0].owner, cfg);
        CHECK_EQ(in.parts[0].pages, 5);
        CHECK_EQ(state_intent_add(&s, &in), 0);
        state_intent_done(&in);
        CHECK_EQ(state_intent_settle(&s, 0, 50), 5);
        CHECK_EQ(state_held(&s, p, cfg), 10);
        CHECK_EQ(state_held(&s, p, x), 20);
        CHECK_EQ(state_held(&s, p, y), 20);
        state_done(&s);
}

/* The configuration's target counts every page no claim holds; the claims are on top */
TEST(test_fill_config) {
        struct state s = {};
        size_t p = pool_with(&s, 30);
        size_t cfg = owner(&s, "config"), x = owner(&s, "claim:x");
        struct state_fill_node n = { .now = 30 };
        struct state_intent in;

        /* others hold 30: the configuration's 10 are theirs already, the claim's 20 are new */
        share(&s, p, cfg, 0, 10);
        share(&s, p, x, 0, 20);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CONFIG, cfg, &n, &in), 0);
        CHECK_EQ(in.to, 50);
        CHECK_EQ(in.n_parts, 1);
        CHECK_EQ(in.parts[0].owner, x);
        CHECK_EQ(in.parts[0].pages, 20);
        state_intent_done(&in);

        /* nothing lacking; --shrink gives back the configuration's own beyond its target, and
         * never the others' */
        share(&s, p, cfg, 15, 10);
        share(&s, p, x, 20, 20);
        s.pools[p].last = n.now = 40; /* others 5, config 15, claim 20 */
        n.givable = 40;
        n.shrink = true;
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CONFIG, cfg, &n, &in), 0);
        CHECK_EQ(in.to, 30);
        CHECK_EQ(in.n_parts, 1);
        CHECK_EQ(in.parts[0].pages, 10);
        state_intent_done(&in);
        /* without --shrink nothing moves */
        n.shrink = false;
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CONFIG, cfg, &n, &in), 0);
        CHECK_EQ(in.to, in.from);
        state_intent_done(&in);
        /* free pages only: 3 free, 3 go */
        n.shrink = true;
        n.givable = 3;
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CONFIG, cfg, &n, &in), 0);
        CHECK_EQ(in.to, 37);
        state_intent_done(&in);
        state_done(&s);
}

/* A one-off run's target counts every page no claim holds; a gone owner's pages leave first */
TEST(test_fill_once_and_gone) {
        struct state s = {};
        size_t p = pool_with(&s, 40);
        size_t once = owner(&s, "once"), g = owner(&s, "claim:g"), x = owner(&s, "claim:x");
        struct state_fill_node n = { .now = 40, .givable = 40 };
        struct state_intent in;

        share(&s, p, once, 0, 50);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_ONCE, once, &n, &in), 0);
        CHECK_EQ(in.to, 50);
        state_intent_done(&in);
        /* a claim's pages are on top: they count for no one-off target (and the one-off run
         * brings no claim back) */
        share(&s, p, x, 10, 20);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_ONCE, once, &n, &in), 0);
        CHECK_EQ(in.to, 60);
        CHECK_EQ(in.n_parts, 1);
        CHECK_EQ(in.parts[0].owner, once);
        state_intent_done(&in);
        share(&s, p, x, 0, 0);

        /* a gone claim's pages leave first, whether or not --shrink */
        share(&s, p, once, 10, 20);
        share(&s, p, g, 12, 0);
        s.owners[g].gone = true;
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_ONCE, once, &n, &in), 0);
        CHECK_EQ(in.to, 28);
        CHECK_EQ(in.n_parts, 1);
        CHECK_EQ(in.parts[0].owner, g);
        state_intent_done(&in);
        /* with --shrink, its own beyond 20 too: 28 unclaimed, 8 of its own go */
        n.shrink = true;
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_ONCE, once, &n, &in), 0);
        CHECK_EQ(in.to, 20);
        CHECK_EQ(in.n_parts, 2);
        state_intent_done(&in);
        state_done(&s);
}

/* A claim adds its own pages on top of what the pool holds; made smaller, gives its own back */
TEST(test_fill_claim) {
        struct state s = {};
        size_t p = pool_with(&s, 64);
        size_t x = owner(&s, "claim:x");
        struct state_fill_node n = { .now = 64, .givable = 64 };
        struct state_intent in;

        share(&s, p, x, 0, 20);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CLAIM, x, &n, &in), 0);
        CHECK_EQ(in.to, 84);
        state_intent_done(&in);
        share(&s, p, x, 20, 8);
        CHECK_EQ(state_fill_intent(&s, p, STATE_FILL_CLAIM, x, &n, &in), 0);
        CHECK_EQ(in.to, 52);
        state_intent_done(&in);
        state_done(&s);
}

/* Settling: what came goes to the parts in order, up to each; what left leaves them; a drop
 * meanwhile is seen as anybody's */
TEST(test_settle) {
        struct state s = {};
        size_t p = pool_with(&s, 10);
        size_t a = owner(&s, "config"), b = owner(&s, "claim:b");
        struct state_part parts[] = { { a, 4 }, { b, 6 } };
        struct state_intent in = { .pool = p, .from = 10, .to = 20, .parts = parts, .n_parts = 2 };

        /* a kill before the write: nothing came */
        CHECK_EQ(state_intent_add(&s, &in), 0);
        CHECK_EQ(state_intent_settle(&s, 0, 10), 0);
        CHECK_EQ(state_held_total(&s, p), 0);
        CHECK_EQ(s.n_intents, 0);
        /* part of it came (short, or killed mid-way) */
        CHECK_EQ(state_intent_add(&s, &in), 0);
        CHECK_EQ(state_intent_settle(&s, 0, 17), 7);
        CHECK_EQ(state_held(&s, p, a), 4);
        CHECK_EQ(state_held(&s, p, b), 3);
        CHECK_EQ(s.pools[p].last, 17);
        /* more came than asked (someone else at the same time): only what was asked is ours */
        in.from = 17;
        in.to = 20;
        parts[0].pages = 0;
        parts[1].pages = 3;
        CHECK_EQ(state_intent_add(&s, &in), 0);
        CHECK_EQ(state_intent_settle(&s, 0, 25), 3);
        CHECK_EQ(state_held(&s, p, b), 6);
        CHECK_EQ(s.pools[p].last, 25);
        /* a give-back: never more than a part holds */
        struct state_part back[] = { { b, 100 } };
        struct state_intent out = { .pool = p, .from = 25, .to = 15, .parts = back, .n_parts = 1 };
        CHECK_EQ(state_intent_add(&s, &out), 0);
        CHECK_EQ(state_intent_settle(&s, 0, 15), 10);
        CHECK_EQ(state_held(&s, p, b), 0);
        CHECK_EQ(state_held(&s, p, a), 4);
        state_done(&s);
}

TEST(test_give_back_intent) {
        struct state s = {};
        size_t p = pool_with(&s, 30);
        size_t a = owner(&s, "once"), b = owner(&s, "config");
        size_t order[] = { a, b };
        struct state_intent in;

        share(&s, p, a, 5, 0);
        share(&s, p, b, 10, 10);
        CHECK_EQ(state_give_back_intent(&s, p, order, 2, 8, &in), 0);
        CHECK_EQ(in.from, 30);
        CHECK_EQ(in.to, 22);
        CHECK_EQ(in.n_parts, 2);
        CHECK_EQ(in.parts[0].pages, 5);
        CHECK_EQ(in.parts[1].pages, 3);
        state_intent_done(&in);
        state_done(&s);
}

/* Free pages are anyone's: a give-back takes none an active claim surely holds free, and a claim
 * counts as in use at most the pages that went into use since its mark */
TEST(test_claims_free) {
        struct state s = {};
        size_t p = pool_with(&s, 40);
        size_t cfg = owner(&s, "config"), v1 = owner(&s, "claim:vm1"), v2 = owner(&s, "claim:vm2"),
               g = owner(&s, "claim:gone");

        share(&s, p, cfg, 10, 10);
        share(&s, p, g, 10, 0);
        s.owners[g].gone = true;
        /* vm1 and vm2 filled from nothing while 10 pages were in use (the gone claim's workload) */
        share(&s, p, v1, 0, 10);
        share(&s, p, v2, 0, 10);
        CHECK_EQ(state_claim_mark(&s, p, v1, 10), 0);
        CHECK_EQ(state_claim_mark(&s, p, v2, 10), 0);
        CHECK_EQ(state_share(&s, p, v1, false)->mark, 10);
        share(&s, p, v1, 10, 10);
        share(&s, p, v2, 10, 10);
        /* nothing went into use since: both claims' 20 are free; of 20 free pages none is givable */
        CHECK_EQ(state_claims_free(&s, p, 10, NULL, 0), 20);
        CHECK_EQ(state_givable(&s, p, 40, 30, 0, NULL, 0), 10);
        CHECK_EQ(state_givable(&s, p, 30, 20, 0, NULL, 0), 0);
        /* vm1's VM maps its 10: they may be vm1's or vm2's, so each claim counts 10 maybe in use */
        CHECK_EQ(state_claims_free(&s, p, 20, NULL, 0), 0);
        CHECK_EQ(state_givable(&s, p, 40, 20, 0, NULL, 0), 20);
        /* reserved pages are never givable; a claim given back counts not for itself */
        CHECK_EQ(state_givable(&s, p, 40, 30, 5, NULL, 0), 5);
        CHECK_EQ(state_givable(&s, p, 40, 30, 0, &v1, 1), 20);
        /* a gone claim and the configuration are no claim to keep free pages for */
        CHECK_EQ(state_claims_free(&s, p, 10, &v2, 1), 10);
        /* a claim that gets pages while 5 of its own may be in use keeps counting them */
        CHECK_EQ(state_claim_mark(&s, p, v2, 15), 0);
        CHECK_EQ(state_share(&s, p, v2, false)->mark, 10);
        CHECK_EQ(state_claim_mark(&s, p, v2, 30), 0);
        CHECK_EQ(state_share(&s, p, v2, false)->mark, 20);
        state_done(&s);
}

TEST(test_tidy) {
        struct state s = {};
        size_t p = pool_with(&s, 30), q;
        size_t cfg = owner(&s, "config"), x = owner(&s, "claim:x"), g = owner(&s, "claim:g");

        q = (size_t) state_pool_get(&s, 2 * MB, 1, 0);
        share(&s, p, cfg, 0, 0);
        share(&s, p, x, 0, 0);
        share(&s, p, g, 3, 0);
        s.owners[g].gone = true;
        share(&s, q, g, 0, 5);
        state_owners_tidy(&s);
        /* the configuration with nothing goes; an active claim stays; a gone one with pages stays */
        CHECK(state_owner_find(&s, "config") < 0);
        CHECK(state_owner_find(&s, "claim:x") >= 0);
        CHECK(state_owner_find(&s, "claim:g") >= 0);
        CHECK_EQ(s.n_pools, 1);
        CHECK_EQ(state_held(&s, 0, (size_t) state_owner_find(&s, "claim:g")), 3);
        state_done(&s);
}

static char *format(const struct state *s) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(f);
        CHECK_EQ(state_format(f, s), 0);
        CHECK(fclose(f) == 0);
        return text;
}

TEST(test_text_round_trip) {
        struct state s = {}, back = {};
        struct error e = {};
        size_t p, x, cfg;
        char *a, *b;

        memcpy(s.boot, "1B2c-3d", 8); /* a tree's boot_id as its maker wrote it */
        p = pool_with(&s, 30);
        cfg = owner(&s, "config");
        x = owner(&s, "claim:vm.1_a-b");
        memcpy(s.owners[x].spec, "2M:node0=64MiB 1G:1", 20); /* units as the user wrote them */
        share(&s, p, cfg, 10, 10);
        share(&s, p, x, 20, 20);
        state_share(&s, p, x, false)->mark = 7;
        struct state_part parts[] = { { x, 4 } };
        struct state_intent in = { .pool = p, .from = 30, .to = 34, .parts = parts, .n_parts = 1 };
        CHECK_EQ(state_intent_add(&s, &in), 0);
        CHECK_EQ(state_setting_add(&s, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages", 0, 20), 0);
        CHECK_EQ(state_reserve_add(&s, &(struct state_reserve) { "vm1", 2 * MB, 4, 23, 42 }), 0);
        s.daemon_pid = 1234;
        s.daemon_start = 99;
        a = format(&s);
        CHECK_EQ(state_parse(a, &back, &e), 0);
        b = format(&back);
        CHECK(strcmp(a, b) == 0);
        CHECK_EQ(back.n_intents, 1);
        CHECK_EQ(back.intents[0].parts[0].pages, 4);
        CHECK(strstr(a, " claim:vm.1_a-b=20/20/7") != NULL);
        CHECK_EQ(state_share(&back, 0, 1, false)->mark, 7);
        CHECK(strcmp(back.owners[1].spec, "2M:node0=64MiB 1G:1") == 0);
        free(a);
        free(b);
        state_done(&s);
        state_done(&back);
}

TEST(test_text_refused) {
        static const char *const bad[] = {
                "",
                "hpfilld-state 1\n",                                                  /* no end: cut short */
                "hpfilld-state 1\nseq 1\nend",                                         /* no newline */
                "hpfilld-state 2\nend\n",                                              /* a newer version */
                "seq 1\nend\n",                                                        /* no head */
                "hpfilld-state 1\nseq 1\nend\nseq 2\n",                                /* after end */
                "hpfilld-state 1\nseq 1\nowner config 2 active\nend\n",                /* seq beyond the count */
                "hpfilld-state 1\nseq 3\nowner claim:a/b 1 active\nend\n",             /* no claim's name */
                "hpfilld-state 1\nseq 3\nowner config 1 active\nowner config 2 active\nend\n",
                "hpfilld-state 1\nseq 3\npool 2097152 0 5 config=1/1\nend\n",          /* undeclared owner */
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 2097152 0 5 config=1\nend\n",
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 2097152 0 5 config=1/1/x\nend\n",
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 2097152 0 5 config=1/1/1/1\nend\n",
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 2097152 0 5 config=1/1/\nend\n",
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 3000 0 5 config=1/1\nend\n",
                "hpfilld-state 1\nseq 3\nowner config 1 active\npool 2097152  0 5\nend\n", /* two spaces */
                "hpfilld-state 1\nseq 3\nintent 2097152 0 1 2\nend\n",                 /* no pool */
                "hpfilld-state 1\nseq 1\nsetting proc/self/oom_score_adj 0 1000\nend\n",
                "hpfilld-state 1\nseq 1\nsetting sys/kernel/mm/hugepages/hugepages-2048kB/../../x 0 1\nend\n",
                "hpfilld-state 1\nseq 1\nreserve ../x 2097152 1 0 0\nend\n",
                "hpfilld-state 1\nseq 1\nowner config 1 active 2M:1G\nend\n",        /* a spec only claims have */
                "hpfilld-state 1\nseq 1\nboot XYZ\nend\n",                              /* not hex */
                "hpfilld-state 1\nseq 1\ndaemon 0 1\nend\n",
                "hpfilld-state 1\nseq 1\nfrobnicate\nend\n",
                "hpfilld-state 1\nseq 281474976710656\nend\n",                         /* beyond any count */
                /* the record's lines: words between single spaces, as every other line */
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5  1\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1 \nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 +1\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 256 5 1\nend\n",               /* no process exits so */
                "hpfilld-state 1\nseq 1\nlast-fill 9223372036854775808 0 5 1\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-size 2097152 1 1 1 2\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-size 2097152 1 4294967296 1 1\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-claim vm 2097152 0 4\nend\n",    /* no file */
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-reserve r 2097152 1 1 9 - -\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-reserve r 2097152 1 1 0 0;1 -\nend\n",
                "hpfilld-state 1\nseq 1\nlast-fill 1 0 5 1\nlast-reserve r 2097152 1 1 0 - x\nend\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct state s = {};
                struct error e = {};

                if (state_parse(bad[i], &s, &e) != -EBADMSG) {
                        fprintf(stderr, "accepted: %s\n", bad[i]);
                        exit(1);
                }
                CHECK(*e.msg);
                state_done(&s);
        }
}

/* Whatever a fill records, the state written parses: random records (names, paths with spaces and
 * control characters, none, texts of any bytes), formatted and parsed back */
TEST(test_written_parses) {
        unsigned seed = 1;

        for (int round = 0; round < 2000; round++) {
                struct state s = { .next_seq = 0 }, back = {};
                struct fill_record *r = &s.record;
                struct error e = {};
                char path[64], name[16], *text;

                r->valid = true;
                r->time_ns = rand_r(&seed);
                r->exit_status = rand_r(&seed) % 256;
                for (size_t i = 0; i < sizeof(r->summary) - 1 && i < (size_t) (rand_r(&seed) % 300); i++)
                        r->summary[i] = (char) (1 + rand_r(&seed) % 255);
                for (int k = rand_r(&seed) % 4; k > 0; k--) {
                        size_t n = (size_t) (rand_r(&seed) % 20);

                        (void) snprintf(name, sizeof(name), "r%d", k);
                        path[0] = 0;
                        if (n > 0) {
                                path[0] = '/';
                                for (size_t i = 1; i < n; i++)
                                        path[i] = (char) (' ' + rand_r(&seed) % 95);
                                path[n] = 0;
                        }
                        (void) fill_record_add_reserve(r, name, 2 * MB, (uint64_t) k, 4,
                                                       (enum metrics_reserve_state) (rand_r(&seed) % _MR_MAX),
                                                       k % 2 ? "0,1" : "", path);
                }
                text = format(&s);
                if (state_parse(text, &back, &e) < 0) {
                        fprintf(stderr, "written, not parsed (%s):\n%s", e.msg, text);
                        exit(1);
                }
                CHECK_EQ(back.record.n_reserves, r->n_reserves);
                free(text);
                state_done(&s);
                state_done(&back);
        }
}

int main(void) {
        RUN(test_owner_names);
        RUN(test_see_order);
        RUN(test_drop_charged_once);
        RUN(test_fill_config);
        RUN(test_fill_once_and_gone);
        RUN(test_fill_claim);
        RUN(test_settle);
        RUN(test_give_back_intent);
        RUN(test_claims_free);
        RUN(test_tidy);
        RUN(test_text_round_trip);
        RUN(test_text_refused);
        RUN(test_written_parses);
        return 0;
}
