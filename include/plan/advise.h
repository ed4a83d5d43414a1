/* SPDX-License-Identifier: MIT */
/* The advisor: for pools a fill could not complete, what would get them at the next boot. */
#pragma once

#include <stddef.h>

#include "plan/plan.h"

/* Writes, for @pools (the short ones), the kernel command line that allocates them at boot,
 * "hugepagesz=2M hugepages=0:512,1:512 ..." (with hugepage_alloc_threads=@alloc_threads when
 * non-zero and a pool is not gigantic), and the initramfs form "hpfilld.pool=2M:node0=512,...".
 * Empty when @n is 0. */
void advise_boot(char *cmdline, size_t cmdline_size, char *initramfs, size_t initramfs_size,
                 const struct plan_pool *const *pools, size_t n, unsigned alloc_threads);

/* Writes, for the gigantic pools among @pools (the short ones), the CMA area that keeps their
 * pages allocatable at runtime on each node: "hugetlb_cma=0:16G,1:4G" (the node form: Linux 5.16
 * and later). Empty when none of @pools is gigantic. */
void advise_cma(char *buf, size_t size, const struct plan_pool *const *pools, size_t n);

/* What hpfilld bench says when node @node got @got of the @target pages a run asked for, adding
 * @adds pages of @page_size: a smaller --size where it asked more than one page; where one page
 * was all it asked, what stands in its way (no free gigantic range, no memory). */
void advise_bench_short(char *buf, size_t size, unsigned node, uint64_t got, uint64_t target, uint64_t adds,
                        uint64_t page_size);
