/* SPDX-License-Identifier: MIT */
/* ReleaseOnStop='s ledger: what the fills added and nobody took since, its file, and the give
 * back on a fake tree (free pages only, every pool with pages of ours). */
#include "fake-root.h"
#include "service/claim_record.h"
#include "service/ledger.h"
#include "util/fileio.h"
#include "test.h"

#define M2 (UINT64_C(2) << 20)
#define G1 (UINT64_C(1) << 30)

static uint64_t ours(struct ledger *l, uint64_t page_size, unsigned node) {
        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].page_size == page_size && l->entries[i].node == node)
                        return l->entries[i].ours;
        return 0;
}

/* The claims' records (claim_record.h): what a fill adds is the [Pool]'s first, then each
 * claim's up to its pages; what leaves is the claims given back's, then the smaller ones'. */
TEST(test_claim_records) {
        uint64_t pool_pages[1] = { 4 }, vm1[1] = { 8 }, vm2[1] = { 6 }, gone[1] = { 0 };
        struct claim_record r[3] = {
                { .name = "vm1", .configured = true, .pages = vm1 },
                { .name = "vm2", .configured = true, .pages = vm2 },
                { .name = "old", .configured = false, .pages = gone },
        };
        struct claim_records recs = { .r = r, .n = 2, .pool_pages = pool_pages };

        /* from 0 to 13 (short of 18): the [Pool]'s 4, vm1's 8, vm2 gets 1 */
        claim_records_filled(&recs, 0, M2, 0, 0, 13);
        CHECK_EQ(ours(&r[0].l, M2, 0), 8);
        CHECK_EQ(ours(&r[1].l, M2, 0), 1);
        /* an admin adds 3: nobody's (beyond the [Pool]'s target, never a claim's); a refill to
         * 18 adds 2, vm2's */
        claim_records_filled(&recs, 0, M2, 0, 16, 18);
        CHECK_EQ(ours(&r[1].l, M2, 0), 3);
        /* vm1 given back: 8 leave, all its */
        r[0].configured = false;
        vm1[0] = 0;
        claim_records_filled(&recs, 0, M2, 0, 18, 10);
        CHECK_EQ(ours(&r[0].l, M2, 0), 0);
        CHECK_EQ(ours(&r[1].l, M2, 0), 3);
        /* 4 taken by hand since: each record counts them as its first (never more than is left) */
        claim_records_filled(&recs, 0, M2, 0, 6, 6);
        CHECK_EQ(ours(&r[1].l, M2, 0), 0);
        /* a record whose claim is not the fill's (the third) counts nothing added */
        recs.n = 3;
        claim_records_filled(&recs, 0, M2, 0, 6, 20);
        CHECK_EQ(ours(&r[2].l, M2, 0), 0);
        CHECK_EQ(ours(&r[1].l, M2, 0), 6);
        for (size_t i = 0; i < 3; i++)
                ledger_done(&r[i].l);
}

TEST(test_arithmetic) {
        struct ledger l = {};

        /* a fill adds 10 to the 4 found */
        CHECK_EQ(ledger_filled(&l, M2, 0, 4, 14), 0);
        CHECK_EQ(ours(&l, M2, 0), 10);
        /* an admin adds 5: theirs */
        CHECK_EQ(ledger_seen(&l, M2, 0, 19), 0);
        CHECK_EQ(ours(&l, M2, 0), 10);
        /* a refill that finds the pool as it left it adds nothing */
        CHECK_EQ(ledger_filled(&l, M2, 0, 19, 19), 0);
        CHECK_EQ(ours(&l, M2, 0), 10);
        /* 7 taken: ours first */
        CHECK_EQ(ledger_seen(&l, M2, 0, 12), 0);
        CHECK_EQ(ours(&l, M2, 0), 3);
        /* a --shrink fill gives back 5: ours first, never below 0 */
        CHECK_EQ(ledger_filled(&l, M2, 0, 12, 7), 0);
        CHECK_EQ(ours(&l, M2, 0), 0);
        /* a pool never filled is not in it; a fill that shrinks it adds no entry */
        CHECK_EQ(ledger_filled(&l, G1, 0, 3, 1), 0);
        CHECK_EQ(ours(&l, G1, 0), 0);
        CHECK_EQ(l.n, 1);
        ledger_done(&l);
}

/* give-back's arithmetic: back by ours, never below in use + reserved, never above the pool */
TEST(test_give_back) {
        static const struct {
                uint64_t persistent, ours, in_use, resv, want;
        } cases[] = {
                { 100, 70, 0, 0, 30 },   /* another consumer's 30 stay */
                { 100, 70, 35, 5, 40 },  /* in use and reserved stay */
                { 100, 200, 0, 0, 0 },   /* ours beyond the pool: the pool, no more */
                { 100, 70, 120, 0, 100 }, /* more in use than persistent (surplus): nothing goes */
                { 100, 70, 90, UINT64_MAX, 100 }, /* no overflow */
                { 0, 10, 0, 0, 0 },
        };
        struct ledger l = {};

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                CHECK_EQ(ledger_give_back_target(cases[i].persistent, cases[i].ours, cases[i].in_use, cases[i].resv),
                         cases[i].want);
        /* what left the pool leaves ours, the first ledger's first */
        CHECK_EQ(ledger_filled(&l, M2, 0, 0, 50), 0);
        uint64_t given = 60;
        ledger_given_back(&l, M2, 0, &given, 40);
        CHECK_EQ(given, 10);
        CHECK_EQ(ledger_ours(&l, M2, 0), 0);
        CHECK_EQ(ledger_ours(&l, M2, 1), 0);
        ledger_done(&l);
}

TEST(test_text) {
        struct ledger l = {}, back = {};
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        static const char *const bad[] = {
                "2097152 0 10\n", "2097152 0 10 14", "2097152 0 10 14 1\n", "x 0 1 1\n", "2097152 0 15 14\n",
                "2097152 0 1 2\n2097152 0 1 2\n", " 2097152 0 1 2\n",
                /* the boot: first, once, of boot_id's characters and length */
                "boot \n", "boot 1\nboot 1\n", "2097152 0 1 2\nboot 1\n", "boot x y\n",
                "boot 0123456789abcdef0123456789abcdef01234567\n",
        };

        CHECK_EQ(ledger_filled(&l, M2, 0, 4, 14), 0);
        CHECK_EQ(ledger_filled(&l, M2, 1, 0, 0), 0);
        CHECK_EQ(ledger_filled(&l, G1, 1, 0, 2), 0);
        f = open_memstream(&text, &len);
        CHECK(f);
        CHECK_EQ(ledger_format(f, &l), 0);
        CHECK_EQ(fclose(f), 0);
        CHECK(strcmp(text, "2097152 0 10 14\n1073741824 1 2 2\n") == 0);
        CHECK_EQ(ledger_parse(text, &back), 0);
        CHECK_EQ(back.n, 2);
        CHECK_EQ(ours(&back, M2, 0), 10);
        CHECK_EQ(ours(&back, G1, 1), 2);
        ledger_done(&back);
        CHECK_EQ(ledger_parse("", &back), 0);
        CHECK_EQ(back.n, 0);
        CHECK_EQ(ledger_parse("boot 0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13\n2097152 0 1 2\n", &back), 0);
        CHECK(strcmp(back.boot, "0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13") == 0);
        CHECK_EQ(ours(&back, M2, 0), 1);
        ledger_done(&back);
        /* a ledger of no pages names no boot: it stays empty */
        memcpy(back.boot, "0f8e", 5);
        free(text);
        text = NULL;
        f = open_memstream(&text, &len);
        CHECK(f);
        CHECK_EQ(ledger_format(f, &back), 0);
        CHECK_EQ(fclose(f), 0);
        CHECK(strcmp(text, "") == 0);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                CHECK_EQ(ledger_parse(bad[i], &back), -EBADMSG);
        free(text);
        ledger_done(&l);
}

/* The give back: node0 gives back its 10 (the admin's 5 stay); node1 has 10 of ours, 7 taken
 * since (3 left); the 1G pool, no longer configured, gives back its 1; node1's 2M pool of a
 * kernel that refuses the write keeps its pages in the ledger, in the file for the next daemon. */
TEST(test_release) {
        static const unsigned sizes[] = { 2048, 1048576, 0 };
        struct fake_root r;
        struct ledger l = {}, kept = {};

        fake_root_new(&r);
        fake_numa_machine(&r, 2, 4096, 0, sizes);
        CHECK_EQ(ledger_filled(&l, M2, 0, 0, 10), 0);
        CHECK_EQ(ledger_filled(&l, M2, 1, 0, 10), 0);
        CHECK_EQ(ledger_filled(&l, G1, 0, 0, 1), 0);
        CHECK_EQ(ledger_filled(&l, M2, 2, 0, 10), 0);
        fake_set_node_pool(&r, 0, 2048, 15, 15);
        fake_set_node_pool(&r, 1, 2048, 3, 3);
        fake_set_node_pool(&r, 0, 1048576, 1, 1);
        ledger_release(r.fd, &l);
        CHECK_EQ(fake_node_nr(&r, 0, 2048), 5);
        CHECK_EQ(fake_node_nr(&r, 1, 2048), 0);
        CHECK_EQ(fake_node_nr(&r, 0, 1048576), 0);
        /* node2 is gone (hot-removed): its pages stay counted */
        CHECK_EQ(ledger_load(r.fd, &kept), 0);
        CHECK_EQ(kept.n, 1);
        CHECK_EQ(ours(&kept, M2, 2), 10);
        ledger_done(&kept);
        ledger_done(&l);
        fake_root_free(&r);
}

/* A pool that cannot be read is left alone, and keeps its pages in the ledger. */
TEST(test_release_unreadable) {
        static const unsigned sizes[] = { 2048, 0 };
        struct fake_root r;
        struct ledger l = {};

        fake_root_new(&r);
        fake_numa_machine(&r, 1, 4096, 0, sizes);
        CHECK_EQ(ledger_filled(&l, M2, 0, 0, 10), 0);
        fake_set_node_pool(&r, 0, 2048, 10, 10);
        CHECK_EQ(unlinkat(r.fd, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", 0), 0);
        ledger_release(r.fd, &l);
        CHECK_EQ(fake_node_nr(&r, 0, 2048), 10);
        CHECK_EQ(ours(&l, M2, 0), 10);
        ledger_done(&l);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_arithmetic);
        RUN(test_give_back);
        RUN(test_claim_records);
        RUN(test_text);
        RUN(test_release);
        RUN(test_release_unreadable);
        return 0;
}
