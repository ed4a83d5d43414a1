/* SPDX-License-Identifier: MIT */
/* hpfilld status: the pools per size and node, and the last fill; for any user. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fill/journal.h"
#include "util/shown.h"
#include "util/fileio.h"
#include "service/lastfill.h"
#include "service/metrics_out.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "kernel/pool.h"
#include "service/status.h"
#include "kernel/topology.h"

static void print_pools(int rootfd, const struct topology *t, bool json) {
        if (json)
                printf("{\"pools\": [");
        else
                printf("%-5s %-7s %10s %10s %10s\n", "SIZE", "NODE", "PAGES", "FREE", "SURPLUS");
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t ps = t->page_sizes[s];
                char name[32];

                if (json)
                        printf("%s{\"page_size\": %" PRIu64 ", \"reserved\": %" PRIu64 ", \"overcommit\": %" PRIu64
                               ", \"nodes\": [",
                               s ? ", " : "", ps, pool_global_counter(rootfd, ps, "resv_hugepages"),
                               pool_global_counter(rootfd, ps, "nr_overcommit_hugepages"));
                for (size_t i = 0; i < t->n_nodes; i++) {
                        struct pool_counts c = {};
                        char node[16];

                        (void) pool_read_counts(rootfd, t, t->nodes[i].id, ps, &c);
                        (void) snprintf(node, sizeof(node), "node%u", t->nodes[i].id);
                        if (json)
                                printf("%s{\"node\": %u, \"pages\": %" PRIu64 ", \"free\": %" PRIu64
                                       ", \"surplus\": %" PRIu64 "}",
                                       i ? ", " : "", t->nodes[i].id, c.nr, c.free, c.surplus);
                        else
                                printf("%-5s %-7s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
                                       page_size_name(ps, name), node, c.nr, c.free, c.surplus);
                }
                if (json)
                        printf("]}");
                else
                        printf("%-5s %-7s reserved %" PRIu64 ", overcommit %" PRIu64 "\n", page_size_name(ps, name),
                               "all", pool_global_counter(rootfd, ps, "resv_hugepages"),
                               pool_global_counter(rootfd, ps, "nr_overcommit_hugepages"));
        }
        if (json)
                printf("]");
}

/* The record is ours: {"time": T, "exit_status": N, "summary": "..."} */
static void print_last_fill(const char *json) {
        long long when;
        int status, n = 0;
        char date[64] = "?";
        struct tm tm;
        time_t t;

        if (!lastfill_valid(json) ||
            sscanf(json, "{\"time\": %lld, \"exit_status\": %d, \"summary\": \"%n", &when, &status, &n) != 2 || !n) {
                printf("Last fill: unreadable record (%s/%s is empty or partial)\n", shown_root(), LASTFILL_FILE);
                return;
        }
        t = (time_t) when;
        if (localtime_r(&t, &tm))
                (void) strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
        printf("Last fill: %s, exit status %d\n", date, status);
        /* the summary's pools, one per line; JSON escapes undone for \" and \\ */
        fputs("  ", stdout);
        for (const char *p = json + n; *p && !(p[0] == '"' && (p[1] == '}' || p[1] == ',')); p++) {
                if (p[0] == '\\' && p[1])
                        p++;
                else if (p[0] == ';' && p[1] == ' ') {
                        fputs("\n ", stdout);
                        continue;
                }
                putchar(*p);
        }
        putchar('\n');
        {
                const char *adv = strstr(json, "\"next_boot\": \"");

                if (adv && adv[strlen("\"next_boot\": \"")] != '"') {
                        fputs("Next boot, for the pools that came back short:\n  ", stdout);
                        for (const char *p = adv + strlen("\"next_boot\": \""); *p && *p != '"'; p++)
                                putchar(*p);
                        putchar('\n');
                }
        }
}

/* A bad command line: where to look; exit status 2. */
static int usage_hint(void) {
        log_error("Try 'hpfilld status --help' for more information.");
        return 2;
}

static void print_journal(const struct journal_outcome *o, int n, bool json) {
        char line[512], escaped[1024];

        if (json)
                printf(", \"journal\": [");
        for (int i = 0; i < n; i++) {
                journal_describe(&o[i], line, sizeof(line));
                json_escape(escaped, sizeof(escaped), line);
                if (json)
                        printf("%s\"%s\"", i ? ", " : "", escaped);
                else
                        printf("%s\n", line);
        }
        if (json)
                printf("]");
}

int status_main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "json", no_argument, NULL, 'j' },
                { "format", required_argument, NULL, 'F' },
                { "root", required_argument, NULL, 'R' },
                {}
        };
        _cleanup_(closep) int rootfd = -1;
        _cleanup_(freep) char *last = NULL;
        struct topology t = {};
        struct error e = {};
        struct journal_outcome journal[JOURNAL_MAX];
        int n_journal;
        const char *root = "/";
        bool json = false, prometheus = false;
        int c, r;

        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        printf("Usage: hpfilld status [--json|--format=text|json|prometheus] [--root DIR]\n"
                               "Show the huge page pools per size and node, and the last fill.\n");
                        return 0;
                case 'j':
                        json = true;
                        break;
                case 'F':
                        json = strcmp(optarg, "json") == 0;
                        prometheus = strcmp(optarg, "prometheus") == 0;
                        if (!json && !prometheus && strcmp(optarg, "text") != 0) {
                                log_error("--format '%s': expected text, json or prometheus", optarg);
                                return usage_hint();
                        }
                        break;
                case 'R':
                        root = optarg;
                        shown_root_set(root);
                        break;
                default:
                        log_error("unknown option or missing value '%s'", argv[optind - 1]);
                        return usage_hint();
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return usage_hint();
        }
        rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
                log_error_errno(errno, "--root '%s': %m", root);
                return 2;
        }
        if (prometheus) {
                r = metrics_print(rootfd, stdout);
                if (r < 0)
                        log_error_errno(r, "Cannot read the pools for the metrics: %m");
                return r < 0 ? 1 : 0;
        }
        r = topology_read(rootfd, &t, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                return 1;
        }
        /* a fill that died left a setting raised: put it back first, then show the pools */
        n_journal = journal_recover(rootfd, journal, ELEMENTSOF(journal));
        if (n_journal < 0)
                log_warning_errno(n_journal, "Cannot read the journal in /run/hpfilld: %m, ignoring");
        print_pools(rootfd, &t, json);
        print_journal(journal, n_journal, json);
        r = read_full_file_at(rootfd, LASTFILL_FILE, 64 * 1024, &last, NULL);
        if (json)
                printf(", \"last_fill\": %s}\n", r >= 0 && lastfill_valid(last) ? strtok(last, "\n") : "null");
        else if (r >= 0)
                print_last_fill(last);
        else
                printf("Last fill: none recorded\n");
        topology_done(&t);
        return 0;
}
