/* SPDX-License-Identifier: MIT */
/* The test hooks (hooks.h): wrappers, at link time, of the daemon's own functions. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#include "fill/fill_sysfs.h"
#include "hooks.h"
#include "plan/choose.h"
#include "service/control.h"
#include "state/lock.h"
#include "service/job.h"
#include "service/session.h"
#include "util/macro.h"
#include "util/number.h"

struct hooks hooks;

/* A positive number from the environment, or 0: a bad one is the test's mistake, said at once. */
static uint64_t env_u64(const char *name) {
        const char *s = getenv(name);
        uint64_t v;

        if (!s)
                return 0;
        if (parse_u64(s, &v) < 0 || v == 0) {
                fprintf(stderr, "hooks: %s='%s' is not a positive number\n", name, s);
                exit(2);
        }
        return v;
}

__attribute__((constructor)) static void hooks_from_env(void) {
        hooks = (struct hooks) {
                .step_pages = env_u64("HPFILLD_TEST_STEP_PAGES"),
                .step_bytes = env_u64("HPFILLD_TEST_STEP_BYTES"),
                .interrupt_after = env_u64("HPFILLD_TEST_INTERRUPT_AFTER_STEPS"),
                .pause_fifo = getenv("HPFILLD_TEST_PAUSE_FIFO"),
                .pause_after = env_u64("HPFILLD_TEST_PAUSE_AFTER_STEPS"),
                .probe_always = env_u64("HPFILLD_TEST_PROBE_ALWAYS") != 0,
                .planned_fifo = getenv("HPFILLD_TEST_PLANNED_FIFO"),
                .bench_pause_fifo = getenv("HPFILLD_TEST_BENCH_PAUSE_FIFO"),
                .unclaimed_fifo = getenv("HPFILLD_TEST_UNCLAIMED_FIFO"),
        };
}

/* "paused" to the FIFO, then wait until the test writes to it (tests/root/lib.sh, fifo_go) */
static void rendezvous(const char *fifo) {
        char buf[16];
        int fd;

        fd = open(fifo, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
                (void) !write(fd, "paused\n", 7);
                (void) close(fd);
        }
        fd = open(fifo, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                while (read(fd, buf, sizeof(buf)) > 0)
                        ;
                (void) close(fd);
        }
}

/* Declared from the functions they stand for: a prototype changed in the daemon fails to compile
 * here, instead of a wrapper passing the arguments of an older one. */
#define WRAPPED(f) __typeof__(f) __real_##f, __wrap_##f
WRAPPED(fill_count_step);
WRAPPED(sysfs_first_step);
WRAPPED(choose_write_pages);
WRAPPED(choose_worth_probing);
WRAPPED(choose_probe_worth);
WRAPPED(hostlock_take);
WRAPPED(fflush);
WRAPPED(session_give_back);

uint64_t __wrap_fill_count_step(struct fill_shared *s) {
        uint64_t n = __real_fill_count_step(s);

        if (hooks.pause_fifo && n == hooks.pause_after)
                rendezvous(hooks.pause_fifo);
        if (hooks.interrupt_after && n == hooks.interrupt_after) {
                /* the real signal path, deterministically mid-fill */
                (void) kill(getpid(), SIGINT);
                stop_wait(s->stop);
        }
        return n;
}

uint64_t __wrap_sysfs_first_step(uint64_t page_size, uint64_t step_bytes) {
        return __real_sysfs_first_step(page_size, hooks.step_bytes ?: step_bytes);
}

uint64_t __wrap_choose_write_pages(const struct choose_write *w, uint64_t left) {
        return hooks.step_pages ? MIN(hooks.step_pages, left) : __real_choose_write_pages(w, left);
}

bool __wrap_choose_worth_probing(double ns) {
        return hooks.probe_always || __real_choose_worth_probing(ns);
}

bool __wrap_choose_probe_worth(const struct choose_node *nodes, size_t n, enum fill_mode first) {
        return hooks.probe_always || __real_choose_probe_worth(nodes, n, first);
}

int __wrap_hostlock_take(int rootfd, int dirfd, const struct state_open_options *o) {
        if (hooks.planned_fifo)
                rendezvous(hooks.planned_fifo);
        return __real_hostlock_take(rootfd, dirfd, o);
}

int __wrap_fflush(FILE *f) {
        static bool paused;
        int r = __real_fflush(f);

        if (f == stdout && hooks.bench_pause_fifo && !paused) {
                paused = true;
                rendezvous(hooks.bench_pause_fifo);
        }
        return r;
}

/* unclaim's give-back: the rendezvous where the claim is given back in the state, before its
 * pages leave (hooks.h): a test kills it there */
int __wrap_session_give_back(struct session *s, session_pick_fn pick, const void *data, session_given_fn said,
                             void *userdata) {
        if (hooks.unclaimed_fifo)
                rendezvous(hooks.unclaimed_fifo);
        return __real_session_give_back(s, pick, data, said, userdata);
}
