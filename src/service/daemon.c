/* SPDX-License-Identifier: MIT */
/* The daemon: fill, tell the service manager READY=1, then wait idle for SIGHUP (reload and
 * fill again), memory coming online (fill again) and SIGTERM or another stop signal (stop). */
#include <inttypes.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>

#include "util/clock.h"
#include "service/control.h"
#include "service/daemon.h"
#include "state/rundir.h"
#include "state/lock.h"
#include "service/job.h"
#include "service/session.h"
#include "service/metrics_out.h"
#include "util/log.h"
#include "util/shown.h"
#include "service/notify.h"
#include "kernel/pool.h"
#include "kernel/topology.h"

/* While pages keep coming, each progress report gives the service manager this much more
 * time; when they stop coming, the extensions stop and the unit's own timeout applies. */
#define EXTEND_USEC (UINT64_C(3) * 1000 * 1000)

bool uevent_is_memory_online(const char *buf, size_t len) {
        bool online = false, memory = false;

        /* "ACTION@DEVPATH\0KEY=VALUE\0..." from the kernel (libudev's own start with "libudev") */
        if (len == 0 || strncmp(buf, "libudev", MIN(len, (size_t) 7)) == 0)
                return false;
        for (size_t i = 0; i < len;) {
                const char *f = buf + i;
                size_t n = strnlen(f, len - i);

                if (n == strlen("ACTION=online") && memcmp(f, "ACTION=online", n) == 0)
                        online = true;
                if (n == strlen("SUBSYSTEM=memory") && memcmp(f, "SUBSYSTEM=memory", n) == 0)
                        memory = true;
                i += n + 1;
        }
        return online && memory;
}

struct daemon {
        int rootfd;
        bool host;
        daemon_load_fn load;
        void *userdata;
        int sig_fd, uevent_fd, watchdog_fd, hotplug_fd, metrics_fd, control_fd;
        struct control_bound control_bound; /* control_fd's file, removed when the daemon ends */
        /* connections on the control socket whose request has not come yet, oldest first: polled
         * with the rest, so that a client that connects and says nothing holds up nothing */
        int clients[DAEMON_CONTROL_CLIENTS];
        size_t n_clients;
        uint64_t hotplug_done_ns; /* when the last refill on memory coming online ended; 0: none */
        bool hotplug_pending;     /* memory came online since, too early: hotplug_fd is armed */
        bool filled;              /* a fill of its own ran (not only refused): it is in the state */
        struct config config;
        struct stop stop;
        uint64_t watchdog_usec;
        uint64_t last_added;
        unsigned lock_timeout_s;
};

static void progress(const struct job_status *st, void *userdata) {
        struct daemon *d = userdata;
        char status[1024] = "";
        uint64_t added = 0;
        size_t n = 0;

        for (size_t i = 0; i < st->n_pools; i++) {
                char name[32];

                n += (size_t) snprintf(status + n, n < sizeof(status) ? sizeof(status) - n : 0,
                                       "%s%s %" PRIu64 "/%" PRIu64 " page%s", i ? ", " : "",
                                       page_size_name(st->pools[i].page_size, name), st->pools[i].added,
                                       st->pools[i].wanted, plural(st->pools[i].wanted));
                added += st->pools[i].added;
        }
        if (added > d->last_added)
                (void) notifyf("STATUS=Filling: %s\nEXTEND_TIMEOUT_USEC=%" PRIu64 "%s", status, EXTEND_USEC,
                               d->watchdog_usec ? "\nWATCHDOG=1" : "");
        else
                (void) notifyf("STATUS=Filling: %s%s", status, d->watchdog_usec ? "\nWATCHDOG=1" : "");
        d->last_added = added;
}

/* The watchdog while a fill waits for the host lock (up to --lock-timeout, 60 s by default):
 * WATCHDOG=1 whenever its timer has expired since, as the idle loop sends it. */
static void waiting(void *userdata) {
        struct daemon *d = userdata;
        uint64_t expirations;

        if (d->watchdog_fd >= 0 &&
            read(d->watchdog_fd, &expirations, sizeof(expirations)) == (ssize_t) sizeof(expirations))
                (void) notifyf("WATCHDOG=1");
}

static void arm_metrics(struct daemon *d);

/* What a fill that ended with exit status @r (@first: the daemon's first) tells: the log, the
 * caller's @ret_summary, the metrics and systemd's status line. */
static void fill_told(struct daemon *d, const struct job_result *j, int r, bool first, char *ret_summary, size_t size) {
        if (*j->summary)
                log_info("%s", j->summary);
        if (ret_summary)
                (void) snprintf(ret_summary, size, "%.*s", (int) size - 1,
                                r == EXIT_USAGE && *j->refused ? j->refused : j->summary);
        if (!stop_requested(&d->stop) && (r != EXIT_USAGE || first))
                metrics_after_fill(d->rootfd, d->config.metrics_file);
        if (r == EXIT_OK)
                (void) notifyf("STATUS=%s", *j->summary ? j->summary : "No pools configured");
        else if (r != EXIT_USAGE || first) {
                const char *why = r == EXIT_USAGE && *j->refused ? j->refused : *j->summary ? j->summary : "see the log";

                /* one line: STATUS= is a single assignment */
                (void) notifyf("STATUS=Failed (exit status %d): %.*s\nERRNO=%d", r, (int) strcspn(why, "\n"), why,
                               r == EXIT_SHORT ? ENOMEM : EINVAL);
        }
}

/* One fill under the host lock, of the configuration in use (@reload: read again under the
 * lock first, and kept only if its plan is not refused); its summary, or why it was refused, in
 * @ret_summary (NULL: not wanted). The daemon is recorded in the state as running. */
static int fill(struct daemon *d, const char *task, bool reload, char *ret_summary, size_t size) {
        struct config fresh = CONFIG_INIT;
        struct job_params in = {
                .rootfd = d->rootfd,
                .host = d->host,
                .stop = &d->stop,
                .kind = STATE_FILL_CONFIG,
                /* a start refused is the last fill (exit 2); a reload refused leaves the last one */
                .record_refused = !d->filled,
        };
        struct job_sink to = { .progress = progress, .userdata = d };
        struct job_result out = {};
        bool first = !d->filled;
        struct error e = {};
        struct session s;
        int r;

        d->last_added = 0;
        (void) notifyf("STATUS=Filling the pools");
        r = session_open(&s, d->rootfd, d->host,
                         &(struct state_open_options) { task, d->lock_timeout_s, &d->stop,
                                                        &(struct hostlock_wait) { waiting, d } });
        if (r < 0) {
                if (ret_summary)
                        (void) snprintf(ret_summary, size, "Cannot take the host lock: %s", strerror(-r));
                (void) notifyf("STATUS=Failed: the host lock not had, see the log\nERRNO=%d", -r);
                return EXIT_FAIL;
        }
        if (s.st.s.daemon_pid > 0 && s.st.s.daemon_pid != getpid() && state_daemon_runs(&s.st)) {
                log_error("Another hpfilld daemon runs (pid %d): one daemon per host; nothing changed",
                          (int) s.st.s.daemon_pid);
                s.discard = true;
                (void) session_close(&s);
                (void) notifyf("STATUS=Failed: another hpfilld daemon runs\nERRNO=%d", EADDRINUSE);
                return EXIT_FAIL;
        }
        session_mark_daemon(&s, true);
        if (reload && d->load(d->rootfd, &fresh, d->userdata, &e) < 0) {
                log_error(first ? "Bad configuration:" : "Reload failed, keeping the configuration in use:");
                log_lines(LOG_ERR, e.msg);
                if (first) {
                        session_mark_daemon(&s, false);
                        (void) notifyf("STATUS=Failed (exit status %d): bad configuration: %.*s\nERRNO=%d", EXIT_USAGE,
                                       (int) strcspn(e.msg, "\n"), e.msg, EINVAL);
                }
                if (ret_summary)
                        (void) snprintf(ret_summary, size, "%.*s", (int) size - 1, e.msg);
                config_done(&fresh);
                (void) session_close(&s);
                return EXIT_USAGE;
        }
        r = job_fill(&in, &to, &out, &s, reload ? &fresh : &d->config);
        if (r != EXIT_USAGE)
                session_give_back_gone(&s);
        if (r != EXIT_USAGE)
                d->filled = true;
        else if (!d->filled)
                session_mark_daemon(&s, false); /* a first fill refused: it never ran */
        (void) session_close(&s);
        if (reload && r != EXIT_USAGE) {
                config_done(&d->config);
                d->config = fresh;
                arm_metrics(d);
        } else
                config_done(&fresh);
        fill_told(d, &out, r, first, ret_summary, size);
        fill_record_done(&out.record);
        return r;
}

bool uevent_from_kernel(const struct sockaddr_nl *sa, socklen_t sa_len, const struct ucred *cred) {
        /* the kernel sends from port 0 to its multicast group 1; anyone with CAP_NET_ADMIN in our
         * network namespace may send to our port (our pid, usually) from another: not the kernel */
        return sa_len == sizeof(*sa) && sa->nl_family == AF_NETLINK && sa->nl_pid == 0 &&
               sa->nl_groups == UEVENT_KERNEL_GROUP && (!cred || cred->pid == 0);
}

enum uevent_step uevent_step(ssize_t n, int err) {
        if (n >= 0)
                return UEVENT_MESSAGE;
        return err == ENOBUFS ? UEVENT_OVERRUN : err == EINTR ? UEVENT_RETRY : UEVENT_DONE;
}

/* Room for a burst: a large hot-add sends a uevent per memory block (128 MiB each on x86), and
 * one lost is a refill missed. SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by
 * net.core.rmem_max. Memory is charged only for what is queued. */
#define UEVENT_RCVBUF (16 * 1024 * 1024)

static int open_uevents(void) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_KERNEL_GROUP };
        int fd, one = 1;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int) { UEVENT_RCVBUF }, sizeof(int)) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int) { UEVENT_RCVBUF }, sizeof(int));
        /* SCM_CREDENTIALS on every message: the kernel's say pid 0 */
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
            bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                int r = -errno;
                closep(&fd);
                return r;
        }
        return fd;
}

/* Reads every pending uevent; true if one of the kernel's says memory came online, or if some
 * were lost (uevent_step()). Others' (a forged one sent to our port) are dropped, said once at
 * debug level. */
static bool drain_uevents(int fd) {
        char buf[8192];
        bool online = false;
        ssize_t n;

        for (;;) {
                union {
                        struct cmsghdr h;
                        char buf[CMSG_SPACE(sizeof(struct ucred))];
                } control;
                struct sockaddr_nl sa = {};
                struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
                struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1,
                                    .msg_control = &control, .msg_controllen = sizeof(control) };
                const struct ucred *cred = NULL;

                n = recvmsg(fd, &m, MSG_DONTWAIT);
                switch (uevent_step(n, errno)) {
                case UEVENT_MESSAGE:
                        break;
                case UEVENT_OVERRUN:
                        log_notice("Uevents were lost (the receive buffer overflowed): refilling, in case memory came online");
                        online = true;
                        continue;
                case UEVENT_RETRY:
                        continue;
                case UEVENT_DONE:
                        return online;
                }
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
                            c->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
                                cred = (const struct ucred *) CMSG_DATA(c);
                if (!uevent_from_kernel(&sa, m.msg_namelen, cred) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
                        log_debug("A uevent not from the kernel (port %u, group %u), ignored", (unsigned) sa.nl_pid,
                                  (unsigned) sa.nl_groups);
                        continue;
                }
                online |= uevent_is_memory_online(buf, (size_t) n);
        }
}

/* A timer that fires every @usec microseconds, the first time @usec from now. */
static int open_periodic(uint64_t usec) {
        struct itimerspec its = { 0 };
        int fd;

        fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (fd < 0)
                return -errno;
        its.it_value.tv_sec = its.it_interval.tv_sec = (time_t) (usec / 1000000);
        its.it_value.tv_nsec = its.it_interval.tv_nsec = (long) (usec % 1000000) * 1000;
        if (timerfd_settime(fd, 0, &its, NULL) < 0) {
                int r = -errno;
                closep(&fd);
                return r;
        }
        return fd;
}

/* MetricsFile= follows the pools every MetricsInterval= seconds while idle, not only at fills:
 * pages given back, taken by a workload or added by hand show, so that an alert on a pool short
 * of its target can fire. Armed anew for each configuration. */
static void arm_metrics(struct daemon *d) {
        closep(&d->metrics_fd);
        if (!*d->config.metrics_file || d->config.metrics_interval_s == 0)
                return;
        d->metrics_fd = open_periodic((uint64_t) d->config.metrics_interval_s * 1000000);
        if (d->metrics_fd < 0)
                log_warning_errno(d->metrics_fd, "Cannot arm the timer of MetricsInterval=: %m; %s follows the fills only",
                                  d->config.metrics_file);
}

/* A few sysfs reads; the file is written only when its text would change. */
static void refresh_metrics(struct daemon *d) {
        struct error e = {};
        uint64_t expirations;
        int r;

        (void) !read(d->metrics_fd, &expirations, sizeof(expirations));
        r = metrics_refresh_file(d->rootfd, d->config.metrics_file, &e);
        if (r < 0)
                log_warning("Cannot write the metrics: %s, ignoring", e.msg);
        else if (r > 0)
                log_debug("The pools moved: %s written anew", d->config.metrics_file);
}

/* The descriptors the idle loop waits on: signals (SIGHUP, and the stop signals, which during a
 * fill are the executor's), kernel uevents, the watchdog, the metrics timer. */
static int open_fds(struct daemon *d) {
        sigset_t set;

        stop_signals(&set);
        if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
                return -EINVAL;
        d->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (d->sig_fd < 0)
                return log_error_errno(errno, "Cannot set up signals: %m");
        /* the kernel's uevents are this host's: memory coming online here says nothing of a tree
         * under --root (a test's, which a hotplug on the host would refill behind its back) */
        if (!d->host)
                log_debug("Not listening for memory hotplug: %s is not this host", shown_root());
        else if ((d->uevent_fd = open_uevents()) < 0)
                log_warning_errno(d->uevent_fd, "Cannot listen for memory hotplug: %m, ignoring");
        d->hotplug_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (d->hotplug_fd < 0)
                log_warning_errno(errno, "Cannot set up the refill timer: %m; each memory block refills at once");
        /* `hpfilld reload` asks here (SIGHUP does the same without waiting for the answer) */
        d->control_fd = control_listen(d->rootfd, &d->control_bound);
        if (d->control_fd == -EADDRINUSE)
                return log_error_errno(d->control_fd, "Another hpfilld daemon runs (it answers on %s/run/hpfilld/" CONTROL_NAME
                                       "): one daemon per host; nothing changed", shown_root());
        if (d->control_fd < 0)
                log_warning_errno(d->control_fd, "Cannot listen on %s/run/hpfilld/" CONTROL_NAME ": %m, ignoring",
                                  shown_root());
        if (d->watchdog_usec) {
                d->watchdog_fd = open_periodic(d->watchdog_usec / 2);
                if (d->watchdog_fd < 0)
                        log_warning_errno(d->watchdog_fd, "Cannot arm the watchdog timer: %m, ignoring");
        }
        return 0;
}

/* Memory came online: a refill, at most one per DAEMON_HOTPLUG_INTERVAL_S (hotplug of many
 * blocks sends a uevent each; the uevents themselves are the kernel's, but a refill costs a
 * plan, the host lock and a pass over every pool). Those that come sooner are one refill when
 * the interval is over. */
static void hotplug(struct daemon *d, bool timer) {
        uint64_t now = now_ns(), next = d->hotplug_done_ns + (uint64_t) DAEMON_HOTPLUG_INTERVAL_S * 1000000000u;

        if (timer && !d->hotplug_pending)
                return;
        if (d->hotplug_done_ns && now < next && d->hotplug_fd >= 0) {
                struct itimerspec its = { .it_value = { .tv_sec = (time_t) ((next - now) / 1000000000u),
                                                        .tv_nsec = (long) ((next - now) % 1000000000u) } };

                if (!d->hotplug_pending)
                        log_info("Memory came online; filling again in %" PRIu64 " ms (one refill per %u s)",
                                 (next - now) / 1000000, DAEMON_HOTPLUG_INTERVAL_S);
                d->hotplug_pending = timerfd_settime(d->hotplug_fd, 0, &its, NULL) >= 0;
                if (d->hotplug_pending)
                        return;
        }
        d->hotplug_pending = false;
        log_info("Memory came online, filling again");
        (void) fill(d, "hpfilld daemon, memory came online", false, NULL, 0);
        d->hotplug_done_ns = now_ns();
}

/* SIGHUP, or a request on the control socket (`hpfilld reload`): the configuration read again
 * under the host lock, then a fill. A bad one changes nothing: the plan in use stays, and the
 * unit's status names the error. Returns the exit status, with the error or the fill's summary in
 * @msg. */
static int reload(struct daemon *d, char *msg, size_t size) {
        int r;

        (void) notifyf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=Reloading", now_ns() / 1000);
        r = fill(d, "hpfilld daemon, reload", true, msg, size);
        if (r == EXIT_USAGE) {
                log_error("Reload failed, keeping the configuration in use");
                /* one line: STATUS= is a single assignment */
                (void) notifyf("READY=1\nSTATUS=Reload failed, the configuration in use stays: %.*s",
                               (int) strcspn(msg, "\n"), msg);
                return r;
        }
        log_info("Configuration reloaded: %zu pool%s, %zu reservation%s, %zu claim%s in the files", d->config.n_pools,
                 d->config.n_pools == 1 ? "" : "s", d->config.n_reserves, d->config.n_reserves == 1 ? "" : "s",
                 d->config.n_claims, d->config.n_claims == 1 ? "" : "s");
        if (!stop_requested(&d->stop))
                (void) notifyf("READY=1");
        return r;
}

/* The connections waiting on the control socket, taken in; where all places are held, the
 * oldest (a client that said nothing since) is closed for the new one. */
static void control_take(struct daemon *d) {
        for (;;) {
                int fd = control_accept(d->control_fd);

                if (fd == -EAGAIN)
                        return;
                if (fd < 0) {
                        log_warning_errno(fd, "A request on the control socket refused: %m");
                        if (fd == -EPERM)
                                continue;
                        return;
                }
                if (d->n_clients == ELEMENTSOF(d->clients)) {
                        log_warning("%zu connections on the control socket and no request on them: the oldest closed",
                                    d->n_clients);
                        (void) close(d->clients[0]);
                        memmove(d->clients, d->clients + 1, (d->n_clients - 1) * sizeof(*d->clients));
                        d->n_clients--;
                }
                d->clients[d->n_clients++] = fd;
        }
}

/* The request on client @i, if it came: answered when it is done (the client waits for that). */
static void control(struct daemon *d, size_t i) {
        char req[128], msg[CONTROL_ANSWER_MAX - 8] = "";
        int fd = d->clients[i], status, r;

        r = control_read(fd, req, sizeof(req));
        if (r == -EAGAIN)
                return;
        memmove(d->clients + i, d->clients + i + 1, (d->n_clients - i - 1) * sizeof(*d->clients));
        d->n_clients--;
        if (r == -EPIPE) {
                (void) close(fd);
                return;
        }
        if (r < 0 || strcmp(req, CONTROL_APPLY) != 0) {
                control_answer(fd, EXIT_USAGE, "unknown request");
                return;
        }
        log_info("Reloading, as asked on the control socket");
        status = reload(d, msg, sizeof(msg));
        control_answer(fd, status, msg);
}

/* Idle until SIGTERM/SIGINT: reload on SIGHUP, fill again when memory comes online, the
 * metrics file kept up with the pools. */
static int idle(struct daemon *d) {
        for (;;) {
                struct pollfd p[6 + DAEMON_CONTROL_CLIENTS] = {
                        { .fd = d->sig_fd, .events = POLLIN },
                        { .fd = d->uevent_fd, .events = POLLIN },
                        { .fd = d->watchdog_fd, .events = POLLIN },
                        { .fd = d->hotplug_fd, .events = POLLIN },
                        { .fd = d->metrics_fd, .events = POLLIN },
                        { .fd = d->control_fd, .events = POLLIN },
                };
                size_t n = 6 + d->n_clients;
                struct signalfd_siginfo si;

                for (size_t i = 0; i < d->n_clients; i++)
                        p[6 + i] = (struct pollfd) { .fd = d->clients[i], .events = POLLIN };
                /* idle: no timeout, nothing to poll for but these */
                if (poll(p, n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        log_error_errno(errno, "poll: %m");
                        return EXIT_FAIL;
                }
                if (p[2].revents & POLLIN) {
                        uint64_t expirations;

                        (void) !read(d->watchdog_fd, &expirations, sizeof(expirations));
                        (void) notifyf("WATCHDOG=1");
                }
                if (p[4].revents & POLLIN)
                        refresh_metrics(d);
                if (p[3].revents & POLLIN) {
                        uint64_t expirations;

                        (void) !read(d->hotplug_fd, &expirations, sizeof(expirations));
                        hotplug(d, true);
                } else if (p[1].revents & POLLIN && drain_uevents(d->uevent_fd)) {
                        hotplug(d, false);
                } else if (p[0].revents & POLLIN && read(d->sig_fd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
                        if (si.ssi_signo != SIGHUP) {
                                /* SIGTERM, SIGINT and every other stop signal */
                                log_info("Stopping on signal %d (%s)", si.ssi_signo, strsignal((int) si.ssi_signo));
                                return EXIT_OK;
                        }
                        char msg[CONTROL_ANSWER_MAX];

                        (void) reload(d, msg, sizeof(msg));
                } else {
                        /* one request a wake-up, the first to have come: the rest wait their turn */
                        size_t i = 0;

                        while (i < n - 6 && !p[6 + i].revents)
                                i++;
                        if (i < n - 6)
                                control(d, i);
                        else if (p[5].revents & POLLIN)
                                control_take(d);
                }
                if (stop_requested(&d->stop))
                        return EXIT_OK;
        }
}

static bool config_pages(const struct state_owner *o, const void *data) {
        (void) data;
        return o->kind == OWNER_CONFIG || o->gone || o->kind == OWNER_BENCH;
}

static void released(const struct session_given *g, void *userdata) {
        char name[32];

        (void) userdata;
        if (g->error)
                log_warning_errno(g->error, "%s pool of node%u: cannot give back the pages the configuration added: %m",
                                  page_size_name(g->page_size, name), g->node);
        else
                log_info("%s pool of node%u: %" PRIu64 " page%s given back (%" PRIu64 " -> %" PRIu64 ")%s",
                         page_size_name(g->page_size, name), g->node, g->given, g->given == 1 ? "" : "s", g->before,
                         g->after,
                         g->given < g->held ? "; the rest are in use and stay the configuration's (hpfilld give-back "
                                              "returns them once free)"
                                            : "");
}

/* At the stop: the daemon recorded as gone; with ReleaseOnStop= at a stop asked for (@release: not
 * a first fill that failed, whose pages a restart should find), what the configuration added
 * given back (free pages only; never a claim's, never others'), and its targets dropped */
static void stop(struct daemon *d, bool release) {
        struct session s;

        if (!d->filled) /* no fill of its own: nothing of it in the state, nothing to give back */
                return;
        if (session_open(&s, d->rootfd, d->host,
                         &(struct state_open_options) { "hpfilld daemon, stopping", d->lock_timeout_s, &d->stop,
                                                        NULL }) < 0) {
                log_warning("The state is left as it is: the next command sees this daemon has ended");
                return;
        }
        session_give_back_gone(&s);
        if (release && d->config.release_on_stop) {
                int o = state_owner_find(&s.st.s, "config");

                (void) session_give_back(&s, config_pages, NULL, released, NULL);
                for (size_t i = 0; o >= 0 && i < s.st.s.n_shares; i++)
                        if (s.st.s.shares[i].owner == (size_t) o)
                                s.st.s.shares[i].want = 0;
        }
        if (s.st.s.daemon_pid == getpid())
                session_mark_daemon(&s, false);
        (void) session_close(&s);
}

int daemon_run(int rootfd, bool host, struct config *config, daemon_load_fn load, void *userdata,
               unsigned lock_timeout_s) {
        struct daemon d = {
                .rootfd = rootfd,
                .host = host,
                .load = load,
                .userdata = userdata,
                .lock_timeout_s = lock_timeout_s,
                .config = *config,
                .sig_fd = -1,
                .uevent_fd = -1,
                .watchdog_fd = -1,
                .hotplug_fd = -1,
                .metrics_fd = -1,
                .control_fd = -1,
        };
        bool stopped = false; /* by a stop signal, not a first fill that failed */
        int ret = EXIT_FAIL;

        *config = (struct config) CONFIG_INIT; /* the daemon's now */
        stop_init(&d.stop);
        /* SIGHUP during a fill waits for it to end, then reloads; the other stop signals stop a
         * fill (the executor's) and, read here, the daemon. */
        sigdelset(&d.stop.signals, SIGHUP);
        d.watchdog_usec = notify_watchdog_usec();
        if (open_fds(&d) < 0)
                goto out;
        arm_metrics(&d);
        /* the configuration as it is under the host lock, kept unless its plan is refused */
        ret = fill(&d, "hpfilld daemon, first fill", true, NULL, 0);
        if (stop_requested(&d.stop) && ret == EXIT_FAIL)
                ret = EXIT_OK; /* stopped while it waited: nothing filled */
        if (!stop_requested(&d.stop)) {
                if (ret != EXIT_OK)
                        goto out;
                (void) notifyf("READY=1");
                ret = idle(&d);
                if (ret != EXIT_OK)
                        goto out;
        }
        ret = EXIT_OK;
        stopped = true;
        (void) notifyf("STOPPING=1\nSTATUS=Stopping");
out:
        stop(&d, stopped);
        closep(&d.sig_fd);
        closep(&d.uevent_fd);
        closep(&d.watchdog_fd);
        closep(&d.hotplug_fd);
        closep(&d.metrics_fd);
        if (d.control_fd >= 0)
                control_unlink(d.rootfd, &d.control_bound);
        closep(&d.control_fd);
        for (size_t i = 0; i < d.n_clients; i++)
                (void) close(d.clients[i]);
        config_done(&d.config);
        stop_done(&d.stop);
        return ret;
}
