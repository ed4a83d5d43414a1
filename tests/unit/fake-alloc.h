/* SPDX-License-Identifier: MIT */
/* calloc() that fails on purpose, as out of memory: the fill's setup under an allocation that
 * is not had. Test-only, linked with -Wl,--wrap=calloc (tests/meson.build): the daemon's own
 * calls land here. */
#pragma once

/* The calls still to succeed before one fails with ENOMEM (then none again); below zero (the
 * start): none fails. Left at or above zero after a run: it made fewer calls. */
extern int fake_calloc_fail_at;
