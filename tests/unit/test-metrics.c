/* SPDX-License-Identifier: MIT */
/* Tests of the Prometheus formatter, the fill record's text form and MetricsFile=. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "service/metrics.h"
#include "service/metrics_out.h"
#include "util/fileio.h"
#include "settings/conf.h"
#include "state/text.h"
#include "test.h"

#define MB (UINT64_C(1024) * 1024)

static char *format(const struct metrics *m) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(f);
        CHECK_EQ(metrics_format(f, m), 0);
        CHECK_EQ(fclose(f), 0);
        return text;
}

/* @line is one whole line of @text */
static void check_line(const char *text, const char *line) {
        size_t n = strlen(line);

        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == 0))
                        return;
        fprintf(stderr, "no line '%s' in:\n%s", line, text);
        exit(1);
}

static struct fill_record sample_record(void) {
        struct fill_record r = { .valid = true, .time_ns = INT64_C(1700000000123456789), .exit_status = 3,
                                 .elapsed_ns = 1500000000, .fills_total = 4 };

        CHECK_EQ(fill_record_add_size(&r, 2 * MB, 1250000000, 2, false), 0);
        r.sizes[0].rounds_total = 7;
        CHECK_EQ(fill_record_add_target(&r, 2 * MB, 0, 512), 0);
        CHECK_EQ(fill_record_add_target(&r, 2 * MB, 1, 300), 0);
        CHECK_EQ(fill_record_add_reserve(&r, "vm\"1", 2 * MB, 0, 64, MR_SHORT, "0,1", "/dev/hugepages/hpfilld/vm\"1"), 0);
        CHECK_EQ(fill_record_add_reserve(&r, "any", 2 * MB, 4, 4, MR_READY, "", "/dev/hugepages/hpfilld/any"), 0);
        /* one not made (an owner unknown): no path */
        CHECK_EQ(fill_record_add_reserve(&r, "none", 2 * MB, 0, 4, MR_FAILED, "0", ""), 0);
        CHECK(fill_record_add_reserve(&r, "bad", 2 * MB, 4, 4, MR_READY, "0 1", "/x") < 0);
        CHECK_EQ(fill_record_add_claim(&r, "vm2", 2 * MB, 1, 32, "/run/hpfilld.conf.d/50-claim vm2.conf"), 0);
        CHECK_EQ(fill_record_add_claim(&r, "vm\x1b", 2 * MB, 1, 32, "/x"), -EINVAL);
        CHECK_EQ(fill_record_add_claim(&r, "vm3", 2 * MB, 1, 32, "/x\n"), -EINVAL);
        (void) snprintf(r.summary, sizeof(r.summary), "2M pool: 100/812 pages; reservation vm\"1:\nshort");
        (void) snprintf(r.next_boot, sizeof(r.next_boot), "hugepagesz=2M hugepages=1:300");
        return r;
}

TEST(test_format) {
        struct metrics_pool pools[] = {
                { .page_size = 2 * MB, .node = 0, .total = 512, .free = 500, .surplus = 3, .has_target = true, .target = 512 },
                { .page_size = 2 * MB, .node = 1, .total = 100, .free = 100, .has_target = true, .target = 300 },
                { .page_size = 1024 * MB, .node = 0, .total = 2, .free = 1 },
        };
        struct metrics_size sizes[] = { { .page_size = 2 * MB, .reserved = 9 }, { .page_size = 1024 * MB } };
        struct fill_record r = sample_record();
        struct metrics m = { .version = "1.2\\3", .pools = pools, .n_pools = 3, .sizes = sizes, .n_sizes = 2,
                             .fill = &r, .reserves = r.reserves, .n_reserves = r.n_reserves };
        char *text = format(&m);

        check_line(text, "hpfilld_build_info{version=\"1.2\\\\3\"} 1");
        check_line(text, "# TYPE hpfilld_pool_pages gauge");
        check_line(text, "hpfilld_page_size_bytes{size=\"1G\"} 1073741824");
        check_line(text, "hpfilld_pool_pages{size=\"2M\",node=\"0\"} 512");
        check_line(text, "hpfilld_pool_pages{size=\"2M\",node=\"1\"} 100");
        check_line(text, "hpfilld_pool_pages{size=\"1G\",node=\"0\"} 2");
        check_line(text, "hpfilld_pool_free_pages{size=\"2M\",node=\"0\"} 500");
        check_line(text, "hpfilld_pool_surplus_pages{size=\"2M\",node=\"0\"} 3");
        check_line(text, "hpfilld_pool_target_pages{size=\"2M\",node=\"1\"} 300");
        CHECK(!strstr(text, "hpfilld_pool_target_pages{size=\"1G\""));
        check_line(text, "hpfilld_pool_reserved_pages{size=\"2M\"} 9");
        check_line(text, "hpfilld_last_fill_timestamp_seconds 1700000000.123");
        check_line(text, "hpfilld_last_fill_duration_seconds 1.500000000");
        check_line(text, "hpfilld_last_fill_exit_status 3");
        check_line(text, "hpfilld_last_fill_success 0");
        check_line(text, "# TYPE hpfilld_fills_total counter");
        check_line(text, "hpfilld_fills_total 4");
        check_line(text, "hpfilld_last_fill_pool_duration_seconds{size=\"2M\"} 1.250000000");
        check_line(text, "hpfilld_last_fill_pool_met{size=\"2M\"} 0");
        check_line(text, "hpfilld_last_fill_retry_rounds{size=\"2M\"} 2");
        check_line(text, "hpfilld_fill_retry_rounds_total{size=\"2M\"} 7");
        check_line(text, "hpfilld_reservation_target_pages{name=\"vm\\\"1\",size=\"2M\"} 64");
        check_line(text, "hpfilld_reservation_state{name=\"vm\\\"1\",state=\"short\"} 1");
        check_line(text, "hpfilld_reservation_state{name=\"vm\\\"1\",state=\"ready\"} 0");
        check_line(text, "# TYPE hpfilld_claim_pages gauge");
        check_line(text, "hpfilld_claim_pages{claim=\"vm2\",size=\"2M\",node=\"1\","
                         "file=\"/run/hpfilld.conf.d/50-claim vm2.conf\"} 32");
        /* every HELP has its TYPE, and every line ends */
        CHECK(text[strlen(text) - 1] == '\n');
        free(text);
        fill_record_done(&r);
}

/* The record as the state's lines, in a state of its own, and back */
static int fill_record_write(FILE *f, const struct fill_record *r) {
        fputs("hpfilld-state 1\nseq 0\n", f);
        fill_record_format(f, r);
        fputs("end\n", f);
        return ferror(f) ? -EIO : 0;
}

static int fill_record_parse(const char *text, struct fill_record *ret) {
        struct state s = {};
        struct error e = {};
        int r = state_parse(text, &s, &e);

        if (r >= 0) {
                *ret = s.record;
                s.record = (struct fill_record) {};
        }
        state_done(&s);
        return r;
}

/* Lines of a record, in a state, refused */
static int lines_parse(const char *lines, struct fill_record *ret) {
        char text[4096];

        (void) snprintf(text, sizeof(text), "hpfilld-state 1\nseq 0\n%send\n", lines);
        return fill_record_parse(text, ret);
}

TEST(test_format_no_fill) {
        struct metrics_pool pools[] = { { .page_size = 2 * MB, .node = 0, .total = 1 } };
        struct metrics_size sizes[] = { { .page_size = 2 * MB } };
        struct metrics m = { .version = "1", .pools = pools, .n_pools = 1, .sizes = sizes, .n_sizes = 1 };
        char *text = format(&m);

        check_line(text, "hpfilld_pool_pages{size=\"2M\",node=\"0\"} 1");
        CHECK(!strstr(text, "hpfilld_last_fill"));
        CHECK(!strstr(text, "hpfilld_pool_target_pages"));
        CHECK(!strstr(text, "hpfilld_reservation"));
        free(text);
}

TEST(test_record_roundtrip) {
        struct fill_record r = sample_record(), back = {};
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK_EQ(fill_record_write(f, &r), 0);
        CHECK_EQ(fclose(f), 0);
        CHECK_EQ(fill_record_parse(text, &back), 0);
        CHECK(back.valid);
        CHECK_EQ(back.time_ns, r.time_ns);
        CHECK_EQ(back.exit_status, 3);
        CHECK_EQ(back.elapsed_ns, r.elapsed_ns);
        CHECK_EQ(back.fills_total, 4);
        CHECK_EQ(back.n_sizes, 1);
        CHECK_EQ(back.sizes[0].rounds, 2);
        CHECK_EQ(back.sizes[0].rounds_total, 7);
        CHECK_EQ(back.sizes[0].met, 0);
        /* the targets are the state's own, not the record's */
        CHECK_EQ(back.n_targets, 0);
        CHECK_EQ(back.n_reserves, 3);
        CHECK(strcmp(back.reserves[2].path, "") == 0);
        CHECK_EQ(back.reserves[2].state, MR_FAILED);
        CHECK(strcmp(back.reserves[0].name, "vm\"1") == 0);
        CHECK(strcmp(back.reserves[0].path, "/dev/hugepages/hpfilld/vm\"1") == 0);
        CHECK_EQ(back.reserves[0].state, MR_SHORT);
        CHECK(strcmp(back.reserves[0].nodes, "0,1") == 0);
        CHECK(strcmp(back.reserves[1].nodes, "") == 0);
        /* the configuration's [Claim]s; hpfilld claim's are the state's own */
        CHECK_EQ(back.n_claims, 1);
        CHECK(strcmp(back.claims[0].name, "vm2") == 0);
        CHECK_EQ(back.claims[0].page_size, 2 * MB);
        CHECK_EQ(back.claims[0].node, 1);
        CHECK_EQ(back.claims[0].pages, 32);
        CHECK(strcmp(back.claims[0].file, "/run/hpfilld.conf.d/50-claim vm2.conf") == 0);
        /* the texts on one line each, a newline in one as \\012 */
        CHECK(strcmp(back.summary, "2M pool: 100/812 pages; reservation vm\"1:\\012short") == 0);
        CHECK(strcmp(back.next_boot, "hugepagesz=2M hugepages=1:300") == 0);
        free(text);
        fill_record_done(&r);
        fill_record_done(&back);
}

TEST(test_record_bad) {
        static const char *const bad[] = {
                "last-size 2097152 1 0 0 1\n", /* no fill line */
                "last-fill 1 0 1 1\nlast-size 2097152 1 0 0 2\n",
                "last-fill 1 0 1 1\nlast-target 2097152 0 1\n",
                "last-fill 1 0 1 1\nlast-reserve vm 2097152 1 1 9 /x\n",
                "last-fill 1 0 1 1\nlast-reserve vm 2097152 1 1 0 - relative\n",
                "last-fill 1 0 1 1\nlast-reserve vm 2097152 1 1 0 /x\n", /* no nodes */
                "last-fill 1 0 1 1\nlast-reserve vm 2097152 1 1 0 0;1 /x\n",
                "last-fill 1 0 1 1 extra\n",
                "last-fill 1 0 1 1\nlast-what\n",
                "last-fill 1 0 1 1\nlast-summary\n",
                "last-fill 1 0 1 1\nlast-summary a\033[2Jb\n", /* a terminal's escape: not ours */
                "last-fill 1 0 1 1\nlast-next-boot a\rb\n",
                "last-fill -5 0 1 1\n",
                "last-fill 1 256 1 1\n",
                "last-fill 1 -1 1 1\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct fill_record r = {};

                if (lines_parse(bad[i], &r) != -EBADMSG) {
                        fprintf(stderr, "accepted: '%s'\n", bad[i]);
                        exit(1);
                }
        }
        /* after the end, or without it: the state's own refusals */
        struct fill_record r = {};
        CHECK_EQ(fill_record_parse("hpfilld-state 1\nseq 0\nlast-fill 1 0 1 1\n", &r), -EBADMSG);
        CHECK_EQ(fill_record_parse("hpfilld-state 1\nseq 0\nend\nlast-fill 1 0 1 1\n", &r), -EBADMSG);
}

/* Whatever the texts hold, the record written parses, cut to what the reader takes; a longer
 * line than that is not one of ours. */
TEST(test_record_long_texts) {
        struct fill_record r = { .valid = true, .time_ns = 1 }, back = {};
        char *text = NULL, *longer, *line;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        memset(r.summary, '\n', sizeof(r.summary) - 1);
        memset(r.next_boot, 'x', sizeof(r.next_boot) - 1);
        CHECK_EQ(fill_record_write(f, &r), 0);
        CHECK_EQ(fclose(f), 0);
        CHECK_EQ(fill_record_parse(text, &back), 0);
        CHECK_EQ(strlen(back.summary), (sizeof(r.summary) - 1) / 4 * 4);
        CHECK(strncmp(back.summary, "\\012\\012", 8) == 0);
        CHECK(strcmp(back.next_boot, r.next_boot) == 0);
        /* one more character in a text: refused */
        longer = calloc(1, len + 2);
        CHECK(longer);
        memcpy(longer, text, len);
        line = strstr(longer, "last-next-boot x");
        CHECK(line);
        memmove(line + 16, line + 15, strlen(line + 15) + 1);
        CHECK_EQ(fill_record_parse(longer, &back), -EBADMSG);
        fill_record_done(&back);
        free(longer);
        free(text);
}

TEST(test_metrics_file_setting) {
        struct config c = CONFIG_INIT;
        struct error e = {};
        /* the directory is checked (tests/unit/metrics-file.sh): one of this test's own, whatever
         * the host has in /var/lib */
        char dir[] = "/tmp/test-metrics.XXXXXX", good[256], want[128];
        static const char *const bad[] = {
                "[Fill]\nMetricsFile=hpfilld.prom\n",
                "[Fill]\nMetricsFile=/var/lib/\n",
                "[Fill]\nMetricsFile=/a\nMetricsFile=/b\n",
        };

        CHECK(mkdtemp(dir));
        (void) snprintf(want, sizeof(want), "%s/hpfilld.prom", dir);
        (void) snprintf(good, sizeof(good), "[Fill]\nMetricsFile=%s\n", want);
        CHECK_EQ(config_parse_text(&c, "t.conf", good, strlen(good), &e), 0);
        CHECK(strcmp(c.metrics_file, want) == 0);
        config_done(&c);
        CHECK_EQ(rmdir(dir), 0);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct config b = CONFIG_INIT;

                CHECK_EQ(config_parse_text(&b, "t.conf", bad[i], strlen(bad[i]), &e), -EINVAL);
                CHECK_STR_CONTAINS(e.msg, "t.conf:");
                CHECK_STR_CONTAINS(e.msg, "MetricsFile=");
                config_done(&b);
        }
        CHECK_EQ(config_check_metrics_file(""), 0);
        CHECK_EQ(config_check_metrics_file("/a\nb"), -EINVAL);

        /* MetricsInterval=: 15 s unless set; 0 (fills only) to a day */
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(c.metrics_interval_s, 15);
        CHECK_EQ(config_parse_text(&c, "t.conf", "[Fill]\nMetricsInterval=0\n", 25, &e), 0);
        CHECK_EQ(c.metrics_interval_s, 0);
        config_done(&c);
        for (size_t i = 0; i < 3; i++) {
                static const char *const worse[] = { "[Fill]\nMetricsInterval=-1\n", "[Fill]\nMetricsInterval=86401\n",
                                                     "[Fill]\nMetricsInterval=15s\n" };
                struct config b = CONFIG_INIT;

                CHECK_EQ(config_parse_text(&b, "t.conf", worse[i], strlen(worse[i]), &e), -EINVAL);
                CHECK_STR_CONTAINS(e.msg, "MetricsInterval= must be seconds from 0 to 86400");
                config_done(&b);
        }
}

/* The daemon's MetricsInterval= refresh: the pools as they are now, written only when the text
 * changes (the same file, not renamed over, when nothing moved). */
TEST(test_refresh) {
        static const unsigned sizes[] = { 2048, 0 };
        struct fake_root r;
        struct stat a, b;
        struct error e = {};
        char path[512], *text = NULL;

        fake_root_new(&r);
        fake_numa_machine(&r, 1, 4096, 0, sizes);
        fake_set_node_pool(&r, 0, 2048, 32, 32);
        (void) snprintf(path, sizeof(path), "%s/hpfilld.prom", r.path);
        CHECK_EQ(metrics_refresh_file(r.fd, path, &e), 1);
        CHECK_EQ(read_full_file_at(r.fd, "hpfilld.prom", 1 << 20, &text, NULL), 0);
        check_line(text, "hpfilld_pool_pages{size=\"2M\",node=\"0\"} 32");
        free(text);
        CHECK_EQ(stat(path, &a), 0);
        CHECK_EQ(metrics_refresh_file(r.fd, path, &e), 0);
        CHECK_EQ(stat(path, &b), 0);
        CHECK_EQ(a.st_ino, b.st_ino);
        /* given back */
        fake_set_node_pool(&r, 0, 2048, 0, 0);
        CHECK_EQ(metrics_refresh_file(r.fd, path, &e), 1);
        CHECK_EQ(read_full_file_at(r.fd, "hpfilld.prom", 1 << 20, &text, NULL), 0);
        check_line(text, "hpfilld_pool_pages{size=\"2M\",node=\"0\"} 0");
        free(text);
        fake_root_free(&r);
}

/* A setting's path in a label: one label whatever it holds (the state's parser allows only
 * pool paths, but the label escapes all the same) */
TEST(test_format_journal_escaped) {
        struct status_setting o[2] = {
                { .path = "x\x1b[2J\"x\\\xc2\x9b", .result = "failed" },
                { .path = "sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages", .result = "stale" },
        };
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);

        CHECK(f);
        CHECK_EQ(metrics_format_journal(f, o, 2), 0);
        CHECK(fclose(f) == 0);
        CHECK_STR_CONTAINS(out, "hpfilld_journal_entry{entry=\"setting\",path=\"/x\\\\033[2J\\\"x\\\\\\\\302\\\\233\",result=\"failed\"} 1\n");
        CHECK_STR_CONTAINS(out, "hpfilld_journal_entry{entry=\"setting\",path=\"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages\",result=\"stale\"} 1\n");
        CHECK(!strchr(out, 0x1b));
        free(out);
}

/* The record is hpfilld's own: a reservation's name or path with a control character in it is
 * neither recorded nor read back (status prints both). */
TEST(test_record_refuses_controls) {
        struct fill_record r = {}, back = {};

        CHECK_EQ(fill_record_add_reserve(&r, "vm\x1b[2J", 2 << 20, 1, 1, MR_READY, "", "/dev/hugepages/hpfilld/vm"), -EINVAL);
        CHECK_EQ(fill_record_add_reserve(&r, "vm", 2 << 20, 1, 1, MR_READY, "", "/dev/hugepages/hpfilld/vm\xc2\x9b"),
                 -EINVAL);
        CHECK_EQ(r.n_reserves, 0);
        CHECK_EQ(lines_parse("last-fill 1 0 0 1\nlast-reserve vm\x1b]0; 2097152 1 1 0 - /dev/hugepages/hpfilld/vm\n", &back),
                 -EBADMSG);
        CHECK_EQ(lines_parse("last-fill 1 0 0 1\nlast-reserve vm 2097152 1 1 0 - /dev/hugepages/hpfilld/\x9bvm\n", &back),
                 -EBADMSG);
        CHECK_EQ(lines_parse("last-fill 1 0 0 1\nlast-reserve vm 2097152 1 1 0 - /dev/hugepages/hpfilld/vm\n", &back), 0);
        CHECK_EQ(back.n_reserves, 1);
        fill_record_done(&back);
        fill_record_done(&r);
}

int main(void) {
        RUN(test_record_refuses_controls);
        RUN(test_format_journal_escaped);
        RUN(test_format);
        RUN(test_refresh);
        RUN(test_format_no_fill);
        RUN(test_record_roundtrip);
        RUN(test_record_bad);
        RUN(test_record_long_texts);
        RUN(test_metrics_file_setting);
        return 0;
}
