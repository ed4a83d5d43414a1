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
