/* SPDX-License-Identifier: MIT */
/* Processes as /proc shows them: whether a pid still names the process that recorded it, and
 * the nodes this one may allocate memory on. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernel/proc.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/idlist.h"
#include "util/macro.h"
#include "util/number.h"

int proc_start_time(int rootfd, pid_t pid, uint64_t *ret) {
        _cleanup_(freep) char *stat = NULL;
        char path[64], *p;
        int r;

        if (pid <= 0)
                return -ESRCH;
        (void) snprintf(path, sizeof(path), "proc/%d/stat", (int) pid);
        r = read_full_file_at(rootfd, path, 4096, &stat, NULL);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        /* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')', so from its last ')' */
        p = strrchr(stat, ')');
        if (!p)
                return -EBADMSG;
        /* field 3 (state) follows; starttime is field 22, 19 fields further */
        p++;
        for (int field = 3; field < 22; field++) {
                p = strchr(p + 1, ' ');
                if (!p)
                        return -EBADMSG;
        }
        if (sscanf(p, " %" SCNu64, ret) != 1)
                return -EBADMSG;
        return 0;
}

bool proc_is(int rootfd, pid_t pid, uint64_t start_time) {
        uint64_t t;

        return proc_start_time(rootfd, pid, &t) >= 0 && t == start_time;
}

int proc_mems_allowed(int rootfd, unsigned **ret, size_t *ret_n) {
        _cleanup_(freep) char *status = NULL;
        const char *key = "\nMems_allowed_list:\t";
        char *p, *end;
        int r;

        /* a few KiB: its longest lines are masks of the configured CPUs and nodes */
        r = read_full_file_beneath(rootfd, "proc/self/status", BENEATH_FOLLOW, 1 << 20, &status, NULL);
        if (r < 0)
                return r;
        p = strstr(status, key);
        if (!p)
                return -ENOENT; /* a kernel without cpusets: every node */
        p += strlen(key);
        end = strchr(p, '\n');
        if (end)
                *end = 0;
        return idlist_parse(p, ret, ret_n);
}
