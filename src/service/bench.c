/* SPDX-License-Identifier: MIT */
/* hpfilld bench: each method at 1, 2, 4, ... threads per node, timed, pools put back as found. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "service/bench.h"
#include "state/change.h"
#include "state/lock.h"
#include "state/store.h"
#include "service/privilege.h"
#include "util/fileio.h"
#include "util/shown.h"
#include "fill/executor.h"
#include "fill/fill.h"
#include "fill/fill_auto.h"
#include "kernel/host.h"
#include "kernel/kernel_features.h"
#include "util/json.h"
#include "util/log.h"
#include "util/macro.h"
#include "fill/pin.h"
#include "plan/advise.h"
#include "plan/plan.h"
#include "kernel/pool.h"

#define BENCH_MAX_ROWS 16

struct bench_row {
        enum fill_mode mode; /* FILL_MODE_AUTO: measured, as a fill would */
        unsigned threads;
        struct choice choice; /* auto: the last run's measurement */
        uint64_t us[32]; /* microseconds, each run */
        unsigned runs;
        uint64_t median_us;
};

struct bench {
        int rootfd;
        uint64_t page_size;
        uint64_t bytes_per_node;
        unsigned runs;
        unsigned lock_timeout_s; /* --lock-timeout */
        bool json;
        struct topology t;
        struct kernel_features caps;
        uint64_t *found;   /* persistent pages per node before (nr_hugepages less surplus) */
        uint64_t *surplus; /* surplus pages per node before: others' (a workload's), never counted */
        struct stop stop;
        /* the state, under the host lock: each run's pages are bench's until they are back */
        struct state_store st;
        bool st_open;
};

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Puts every node back to the persistent pages found: what the run added beyond them (bench's,
 * in the state) goes, and surplus pages a workload holds that the run promoted are surplus again
 * (set_max_huge_pages() turns pages in use above the count into surplus ones). Pages an earlier
 * bench that was killed left stay bench's, for a later command to give back once free. */
static int restore(struct bench *b) {
        int o = state_owner_get(&b->st.s, "bench"), ret = 0;

        for (size_t i = 0; o >= 0 && i < b->t.n_nodes; i++) {
                uint64_t now, given;
                size_t owner = (size_t) o;
                int r;

                if (!b->t.nodes[i].has_memory)
                        continue;
                r = pool_read_persistent(b->rootfd, &b->t, b->t.nodes[i].id, b->page_size, &now);
                if (r >= 0)
                        r = state_change_give_back(&b->st, b->page_size, b->t.nodes[i].id, &owner, 1,
                                                   now > b->found[i] ? now - b->found[i] : 0, &given);
                if (r >= 0)
                        r = pool_read_persistent(b->rootfd, &b->t, b->t.nodes[i].id, b->page_size, &now);
                if (r < 0 || now != b->found[i]) {
                        log_warning("node%u: could not put the pool back to %" PRIu64 " page%s", b->t.nodes[i].id,
                                    b->found[i], plural(b->found[i]));
                        ret = r < 0 ? r : -EBUSY;
                }
        }
        return o < 0 ? o : ret;
}

/* The run's pages announced in the state as bench's before the first write */
static int announce(struct bench *b, const struct plan_pool *pp) {
        _cleanup_(freep) struct state_intent *in = calloc(pp->n_nodes + 1, sizeof(*in));
        _cleanup_(freep) struct state_part *parts = calloc(pp->n_nodes + 1, sizeof(*parts));
        int o = state_owner_get(&b->st.s, "bench");
        size_t n = 0;

        if (!in || !parts || o < 0)
                return o < 0 ? o : -ENOMEM;
        for (size_t i = 0; i < pp->n_nodes; i++) {
                const struct plan_node *nd = &pp->nodes[i];
                int pool = state_pool_get(&b->st.s, pp->page_size, nd->node, nd->now);

                if (pool < 0)
                        return pool;
                if (nd->target <= nd->now)
                        continue;
                parts[n] = (struct state_part) { (size_t) o, nd->target - nd->now };
                in[n] = (struct state_intent) { .pool = (size_t) pool, .from = nd->now, .to = nd->target,
                                                .parts = &parts[n], .n_parts = 1 };
                n++;
        }
        return state_change_begin(&b->st, in, n);
}

/* A node the run left short: a bench's numbers mean nothing then; said, with what would help */
static int check_short(struct bench *b, const struct plan_pool *pp) {
        for (size_t i = 0; i < pp->n_nodes; i++) {
                uint64_t now;
                char advice[320];

                if (pool_read_persistent(b->rootfd, &b->t, pp->nodes[i].node, b->page_size, &now) >= 0 &&
                    now < pp->nodes[i].target) {
                        advise_bench_short(advice, sizeof(advice), pp->nodes[i].node, now, pp->nodes[i].target,
                                           b->bytes_per_node / b->page_size, b->page_size);
                        return log_error_errno(-ENOMEM, "%s", advice);
                }
        }
        return 0;
}

/* One fill from the found state to found + bytes_per_node on every node with memory. */
static int one_run(struct bench *b, struct bench_row *row, uint64_t *ret_us) {
        enum fill_mode mode = row->mode;
        unsigned threads = row->threads;
        _cleanup_(freep) struct pool_counts *counts = NULL;
        _cleanup_(freep) struct node_amount *nodes = NULL;
        _cleanup_(freep) struct pool_run *runs = NULL;
        struct config c = CONFIG_INIT;
        struct pool_spec spec = { .page_size = b->page_size };
        struct plan p = {};
        struct error e = {};
        struct pool_writer writer = state_change_writer(&b->st);
        struct fill_shared shared = {
                .rootfd = b->rootfd,
                .t = &b->t,
                .writer = &writer,
                .pin = pin_is_useful(&b->t),
                .stop = &b->stop,
                .step_bytes = SYSFS_STEP_BYTES,
                .fault_free_nodes = true, /* a pool with free pages still times faulting */
        };
        size_t si = 0, n = 0;
        int r;

        counts = calloc(b->t.n_page_sizes * b->t.n_nodes, sizeof(*counts));
        nodes = calloc(b->t.n_nodes, sizeof(*nodes));
        runs = calloc(1, sizeof(*runs));
        if (!counts || !nodes || !runs)
                return -ENOMEM;
        while (b->t.page_sizes[si] != b->page_size)
                si++;
        /* Only the pages the run adds count: the target is above the surplus pages others hold
         * too, which the write promotes first (set_max_huge_pages()) and restore() gives back. */
        for (size_t i = 0; i < b->t.n_nodes; i++) {
                counts[si * b->t.n_nodes + i].nr = b->found[i] + b->surplus[i];
                counts[si * b->t.n_nodes + i].surplus = b->surplus[i];
                if (b->t.nodes[i].has_memory)
                        nodes[n++] = (struct node_amount) {
                                .node = b->t.nodes[i].id,
                                .value = b->found[i] + b->surplus[i] + b->bytes_per_node / b->page_size,
                        };
        }
        spec.amount = (struct amount) { .kind = AMOUNT_PER_NODE, .nodes = nodes, .n_nodes = n };
        (void) snprintf(spec.origin, sizeof(spec.origin), "bench");
        c.mode = mode;
        c.threads_per_node = threads;
        c.pools = &spec;
        c.n_pools = 1;
        r = plan_build(&b->t, counts, &c, &b->caps, &p, &e);
        if (r < 0)
                return log_error_errno(r, "%s", e.msg);
        /* the methods alone, and auto as a fill measures and picks */
        if (mode != FILL_MODE_AUTO)
                p.pools[0].measured = false;
        r = announce(b, &p.pools[0]);
        if (r < 0) {
                plan_done(&p);
                return log_error_errno(r, "Cannot record the run in the state: %m");
        }
        r = fill_execute_plan(&shared, &p, runs);
        (void) state_change_settle(&b->st);
        *ret_us = (runs[0].elapsed_ns + 500) / 1000;
        if (runs[0].choice.measured)
                row->choice = runs[0].choice;
        if (r >= 0 && runs[0].error)
                r = log_error_errno(runs[0].error, "%s: %m", runs[0].error_what ? runs[0].error_what : "fill");
        if (r >= 0 && stop_requested(&b->stop))
                r = -EINTR;
        if (r >= 0)
                r = check_short(b, &p.pools[0]);
        fill_runs_done(runs, 1);
        plan_done(&p);
        return r;
}

static void help(void) {
        printf("Usage: hpfilld bench [--page-size SIZE] [--size SIZE] [--runs N] [--json]\n"
               "Time each fill method at 1, 2, 4, ... threads per node and recommend a setting.\n"
               "The pools are put back as found after every run.\n\n"
               "     --page-size SIZE   Page size to fill (default 2M)\n"
               "     --size SIZE        Memory to fill per node (default 1G, at most half its memory)\n"
               "     --runs N           Runs per setting; the median counts (default 3)\n"
               "     --json             Machine-readable output\n"
               "     --lock-timeout SEC How long to wait for a fill of this host (default 60)\n"
               "     --root DIR         Use the files under DIR instead of the host's (tests, images)\n\n"
               "Exit status: 0 measured, 1 failure (not root, the host lock not had, a run failed or\n"
               "fell short, interrupted), 2 bad usage. See hpfilld(8).\n");
}

static int parse_args(struct bench *b, int argc, char *argv[]) {
        enum { ARG_PAGE_SIZE = 0x100, ARG_SIZE, ARG_RUNS, ARG_JSON, ARG_LOCK_TIMEOUT };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "page-size", required_argument, NULL, ARG_PAGE_SIZE },
                { "size", required_argument, NULL, ARG_SIZE },
                { "runs", required_argument, NULL, ARG_RUNS },
                { "json", no_argument, NULL, ARG_JSON },
                { "lock-timeout", required_argument, NULL, ARG_LOCK_TIMEOUT },
                {}
        };
        struct error e = {};
        bool bytes;
        int c;

        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_PAGE_SIZE:
                        if (parse_page_size(optarg, &b->page_size, &e) < 0)
                                return log_error("--page-size '%s': %s", optarg, e.msg), -EINVAL;
                        break;
                case ARG_SIZE:
                        if (parse_count_or_bytes(optarg, &b->bytes_per_node, &bytes, &e) < 0 || !bytes)
                                return log_error("--size '%s': expected bytes such as 1G", optarg), -EINVAL;
                        break;
                case ARG_RUNS:
                        if (parse_uint_range(optarg, 1, 31, &b->runs) < 0)
                                return log_error("--runs '%s': expected 1-31", optarg), -EINVAL;
                        break;
                case ARG_JSON:
                        b->json = true;
                        break;
                case ARG_LOCK_TIMEOUT:
                        if (parse_uint_range(optarg, 0, 86400, &b->lock_timeout_s) < 0)
                                return log_error("--lock-timeout '%s': expected seconds from 0 to 86400", optarg), -EINVAL;
                        break;
                case ':':
                        return log_error("option '%s' needs a value", argv[optind - 1]), -EINVAL;
                default:
                        return log_error("unknown option '%s'", argv[optind - 1]), -EINVAL;
                }
        if (optind < argc)
                return log_error("unexpected argument '%s'", argv[optind]), -EINVAL;
        return 1;
}

/* The auto row, if any: what its last run measured and picked. */
static const struct bench_row *auto_row(const struct bench_row *rows, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (rows[i].mode == FILL_MODE_AUTO && rows[i].choice.measured)
                        return &rows[i];
        return NULL;
}

static double row_gib_per_s(const struct bench *b, const struct bench_row *row);

/* Whether @row's runs zeroed the memory they filled, so that its rate is one of memory: fault
 * does, sysfs only under init_on_alloc. A sysfs fill that does not zero takes pages off free
 * lists, a rate of hundreds of GiB/s that says nothing of memory (the pages are zeroed when a
 * workload first maps them); and on a fake tree the writes are all but instant. */
static bool row_zeroes(const struct bench *b, const struct bench_row *row) {
        enum fill_mode m = row->mode == FILL_MODE_AUTO ? row->choice.method : row->mode;

        return m == FILL_MODE_FAULT || b->caps.init_on_alloc;
}

static int print_json(const struct bench *b, const struct bench_row *rows, size_t n, size_t best, size_t n_mem,
                      const char *kernel, const char *reason) {
        const struct bench_row *a = auto_row(rows, n);
        struct json_writer w;

        json_writer_init(&w, stdout);
        json_begin_object(&w);
        json_key(&w, "page_size"), json_u64(&w, b->page_size);
        json_key(&w, "bytes_per_node"), json_u64(&w, b->bytes_per_node);
        json_key(&w, "nodes"), json_u64(&w, n_mem);
        json_key(&w, "runs"), json_u64(&w, b->runs);
        json_key(&w, "results");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
                json_begin_object(&w);
                json_key(&w, "mode"), json_string(&w, fill_mode_to_string(rows[i].mode));
                json_key(&w, "threads_per_node"), json_u64(&w, rows[i].threads);
                json_key(&w, "ms"), json_double(&w, (double) rows[i].median_us / 1000, 3);
                json_key(&w, "gib_per_s");
                if (row_zeroes(b, &rows[i]))
                        json_double(&w, row_gib_per_s(b, &rows[i]), 3);
                else
                        json_null(&w);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_key(&w, "recommended");
        json_begin_object(&w);
        json_key(&w, "mode"), json_string(&w, fill_mode_to_string(rows[best].mode));
        json_key(&w, "threads_per_node"), json_u64(&w, rows[best].threads);
        json_key(&w, "reason"), json_string(&w, reason);
        json_end_object(&w);
        if (a) {
                json_key(&w, "auto");
                json_begin_object(&w);
                json_key(&w, "picked"), json_string(&w, fill_mode_to_string(a->choice.method));
                json_key(&w, "sysfs_pages_per_s"), json_double(&w, a->choice.sysfs_rate, 0);
                json_key(&w, "fault_pages_per_s"), json_double(&w, a->choice.fault_rate, 0);
                json_key(&w, "hvo"), json_i64(&w, a->choice.hvo);
                json_key(&w, "why"), json_string(&w, a->choice.why);
                json_end_object(&w);
        }
        json_key(&w, "kernel"), json_string(&w, kernel);
        json_end_object(&w);
        return json_writer_finish(&w);
}

static size_t memory_nodes(const struct bench *b) {
        size_t n = 0;

        for (size_t i = 0; i < b->t.n_nodes; i++)
                n += b->t.nodes[i].has_memory;
        return n;
}

static void print_header(const struct bench *b) {
        char name[32], size[32];
        size_t n_mem = memory_nodes(b);

        printf("%s pages, %s per node on %zu node%s, median of %u run%s\n", page_size_name(b->page_size, name),
               page_size_name(b->bytes_per_node, size), n_mem, n_mem == 1 ? "" : "s", b->runs,
               b->runs == 1 ? "" : "s");
        printf("%-6s %14s %12s %10s\n", "MODE", "THREADS/NODE", "MS", "GIB/S");
}

static double row_gib_per_s(const struct bench *b, const struct bench_row *row) {
        double gib = (double) b->bytes_per_node / (1 << 30);

        return gib * (double) memory_nodes(b) / ((double) MAX(row->median_us, UINT64_C(1)) / 1e6);
}

/* A row as soon as it is measured: a pipe or a log sees it then, not at the end. */
static void print_row(const struct bench *b, const struct bench_row *row) {
        printf("%-6s %14u %12.1f ", fill_mode_to_string(row->mode), row->threads, (double) row->median_us / 1000);
        if (row_zeroes(b, row))
                printf("%10.2f\n", row_gib_per_s(b, row));
        else
                printf("%10s\n", "-");
        (void) fflush(stdout);
}

/* Why the winner won, from what was measured and the kernel that it ran on (KERNEL.md): which
 * method zeroes the pages, where, and what HVO costs a fault. */
static const char *winner_reason(const struct bench *b, const struct bench_row *rows, size_t n, size_t best) {
        bool fault_measured = false;

        for (size_t i = 0; i < n; i++)
                fault_measured |= rows[i].mode == FILL_MODE_FAULT;
        if (rows[best].mode == FILL_MODE_FAULT)
                return b->caps.init_on_alloc
                               ? "init-on-alloc-serial"  /* sysfs zeroes at allocation, on one CPU */
                               : "fault-parallel";        /* faulting zeroes in parallel, and here that paid */
        if (!fault_measured)
                return b->page_size >= PLAN_GIGANTIC ? "gigantic" : "no-populate-write";
        if (b->caps.hvo == 1)
                return "hvo";
        return b->caps.init_on_alloc ? "init-on-alloc-twice" : "no-zeroing-at-alloc";
}

static const char *winner_words(const char *reason) {
        static const struct { const char *reason, *words; } table[] = {
                { "no-zeroing-at-alloc", "this kernel does not zero at allocation (init_on_alloc off): sysfs only "
                                         "allocates, the pages are zeroed when a workload first maps them" },
                { "init-on-alloc-twice", "init_on_alloc zeroes every page at allocation, and a fault zeroes it "
                                         "again: faulting zeroes each page twice, sysfs once" },
                { "hvo", "HVO is on: each page a fault allocates waits for an RCU grace period, which the sysfs "
                         "write batches" },
                { "gigantic", "gigantic pages are never faulted in from nothing: sysfs is the only method" },
                { "no-populate-write", "this kernel has no MADV_POPULATE_WRITE: sysfs is the only method" },
                { "init-on-alloc-serial", "init_on_alloc zeroes every page at allocation, in sysfs's one serial "
                                          "loop; the fault workers zero them in parallel" },
                { "fault-parallel", "the fault workers zero the pages in parallel, faster than sysfs allocates "
                                    "them one at a time" },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (strcmp(table[i].reason, reason) == 0)
                        return table[i].words;
        return "";
}

/* The fastest row of the other method, for the ratio; NULL when only one was measured. */
static const struct bench_row *runner_up(const struct bench_row *rows, size_t n, size_t best) {
        const struct bench_row *r = NULL;

        for (size_t i = 0; i < n; i++)
                if (rows[i].mode != FILL_MODE_AUTO && rows[i].mode != rows[best].mode &&
                    (!r || rows[i].median_us < r->median_us))
                        r = &rows[i];
        return r;
}

/* Returns 0, or -errno where the JSON could not be written. */
static int print_results(const struct bench *b, const struct bench_row *rows, size_t n, size_t best) {
        const struct bench_row *a = auto_row(rows, n), *other = runner_up(rows, n, best);
        const char *reason = winner_reason(b, rows, n, best);
        char kernel[192];

        kernel_features_describe(kernel, sizeof(kernel), &b->caps);
        if (b->json)
                return print_json(b, rows, n, best, memory_nodes(b), kernel, reason);
        if (a)
                printf("auto picked %s, %.2fx the best: %s\n", fill_mode_to_string(a->choice.method),
                       (double) a->median_us / (double) MAX(rows[best].median_us, UINT64_C(1)), a->choice.why);
        printf("Kernel: %s\n", kernel);
        printf("Winner: %s", fill_mode_to_string(rows[best].mode));
        if (other)
                printf(", %.2fx as fast as %s", (double) other->median_us / (double) MAX(rows[best].median_us, UINT64_C(1)),
                       fill_mode_to_string(other->mode));
        printf(": %s\n", winner_words(reason));
        printf("Recommended: Mode=%s", fill_mode_to_string(rows[best].mode));
        if (rows[best].mode == FILL_MODE_FAULT)
                printf(" ThreadsPerNode=%u", rows[best].threads);
        printf("\n");
        /* the table itself went out as it was printed: a write error shows here, or at the flush */
        return stream_flush(stdout);
}

/* Every pool file the runs write, before the first: a user who may not write them is told the
 * bench needs root (exit status 1), not that a pool could not be put back. */
static int check_writable(const struct bench *b) {
        char path[160];

        for (size_t i = 0; i < b->t.n_nodes; i++) {
                if (!b->t.nodes[i].has_memory)
                        continue;
                (void) pool_path(path, sizeof(path), &b->t, b->t.nodes[i].id, b->page_size, "nr_hugepages");
                if (faccessat(b->rootfd, path, W_OK, AT_EACCESS) < 0) {
                        int error = errno;

                        if (error == EACCES || error == EPERM || error == EROFS)
                                log_error("bench needs root: it fills and empties the pools, and %s/%s is not "
                                          "writable here (%s); nothing was changed",
                                          shown_root(), path, strerror(error));
                        else
                                log_error_errno(-errno, "Cannot write %s/%s: %m; nothing was changed", shown_root(), path);
                        return 1;
                }
        }
        return 0;
}

/* The machine as the bench needs it: the page size offered, a size it can take, pool files it
 * may write. Returns 0, or the exit status. */
static int bench_setup(struct bench *b, unsigned *ret_cpus) {
        struct error e = {};
        unsigned cpus = 1;
        int r;

        r = topology_read(b->rootfd, &b->t, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                return 1;
        }
        if (!topology_has_page_size(&b->t, b->page_size)) {
                char name[32];
                log_error("--page-size: this kernel offers no %s pages", page_size_name(b->page_size, name));
                return 2;
        }
        if (b->bytes_per_node % b->page_size != 0 || b->bytes_per_node < b->page_size) {
                log_error("--size must be a whole number of pages, at least one");
                return 2;
        }
        kernel_features_read(b->rootfd, root_is_host(b->rootfd), KERNEL_FEATURES_CMDLINE_UNREAD, &b->caps);
        b->found = calloc(b->t.n_nodes, sizeof(*b->found));
        b->surplus = calloc(b->t.n_nodes, sizeof(*b->surplus));
        if (!b->found || !b->surplus)
                return 1;
        for (size_t i = 0; i < b->t.n_nodes; i++) {
                cpus = MAX(cpus, (unsigned) b->t.nodes[i].n_cpus);
                /* half the node's memory at most: a bench must not squeeze the host */
                if (b->t.nodes[i].has_memory && b->bytes_per_node > b->t.nodes[i].mem_total / 2) {
                        log_error("--size: more than half of node%u's memory", b->t.nodes[i].id);
                        return 2;
                }
        }
        r = check_writable(b);
        if (r != 0)
                return r;
        *ret_cpus = cpus;
        return 0;
}

/* The pools as found, under the host lock: what every run starts from and is put back to. */
static int read_found(struct bench *b) {
        for (size_t i = 0; i < b->t.n_nodes; i++) {
                struct pool_counts c;

                if (pool_read_counts(b->rootfd, &b->t, b->t.nodes[i].id, b->page_size, &c) < 0) {
                        log_error("Cannot read node%u's pool", b->t.nodes[i].id);
                        return -EIO;
                }
                b->found[i] = pool_counts_persistent(&c);
                b->surplus[i] = c.surplus;
        }
        return 0;
}

static void describe_row(const struct bench_row *row, char *buf, size_t size) {
        if (row->mode == FILL_MODE_AUTO)
                (void) snprintf(buf, size, "auto (measures, then picks, as a fill does)");
        else if (row->mode == FILL_MODE_FAULT)
                (void) snprintf(buf, size, "fault, %u thread%s per node", row->threads, row->threads == 1 ? "" : "s");
        else
                (void) snprintf(buf, size, "sysfs");
}

/* One setting @b->runs times, the pools put back after each; its median in @row. */
static int bench_row(struct bench *b, struct bench_row *row) {
        char what[64];
        int r;

        describe_row(row, what, sizeof(what));
        for (unsigned run = 0; run < b->runs; run++) {
                uint64_t us;

                log_info("Measuring %s: run %u of %u", what, run + 1, b->runs);
                r = one_run(b, row, &us);
                if (restore(b) < 0 || r < 0)
                        return -1;
                row->us[row->runs++] = us;
        }
        qsort(row->us, row->runs, sizeof(uint64_t), cmp_u64);
        row->median_us = row->us[row->runs / 2];
        return 0;
}

/* Every setting in turn after an untimed warm-up, each row printed as soon as it is measured. */
static int bench_rows(struct bench *b, struct bench_row *rows, size_t n_rows) {
        char size[32];
        int r;

        log_info("Filling %s per node and putting the pool back, %u time%s per setting, %zu settings",
                 page_size_name(b->bytes_per_node, size), b->runs, b->runs == 1 ? "" : "s", n_rows);
        /* Warm-up, untimed: the first touch of memory costs far more than later ones. */
        for (size_t i = 0; i < (n_rows > 1 ? 2 : 1); i++) {
                uint64_t us;

                log_info("Warming up (untimed)");
                r = one_run(b, &rows[i], &us);
                if (restore(b) < 0 || r < 0)
                        return -1;
        }
        if (!b->json)
                print_header(b);
        for (size_t i = 0; i < n_rows; i++) {
                if (bench_row(b, &rows[i]) < 0)
                        return -1;
                if (b->json)
                        continue;
                print_row(b, &rows[i]);
        }
        return 0;
}

int bench_main(int argc, char *argv[], const struct common_options *common) {
        _cleanup_(closep) int rootfd = -1;
        struct bench b = { .page_size = UINT64_C(2) << 20, .bytes_per_node = UINT64_C(1) << 30,
                           .runs = 3, .lock_timeout_s = HOSTLOCK_TIMEOUT_S };
        struct bench_row rows[BENCH_MAX_ROWS] = {};
        size_t n_rows = 0, best = 0;
        unsigned cpus = 1;
        int r, ret;

        r = parse_args(&b, argc, argv);
        if (r < 0)
                log_error("Try 'hpfilld bench --help' for more information.");
        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (executor_block_signals() < 0)
                return 1;
        stop_init(&b.stop);
        rootfd = common_root_open(common);
        if (rootfd < 0)
                return 2;
        b.rootfd = rootfd;
        ret = bench_setup(&b, &cpus);
        if (ret != 0)
                goto out;
        /* A fill's pages and overcommit must not move under the runs, nor the runs' under a
         * fill: the bench holds the host lock, as a fill does, from before it reads the pools
         * as found until they are back (a time-out or a stop while waiting is said there). */
        ret = 1;
        /* what a command that died left is settled first, before the pools are read as found */
        if (state_store_open(rootfd, &b.t,
                             &(struct state_open_options) { "hpfilld bench", b.lock_timeout_s, &b.stop, NULL },
                             &b.st) < 0)
                goto out;
        b.st_open = true;
        if (*b.st.notes)
                log_lines(LOG_NOTICE, b.st.notes);
        if (read_found(&b) < 0)
                goto out;

        rows[n_rows++] = (struct bench_row) { .mode = FILL_MODE_SYSFS, .threads = 1 };
        if (b.page_size < PLAN_GIGANTIC && b.caps.populate_write)
                for (unsigned t = 1; t <= MIN(cpus, PLAN_AUTO_THREADS_MAX) && n_rows < BENCH_MAX_ROWS; t *= 2)
                        rows[n_rows++] = (struct bench_row) { .mode = FILL_MODE_FAULT, .threads = t };
        if (b.page_size < PLAN_GIGANTIC && b.caps.populate_write && n_rows < BENCH_MAX_ROWS)
                rows[n_rows++] = (struct bench_row) { .mode = FILL_MODE_AUTO };
        ret = 1;
        if (bench_rows(&b, rows, n_rows) < 0)
                goto out;
        for (size_t i = 0; i < n_rows; i++)
                if (rows[i].mode != FILL_MODE_AUTO && rows[i].median_us < rows[best].median_us)
                        best = i;
        r = print_results(&b, rows, n_rows, best);
        if (r < 0)
                log_error_errno(r, "Cannot write the results to standard output: %m");
        else
                ret = 0;
out:
        if (stop_requested(&b.stop) && b.st_open)
                log_error("Interrupted; the pools are back as found");
        if (b.st_open && state_store_close(&b.st, true) < 0)
                ret = 1;
        free(b.found);
        free(b.surplus);
        topology_done(&b.t);
        stop_done(&b.stop);
        return ret;
}
