/* SPDX-License-Identifier: MIT */
/* hpfilld status: the pools per size and node, and the last fill; for any user. */
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "state/store.h"
#include "state/rundir.h"
#include "state/lock.h"
#include "util/shown.h"
#include "util/fileio.h"
#include "service/metrics_out.h"
#include "util/log.h"
#include "util/macro.h"
#include "kernel/host.h"
#include "kernel/pool.h"
#include "service/privilege.h"
#include "service/status.h"
#include "service/status_data.h"
#include "service/status_kubelet.h"

const uint64_t *status_target(const struct status_data *d, uint64_t page_size, unsigned node) {
        for (size_t i = 0; i < d->rec.n_targets; i++)
                if (d->rec.targets[i].page_size == page_size && d->rec.targets[i].node == node)
                        return &d->rec.targets[i].target;
        return NULL;
}

const struct metrics_reserve *status_reserve_record(const struct status_data *d, const struct reserve_found *f) {
        for (size_t i = 0; d->rec.valid && i < d->rec.n_reserves; i++)
                if (strcmp(d->rec.reserves[i].name, f->name) == 0 && strcmp(d->rec.reserves[i].path, f->path) == 0)
                        return &d->rec.reserves[i];
        return NULL;
}

/* What a command that ended left raised (the state's settings): shown, never put back here (a
 * command that only reads writes nothing); the next command that changes a pool does. */
static void status_read_settings(struct status_data *d) {
        struct state s = {};
        struct error e = {};

        if (state_store_read(d->rootfd, &s, &e) < 0) {
                log_warning("Cannot read the state: %s, ignoring", e.msg);
                return;
        }
        d->settings = calloc(s.n_settings + 1, sizeof(*d->settings));
        for (size_t i = 0; d->settings && i < s.n_settings; i++) {
                struct status_setting *o = &d->settings[d->n_settings++];
                int r;

                memcpy(o->path, s.settings[i].path, sizeof(o->path));
                o->found = s.settings[i].found;
                o->set = s.settings[i].set;
                r = read_u64_at(d->rootfd, o->path, &o->now);
                o->error = r < 0 ? r : 0;
                /* the host lock held: raised by the command that holds it, not one that ended */
                o->result = r < 0 ? "failed" : *d->lock_holder ? "raised" : o->now == o->set ? "stale" : "changed";
        }
        state_done(&s);
}

/* Who holds the host lock, as the kernel says (hostlock.h); nothing when no one does. A user
 * who may not read the file (mode 0600) still learns the pid and its command. */
static void status_read_lock(struct status_data *d) {
        _cleanup_(closep) int dirfd = rundir_open_existing(d->rootfd), fd = -1;
        pid_t pid;

        if (dirfd < 0)
                return;
        fd = openat(dirfd, HOSTLOCK_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                fd = openat(dirfd, HOSTLOCK_FILE, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && hostlock_holder_pid(d->rootfd, fd, &pid) >= 0)
                hostlock_describe_holder(d->rootfd, fd, d->lock_holder, sizeof(d->lock_holder));
}

static int status_read(struct status_data *d) {
        struct error e = {};
        int r;

        r = topology_read(d->rootfd, &d->t, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                return r;
        }
        d->counts = calloc(d->t.n_page_sizes * d->t.n_nodes + 1, sizeof(*d->counts));
        if (!d->counts)
                return log_error_errno(-ENOMEM, "Out of memory");
        for (size_t s = 0; s < d->t.n_page_sizes; s++)
                for (size_t i = 0; i < d->t.n_nodes; i++)
                        (void) pool_read_counts(d->rootfd, &d->t, d->t.nodes[i].id, d->t.page_sizes[s],
                                                &d->counts[s * d->t.n_nodes + i]);
        status_read_lock(d);
        status_read_settings(d);
        r = metrics_record_read(d->rootfd, &d->rec);
        d->have_record = r != -ENOENT;
        if (r < 0)
                d->rec = (struct fill_record) {};
        (void) metrics_overlay_state(d->rootfd, &d->rec);
        d->n_reserves = reserve_list(d->rootfd, &d->reserves, &e);
        if (*e.msg)
                log_warning("Cannot look for reservations: %s, ignoring", e.msg);
        if (d->n_reserves < 0 && d->n_reserves != -ENOENT) {
                log_warning_errno(d->n_reserves, "Cannot list the reservations (%s/proc/self/mounts): %m, ignoring",
                                  shown_root());
        }
        if (d->n_reserves < 0) /* no mount table (a bare root): none */
                d->n_reserves = 0;
        return 0;
}

static void status_done(struct status_data *d) {
        topology_done(&d->t);
        free(d->counts);
        fill_record_done(&d->rec);
        free(d->reserves);
        free(d->settings);
}

/* A bad command line: where to look; exit status 2. */
static int usage_hint(void) {
        log_error("Try 'hpfilld status --help' for more information.");
        return 2;
}

/* Returns < 0 to go on with *json and *prometheus set, else an exit status. */
static int parse_argv(int argc, char *argv[], bool *json, bool *prometheus, bool *kubelet) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "json", no_argument, NULL, 'j' },
                { "kubelet", no_argument, NULL, 'K' },
                { "format", required_argument, NULL, 'F' },
                {}
        };
        bool format = false;
        int c;

        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        printf("Usage: hpfilld status [--json|--format=text|json|prometheus|--kubelet] [--root DIR]\n"
                               "Show the huge page pools per size and node next to the last plan's targets,\n"
                               "the last fill and what its exit status means, and every reservation.\n"
                               "--kubelet: the kubelet's --system-reserved and --reserved-memory values (and the\n"
                               "KubeletConfiguration's) for the pages the reservations and claims hold outside\n"
                               "pods.\n\n"
                               "Exit status: 0 shown, 1 the machine could not be read or the output not\n"
                               "written, 2 bad usage. See hpfilld(8).\n");
                        return 0;
                case 'K':
                        *kubelet = true;
                        break;
                case 'j':
                        *json = format = true;
                        break;
                case 'F':
                        format = true;
                        *json = strcmp(optarg, "json") == 0;
                        *prometheus = strcmp(optarg, "prometheus") == 0;
                        if (!*json && !*prometheus && strcmp(optarg, "text") != 0) {
                                log_error("--format '%s': expected text, json or prometheus", optarg);
                                return usage_hint();
                        }
                        break;
                default:
                        log_error("unknown option or missing value '%s'", argv[optind - 1]);
                        return usage_hint();
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return usage_hint();
        }
        if (*kubelet && format) {
                log_error("--kubelet prints the kubelet's values, not with --json or --format");
                return usage_hint();
        }
        return -1;
}

/* --format=prometheus: 0, a read error said, or a write error (-errno) for status_written(). */
static int status_prometheus(struct status_data *d) {
        int r = metrics_print(d->rootfd, stdout);

        if (r < 0 && !ferror(stdout))
                return log_error_errno(r, "Cannot read the pools for the metrics: %m"), 1;
        if (r < 0)
                return r;
        status_read_lock(d);
        status_read_settings(d);
        return metrics_format_journal(stdout, d->settings, d->n_settings);
}

/* The exit status once @r, 0 or the -errno of a write, and standard output flushed, say what
 * was printed: a write that failed is said, whatever the format (exit status 1). */
static int status_written(int r) {
        if (r >= 0)
                r = stream_flush(stdout);
        if (r < 0)
                log_error_errno(r, "Cannot write the status to standard output: %m");
        return r < 0 ? 1 : 0;
}

int status_main(int argc, char *argv[], const struct common_options *common) {
        struct status_data d = { .rootfd = -1 };
        bool json = false, prometheus = false, kubelet = false;
        int r;

        r = parse_argv(argc, argv, &json, &prometheus, &kubelet);
        if (r >= 0)
                return r;
        d.rootfd = common_root_open(common);
        if (d.rootfd < 0)
                return 2;
        d.host = root_is_host(d.rootfd);
        r = 0;
        if (prometheus)
                r = status_prometheus(&d);
        else if (status_read(&d) < 0)
                r = 1;
        else if (kubelet)
                status_print_kubelet(&d, stdout);
        else if (json)
                r = status_print_json(&d, stdout);
        else
                status_print_text(&d, stdout);
        status_done(&d);
        closep(&d.rootfd);
        return r > 0 ? r : status_written(r);
}
