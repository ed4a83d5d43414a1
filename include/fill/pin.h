/* SPDX-License-Identifier: MIT */
/* Running the calling thread on the CPUs of a NUMA node. */
#pragma once

#include <stdbool.h>

#include "kernel/topology.h"

/* Whether pinning can change anything: more than one node has CPUs. */
bool pin_is_useful(const struct topology *t);
/* Pins the calling thread to the CPUs of t->nodes[idx]. */
int pin_thread_to_node(const struct topology *t, size_t idx);
