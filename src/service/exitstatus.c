/* SPDX-License-Identifier: MIT */
/* What an exit status of hpfilld means (hpfilld(8), EXIT STATUS). */
#include "service/exitstatus.h"
#include "service/job.h"

const char *exit_status_name(int status) {
        switch (status) {
        case EXIT_OK:
                return "ok";
        case EXIT_FAIL:
                return "failed";
        case EXIT_USAGE:
                return "usage";
        case EXIT_SHORT:
                return "short";
        }
        return "unknown";
}

const char *exit_status_meaning(int status) {
        switch (status) {
        case EXIT_OK:
                return "every target met";
        case EXIT_FAIL:
                return "the fill failed or was interrupted; pages it added stay, settings it raised were put back";
        case EXIT_USAGE:
                return "bad usage or configuration; nothing was changed";
        case EXIT_SHORT:
                return "a pool came back short of its minimum (MinPercent=, --min)";
        }
        return "not a status hpfilld uses";
}
