/* SPDX-License-Identifier: MIT */
/* The sysfs method against fake trees (real file I/O) and a simulated kernel (sim-kernel.h:
 * shortfalls, retries); threads that cannot be started (fake-threads.h); memory not had for the
 * fill's setup (fake-alloc.h); fixed steps and an interrupt mid-fill (the test hooks,
 * hooks/hooks.h). */
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <signal.h>

#include "fill/executor.h"
#include "fake-alloc.h"
#include "fake-root.h"
#include "fill/fill.h"
#include "fill/fill_auto.h"
#include "fill/fill_sysfs.h"
#include "fake-threads.h"
#include "hooks/hooks.h"
#include "sim-kernel.h"
#include "test.h"
#include "util/fileio.h"

#define MB (UINT64_C(1) << 20)

static const unsigned sizes[] = { 2048, 0 };
static const struct kernel_features no_caps = {};

struct setup {
        struct fake_root r;
        struct topology t;
        struct pool_counts *counts;
        struct plan p;
        struct stop stop;
        struct pool_writer writer;
        struct fill_shared shared;
};

/* The fill's writes straight to the (simulated) kernel: the state is not what is tested here */
static int direct_write_nr(void *data, uint64_t page_size, int node, uint64_t count) {
        struct setup *s = data;

        CHECK(node >= 0);
        return pool_write_nr(s->r.fd, &s->t, (unsigned) node, page_size, count);
}

static struct pool_writer direct_writer(struct setup *s) {
        return (struct pool_writer) { .write_nr = direct_write_nr, .data = s };
}

static void setup(struct setup *s, unsigned n_nodes, const char *spec, bool shrink) {
        struct config c = CONFIG_INIT;
        struct pool_spec ps;
        struct error e = {};

        fake_root_new(&s->r);
        fake_numa_machine(&s->r, n_nodes, 4096, 0, sizes);
        CHECK_EQ(topology_read(s->r.fd, &s->t, &e), 0);
        s->counts = calloc(n_nodes, sizeof(*s->counts));
        for (unsigned i = 0; i < n_nodes; i++)
                CHECK_EQ(pool_read_counts(s->r.fd, &s->t, i, 2 * MB, &s->counts[i]), 0);
        c.shrink = shrink;
        CHECK_EQ(parse_pool_spec(spec, &ps, &e), 0);
        CHECK_EQ(config_put_pool(&c, &ps), 0);
        CHECK_EQ(plan_build(&s->t, s->counts, &c, &no_caps, &s->p, &e), 0);
        config_done(&c);
        stop_init(&s->stop);
        s->writer = direct_writer(s);
        s->shared = (struct fill_shared) {
                .rootfd = s->r.fd, .t = &s->t, .writer = &s->writer, .stop = &s->stop, .step_bytes = 20 * MB,
        };
}

static void teardown(struct setup *s) {
        sim_kernel = NULL;
        hooks = (struct hooks) {};
        plan_done(&s->p);
        topology_done(&s->t);
        free(s->counts);
        stop_done(&s->stop);
        fake_root_free(&s->r);
}

/* A fill of @spec on a machine of @n_nodes nodes under the simulated kernel @sim, run, in @f */
static void sim_fill(struct setup *s, struct sim *sim, unsigned n_nodes, const char *spec, struct sysfs_fill *f) {
        setup(s, n_nodes, spec, false);
        sim_kernel = sim;
        CHECK_EQ(sysfs_fill_init(f, &s->shared, &s->p.pools[0]), 0);
        sysfs_fill_run(f);
}

/* The fake kernel itself: a write to an attribute where the kernel has it takes the whole value;
 * a file of the same name elsewhere, below a "sys/" that is not the tree's, is a plain file. */
static void write_at(struct fake_root *r, const char *path, const char *text) {
        int fd = openat(r->fd, path, O_WRONLY | O_CLOEXEC);

        CHECK(fd >= 0);
        CHECK_EQ(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

TEST(test_fake_kernel_layout) {
        struct fake_root r;

        fake_root_new(&r);
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "123\n");
        fake_write(&r, "elsewhere/sys/nr_hugepages", "123\n");
        write_at(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "5");
        write_at(&r, "elsewhere/sys/nr_hugepages", "5");
        CHECK_EQ(fake_read_u64(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), 5);
        CHECK_EQ(fake_read_u64(&r, "elsewhere/sys/nr_hugepages"), 523);
        fake_root_free(&r);
}

TEST(test_fake_tree_fill) {
        struct setup s;
        struct sysfs_fill f;

        setup(&s, 2, "2M:70", false); /* 35 per node, steps of 10 pages: 4 writes each */
        hooks.step_pages = 10;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(f.error, 0);
        CHECK(!f.interrupted);
        CHECK_EQ(f.rounds, 0);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 35);
        CHECK_EQ(fake_node_nr(&s.r, 1, 2048), 35);
        CHECK_EQ(f.after[0], 35);
        CHECK_EQ(f.done, 70);
        CHECK_EQ(s.shared.steps, 8);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_adaptive_steps) {
        struct setup s;
        struct sysfs_fill f;

        /* The first write asks for step_bytes (10 pages); the next is sized from its rate to
         * take step_ns. A long step_ns: the rest of the node in one write, however slow the
         * machine is today. */
        setup(&s, 1, "2M:500", false);
        s.shared.step_ns = UINT64_C(1000) * 1000 * 1000 * 1000;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 500);
        CHECK_EQ(s.shared.steps, 2);
        sysfs_fill_done(&f);
        teardown(&s);

        /* A step_ns shorter than any write: one page a write after the first. */
        setup(&s, 1, "2M:60", false);
        s.shared.step_ns = 1;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 60);
        CHECK_EQ(s.shared.steps, 1 + 50);
        sysfs_fill_done(&f);
        teardown(&s);
}

/* On a real tree the writer counts persistent pages: a node whose 30 pages are all surplus is
 * written to its target (which promotes them, in the kernel); one whose persistent pages meet
 * the target is not written at all. */
/* On a real tree the writer counts persistent pages: node0's 30 pages are all surplus, so it
 * is written its whole target (the kernel promotes them first); node1's are persistent. */
TEST(test_fake_tree_surplus) {
        struct setup s;
        struct sysfs_fill f;
        struct config c = CONFIG_INIT;
        struct pool_spec ps;
        struct error e = {};

        setup(&s, 2, "2M:100", false);
        plan_done(&s.p);
        fake_set_node_pool(&s.r, 0, 2048, 30, 0);
        fake_write(&s.r, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages", "30\n");
        fake_set_node_pool(&s.r, 1, 2048, 30, 30);
        for (unsigned i = 0; i < 2; i++)
                CHECK_EQ(pool_read_counts(s.r.fd, &s.t, i, 2 * MB, &s.counts[i]), 0);
        CHECK_EQ(parse_pool_spec("2M:100", &ps, &e), 0);
        CHECK_EQ(config_put_pool(&c, &ps), 0);
        CHECK_EQ(plan_build(&s.t, s.counts, &c, &no_caps, &s.p, &e), 0);
        config_done(&c);
        CHECK_EQ(s.p.pools[0].nodes[0].now, 0);
        CHECK_EQ(s.p.pools[0].nodes[0].promote, 30);
        CHECK_EQ(s.p.pools[0].nodes[1].now, 30);

        /* The fake kernel does not promote: node0's file keeps its 30 surplus pages, so the
         * 50 written read back as 20 persistent pages, short of 50. Node1, with node0's
         * surplus pages about, is not written its own file (kernels before 6.7 would add
         * node0's 30 surplus pages to it) but the global count, node0's 20 persistent pages
         * (after its write) + 50, to nr_hugepages_mempolicy (pool_write.c); the fake kernel gives nothing. */
        hooks.step_pages = 100;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(f.error, 0);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 50);
        CHECK_EQ(f.after[0], 20);
        CHECK(f.short_node[0]);
        CHECK_EQ(fake_node_nr(&s.r, 1, 2048), 30);
        CHECK_EQ(fake_read_u64(&s.r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages_mempolicy"), 70);
        CHECK_EQ(f.after[1], 30);
        CHECK(f.short_node[1]);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_fake_tree_shrink) {
        struct setup s;
        struct sysfs_fill f;

        setup(&s, 2, "2M:20", true);
        fake_set_node_pool(&s.r, 0, 2048, 50, 50);
        /* replan with the new counts */
        plan_done(&s.p);
        CHECK_EQ(pool_read_counts(s.r.fd, &s.t, 0, 2 * MB, &s.counts[0]), 0);
        {
                struct config c = CONFIG_INIT;
                struct pool_spec ps;
                struct error e = {};
                c.shrink = true;
                CHECK_EQ(parse_pool_spec("2M:20", &ps, &e), 0);
                CHECK_EQ(config_put_pool(&c, &ps), 0);
                CHECK_EQ(plan_build(&s.t, s.counts, &c, &no_caps, &s.p, &e), 0);
                config_done(&c);
        }
        CHECK_EQ(s.p.pools[0].nodes[0].action, PLAN_SHRINK);
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(f.error, 0);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 10);
        CHECK_EQ(fake_node_nr(&s.r, 1, 2048), 10);
        /* what the report says: the counts read back after the writes, the shrink's too */
        CHECK_EQ(f.after[0], 10);
        CHECK_EQ(f.after[1], 10);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_fake_tree_missing_file) {
        struct setup s;
        struct sysfs_fill f;

        setup(&s, 2, "2M:8", false);
        CHECK_EQ(unlinkat(s.r.fd, "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages", 0), 0);
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(f.error, -ENOENT);
        CHECK_STR_CONTAINS(f.error_path, "node1/hugepages/hugepages-2048kB/nr_hugepages");
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 4);
        sysfs_fill_done(&f);
        teardown(&s);
}

/* The write itself refuses what is not an attribute, whatever checked before: a symbolic link to
 * a file outside the tree is not followed, a FIFO not waited on, a missing file not created. */
TEST(test_fake_tree_not_an_attribute) {
        const char *node1 = "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages";
        struct fake_root outside;
        struct setup s;
        struct sysfs_fill f;
        char target[300];

        setup(&s, 2, "2M:8", false);
        fake_root_new(&outside);
        fake_write(&outside, "counter", "0\n");
        (void) snprintf(target, sizeof(target), "%s/counter", outside.path);
        CHECK_EQ(unlinkat(s.r.fd, node1, 0), 0);
        CHECK_EQ(symlinkat(target, s.r.fd, node1), 0);
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK_EQ(f.error, -ELOOP);
        /* node1's, or node0's, whose write reads the other nodes' counts first (pool_write.c) */
        CHECK_STR_CONTAINS(f.error_path, "/hugepages/hugepages-2048kB/nr_hugepages");
        CHECK_EQ(fake_read_u64(&outside, "counter"), 0);
        sysfs_fill_done(&f);

        CHECK_EQ(unlinkat(s.r.fd, node1, 0), 0);
        CHECK_EQ(mkfifoat(s.r.fd, node1, 0644), 0);
        CHECK_EQ(write_u64_at(s.r.fd, node1, 4), -ENXIO);
        CHECK_EQ(unlinkat(s.r.fd, node1, 0), 0);
        CHECK_EQ(write_u64_at(s.r.fd, node1, 4), -ENOENT);
        CHECK(faccessat(s.r.fd, node1, F_OK, AT_SYMLINK_NOFOLLOW) < 0);
        fake_root_free(&outside);
        teardown(&s);
}

TEST(test_stop_before_start) {
        struct setup s;
        struct sysfs_fill f;

        setup(&s, 2, "2M:8", false);
        stop_request(&s.stop, SIGTERM);
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        CHECK(f.interrupted);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 0);
        CHECK_EQ(s.shared.steps, 0);
        sysfs_fill_done(&f);
        teardown(&s);
}

/* The first write asks for step_bytes (10 pages here), or the whole node where that is at most
 * half as much again: 15 pages in one write (a second would cost the kernel's fixed cost of a
 * write, an RCU grace period under HVO, for 5 pages), 16 in two. */
TEST(test_first_write_takes_a_short_rest) {
        static const struct {
                const char *spec;
                unsigned writes;
        } t[] = { { "2M:15", 1 }, { "2M:16", 2 }, { "2M:1", 1 } };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct sim sim = { .cap = { 1000, 1000 } };
                struct setup s;
                struct sysfs_fill f;

                sim_fill(&s, &sim, 1, t[i].spec, &f);
                CHECK_EQ(f.error, 0);
                CHECK_EQ(sim.nr[0], s.p.pools[0].nodes[0].target);
                CHECK_EQ(sim.writes, t[i].writes);
                sysfs_fill_done(&f);
                teardown(&s);
        }
}

TEST(test_retry_after_compaction) {
        struct sim sim = { .cap = { 20, 1000 }, .release = { 5, 0 }, .max_compactions = 3 };
        struct setup s;
        struct sysfs_fill f;

        sim_fill(&s, &sim, 2, "2M:100", &f); /* 50 per node */
        /* node0: 20, then +5 for each of 3 compactions = 35; the 4th round gains nothing */
        CHECK_EQ(sim.nr[0], 35);
        CHECK_EQ(sim.nr[1], 50);
        CHECK_EQ(f.after[0], 35);
        CHECK(f.short_node[0]);
        CHECK(!f.short_node[1]);
        CHECK_EQ(f.rounds, 4);
        CHECK_EQ(sim.compactions[0], 4);
        CHECK_EQ(sim.compactions[1], 0);
        CHECK_EQ(f.done, 85);
        CHECK_EQ(sim.drops, 0); /* not asked to */
        CHECK(!f.after_drop);
        sysfs_fill_done(&f);
        teardown(&s);
}

/* --drop-caches: only once compaction rounds stop gaining, once per fill, then rounds go on
 * while they gain; a second pool's writer that runs dry later gets its rounds, no second drop. */
TEST(test_drop_caches_when_dry) {
        struct sim sim = { .cap = { 20, 1000 }, .release = { 5, 0 }, .max_compactions = 1,
                           .drop_release = { 4, 0 }, .drop_compactions = 2 };
        struct setup s;
        struct sysfs_fill f, g;

        setup(&s, 2, "2M:100", false); /* 50 per node */
        sim_kernel = &sim;
        s.shared.drop_caches = true;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        sysfs_fill_run(&f);
        /* 20; round 1: +5 = 25; round 2: nothing; drop: +4 = 29, round 3: +5 = 34 (the drop allowed
         * more compactions), round 4: nothing, and no second drop */
        CHECK_EQ(sim.drops, 1);
        CHECK_EQ(sim.nr[0], 34);
        CHECK_EQ(f.rounds, 4);
        CHECK(f.after_drop);
        CHECK(f.short_node[0]);

        /* the same fill's next writer, short as well: one more round, no second drop */
        sim.nr[0] = 0;
        CHECK_EQ(sysfs_fill_init(&g, &s.shared, &s.p.pools[0]), 0);
        g.after[0] = 0;
        sysfs_fill_run(&g);
        CHECK_EQ(sim.drops, 1);
        CHECK(g.after_drop);
        CHECK_EQ(g.rounds, 2); /* the first gains nothing, the caches were dropped: one more */
        CHECK_EQ(sim.nr[0], 34);
        sysfs_fill_done(&g);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_retry_until_met) {
        struct sim sim = { .cap = { 45, 48 }, .release = { 10, 1 }, .max_compactions = 100 };
        struct setup s;
        struct sysfs_fill f;

        sim_fill(&s, &sim, 2, "2M:100", &f);
        CHECK_EQ(sim.nr[0], 50);
        CHECK_EQ(sim.nr[1], 50);
        CHECK_EQ(f.rounds, 2);
        CHECK(!f.short_node[0] && !f.short_node[1]);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_rounds_are_bounded) {
        struct sim sim = { .cap = { 0, 50 }, .release = { 1, 0 }, .max_compactions = 1000 };
        struct setup s;
        struct sysfs_fill f;

        sim_fill(&s, &sim, 2, "2M:100", &f);
        CHECK_EQ(f.rounds, SYSFS_MAX_ROUNDS);
        CHECK_EQ(sim.nr[0], SYSFS_MAX_ROUNDS);
        sysfs_fill_done(&f);
        teardown(&s);
}

/* The executor takes a real SIGINT (sent by a job, as the test hook does) and requests a stop. */
static void raise_and_wait(void *arg) {
        struct stop *stop = arg;

        CHECK_EQ(kill(getpid(), SIGINT), 0);
        stop_wait(stop);
}

static void wait_only(void *arg) {
        stop_wait(arg);
}

TEST(test_executor_signal) {
        struct stop stop;
        struct task jobs[3] = {
                { wait_only, &stop },
                { raise_and_wait, &stop },
                { wait_only, &stop },
        };

        stop_init(&stop);
        CHECK_EQ(executor_run(jobs, 3, &stop, 50, NULL, NULL), 0);
        CHECK(stop_requested(&stop));
        CHECK_EQ(stop.signo, SIGINT);
        stop_done(&stop);
}

static void add_one(void *arg) {
        atomic_fetch_add((_Atomic unsigned *) arg, 1);
}

static void tick(void *arg) {
        (void) arg;
}

TEST(test_executor_jobs) {
        _Atomic unsigned count = 0;
        struct stop stop;
        struct task jobs[8];

        for (size_t i = 0; i < ELEMENTSOF(jobs); i++)
                jobs[i] = (struct task) { add_one, &count };
        stop_init(&stop);
        CHECK_EQ(executor_run(jobs, ELEMENTSOF(jobs), &stop, 10, tick, NULL), 0);
        CHECK_EQ(count, 8);
        CHECK(!stop_requested(&stop));
        CHECK_EQ(executor_run(jobs, 0, &stop, 10, tick, NULL), 0);
        stop_done(&stop);
}

static void wait_counted(void *arg) {
        struct { struct stop *stop; _Atomic unsigned done; } *w = arg;

        stop_wait(w->stop);
        atomic_fetch_add(&w->done, 1);
}

/* A thread that cannot be started is an error with its errno: the tasks already running wind
 * down and return, and no stop is left requested (the daemon would take it for a signal). */
TEST(test_executor_create_fails) {
        struct stop stop;
        struct { struct stop *stop; _Atomic unsigned done; } w = { &stop, 0 };
        struct task jobs[4] = { { wait_counted, &w }, { wait_counted, &w }, { wait_counted, &w }, { wait_counted, &w } };

        stop_init(&stop);
        fake_threads_left = 2;
        CHECK_EQ(executor_run(jobs, 4, &stop, 10, tick, NULL), -EAGAIN);
        fake_threads_left = -1;
        CHECK_EQ(w.done, 2);
        CHECK(!stop_requested(&stop));
        CHECK(!stop_signalled(&stop));
        CHECK_EQ(stop.signo, 0);
        /* and the next run is not cut short by the last one's failure */
        CHECK_EQ(executor_run(jobs, 0, &stop, 10, tick, NULL), 0);
        stop_done(&stop);
}

/* The same through a fill: the pool fails with EAGAIN, not "interrupted". */
TEST(test_fill_create_fails) {
        struct setup s;
        struct pool_run runs[1] = {};

        setup(&s, 2, "2M:100", false);
        s.shared.tick = tick; /* progress to tick: the lone writer gets a thread */
        fake_threads_left = 0;
        CHECK_EQ(fill_execute(&s.shared, &s.p, runs), -EAGAIN);
        fake_threads_left = -1;
        CHECK_EQ(runs[0].error, -EAGAIN);
        CHECK_STR_CONTAINS(runs[0].error_what, "pthread_create");
        CHECK(!runs[0].interrupted);
        CHECK(!stop_requested(&s.stop));
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 0);
        fill_runs_done(runs, 1);
        teardown(&s);
}

/* A measured pool (Mode=auto) after the executor failed for the pools before it: its run is one
 * for the whole pool, which the report falls back on where it cannot read a node's count (the
 * second failure): the plan's counts, not a one-element array of the empty copy run first. */
TEST(test_measured_after_create_fails) {
        struct setup s;
        struct pool_run runs[1] = {};

        setup(&s, 2, "2M:100", false);
        s.p.pools[0].measured = true;
        s.p.pools[0].nodes[0].now = 3;
        s.p.pools[0].nodes[1].now = 7;
        s.shared.tick = tick; /* a thread for the lone writer */
        fake_threads_left = 0;
        CHECK_EQ(fill_execute_plan(&s.shared, &s.p, runs), -EAGAIN);
        fake_threads_left = -1;
        CHECK(runs[0].plan == &s.p.pools[0]);
        CHECK_EQ(runs[0].error, -EAGAIN);
        CHECK_STR_CONTAINS(runs[0].error_what, "pthread_create");
        CHECK_EQ(pool_run_node_after(&runs[0], 0), 3);
        CHECK_EQ(pool_run_node_after(&runs[0], 1), 7);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 0);
        CHECK_EQ(fake_node_nr(&s.r, 1, 2048), 0);
        fill_runs_done(runs, 1);
        teardown(&s);
}

/* Out of memory for the fill's setup, at each of its allocations in turn (two pools, 2M and
 * 1G): -ENOMEM, every pool failed with it and reported by its plan (none left without one for
 * the report to read), nothing written; then, with none to fail, the fill itself. */
TEST(test_fill_out_of_memory) {
        static const unsigned two_sizes[] = { 2048, 1048576, 0 };

        for (int n = 0;; n++) {
                struct pool_run runs[2] = {};
                struct config c = CONFIG_INIT;
                struct pool_spec ps;
                struct error e = {};
                struct setup s = {};
                int r, left;

                fake_root_new(&s.r);
                fake_numa_machine(&s.r, 1, 4096, 0, two_sizes);
                CHECK_EQ(topology_read(s.r.fd, &s.t, &e), 0);
                s.counts = calloc(2, sizeof(*s.counts));
                CHECK_EQ(parse_pool_spec("2M:10", &ps, &e), 0);
                CHECK_EQ(config_put_pool(&c, &ps), 0);
                CHECK_EQ(parse_pool_spec("1G:1", &ps, &e), 0);
                CHECK_EQ(config_put_pool(&c, &ps), 0);
                CHECK_EQ(plan_build(&s.t, s.counts, &c, &no_caps, &s.p, &e), 0);
                config_done(&c);
                CHECK_EQ(s.p.n_pools, 2);
                stop_init(&s.stop);
                s.writer = direct_writer(&s);
                s.shared = (struct fill_shared) { .rootfd = s.r.fd, .t = &s.t, .writer = &s.writer, .stop = &s.stop,
                                                  .step_bytes = 20 * MB };

                fake_calloc_fail_at = n;
                r = fill_execute(&s.shared, &s.p, runs);
                left = fake_calloc_fail_at;
                fake_calloc_fail_at = -1;
                if (left >= 0) { /* fewer allocations than n: none failed */
                        CHECK_EQ(r, 0);
                        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 10);
                        CHECK_EQ(fake_node_nr(&s.r, 0, 1048576), 1);
                        CHECK(n > 3); /* the workers, and a writer of each pool at least, were failed */
                }
                for (size_t i = 0; left < 0 && i < 2; i++) {
                        CHECK_EQ(r, -ENOMEM);
                        CHECK(runs[i].plan == &s.p.pools[i]);
                        CHECK_EQ(runs[i].error, -ENOMEM);
                        CHECK_EQ(pool_run_node_after(&runs[i], 0), 0);
                        CHECK_EQ(fake_node_nr(&s.r, 0, i ? 1048576 : 2048), 0);
                }
                fill_runs_done(runs, 2);
                teardown(&s);
                if (left >= 0)
                        break;
        }
}

struct on_thread {
        struct sysfs_fill *f;
        pthread_t caller;
        bool same;
};

static void fill_noting_thread(void *arg) {
        struct on_thread *o = arg;

        o->same = pthread_equal(pthread_self(), o->caller);
        sysfs_fill_run(o->f);
}

/* The SIGINT hook stops a lone writer after 3 steps: on its own thread when there is progress
 * to tick (@ticking), else on the calling thread, which reads the signal in stop_requested(). */
static void fill_with_hook(bool ticking) {
        struct setup s;
        struct sysfs_fill f;
        struct on_thread o = { .f = &f, .caller = pthread_self() };
        struct task job = { fill_noting_thread, &o };

        setup(&s, 2, "2M:100", false); /* 10 steps of 10 pages */
        hooks.step_pages = 10;
        hooks.interrupt_after = 3;
        CHECK_EQ(sysfs_fill_init(&f, &s.shared, &s.p.pools[0]), 0);
        CHECK_EQ(executor_run(&job, 1, &s.stop, 1000, ticking ? tick : NULL, NULL), 0);
        CHECK_EQ(o.same, !ticking);
        CHECK_EQ(s.stop.signal_fd, -1);
        CHECK(f.interrupted);
        CHECK_EQ(s.stop.signo, SIGINT);
        CHECK_EQ(s.shared.steps, 3);
        CHECK_EQ(fake_node_nr(&s.r, 0, 2048), 30);
        CHECK_EQ(fake_node_nr(&s.r, 1, 2048), 0);
        sysfs_fill_done(&f);
        teardown(&s);
}

TEST(test_threaded_fill_with_hook) {
        fill_with_hook(true);
}

TEST(test_inline_fill_with_hook) {
        fill_with_hook(false);
}

/* A lone task waiting for a stop on the signals' thread: the wait itself reads them. */
TEST(test_inline_wait) {
        struct stop stop;
        struct task job = { raise_and_wait, &stop };

        stop_init(&stop);
        CHECK_EQ(executor_run(&job, 1, &stop, 50, NULL, NULL), 0);
        CHECK(stop_requested(&stop));
        CHECK_EQ(stop.signo, SIGINT);
        stop_done(&stop);
}

/* Two stop signals queued before a lone task waits on the signals' thread: the wait reads the
 * first and returns, with the second still queued (not read under the stop's lock, where its
 * stop_request() would lock it again: the wait never returned). */
static void raise_two_and_wait(void *arg) {
        struct stop *stop = arg;

        CHECK_EQ(kill(getpid(), SIGINT), 0);
        CHECK_EQ(kill(getpid(), SIGTERM), 0);
        stop_wait(stop);
}

TEST(test_inline_wait_two_signals) {
        struct timespec now = { 0, 0 };
        struct stop stop;
        struct task job = { raise_two_and_wait, &stop };
        sigset_t term;

        stop_init(&stop);
        CHECK_EQ(executor_run(&job, 1, &stop, 50, NULL, NULL), 0);
        CHECK(stop_requested(&stop));
        CHECK_EQ(stop.signo, SIGINT);
        stop_done(&stop);
        /* the second one, left for whoever reads signals next: taken here, not by a later test */
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        CHECK_EQ(sigtimedwait(&term, NULL, &now), SIGTERM);
}

/* A lone task that pins itself runs on the calling thread, which gets its CPUs back. */
static void pin_to_first(void *arg) {
        cpu_set_t one;

        CPU_ZERO(&one);
        CPU_SET(*(int *) arg, &one);
        CHECK_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
}

TEST(test_inline_affinity_restored) {
        cpu_set_t before, after;
        struct stop stop;
        int first = -1;
        struct task job = { pin_to_first, &first };

        CHECK_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
        for (int i = 0; i < CPU_SETSIZE && first < 0; i++)
                if (CPU_ISSET(i, &before))
                        first = i;
        stop_init(&stop);
        CHECK_EQ(executor_run(&job, 1, &stop, 50, NULL, NULL), 0);
        CHECK_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
        CHECK(CPU_EQUAL(&before, &after));
        stop_done(&stop);
}

int main(void) {
        RUN(test_fake_kernel_layout);
        CHECK_EQ(executor_block_signals(), 0);
        RUN(test_fake_tree_fill);
        RUN(test_adaptive_steps);
        RUN(test_fake_tree_surplus);
        RUN(test_fake_tree_shrink);
        RUN(test_fake_tree_missing_file);
        RUN(test_fake_tree_not_an_attribute);
        RUN(test_stop_before_start);
        RUN(test_first_write_takes_a_short_rest);
        RUN(test_retry_after_compaction);
        RUN(test_drop_caches_when_dry);
        RUN(test_retry_until_met);
        RUN(test_rounds_are_bounded);
        RUN(test_executor_signal);
        RUN(test_executor_jobs);
        RUN(test_executor_create_fails);
        RUN(test_fill_create_fails);
        RUN(test_measured_after_create_fails);
        RUN(test_fill_out_of_memory);
        RUN(test_threaded_fill_with_hook);
        RUN(test_inline_fill_with_hook);
        RUN(test_inline_wait);
        RUN(test_inline_wait_two_signals);
        RUN(test_inline_affinity_restored);
        return 0;
}
