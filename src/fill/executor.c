/* SPDX-License-Identifier: MIT */
/* Runs tasks on threads while the calling thread takes the stop signals and ticks progress. */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

#include "fill/executor.h"
#include "util/macro.h"

/* Tasks start once every thread exists: creating a thread maps its stack, which takes the mmap
 * lock for writing and would stall the tasks already faulting pages in (they hold it for
 * reading, a chunk at a time). */
struct gate {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool open;
};

struct runner {
        const struct task *task;
        struct gate *gate;
        int done_fd;
        pthread_t thread;
};

static void *runner_main(void *arg) {
        struct runner *r = arg;
        uint64_t one = 1;

        (void) pthread_mutex_lock(&r->gate->lock);
        while (!r->gate->open)
                (void) pthread_cond_wait(&r->gate->cond, &r->gate->lock);
        (void) pthread_mutex_unlock(&r->gate->lock);
        r->task->fn(r->task->arg);
        /* eventfd writes of 1 never block and never fail short; nothing to do if they fail. */
        (void) !write(r->done_fd, &one, sizeof(one));
        return NULL;
}

int executor_block_signals(void) {
        return stop_block_signals();
}

int executor_run(const struct task *tasks, size_t n_tasks, struct stop *stop, unsigned tick_ms,
                 void (*tick)(void *userdata), void *userdata) {
        _cleanup_(closep) int done_fd = -1, sig_fd = -1;
        _cleanup_(freep) struct runner *runners = NULL;
        struct gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false };
        size_t started = 0, finished = 0;
        int r = 0;

        sig_fd = signalfd(-1, &stop->signals, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sig_fd < 0)
                return -errno;
        if (n_tasks == 1 && !tick) {
                /* A lone task with no progress to tick runs here: no thread to start and no
                 * wake-ups to wait for (a tenth of a millisecond and more of a 4 GiB sysfs fill);
                 * its stop_requested() checks read the signals. Tasks pin themselves to a node:
                 * this thread gets its CPUs back afterwards. */
                cpu_set_t cpus;
                bool saved = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;

                stop->signal_fd = sig_fd;
                tasks[0].fn(tasks[0].arg);
                stop->signal_fd = -1;
                if (saved)
                        (void) sched_setaffinity(0, sizeof(cpus), &cpus);
                return 0;
        }
        done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (done_fd < 0)
                return -errno;
        runners = calloc(n_tasks ? n_tasks : 1, sizeof(*runners));
        if (!runners)
                return -ENOMEM;

        for (; started < n_tasks; started++) {
                runners[started] = (struct runner) { .task = &tasks[started], .gate = &gate, .done_fd = done_fd };
                r = -pthread_create(&runners[started].thread, NULL, runner_main, &runners[started]);
                if (r < 0) {
                        /* EAGAIN under TasksMax= or pids.max: the ones already running wind
                         * down, and the caller gets the error. Not a stop: the daemon goes on. */
                        stop_wind_down(stop, true);
                        break;
                }
        }
        (void) pthread_mutex_lock(&gate.lock);
        gate.open = true;
        (void) pthread_cond_broadcast(&gate.cond);
        (void) pthread_mutex_unlock(&gate.lock);

        while (finished < started) {
                struct pollfd p[2] = {
                        { .fd = sig_fd, .events = POLLIN },
                        { .fd = done_fd, .events = POLLIN },
                };
                int k = poll(p, 2, tick ? (int) tick_ms : -1);

                if (k < 0 && errno != EINTR) {
                        r = r ?: -errno;
                        stop_wind_down(stop, true);
                        break;
                }
                if (k > 0 && (p[0].revents & POLLIN))
                        stop_take_signal(stop, sig_fd, false);
                if (k > 0 && (p[1].revents & POLLIN)) {
                        uint64_t n;

                        if (read(done_fd, &n, sizeof(n)) == (ssize_t) sizeof(n))
                                finished += n;
                }
                if (tick && finished < started)
                        tick(userdata);
        }
        for (size_t i = 0; i < started; i++)
                (void) pthread_join(runners[i].thread, NULL);
        stop_wind_down(stop, false);
        (void) pthread_cond_destroy(&gate.cond);
        (void) pthread_mutex_destroy(&gate.lock);
        return r;
}
