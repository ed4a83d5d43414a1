/* SPDX-License-Identifier: MIT */
/* The journal and the host lock's records against fake trees: entries, owners gone, alive or
 * reused pids (/proc/PID/stat start times), values changed since. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "fill/journal.h"
#include "kernel/proc.h"
#include "state/lock.h"
#include "util/fileio.h"
#include "test.h"

#define OC "sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages"
#define ENTRY "run/hpfilld/changed.hugepages-2048kB.nr_overcommit_hugepages"

static void fake_process(struct fake_root *r, int pid, unsigned long long start) {
        char path[64];

        snprintf(path, sizeof(path), "proc/%d/stat", pid);
        /* a command name with a space and a ')' in it, as a process may choose */
        fake_writef(r, path, "%d (a) b) S 1 %d %d 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 10\n", pid, pid,
                    pid, start);
}

static void fake_entry(struct fake_root *r, int pid, unsigned long long start) {
        struct journal_entry e = { .path = OC, .found = 3, .set = 63, .pid = pid, .start_time = start };
        char text[256];

        CHECK(journal_format(&e, text, sizeof(text)) > 0);
        fake_write(r, ENTRY, text);
}

TEST(test_proc_start_time) {
        struct fake_root r;
        uint64_t t;

        fake_root_new(&r);
        fake_process(&r, 4242, 777);
        CHECK_EQ(proc_start_time(r.fd, 4242, &t), 0);
        CHECK_EQ(t, 777);
        CHECK(proc_is(r.fd, 4242, 777));
        CHECK(!proc_is(r.fd, 4242, 778));
        CHECK(!proc_is(r.fd, 4243, 777));
        CHECK_EQ(proc_start_time(r.fd, 4243, &t), -ESRCH);
        fake_write(&r, "proc/4244/stat", "4244 (short) S 1\n");
        CHECK_EQ(proc_start_time(r.fd, 4244, &t), -EBADMSG);
        fake_root_free(&r);
}

TEST(test_parse) {
        struct journal_entry e;

        CHECK_EQ(journal_parse("path=" OC " found=3 set=63 pid=12 start=99\n", &e), 0);
        CHECK_EQ(e.found, 3);
        CHECK_EQ(e.set, 63);
        CHECK_EQ(e.pid, 12);
        CHECK_EQ(e.start_time, 99);
        /* an entry names what a later run writes: a pool's setting and nothing else */
        CHECK_EQ(journal_parse("path=etc/shadow found=3 set=63 pid=12 start=99\n", &e), -EBADMSG);
        CHECK_EQ(journal_parse("path=sys/kernel/mm/hugepages/hugepages-2048kB/../../x found=3 set=63 pid=12 start=9", &e),
                 -EBADMSG);
        CHECK_EQ(journal_parse("path=" OC " found=3 set=63 pid=0 start=99\n", &e), -EBADMSG);
        CHECK_EQ(journal_parse("path=" OC " found=3\n", &e), -EBADMSG);
        /* the page size: digits and kB; the setting: one a fill changes */
        CHECK_EQ(journal_parse("path=sys/kernel/mm/hugepages/hugepages-x/nr_overcommit_hugepages found=3 set=63 pid=1 start=9",
                               &e), -EBADMSG);
        CHECK_EQ(journal_parse("path=sys/kernel/mm/hugepages/hugepages-kB/nr_overcommit_hugepages found=3 set=63 pid=1 start=9",
                               &e), -EBADMSG);
        CHECK_EQ(journal_parse("path=sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages found=3 set=63 pid=1 start=9", &e),
                 -EBADMSG);
        CHECK_EQ(journal_parse("path=sys/kernel/mm/hugepages/hugepages-2048kB/a/nr_overcommit_hugepages found=3 set=63 pid=1 start=9",
                               &e), -EBADMSG);
        /* one line of ours, nothing after it */
        CHECK_EQ(journal_parse("path=" OC " found=3 set=63 pid=12 start=99 x\n", &e), -EBADMSG);
        CHECK_EQ(journal_parse("path=" OC " found=3 set=63 pid=12 start=99\n\x1b[2J", &e), -EBADMSG);
}

TEST(test_record_and_forget) {
        struct fake_root r;
        struct journal_entry e;
        char buf[256];

        fake_root_new(&r);
        fake_write(&r, OC, "3\n");
        CHECK_EQ(journal_record(r.fd, OC, 3, 63), 0);
        CHECK_EQ(read_line_at(r.fd, ENTRY, buf, sizeof(buf)), 0);
        CHECK_EQ(journal_parse(buf, &e), 0);
        CHECK_EQ(e.pid, getpid());
        CHECK_EQ(e.found, 3);
        CHECK_EQ(journal_forget(r.fd, OC), 0);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) < 0);
        CHECK_EQ(journal_forget(r.fd, OC), 0); /* gone already: fine */
        fake_root_free(&r);
}

TEST(test_recover) {
        struct journal_outcome o[JOURNAL_MAX];
        struct fake_root r;
        char line[512];

        fake_root_new(&r);
        fake_write(&r, OC, "63\n");

        /* the owner runs: left alone */
        fake_process(&r, 4242, 777);
        fake_entry(&r, 4242, 777);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 0);
        CHECK_EQ(fake_read_u64(&r, OC), 63);

        /* its pid now names another process: the owner is gone, the value put back */
        fake_process(&r, 4242, 900);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_RESTORED);
        CHECK_EQ(fake_read_u64(&r, OC), 3);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) < 0);
        journal_describe(&o[0], line, sizeof(line));
        CHECK_STR_CONTAINS(line, "Put /" OC " back to 3: pid 4242 raised it to 63");

        /* no such process: the same */
        fake_write(&r, OC, "63\n");
        fake_entry(&r, 5000, 1);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_RESTORED);
        CHECK_EQ(fake_read_u64(&r, OC), 3);

        /* changed since: the admin's value stays, the entry goes */
        fake_write(&r, OC, "500\n");
        fake_entry(&r, 5000, 1);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_CHANGED);
        CHECK_EQ(fake_read_u64(&r, OC), 500);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) < 0);

        /* a broken entry is not acted on, but said */
        fake_write(&r, ENTRY, "path=/etc/passwd found=0 set=500 pid=5000 start=1\n");
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_INVALID);
        CHECK_EQ(fake_read_u64(&r, OC), 500);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) == 0);
        fake_root_free(&r);
}

/* The neighbour's journal: entries in a tree that someone else made (hpfilld status --root
 * T), naming links to other files, settings a fill never changes, or under other names. */
#define VICTIM "victim/nr_overcommit_hugepages"
#define LINKED "sys/kernel/mm/hugepages/hugepages-4096kB"
#define LINKED_ENTRY "run/hpfilld/changed.hugepages-4096kB.nr_overcommit_hugepages"
#define SCORE_ENTRY "run/hpfilld/changed.hugepages-2048kB.oom_score_adj"

static void forged_tree(struct fake_root *r) {
        fake_write(r, OC, "63\n");
        fake_write(r, VICTIM, "63\n");
        fake_write(r, "victim/oom_score_adj", "63\n");
        fake_write(r, "sys/kernel/mm/hugepages/hugepages-2048kB/oom_score_adj", "63\n");
        /* the page size's directory a link out to the victim's */
        CHECK(symlinkat("../../../../victim", r->fd, LINKED) == 0);
        fake_entry(r, 5000, 1); /* the legit one */
        fake_write(r, LINKED_ENTRY,
                   "path=" LINKED "/nr_overcommit_hugepages found=0 set=63 pid=5000 start=1\n");
        fake_write(r, SCORE_ENTRY,
                   "path=sys/kernel/mm/hugepages/hugepages-2048kB/oom_score_adj found=0 set=63 pid=5000 start=1\n");
        /* a legit path under another entry's name */
        fake_write(r, "run/hpfilld/changed.elsewhere", "path=" OC " found=0 set=63 pid=5000 start=1\n");
}

static const struct journal_outcome *find(const struct journal_outcome *o, int n, const char *name) {
        for (int i = 0; i < n; i++)
                if (strcmp(o[i].name, name) == 0)
                        return &o[i];
        return NULL;
}

static void check_forged_untouched(struct fake_root *r) {
        CHECK_EQ(fake_read_u64(r, VICTIM), 63);
        CHECK_EQ(fake_read_u64(r, "victim/oom_score_adj"), 63);
        CHECK_EQ(fake_read_u64(r, "sys/kernel/mm/hugepages/hugepages-2048kB/oom_score_adj"), 63);
        CHECK(faccessat(r->fd, LINKED_ENTRY, F_OK, 0) == 0);
        CHECK(faccessat(r->fd, SCORE_ENTRY, F_OK, 0) == 0);
}

static void check_forged_said(const struct journal_outcome *o, int n) {
        const struct journal_outcome *x;
        char line[512];

        x = find(o, n, "changed.hugepages-4096kB.nr_overcommit_hugepages");
        CHECK(x && x->result == JOURNAL_INVALID && (x->error == -ELOOP || x->error == -ENOTDIR));
        journal_describe(x, line, sizeof(line));
        CHECK_STR_CONTAINS(line, "is not an entry hpfilld makes, or names no pool setting");
        x = find(o, n, "changed.hugepages-2048kB.oom_score_adj");
        CHECK(x && x->result == JOURNAL_INVALID && x->error == -EBADMSG);
        x = find(o, n, "changed.elsewhere");
        CHECK(x && x->result == JOURNAL_INVALID);
}

TEST(test_inspect_reads_only) {
        struct journal_outcome o[JOURNAL_MAX];
        const struct journal_outcome *x;
        struct fake_root r;
        char line[512];
        int n;

        fake_root_new(&r);
        forged_tree(&r);
        /* status: says what is there, writes nothing, removes nothing */
        n = journal_inspect(r.fd, false, o, JOURNAL_MAX);
        CHECK_EQ(n, 4);
        x = find(o, n, "changed.hugepages-2048kB.nr_overcommit_hugepages");
        CHECK(x && x->result == JOURNAL_STALE);
        journal_describe(x, line, sizeof(line));
        CHECK_STR_CONTAINS(line, "/" OC " is still 63: pid 5000, which is gone, raised it from 3 and did not put it back; "
                                 "the next fill puts it back");
        check_forged_said(o, n);
        CHECK_EQ(fake_read_u64(&r, OC), 63);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) == 0);
        check_forged_untouched(&r);

        /* changed since: said, and left for the fill to drop */
        fake_write(&r, OC, "500\n");
        n = journal_inspect(r.fd, false, o, JOURNAL_MAX);
        x = find(o, n, "changed.hugepages-2048kB.nr_overcommit_hugepages");
        CHECK(x && x->result == JOURNAL_CHANGED);
        CHECK(faccessat(r.fd, ENTRY, F_OK, 0) == 0);
        fake_write(&r, OC, "63\n");

        /* the fill: puts back the legit setting, and only that */
        n = journal_recover(r.fd, false, o, JOURNAL_MAX);
        CHECK_EQ(n, 4);
        x = find(o, n, "changed.hugepages-2048kB.nr_overcommit_hugepages");
        CHECK(x && x->result == JOURNAL_RESTORED);
        CHECK_EQ(fake_read_u64(&r, OC), 3);
        check_forged_said(o, n);
        check_forged_untouched(&r);
        fake_root_free(&r);
}

/* An entry that is a link to an entry elsewhere: not read (else its owner, gone, would have
 * the setting put back from a file that is not in the journal). */
TEST(test_entry_is_a_link) {
        struct journal_outcome o[JOURNAL_MAX];
        struct journal_entry e = { .path = OC, .found = 3, .set = 63, .pid = 5000, .start_time = 1 };
        struct fake_root r;
        char text[256];

        fake_root_new(&r);
        fake_write(&r, OC, "63\n");
        CHECK(journal_format(&e, text, sizeof(text)) > 0);
        fake_write(&r, "elsewhere/entry", text);
        CHECK(mkdirat(r.fd, "run", 0755) == 0 && mkdirat(r.fd, "run/hpfilld", 0755) == 0);
        CHECK(symlinkat("../../elsewhere/entry", r.fd, ENTRY) == 0);
        CHECK_EQ(journal_inspect(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_INVALID);
        CHECK_EQ(o[0].error, -ELOOP);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK_EQ(o[0].result, JOURNAL_INVALID);
        CHECK_EQ(fake_read_u64(&r, OC), 63);
        fake_root_free(&r);
}

TEST(test_links_on_the_way) {
        struct journal_outcome o[JOURNAL_MAX];
        struct fake_root r;

        /* the setting itself a link */
        fake_root_new(&r);
        fake_write(&r, VICTIM, "63\n");
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/x", "");
        CHECK(symlinkat("../../../../../victim/nr_overcommit_hugepages", r.fd, OC) == 0);
        fake_entry(&r, 5000, 1);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK(o[0].result == JOURNAL_INVALID && o[0].error == -ELOOP);
        CHECK_EQ(fake_read_u64(&r, VICTIM), 63);
        fake_root_free(&r);

        /* a directory above it a link */
        fake_root_new(&r);
        fake_write(&r, "elsewhere/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages", "63\n");
        CHECK(symlinkat("elsewhere", r.fd, "sys") == 0);
        fake_entry(&r, 5000, 1);
        CHECK_EQ(journal_inspect(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK(o[0].result == JOURNAL_INVALID);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), 1);
        CHECK(o[0].result == JOURNAL_INVALID);
        CHECK_EQ(fake_read_u64(&r, "elsewhere/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages"), 63);
        fake_root_free(&r);

        /* run/hpfilld written by others: not read at all */
        fake_root_new(&r);
        fake_write(&r, OC, "63\n");
        fake_entry(&r, 5000, 1);
        CHECK(fchmodat(r.fd, "run/hpfilld", 0777, 0) == 0);
        CHECK_EQ(journal_inspect(r.fd, false, o, JOURNAL_MAX), -EPERM);
        CHECK_EQ(journal_recover(r.fd, false, o, JOURNAL_MAX), -EPERM);
        CHECK_EQ(fake_read_u64(&r, OC), 63);
        fake_root_free(&r);
}

TEST(test_lock_holder) {
        struct hostlock_holder h;

        CHECK_EQ(hostlock_parse("pid=77 start=5 since=1700000000 what=hpfilld --once\n", &h), 0);
        CHECK_EQ(h.pid, 77);
        CHECK_EQ(h.start_time, 5);
        CHECK_EQ(h.since, 1700000000);
        CHECK(strcmp(h.what, "hpfilld --once") == 0);
        CHECK_EQ(hostlock_parse("pid=x", &h), -EBADMSG);
}

/* The host lock's file: made 0600 whatever the umask; one there already that is not ours at
 * mode 0600 is refused and left where it is (never removed: removing a file another fill just
 * made is two fills at once); the name older versions used is not looked at. */
static int take(struct fake_root *r) {
        struct stop stop;
        bool waited;
        int fd;

        stop_init(&stop);
        fd = hostlock_take(r->fd, "test", 1, &stop, NULL, &waited);
        stop_done(&stop);
        return fd;
}

TEST(test_lock_file) {
        struct fake_root r;
        struct stat st, before;
        mode_t mask;
        int fd;

        fake_root_new(&r);
        fake_write(&r, "run/hpfilld/lock", "");
        CHECK(fchmodat(r.fd, "run/hpfilld/lock", 0644, 0) == 0);
        mask = umask(0277);
        fd = take(&r);
        (void) umask(mask);
        CHECK(fd >= 0);
        CHECK(fstatat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        close(fd);
        /* the old name: as it was */
        CHECK(fstatat(r.fd, "run/hpfilld/lock", &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK_EQ(st.st_mode & 07777, 0644);
        /* again: the same file, its holder line the new one alone (a longer one before cut off,
         * fake_write() writes the same inode) */
        fake_write(&r, "run/hpfilld/" HOSTLOCK_FILE, "pid=1 start=2 since=3 what=a holder whose line is longer than ours\n");
        CHECK(fstatat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, &before, 0) == 0);
        fd = take(&r);
        CHECK(fd >= 0);
        close(fd);
        CHECK(fstatat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, &st, 0) == 0);
        CHECK_EQ(st.st_ino, before.st_ino);
        {
                char line[256] = "";
                int lfd = openat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, O_RDONLY | O_CLOEXEC);
                ssize_t n = lfd >= 0 ? read(lfd, line, sizeof(line) - 1) : -1;

                CHECK(n > 0);
                if (lfd >= 0)
                        close(lfd);
                CHECK(strncmp(line, "pid=", 4) == 0);
                CHECK(strstr(line, " what=test\n") != NULL);
                CHECK(strchr(line, '\n')[1] == 0);
        }
        /* of another mode: refused, and left there */
        CHECK(fchmodat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, 0644, 0) == 0);
        CHECK_EQ(take(&r), -EPERM);
        CHECK(fstatat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, &st, 0) == 0);
        CHECK_EQ(st.st_ino, before.st_ino);
        CHECK_EQ(st.st_mode & 07777, 0644);
        /* a link: refused */
        CHECK(unlinkat(r.fd, "run/hpfilld/" HOSTLOCK_FILE, 0) == 0);
        CHECK(symlinkat("lock", r.fd, "run/hpfilld/" HOSTLOCK_FILE) == 0);
        CHECK_EQ(take(&r), -ELOOP);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_proc_start_time);
        RUN(test_parse);
        RUN(test_record_and_forget);
        RUN(test_recover);
        RUN(test_inspect_reads_only);
        RUN(test_entry_is_a_link);
        RUN(test_links_on_the_way);
        RUN(test_lock_holder);
        RUN(test_lock_file);
        return 0;
}
