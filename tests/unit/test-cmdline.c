/* SPDX-License-Identifier: MIT */
/* hpfilld.* on the kernel command line: what applies, what is rejected, and that a rejection
 * leaves the configuration as it was. */
#include "settings/cmdline.h"
#include "fake-root.h"
#include "util/fileio.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)

TEST(test_apply) {
        struct config c = CONFIG_INIT;
        struct pool_spec spec;
        struct error e = {};

        CHECK_EQ(parse_pool_spec("1G:2", &spec, &e), 0);
        CHECK_EQ(config_put_pool(&c, &spec), 0);
        CHECK_EQ(cmdline_apply("BOOT_IMAGE=/vmlinuz root=/dev/vda quiet", &c, &e), 0);
        CHECK_EQ(c.n_pools, 1);

        /* pools replace the configuration's; the other settings apply one by one */
        CHECK_EQ(cmdline_apply("quiet hpfilld.pool=2M:8G hpfilld.pool=\"16M:node0=4\" hpfilld.mode=fault "
                               "hpfilld.threads=4 hpfilld.min=90 hpfilld.shrink=yes hpfilld.drop_caches=1 -- hpfilld.mode=nonsense",
                               &c, &e),
                 7);
        CHECK_EQ(c.n_pools, 2);
        CHECK_EQ(c.pools[0].page_size, 2 * MB);
        CHECK_STR_CONTAINS(c.pools[0].origin, "kernel command line: hpfilld.pool=2M:8G");
        CHECK_EQ(c.pools[1].page_size, 16 * MB);
        CHECK_EQ(c.pools[1].amount.kind, AMOUNT_PER_NODE);
        CHECK_EQ(c.mode, FILL_MODE_FAULT);
        CHECK_EQ(c.threads_per_node, 4);
        CHECK_EQ(c.min_percent, 90);
        CHECK(c.shrink);
        CHECK(c.drop_caches);
        config_done(&c);
}

TEST(test_reject) {
        static const struct {
                const char *line, *why;
        } bad[] = {
                { "hpfilld.pool=2M:-1", "hpfilld.pool=2M:-1: amount '-1' is negative" },
                { "hpfilld.pool=3M:1", "power of two" },
                { "hpfilld.pool=2M:1 hpfilld.pool=2048kB:2", "a second pool of page size 2M" },
                { "hpfilld.mode=fast", "hpfilld.mode=fast: expected auto, sysfs or fault" },
                { "hpfilld.threads=0", "hpfilld.threads=0" },
                { "hpfilld.min=101", "hpfilld.min=101" },
                { "hpfilld.shrink=perhaps", "hpfilld.shrink=perhaps" },
                { "hpfilld.drop_caches=3", "hpfilld.drop_caches=3" },
                { "hpfilld.pools=2M:1", "unknown setting 'hpfilld.pools'" },
                { "quiet hpfilld.pool", "'hpfilld.pool' has no value" },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct config c = CONFIG_INIT;
                struct pool_spec spec;
                struct error e = {};

                CHECK_EQ(parse_pool_spec("1G:2", &spec, &e), 0);
                CHECK_EQ(config_put_pool(&c, &spec), 0);
                CHECK(cmdline_apply(bad[i].line, &c, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "%s: %s\n", bad[i].line, e.msg);
                CHECK_STR_CONTAINS(e.msg, "kernel command line");
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
                /* nothing applied */
                CHECK_EQ(c.n_pools, 1);
                CHECK_EQ(c.pools[0].page_size, UINT64_C(1) << 30);
                CHECK_EQ(c.mode, FILL_MODE_AUTO);
                CHECK_EQ(c.min_percent, 100);
                config_done(&c);
        }
}

/* A kernel command line longer than a page (bootconfig): read whole, hpfilld.pool= at its end. */
TEST(test_long_cmdline) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};
        char *line = malloc(16 * 1024), *read = NULL;
        size_t n = 0;

        CHECK(line);
        while (n < 8192)
                n += (size_t) sprintf(line + n, "opt%zu=value ", n);
        (void) sprintf(line + n, "hpfilld.pool=2M:10\n");
        fake_root_new(&r);
        fake_write(&r, "proc/cmdline", line);
        CHECK_EQ(read_text_line_at(r.fd, "proc/cmdline", FILEIO_LINE_MAX, &read), 0);
        CHECK_EQ(cmdline_apply(read, &c, &e), 1);
        CHECK_EQ(c.n_pools, 1);
        CHECK_EQ(c.pools[0].amount.value, 10);
        config_done(&c);
        free(read);
        fake_root_free(&r);
        free(line);
}

int main(void) {
        RUN(test_apply);
        RUN(test_reject);
        RUN(test_long_cmdline);
        return 0;
}
