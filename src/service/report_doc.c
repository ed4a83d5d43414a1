/* SPDX-License-Identifier: MIT */
/* The JSON documents of --once --json and --dry-run --json (doc/hpfilld-json.schema.json). */
#include <errno.h>

#include "service/exitstatus.h"
#include "service/report_doc.h"
#include "util/json.h"

int report_document(FILE *f, bool dry_run, int exit_status, const char *body, const struct job *j) {
        bool empty = !body || !*body;

        fprintf(f, "{\"kind\": \"%s\", \"exit_status\": %d, \"exit_meaning\": \"%s\", ", dry_run ? "plan" : "report",
                exit_status, exit_status_name(exit_status));
        if (dry_run)
                fputs(empty ? "\"plan\": null, \"kernel\": null" : body, f);
        else {
                fputs("\"elapsed_seconds\": ", f);
                if (j->record && j->record->elapsed_ns)
                        fprintf(f, "%.6f", (double) j->record->elapsed_ns / 1e9);
                else
                        fputs("null", f);
                fprintf(f, ", %s, \"next_boot\": ",
                        empty ? "\"pools\": [], \"kernel\": null, \"reservations\": []" : body);
                if (*j->advice_cmdline) {
                        fputs("{\"cmdline\": ", f);
                        json_string(f, j->advice_cmdline);
                        fputs(", \"initramfs\": ", f);
                        json_string(f, j->advice_initramfs);
                        fputs("}", f);
                } else
                        fputs("null", f);
        }
        fputs("}\n", f);
        errno = 0;
        if (fflush(f) != 0 || ferror(f))
                return -(errno ?: EIO);
        return 0;
}
