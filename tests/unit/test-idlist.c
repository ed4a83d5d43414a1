/* SPDX-License-Identifier: MIT */
/* Tests of the kernel id-list parser ("0-3,6"). */
#include "util/idlist.h"
#include "util/macro.h"
#include "test.h"

static void check_list(const char *s, const unsigned *want, size_t n_want) {
        unsigned *ids = NULL;
        size_t n = 99;

        CHECK_EQ(idlist_parse(s, &ids, &n), 0);
        CHECK_EQ(n, n_want);
        for (size_t i = 0; i < n; i++)
                CHECK_EQ(ids[i], want[i]);
        free(ids);
}

TEST(test_good) {
        check_list("0-3,6\n", (const unsigned[]) { 0, 1, 2, 3, 6 }, 5);
        check_list("0", (const unsigned[]) { 0 }, 1);
        check_list("6,0-1", (const unsigned[]) { 0, 1, 6 }, 3);
        check_list("1,1,0-1", (const unsigned[]) { 0, 1 }, 2);
        check_list("\n", NULL, 0);
        check_list("", NULL, 0);
        check_list("65535", (const unsigned[]) { 65535 }, 1);
}

TEST(test_bad) {
        static const char *const bad[] = { "a", "0-", "-1", "3-1", "0,", ",0", "0 1", "0\n1", "65536", "0--1", "0-1-2" };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                unsigned *ids = NULL;
                size_t n = 0;
                CHECK(idlist_parse(bad[i], &ids, &n) < 0);
                CHECK(ids == NULL);
        }
}

int main(void) {
        RUN(test_good);
        RUN(test_bad);
        return 0;
}
