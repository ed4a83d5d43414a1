/* SPDX-License-Identifier: MIT */
/* The commands after hpfilld's name, in one table (verbs.h). */
#include <string.h>

#include "service/bench.h"
#include "service/claim.h"
#include "service/give_back.h"
#include "service/reload_cmd.h"
#include "service/status.h"
#include "service/verbs.h"
#include "settings/settings.h"
#include "util/log.h"
#include "util/macro.h"

static int run_status(int argc, char *argv[], const struct verb_context *ctx) {
        return status_main(argc, argv, ctx->common);
}

static int run_bench(int argc, char *argv[], const struct verb_context *ctx) {
        return bench_main(argc, argv, ctx->common);
}

static int run_give_back(int argc, char *argv[], const struct verb_context *ctx) {
        return give_back_main(argc, argv, ctx->common);
}

static int run_claim(int argc, char *argv[], const struct verb_context *ctx) {
        return claim_main(argc, argv, ctx->load, ctx->userdata, ctx->common);
}

static int run_reload(int argc, char *argv[], const struct verb_context *ctx) {
        return reload_main(argc, argv, ctx->common);
}

static const struct verb verbs[] = {
        { "give-back", "", "give back what hpfilld filled and reserved (not in use)", COMMAND_GIVE_BACK, run_give_back },
        { "status", "[--json|--kubelet|--format=FORMAT]", "the pools, the last fill, the claims (any user)",
          COMMAND_STATUS, run_status },
        { "claim", "NAME --pool SIZE:AMOUNT...", "pages for a consumer, on top (see --help there)", COMMAND_FILL, run_claim },
        { "unclaim", "NAME", "give them back (free pages only)", COMMAND_FILL, run_claim },
        { "reload", "", "have the daemon read its configuration again and fill", COMMAND_STATUS, run_reload },
        { "bench", "[--size SIZE] [--json]", "time each method here (see hpfilld bench --help)", COMMAND_BENCH, run_bench },
};

const struct verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (strcmp(verbs[i].name, name) == 0)
                        return &verbs[i];
        return NULL;
}

const char *verb_closest(const char *name) {
        const char *names[ELEMENTSOF(verbs)];

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                names[i] = verbs[i].name;
        return name_closest(name, names, ELEMENTSOF(names));
}

void verbs_print_usage(FILE *f) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                char left[96];

                (void) snprintf(left, sizeof(left), "hpfilld %s%s%s", verbs[i].name, *verbs[i].usage ? " " : "",
                                verbs[i].usage);
                fprintf(f, "       %-44s %s\n", left, verbs[i].summary);
        }
}

int verb_run(const struct verb *v, int argc, char *argv[], const struct verb_context *ctx) {
        /* before the first file of a tree, which others may have written, is opened */
        int r = privilege_drop_for(v->command, NULL);

        if (r < 0)
                return log_error_errno(r, "Cannot drop capabilities: %m"), 1;
        return v->run(argc, argv, ctx);
}
