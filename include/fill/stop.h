/* SPDX-License-Identifier: MIT */
/* A stop request shared by the main thread (which takes signals) and the workers. */
#pragma once

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

struct stop {
        atomic_bool requested;
        atomic_int signo;
        /* The signals that request this stop while a fill runs: stop_signals() less any its
         * owner takes otherwise (the daemon's SIGHUP, a reload once the fill is done). */
        sigset_t signals;
        /* The executor's own request that the tasks it started wind down (it could not start
         * them all): not a stop of the run, and cleared once they have returned. */
        atomic_bool wind_down;
        /* A signalfd for those signals while a lone task runs on the thread that takes them
         * (the executor's inline case): stop_requested() reads it. -1 otherwise; only
         * changed while no other thread runs. */
        int signal_fd;
        pthread_mutex_t lock;
        pthread_cond_t cond;
};

/* Every signal whose default action ends the process and that is not the result of a fault
 * of its own (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS): SIGHUP, SIGINT,
 * SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
 * SIGPWR, SIGSTKFLT and the real-time signals: each is a stop request. SIGPIPE is not among
 * them: it is ignored, and a write to a closed pipe fails with EPIPE instead. */
void stop_signals(sigset_t *set);
/* Blocks stop_signals() and ignores SIGPIPE, in the calling thread and every thread it
 * creates later (call before any other exists), so that only signalfd()s see them; outside a
 * write window, where a handler takes them (stop_write_open()). */
int stop_block_signals(void);
/* A write window around a write the kernel ends early for a signal: a sysfs nr_hugepages write
 * stops allocating at a pending signal (set_max_huge_pages() checks signal_pending() per page)
 * and returns as a success that gave fewer pages. Unblocks SIGINT, SIGTERM, SIGHUP and SIGQUIT,
 * where @s takes them, in this thread (they reach it, the only thread not blocking them), so that
 * one sent during the write ends it within a page, not after the whole step (the other stop
 * signals wait for the write); close blocks them again (the mask as in @saved) and makes a
 * signal the window took a stop request of @s. */
void stop_write_open(struct stop *s, sigset_t *saved);
void stop_write_close(struct stop *s, const sigset_t *saved);
void stop_init(struct stop *s);
void stop_done(struct stop *s);
void stop_request(struct stop *s, int signo);
/* The executor's wind-down: set while the tasks it started return early, cleared after. */
void stop_wind_down(struct stop *s, bool on);
/* A signal waiting on the signalfd @fd becomes a stop request. @block: wait for one. */
void stop_take_signal(struct stop *s, int fd, bool block);
/* A stop requested or a wind-down, as the flags say now: reads no signal, takes no lock. */
static inline bool stop_flagged(struct stop *s) {
        return atomic_load_explicit(&s->requested, memory_order_acquire) ||
               atomic_load_explicit(&s->wind_down, memory_order_acquire);
}
static inline bool stop_requested(struct stop *s) {
        if (s->signal_fd >= 0)
                stop_take_signal(s, s->signal_fd, false);
        return stop_flagged(s);
}
/* A stop asked for by a signal: the run is interrupted. */
static inline bool stop_signalled(struct stop *s) {
        return atomic_load_explicit(&s->requested, memory_order_acquire);
}
/* Blocks until a stop is requested. */
void stop_wait(struct stop *s);
