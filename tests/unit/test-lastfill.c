/* SPDX-License-Identifier: MIT */
/* The record of the last fill: written whole with explicit modes; `status` on empty, partial
 * and good records. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "service/lastfill.h"
#include "service/status.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "test.h"

static const unsigned sizes[] = { 2048, 0 };

/* `hpfilld status [--json] --root R`, its stdout as a string (to be freed). */
static char *run_status(struct fake_root *r, bool json) {
        char out[300], *argv[] = { "status", "--root", r->path, json ? "--json" : NULL, NULL }, *text = NULL;
        int fd, saved;

        (void) snprintf(out, sizeof(out), "%s.out", r->path);
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        fflush(stdout);
        saved = dup(1);
        CHECK(dup2(fd, 1) == 1);
        CHECK_EQ(status_main(json ? 4 : 3, argv), 0);
        fflush(stdout);
        CHECK(dup2(saved, 1) == 1);
        (void) close(saved);
        (void) close(fd);
        CHECK_EQ(read_full_file_at(AT_FDCWD, out, 1 << 20, &text, NULL), 0);
        (void) unlink(out);
        return text;
}

static unsigned count_entries(struct fake_root *r, const char *dir) {
        int fd = openat(r->fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fdopendir(fd);
        struct dirent *de;
        unsigned n = 0;

        CHECK(d);
        while ((de = readdir(d)))
                n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0);
        closedir(d);
        return n;
}

TEST(test_write) {
        struct fake_root r;
        struct stat st;
        char *text = NULL;
        mode_t old;

        fake_root_new(&r);
        old = umask(077);
        CHECK_EQ(lastfill_write(r.fd, 3, "2M pool: 1/2 pages", "hugepages=2"), 0);
        CHECK_EQ(lastfill_write(r.fd, 0, "2M pool: 2/2 pages", ""), 0);
        (void) umask(old);
        CHECK(fstatat(r.fd, LASTFILL_DIR, &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        CHECK(fstatat(r.fd, LASTFILL_FILE, &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0644);
        /* the record alone: no temp file left */
        CHECK_EQ(count_entries(&r, LASTFILL_DIR), 1);
        CHECK_EQ(read_full_file_at(r.fd, LASTFILL_FILE, 1 << 16, &text, NULL), 0);
        CHECK(lastfill_valid(text));
        CHECK_STR_CONTAINS(text, "\"exit_status\": 0, \"summary\": \"2M pool: 2/2 pages\"");
        free(text);
        fake_root_free(&r);
}

TEST(test_status_records) {
        static const char *const bad[] = { "", "\n", "{\"time\": 17", "{\"time\": 1, \"exit_status\": 0, \"summ",
                                           "garbage\n", "{\"time\": 1, \"exit_status\": 0, \"summary\": \"a\nb\"}" };
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
                fake_write(&r, LASTFILL_FILE, bad[i]);
                out = run_status(&r, true);
                CHECK_STR_CONTAINS(out, "\"last_fill\": null,");
                CHECK(!strstr(out, "(null)"));
                free(out);
                out = run_status(&r, false);
                /* the path really read: below --root */
                CHECK_STR_CONTAINS(out, "Last fill: unreadable record (");
                CHECK_STR_CONTAINS(out, r.path);
                CHECK_STR_CONTAINS(out, "/run/hpfilld/last-fill.json is empty or partial)");
                free(out);
        }
        CHECK_EQ(lastfill_write(r.fd, 0, "2M pool: 2/2 pages", ""), 0);
        out = run_status(&r, true);
        CHECK_STR_CONTAINS(out, "\"last_fill\": {\"time\": ");
        CHECK_STR_CONTAINS(out, ", \"exit_status\": 0, \"exit_meaning\": \"ok\", \"next_boot\": null, ");
        free(out);
        out = run_status(&r, false);
        CHECK_STR_CONTAINS(out, ", exit status 0\n  exit status 0: every target met\n  2M pool: 2/2 pages\n");
        free(out);
        CHECK_EQ(lastfill_write(r.fd, 3, "1G pool: 1/2 pages", "hugepagesz=1G hugepages=0:2 \"x\""), 0);
        out = run_status(&r, true);
        CHECK_STR_CONTAINS(out, "\"exit_meaning\": \"short\", \"next_boot\": \"hugepagesz=1G hugepages=0:2 \\\"x\\\"\", ");
        free(out);
        out = run_status(&r, false);
        CHECK_STR_CONTAINS(out, "  exit status 3: a pool came back short of its minimum (MinPercent=, --min)\n");
        free(out);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_write);
        RUN(test_status_records);
        return 0;
}
