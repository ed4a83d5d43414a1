/* SPDX-License-Identifier: MIT */
/* The commands hpfilld takes after its name (status, claim, ...): one table, which the dispatch,
 * --help, the did-you-mean of a mistyped command and the capabilities each keeps all read. The
 * fills themselves (the daemon, --once, --check-config, --release) are the command line without
 * a verb (main.c). */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "service/common_options.h"
#include "service/daemon.h"
#include "service/privilege.h"

/* What a verb may need of the program: the configuration as the daemon reads it (claim reads
 * its [Fill] settings) */
struct verb_context {
        daemon_load_fn load;
        void *userdata;
        const struct common_options *common; /* --root, taken out of the command line already */
};

struct verb {
        const char *name;
        const char *usage;   /* what follows "hpfilld NAME" in --help */
        const char *summary; /* what it does, in a few words */
        /* the capabilities it keeps (privilege.h), dropped to before it reads its command line */
        enum command command;
        /* @argv[0] is the verb's name; returns the exit status */
        int (*run)(int argc, char *argv[], const struct verb_context *ctx);
};

/* The verb named @name, or NULL. */
const struct verb *verb_find(const char *name);
/* The verb's name closest to @name (a typo), or NULL. */
const char *verb_closest(const char *name);
/* One line per verb, for --help: "       hpfilld NAME USAGE   SUMMARY". */
void verbs_print_usage(FILE *f);
/* Runs verb @v with its capabilities only; returns the exit status. */
int verb_run(const struct verb *v, int argc, char *argv[], const struct verb_context *ctx);
