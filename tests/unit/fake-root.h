/* SPDX-License-Identifier: MIT */
/* Fake sysfs/procfs trees in a temp dir, for tests of the code that reads the machine. */
#pragma once

#include <stdint.h>

struct fake_root {
        char path[256];
        int fd;
};

/* A temp dir that fake_root_free() removes. */
void fake_root_new(struct fake_root *r);
void fake_root_free(struct fake_root *r);
/* Writes @content at @rel (directories made as needed). */
void fake_write(struct fake_root *r, const char *rel, const char *content);
void fake_writef(struct fake_root *r, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reads the decimal counter at @rel. */
uint64_t fake_read_u64(struct fake_root *r, const char *rel);
/* The entries of the directory @dir (relative; "." for the root itself), . and .. aside. */
unsigned fake_count_entries(struct fake_root *r, const char *dir);

/* A NUMA machine: @n_nodes online nodes with @mem_mb MiB each; node i has CPUs 2i,2i+1 unless
 * bit i of @cpuless_mask is set; the distance is 10 to itself and 20 + 10*|i-j| elsewhere;
 * hugepage sizes @sizes_kb (0-terminated) with empty pools. */
void fake_numa_machine(struct fake_root *r, unsigned n_nodes, unsigned mem_mb, unsigned cpuless_mask,
                       const unsigned *sizes_kb);
/* nr_hugepages of one (node, size). */
void fake_set_node_pool(struct fake_root *r, unsigned node, unsigned size_kb, uint64_t nr, uint64_t free);
uint64_t fake_node_nr(struct fake_root *r, unsigned node, unsigned size_kb);
