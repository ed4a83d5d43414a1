/* SPDX-License-Identifier: MIT */
/* The options every command takes alike, parsed once (common_options.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "service/common_options.h"
#include "util/log.h"
#include "util/shown.h"

int common_options_take(int *argc, char *argv[], struct common_options *ret) {
        int k = 1;

        ret->root = "/";
        for (int i = 1; i < *argc; i++) {
                const char *dir = NULL;

                if (strcmp(argv[i], "--") == 0) {
                        while (i < *argc)
                                argv[k++] = argv[i++];
                        break;
                }
                if (strncmp(argv[i], "--root=", 7) == 0)
                        dir = argv[i] + 7;
                else if (strcmp(argv[i], "--root") == 0) {
                        if (i + 1 >= *argc)
                                return log_error("option '--root' needs a value"), -EINVAL;
                        dir = argv[++i];
                }
                if (!dir) {
                        argv[k++] = argv[i];
                        continue;
                }
                if (!*dir)
                        return log_error("option '--root' needs a value"), -EINVAL;
                if (strlen(dir) >= PATH_MAX)
                        return log_error("--root '%.64s...': too long", dir), -EINVAL;
                ret->root = dir;
        }
        argv[k] = NULL;
        *argc = k;
        shown_root_set(ret->root);
        return 0;
}

int common_root_open(const struct common_options *c) {
        int fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return log_error_errno(errno, "--root '%s': %m", c->root);
        return fd;
}
