/* SPDX-License-Identifier: MIT */
/* The state as text, RUNDIR/state: one line per item, words between single spaces,
 *
 *   hpfilld-state 1
 *   boot BOOT_ID
 *   seq N
 *   legacy (the files of hpfilld 0.x converted into it may still be there)
 *   daemon PID START_TIME
 *   owner NAME SEQ active|gone [POOL_SPEC...]
 *   pool PAGE_SIZE NODE LAST [OWNER=HELD/WANT[/MARK]...] (MARK: an active claim's, where not 0)
 *   intent PAGE_SIZE NODE FROM TO [OWNER=PAGES...]
 *   setting PATH FOUND SET
 *   reserve NAME PAGE_SIZE PAGES DEV INO
 *   last-... (the record of the last fill: state/record.h)
 *   end
 *
 * in that order (boot and daemon where known; an owner before the lines that name it, a pool
 * before its intent). Parsing is strict: anything else, and a text cut short, is -EBADMSG, with
 * the line and what is wrong with it said. */
#pragma once

#include <stdio.h>

#include "state/model.h"
#include "util/error.h"

#define STATE_TEXT_VERSION 1
/* No count the state keeps comes near it; sums of them cannot overflow */
#define STATE_COUNT_MAX (UINT64_C(1) << 48)

int state_format(FILE *f, const struct state *s);
int state_parse(const char *text, struct state *ret, struct error *e);
