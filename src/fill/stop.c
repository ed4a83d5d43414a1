/* SPDX-License-Identifier: MIT */
/* A stop request shared by the main thread (which takes signals) and the workers. */
#include <errno.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "fill/stop.h"
#include "util/macro.h"

void stop_signals(sigset_t *set) {
        static const int signals[] = {
                SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
                SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
                SIGSTKFLT,
#endif
        };

        sigemptyset(set);
        for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
                sigaddset(set, signals[i]);
        /* SIGRTMIN, not __SIGRTMIN: the C library keeps the first few for its own threads */
        for (int i = SIGRTMIN; i <= SIGRTMAX; i++)
                sigaddset(set, i);
}

/* A stop signal taken inside a write window (stop_write_open()), for stop_write_close(): an
 * atomic int, lock-free on every platform we build for, is safe to store from a handler. */
static atomic_int taken_in_write;
/* the stop signals a write window takes (the ones people send to stop a fill: a handler each,
 * one sigaction() a signal at start); the others wait for the write to end, as before */
static const int write_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void take_in_write(int signo) {
        atomic_store(&taken_in_write, signo);
}

int stop_block_signals(void) {
        struct sigaction ign = { .sa_handler = SIG_IGN }, take = { .sa_handler = take_in_write, .sa_flags = SA_RESTART };
        sigset_t set;
        int r;

        /* A closed stdout or stderr is an error of the writes to it, never an end to the
         * fill's bookkeeping (the overcommit put back, the pages adopted). */
        if (sigaction(SIGPIPE, &ign, NULL) < 0)
                return -errno;
        stop_signals(&set);
        r = -pthread_sigmask(SIG_BLOCK, &set, NULL);
        if (r < 0)
                return r;
        /* blocked everywhere but inside a write window, where this handler takes them */
        take.sa_mask = set;
        for (size_t i = 0; i < ELEMENTSOF(write_signals); i++)
                if (sigaction(write_signals[i], &take, NULL) < 0)
                        return -errno;
        return 0;
}

void stop_write_open(struct stop *s, sigset_t *saved) {
        sigset_t set;

        sigemptyset(&set);
        for (size_t i = 0; i < ELEMENTSOF(write_signals); i++)
                if (sigismember(&s->signals, write_signals[i]) == 1)
                        sigaddset(&set, write_signals[i]);
        (void) pthread_sigmask(SIG_UNBLOCK, &set, saved);
}

void stop_write_close(struct stop *s, const sigset_t *saved) {
        int signo;

        (void) pthread_sigmask(SIG_SETMASK, saved, NULL);
        signo = atomic_exchange(&taken_in_write, 0);
        if (signo)
                stop_request(s, signo);
}

void stop_init(struct stop *s) {
        stop_signals(&s->signals);
        atomic_init(&s->requested, false);
        atomic_init(&s->signo, 0);
        atomic_init(&s->wind_down, false);
        s->signal_fd = -1;
        (void) pthread_mutex_init(&s->lock, NULL);
        (void) pthread_cond_init(&s->cond, NULL);
}

void stop_done(struct stop *s) {
        (void) pthread_mutex_destroy(&s->lock);
        (void) pthread_cond_destroy(&s->cond);
}

void stop_request(struct stop *s, int signo) {
        (void) pthread_mutex_lock(&s->lock);
        atomic_store(&s->signo, signo);
        atomic_store_explicit(&s->requested, true, memory_order_release);
        (void) pthread_cond_broadcast(&s->cond);
        (void) pthread_mutex_unlock(&s->lock);
}

void stop_wind_down(struct stop *s, bool on) {
        (void) pthread_mutex_lock(&s->lock);
        atomic_store_explicit(&s->wind_down, on, memory_order_release);
        (void) pthread_cond_broadcast(&s->cond);
        (void) pthread_mutex_unlock(&s->lock);
}

void stop_take_signal(struct stop *s, int fd, bool block) {
        struct signalfd_siginfo si;
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (block && poll(&p, 1, -1) < 0)
                return;
        /* non-blocking: nothing pending is EAGAIN */
        if (read(fd, &si, sizeof(si)) == (ssize_t) sizeof(si))
                stop_request(s, (int) si.ssi_signo);
}

void stop_wait(struct stop *s) {
        /* A lone task on the signals' thread: nobody else will read them */
        while (s->signal_fd >= 0 && !stop_requested(s))
                stop_take_signal(s, s->signal_fd, true);
        /* Under the lock the flags only: stop_requested() would read a signal queued since and
         * take the lock again in stop_request() (a default mutex: this thread would wait on
         * itself). */
        (void) pthread_mutex_lock(&s->lock);
        while (!stop_flagged(s))
                (void) pthread_cond_wait(&s->cond, &s->lock);
        (void) pthread_mutex_unlock(&s->lock);
}
