/* SPDX-License-Identifier: MIT */
/* The record of the last fill, in the state: written whole with explicit modes, in place of the
 * one before; `status` on empty, partial and good states. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "service/metrics_out.h"
#include "service/status.h"
#include "state/rundir.h"
#include "state/store.h"
#include "state/text.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/replace.h"
#include "util/shown.h"
#include "test.h"

static const unsigned sizes[] = { 2048, 0 };

/* `hpfilld status [--json] --root R`, its stdout as a string (to be freed). */
static char *run_status(struct fake_root *r, bool json) {
        char out[300], *argv[] = { "status", json ? "--json" : NULL, NULL }, *text = NULL;
        struct common_options common = { .root = r->path };
        int fd, saved;

        (void) snprintf(out, sizeof(out), "%s.out", r->path);
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        fflush(stdout);
        saved = dup(1);
        CHECK(dup2(fd, 1) == 1);
        shown_root_set(r->path); /* as common_options_take() does */
        CHECK_EQ(status_main(json ? 2 : 1, argv, &common), 0);
        fflush(stdout);
        CHECK(dup2(saved, 1) == 1);
        (void) close(saved);
        (void) close(fd);
        CHECK_EQ(read_full_file_at(AT_FDCWD, out, 1 << 20, &text, NULL), 0);
        (void) unlink(out);
        return text;
}

/* @s written to RUNDIR/state as a save writes it */
static void write_state(struct fake_root *r, const struct state *s) {
        _cleanup_(closep) int dirfd = rundir_open(r->fd);
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(dirfd >= 0 && f);
        CHECK_EQ(state_format(f, s), 0);
        CHECK_EQ(fclose(f), 0);
        CHECK_EQ(replace_file_at(dirfd, STATE_FILE, text, len, false), 0);
}

/* A fill's record as a fill keeps it in the state: nothing filled, @status, @summary, @next_boot. */
static void record(struct fake_root *r, int status, const char *summary, const char *next_boot) {
        struct fill_record rec = {};
        struct state s = {};
        struct error e = {};

        CHECK_EQ(state_store_read(r->fd, &s, &e), 0);
        metrics_record_into(r->fd, &s, &rec, status, summary, next_boot);
        write_state(r, &s);
        state_done(&s);
}

TEST(test_write) {
        struct fake_root r;
        struct fill_record rec = {};
        struct stat st;
        char *text = NULL;
        mode_t old;

        fake_root_new(&r);
        old = umask(077);
        record(&r, 3, "2M pool: 1/2 pages", "hugepages=2");
        record(&r, 0, "2M pool: 2/2 pages;\nsecond line", "");
        (void) umask(old);
        CHECK(fstatat(r.fd, "run/hpfilld", &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        CHECK(fstatat(r.fd, "run/hpfilld/" STATE_FILE, &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0644);
        /* the state alone: no temp file, nor the one it replaced, left */
        CHECK_EQ(fake_count_entries(&r, "run/hpfilld"), 1);
        CHECK_EQ(read_full_file_at(r.fd, "run/hpfilld/" STATE_FILE, 1 << 16, &text, NULL), 0);
        /* the second record whole, its summary on one line, no next_boot line for none */
        CHECK_STR_CONTAINS(text, "\nlast-summary 2M pool: 2/2 pages;\\012second line\nend\n");
        CHECK(!strstr(text, "last-next-boot"));
        CHECK_EQ(metrics_record_read(r.fd, &rec), 0);
        CHECK_EQ(rec.exit_status, 0);
        CHECK_EQ(rec.fills_total, 2);
        fill_record_done(&rec);
        free(text);
        fake_root_free(&r);
}

TEST(test_status_records) {
        static const char *const bad[] = { "", "\n", "hpfilld-state 1\nseq 0\nlast-fill 17\nend\n",
                                           "hpfilld-state 1\nseq 0\nlast-fill 1 0 1 1\n",
                                           "hpfilld-state 1\nseq 0\nlast-fill 1 0 1 1\nlast-summary 2M pool",
                                           "garbage\n", "hpfilld-state 1\nseq 0\nlast-fill 1 0 1 1\nend\ngarbage\n",
                                           "hpfilld-state 1\nseq 0\nlast-summary a\nend\n" };
        struct fake_root r;
        char *out;

        fake_root_new(&r);
        fake_numa_machine(&r, 1, 1024, 0, sizes);
        out = run_status(&r, true);
        CHECK_STR_CONTAINS(out, "\"last_fill\": null,");
        free(out);
        out = run_status(&r, false);
        CHECK_STR_CONTAINS(out, "Last fill: none recorded");
        free(out);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                fake_write(&r, "run/hpfilld/" STATE_FILE, bad[i]);
                out = run_status(&r, true);
                CHECK_STR_CONTAINS(out, "\"last_fill\": null,");
                CHECK(!strstr(out, "(null)"));
                free(out);
                out = run_status(&r, false);
                /* the path really read: below --root */
                CHECK_STR_CONTAINS(out, "Last fill: unknown (");
                CHECK_STR_CONTAINS(out, r.path);
                CHECK_STR_CONTAINS(out, "/run/hpfilld/state cannot be read)");
                free(out);
        }
        CHECK(unlinkat(r.fd, "run/hpfilld/" STATE_FILE, 0) == 0);
        record(&r, 0, "2M pool: 2/2 pages; 1G pool: 1/1 pages", "");
        out = run_status(&r, true);
        CHECK_STR_CONTAINS(out, "\"last_fill\": {\"time\": ");
        CHECK_STR_CONTAINS(out, ", \"exit_status\": 0, \"exit_meaning\": \"ok\", \"next_boot\": null, "
                                "\"summary\": \"2M pool: 2/2 pages; 1G pool: 1/1 pages\", ");
        free(out);
        out = run_status(&r, false);
        CHECK_STR_CONTAINS(out, ", exit status 0\n  exit status 0: every target met\n  2M pool: 2/2 pages\n"
                                "  1G pool: 1/1 pages\n");
        CHECK(!strstr(out, "Next boot"));
        free(out);
        record(&r, 3, "1G pool: 1/2 pages", "hugepagesz=1G hugepages=0:2 \"x\"");
        out = run_status(&r, true);
        CHECK_STR_CONTAINS(out, "\"exit_meaning\": \"short\", \"next_boot\": \"hugepagesz=1G hugepages=0:2 \\\"x\\\"\", ");
        free(out);
        out = run_status(&r, false);
        CHECK_STR_CONTAINS(out, "  exit status 3: a pool came back short of its minimum (MinPercent=, --min)\n");
        CHECK_STR_CONTAINS(out, "Next boot, for the pools that came back short:\n  hugepagesz=1G hugepages=0:2 \"x\"\n");
        free(out);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_write);
        RUN(test_status_records);
        return 0;
}
