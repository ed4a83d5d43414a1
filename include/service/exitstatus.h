/* SPDX-License-Identifier: MIT */
/* What an exit status of hpfilld means: a name for scripts (JSON) and words for people. */
#pragma once

/* "ok", "failed", "usage", "short"; "unknown" for any other. */
const char *exit_status_name(int status);
/* What it means, in words, for `hpfilld status`. */
const char *exit_status_meaning(int status);
