/* SPDX-License-Identifier: MIT */
/* Fuzz target: the state (RUNDIR/state) as `hpfilld status` and `status --json` read it (the
 * input is the state file: owners, pools, intents, settings, reservations, the last fill's
 * record), output thrown away. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "state/rundir.h"
#include "state/store.h"
#include "service/status.h"
#include "fuzz.h"
#include "fuzz-tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static int quiet = -1;
        char root[64], *text[] = { "status", NULL }, *json[] = { "status", "--json", NULL };
        struct common_options common = { .root = root };

        if (size > 64 * 1024)
                return 0;
        if (quiet < 0) {
                quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (quiet < 0 || dup2(quiet, STDOUT_FILENO) < 0)
                        return 0;
        }
        (void) snprintf(root, sizeof(root), "%s", fuzz_tree_path());
        fuzz_put(RUNDIR "/" STATE_FILE, data, size);
        (void) status_main(1, text, &common);
        (void) status_main(2, json, &common);
        (void) fflush(stdout);
        return 0;
}
