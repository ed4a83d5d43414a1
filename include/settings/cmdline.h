/* SPDX-License-Identifier: MIT */
/* hpfilld.* settings on the kernel command line, so an initramfs needs no configuration file. */
#pragma once

#include "settings/conf.h"

/* Applies the hpfilld.* words of @cmdline to @c: hpfilld.pool=SIZE:AMOUNT (repeatable; any
 * replaces the configuration's pools), hpfilld.mode=, hpfilld.threads=, hpfilld.min=,
 * hpfilld.shrink=, hpfilld.drop_caches=. Words after "--" are init's. An unknown hpfilld.* word or a bad value is
 * an error naming it; then @c is unchanged. Returns the number of hpfilld.* words. */
int cmdline_apply(const char *cmdline, struct config *c, struct error *e);
