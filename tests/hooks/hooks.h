/* SPDX-License-Identifier: MIT */
/* The test hooks: points in the middle of a fill where a test pauses it, interrupts it or makes
 * its steps small. Test-only: linked into the unit tests that need them and into hpfilld-hooked
 * (the root tests' binary, never installed), both built from the daemon's own objects with
 * -Wl,--wrap= of the functions below (tests/meson.build), so the daemon itself has none. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Each from the environment when the program starts (hpfilld-hooked); unit tests set them. */
struct hooks {
        /* HPFILLD_TEST_STEP_PAGES: pages per sysfs write, without adapting to the kernel's rate
         * (also the first measured sysfs write of Mode=auto under HVO) */
        uint64_t step_pages;
        /* HPFILLD_TEST_STEP_BYTES: the first write of a node asks for at most that many bytes of
         * pages instead of SYSFS_STEP_BYTES (the later writes adapt as usual) */
        uint64_t step_bytes;
        /* HPFILLD_TEST_INTERRUPT_AFTER_STEPS: after that many steps (sysfs writes, faulted
         * chunks), SIGINT the process and wait until its own signal handling stops the fill */
        uint64_t interrupt_after;
        /* HPFILLD_TEST_PAUSE_FIFO, HPFILLD_TEST_PAUSE_AFTER_STEPS: after that many steps, write
         * "paused" to the FIFO and wait until the test writes to it in turn */
        const char *pause_fifo;
        uint64_t pause_after;
        /* HPFILLD_TEST_PROBE_ALWAYS (not 0): Mode=auto probes fault however short the fill */
        bool probe_always;
        /* HPFILLD_TEST_PLANNED_FIFO: the same rendezvous between the plan and the host lock,
         * where another fill can come and go without making this one wait */
        const char *planned_fifo;
        /* HPFILLD_TEST_BENCH_PAUSE_FIFO: the same rendezvous after the first flush of standard
         * output (the bench's first row) */
        const char *bench_pause_fifo;
        /* HPFILLD_TEST_UNCLAIMED_FIFO: the same rendezvous where `hpfilld unclaim` has given the
         * claim back in the state, before its pages leave (session_give_back()): a test kills it
         * there */
        const char *unclaimed_fifo;
};

extern struct hooks hooks;
