/* SPDX-License-Identifier: MIT */
/* Each node's present memory, from /proc/zoneinfo: the "present" pages of its zones. Where
 * memory is initialised lazily (deferred struct page init), nodeN/meminfo's MemTotal counts the
 * pages initialised so far (managed), while a zone's present pages are all there from boot
 * (mm/mm_init.c); memory taken offline leaves them (offline_pages()). One file, read only where
 * the nodes' counts lag. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/topology.h"
#include "util/fileio.h"
#include "util/macro.h"

/* The node of a "Node N, zone NAME" line, or -1. */
static long zone_node(const char *line) {
        char *end;
        long node;

        if (strncmp(line, "Node ", 5) != 0)
                return -1;
        node = strtol(line + 5, &end, 10);
        return end != line + 5 && strncmp(end, ", zone", 6) == 0 && node >= 0 ? node : -1;
}

int topology_read_present(int rootfd, struct topology *t) {
        _cleanup_(freep) char *text = NULL;
        long page = sysconf(_SC_PAGESIZE), node = -1;
        size_t found = 0;
        char *line, *next;
        int r;

        r = read_full_file_at(rootfd, "proc/zoneinfo", 4 << 20, &text, NULL);
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n_nodes; i++)
                t->nodes[i].present = 0;
        for (line = text; line && *line; line = next) {
                unsigned long long pages;
                char *end, *p;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (zone_node(line) >= 0) {
                        node = zone_node(line);
                        continue;
                }
                /* "        present  5505024": the zone's, under its "Node" line */
                p = line + strspn(line, " ");
                if (node < 0 || p == line || strncmp(p, "present ", 8) != 0)
                        continue;
                errno = 0;
                pages = strtoull(p + 8, &end, 10);
                if (errno || end == p + 8 || *end)
                        return -EBADMSG;
                for (size_t i = 0; i < t->n_nodes; i++)
                        if (t->nodes[i].id == (unsigned) node) {
                                t->nodes[i].present += (uint64_t) pages * (uint64_t) page;
                                found++;
                        }
        }
        return found ? 0 : -ENOENT;
}
