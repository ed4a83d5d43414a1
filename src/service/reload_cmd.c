/* SPDX-License-Identifier: MIT */
/* `hpfilld reload` (reload_cmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "state/rundir.h"
#include "service/control.h"
#include "service/job.h"
#include "service/privilege.h"
#include "service/reload_cmd.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

/* 1 to go on, 0 after --help, -EINVAL for bad usage. */
static int parse_args(int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int c;

        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        printf("Usage: hpfilld reload [--root DIR]\n"
                               "Ask the running daemon to read its configuration again and fill, and wait\n"
                               "for its answer: returns once the new plan's pages are there (the unit's\n"
                               "ExecReload= under a systemd older than 253; SIGHUP does the same, but\n"
                               "returns at once).\n\n"
                               "Exit status: the fill's (0 filled, 3 short), 1 failure or no daemon runs,\n"
                               "2 bad usage or a configuration refused (the one in use stays). See hpfilld(8).\n");
                        return 0;
                default:
                        log_error("unknown option or missing value '%s'", argv[optind - 1]);
                        return -EINVAL;
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

int reload_main(int argc, char *argv[], const struct common_options *common) {
        _cleanup_(closep) int rootfd = -1, sock = -1;
        char answer[CONTROL_ANSWER_MAX];
        int r, status;

        r = parse_args(argc, argv);
        if (r < 0)
                log_error("Try 'hpfilld reload --help' for more information.");
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        rootfd = common_root_open(common);
        if (rootfd < 0)
                return EXIT_USAGE;
        sock = control_connect(rootfd);
        if (sock == -ENOENT)
                return log_error("No hpfilld daemon listens on %s/" RUNDIR "/" CONTROL_NAME ": nothing to reload",
                                 shown_root()), EXIT_FAIL;
        if (sock < 0)
                return log_error_errno(sock, "Cannot reach the daemon on %s/" RUNDIR "/" CONTROL_NAME ": %m",
                                       shown_root()), EXIT_FAIL;
        r = control_request(sock, CONTROL_APPLY, &status, answer, sizeof(answer));
        if (r < 0)
                return log_error_errno(r, "The daemon did not answer the reload: %m"), EXIT_FAIL;
        if (*answer)
                log_lines(status == EXIT_OK ? LOG_INFO : LOG_ERR, answer);
        return status;
}
