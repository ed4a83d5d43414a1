/* SPDX-License-Identifier: MIT */
/* Test hooks: a rendezvous with a test on a FIFO (test builds call it; see tests/root/lib.sh). */
#pragma once

/* Writes "paused" to @fifo, then waits until the test writes to it and closes it: the test changes
 * the host in between. Does nothing where @fifo cannot be opened. */
void test_rendezvous(const char *fifo);
