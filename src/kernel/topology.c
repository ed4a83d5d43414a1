/* SPDX-License-Identifier: MIT */
/* The machine as sysfs shows it: NUMA nodes, their CPUs and memory, huge page sizes. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/fileio.h"
#include "util/idlist.h"
#include "util/macro.h"
#include "util/number.h"
#include "kernel/topology.h"
#include "util/shown.h"

#define NODE_DIR "sys/devices/system/node"
#define HUGEPAGES_DIR "sys/kernel/mm/hugepages"

/* A one-line list file read whole (a cpulist of thousands of CPUs is longer than a page). */
static int read_list_at(int rootfd, const char *path, char **ret, struct error *e) {
        int r = read_text_line_at(rootfd, path, FILEIO_LINE_MAX, ret);

        if (r == -EFBIG)
                return error_set(e, r, "%s/%s: longer than %d bytes", shown_root(), path, FILEIO_LINE_MAX);
        if (r < 0 && r != -ENOENT)
                return error_set(e, r, "%s/%s: cannot read: %s", shown_root(), path, strerror(-r));
        return r;
}

static int read_idlist_at(int rootfd, const char *path, unsigned **ret, size_t *ret_n, struct error *e) {
        _cleanup_(freep) char *buf = NULL;
        int r;

        r = read_list_at(rootfd, path, &buf, e);
        if (r == -ENOENT)
                return error_set(e, r, "%s/%s: cannot read: %s", shown_root(), path, strerror(-r));
        if (r < 0)
                return r;
        r = idlist_parse(buf, ret, ret_n);
        if (r < 0)
                return error_set(e, r, "%s/%s: '%s' is not an id list", shown_root(), path, buf);
        return 0;
}

/* Finds "@key: <n> kB" in a meminfo-style file and returns bytes. */
static int read_meminfo_field(int rootfd, const char *path, const char *key, uint64_t *ret, struct error *e) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = read_full_file_at(rootfd, path, 64 * 1024, &text, NULL);
        if (r < 0)
                return error_set(e, r, "%s/%s: cannot read: %s", shown_root(), path, strerror(-r));
        for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                char *p = strstr(line, key);
                char *nl = strchr(line, '\n');
                uint64_t kb = 0;

                if (!p || (nl && p > nl) || p[strlen(key)] != ':')
                        continue;
                p += strlen(key) + 1;
                p += strspn(p, " ");
                if (*p < '0' || *p > '9')
                        break;
                for (; *p >= '0' && *p <= '9'; p++) {
                        if (kb > UINT64_MAX / 10 / 1024)
                                return error_set(e, -EBADMSG, "%s/%s: %s is out of range", shown_root(), path, key);
                        kb = kb * 10 + (uint64_t) (*p - '0');
                }
                if (strncmp(p, " kB", 3) != 0)
                        break;
                *ret = kb * 1024;
                return 0;
        }
        return error_set(e, -EBADMSG, "%s/%s: no valid '%s:' line", shown_root(), path, key);
}

static int read_distances(int rootfd, struct topology *t, struct topo_node *n, struct error *e) {
        _cleanup_(freep) char *buf = NULL;
        char path[128], *p;
        int r;

        (void) snprintf(path, sizeof(path), NODE_DIR "/node%u/distance", n->id);
        r = read_list_at(rootfd, path, &buf, e);
        if (r == -ENOENT)
                return 0; /* optional: without it the nearest node is the lowest id with CPUs */
        if (r < 0)
                return r;
        p = buf;
        n->distance = calloc(t->n_nodes, sizeof(*n->distance));
        if (!n->distance)
                return -ENOMEM;
        /* One entry per online node, in the order of the online list. */
        for (size_t i = 0; i < t->n_nodes; i++) {
                char *end;
                unsigned long d;

                p += strspn(p, " ");
                errno = 0;
                d = strtoul(p, &end, 10);
                if (end == p || errno || d > 255)
                        return error_set(e, -EBADMSG, "%s/%s: '%s' is not a distance list", shown_root(), path, buf);
                n->distance[i] = (unsigned) d;
                p = end;
        }
        if (*p)
                return error_set(e, -EBADMSG, "%s/%s: '%s' has more entries than online nodes", shown_root(), path, buf);
        return 0;
}

static int read_page_sizes(int rootfd, struct topology *t, struct error *e) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd;

        fd = open_beneath(rootfd, HUGEPAGES_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0) {
                if (fd == -ENOENT)
                        return 0; /* kernel without hugetlb: no sizes */
                return error_set(e, fd, "%s/" HUGEPAGES_DIR ": cannot open: %s", shown_root(), strerror(-fd));
        }
        d = fdopendir(fd);
        if (!d) {
                closep(&fd);
                return -errno;
        }
        while ((errno = 0, de = readdir(d))) {
                char num[32];
                uint64_t kb, *sizes;
                size_t len;

                if (strncmp(de->d_name, "hugepages-", 10) != 0)
                        continue;
                len = strlen(de->d_name + 10);
                if (len < 3 || len - 2 >= sizeof(num) || strcmp(de->d_name + 10 + len - 2, "kB") != 0)
                        continue;
                memcpy(num, de->d_name + 10, len - 2);
                num[len - 2] = 0;
                /* hugetlb_sysfs_add_hstate() names them "hugepages-%lukB": no leading zero, so
                 * no two names for one size */
                if (num[0] == '0' || parse_u64(num, &kb) < 0 || kb == 0 || kb > UINT64_MAX / 1024)
                        continue;
                sizes = realloc(t->page_sizes, (t->n_page_sizes + 1) * sizeof(*sizes));
                if (!sizes)
                        return -ENOMEM;
                t->page_sizes = sizes;
                /* keep ascending */
                size_t i = t->n_page_sizes++;
                while (i > 0 && sizes[i - 1] > kb * 1024) {
                        sizes[i] = sizes[i - 1];
                        i--;
                }
                sizes[i] = kb * 1024;
        }
        return errno ? -errno : 0;
}

static int read_flat(int rootfd, struct topology *t, struct error *e) {
        struct topo_node *n;
        int r;

        t->numa = false;
        t->nodes = n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        t->n_nodes = 1;
        n->has_memory = true;
        r = read_meminfo_field(rootfd, "proc/meminfo", "MemTotal", &n->mem_total, e);
        if (r < 0)
                return r;
        return read_idlist_at(rootfd, "sys/devices/system/cpu/online", &n->cpus, &n->n_cpus, e);
}

/* Where NODE_DIR/online could not be read (@r): 1 where there is no NODE_DIR (a kernel without
 * NUMA: read_flat()), else what is wrong, the directory's error before its file's. Asked only
 * then: on every NUMA kernel the file is there, and a run opens one file fewer. */
static int no_node_dir(int rootfd, int r, struct error *e) {
        _cleanup_(closep) int fd = open_beneath(rootfd, NODE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);

        if (fd == -ENOENT) {
                if (e)
                        e->msg[0] = 0; /* not an error: no message of it stays */
                return 1;
        }
        if (fd < 0)
                return error_set(e, fd, "%s/" NODE_DIR ": cannot open: %s", shown_root(), strerror(-fd));
        return r;
}

static int read_numa(int rootfd, struct topology *t, struct error *e) {
        _cleanup_(freep) unsigned *online = NULL, *memory = NULL;
        size_t n_online, n_memory;
        char path[128], key[32];
        int r;

        t->numa = true;
        r = read_idlist_at(rootfd, NODE_DIR "/online", &online, &n_online, e);
        if (r < 0)
                return no_node_dir(rootfd, r, e);
        if (n_online == 0)
                return error_set(e, -EBADMSG, "%s/" NODE_DIR "/online: no online node", shown_root());
        r = read_idlist_at(rootfd, NODE_DIR "/has_memory", &memory, &n_memory, e);
        if (r < 0)
                return r;

        t->nodes = calloc(n_online, sizeof(*t->nodes));
        if (!t->nodes)
                return -ENOMEM;
        t->n_nodes = n_online;
        for (size_t i = 0; i < n_online; i++) {
                struct topo_node *n = &t->nodes[i];

                n->id = online[i];
                for (size_t j = 0; j < n_memory; j++)
                        n->has_memory |= memory[j] == n->id;
                (void) snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", n->id);
                r = read_idlist_at(rootfd, path, &n->cpus, &n->n_cpus, e);
                if (r < 0)
                        return r;
                (void) snprintf(path, sizeof(path), NODE_DIR "/node%u/meminfo", n->id);
                (void) snprintf(key, sizeof(key), "Node %u MemTotal", n->id);
                r = read_meminfo_field(rootfd, path, key, &n->mem_total, e);
                if (r < 0)
                        return r;
        }
        /* the machine's count beside the nodes', to see when theirs lag; optional */
        if (read_meminfo_field(rootfd, "proc/meminfo", "MemTotal", &t->machine_mem, NULL) < 0)
                t->machine_mem = 0;
        /* where they lag, which nodes do: their zones' present pages; unknown (0) where
         * /proc/zoneinfo cannot say. With one node of memory, what no node counts is its own
         * (topology_node_share()): no question to ask of a file the kernel makes at each read,
         * under each zone's lock */
        if (topology_uncounted(t) > 0 && topology_memory_nodes(t) > 1 && topology_read_present(rootfd, t) < 0)
                for (size_t i = 0; i < n_online; i++)
                        t->nodes[i].present = 0;
        /* Distances only matter to place the work of a node without CPUs. */
        for (size_t i = 0; i < n_online; i++) {
                if (t->nodes[i].n_cpus > 0)
                        continue;
                r = read_distances(rootfd, t, &t->nodes[i], e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int topology_read(int rootfd, struct topology *ret, struct error *e) {
        struct topology t = {};
        int r;

        r = read_numa(rootfd, &t, e);
        if (r > 0)
                r = read_flat(rootfd, &t, e);
        if (r >= 0)
                r = read_page_sizes(rootfd, &t, e);
        /* for the planner's memory budget; without it the budget is the rest of the headroom */
        if (r >= 0 && read_u64_at(rootfd, "proc/sys/vm/min_free_kbytes", &t.min_free_kbytes) < 0)
                t.min_free_kbytes = 0;
        if (r < 0) {
                topology_done(&t);
                return r;
        }
        r = topology_counters_init(&t, rootfd);
        if (r < 0) {
                topology_done(&t);
                return r;
        }
        *ret = t;
        return 0;
}

size_t topology_counter_slots(const struct topology *t) {
        /* and each page size's resv_hugepages */
        return t->n_page_sizes * t->n_nodes * TOPOLOGY_COUNTERS + t->n_page_sizes;
}

int topology_counters_init(struct topology *t, int rootfd) {
        size_t n = topology_counter_slots(t);

        t->counter_fds = malloc((n + 1) * sizeof(*t->counter_fds));
        if (!t->counter_fds)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                atomic_init(&t->counter_fds[i], -1);
        t->counters_rootfd = rootfd;
        return 0;
}

void topology_done(struct topology *t) {
        for (size_t i = 0; t->counter_fds && i < topology_counter_slots(t); i++)
                if (t->counter_fds[i] >= 0)
                        (void) close(t->counter_fds[i]);
        free((void *) t->counter_fds);
        for (size_t i = 0; i < t->n_nodes; i++) {
                free(t->nodes[i].cpus);
                free(t->nodes[i].distance);
        }
        free(t->nodes);
        free(t->page_sizes);
        *t = (struct topology) {};
}

int topology_node_index(const struct topology *t, unsigned id) {
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].id == id)
                        return (int) i;
        return -ENOENT;
}

bool topology_has_page_size(const struct topology *t, uint64_t page_size) {
        for (size_t i = 0; i < t->n_page_sizes; i++)
                if (t->page_sizes[i] == page_size)
                        return true;
        return false;
}

int topology_cpu_node_for(const struct topology *t, size_t idx) {
        const struct topo_node *n = &t->nodes[idx];
        int best = -ENOENT;

        if (n->n_cpus > 0)
                return (int) idx;
        for (size_t i = 0; i < t->n_nodes; i++) {
                if (t->nodes[i].n_cpus == 0)
                        continue;
                if (best < 0 || (n->distance && n->distance[i] < n->distance[best]))
                        best = (int) i;
        }
        return best;
}

size_t topology_memory_nodes(const struct topology *t) {
        size_t n = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                n += t->nodes[i].has_memory;
        return n;
}

uint64_t topology_nodes_mem(const struct topology *t) {
        uint64_t all = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].has_memory)
                        all += t->nodes[i].mem_total;
        return all;
}

uint64_t topology_uncounted(const struct topology *t) {
        uint64_t all = topology_nodes_mem(t);

        if (t->machine_mem <= all || t->machine_mem - all <= all / 100)
                return 0;
        return t->machine_mem - all;
}

uint64_t topology_node_share(const struct topology *t, size_t idx) {
        const struct topo_node *n = &t->nodes[idx];
        uint64_t all = topology_nodes_mem(t), uncounted = topology_uncounted(t);

        if (all == 0 || !n->has_memory || uncounted == 0)
                return n->mem_total;
        if (n->present)
                return MAX(n->mem_total, n->present);
        return n->mem_total + (uint64_t) ((unsigned __int128) uncounted * n->mem_total / all);
}

uint64_t topology_node_limit(const struct topology *t, size_t idx) {
        const struct topo_node *n = &t->nodes[idx];
        uint64_t uncounted = n->has_memory ? topology_uncounted(t) : 0;

        if (uncounted == 0)
                return n->mem_total;
        /* a node that lags nothing holds no more than it counts */
        return n->present ? MAX(n->mem_total, n->present) : n->mem_total + uncounted;
}
