/* SPDX-License-Identifier: MIT */
/* Running the calling thread on the CPUs of a NUMA node. */
#pragma once

#include <stdbool.h>

#include "topology.h"

/* Pins the calling thread to the CPUs of t->nodes[idx]. With libnuma and @host (the topology
 * is this machine's), libnuma does it; otherwise the CPU list from the topology is used. */
int pin_thread_to_node(const struct topology *t, size_t idx, bool host);
