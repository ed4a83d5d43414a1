/* SPDX-License-Identifier: MIT */
/* The JSON documents of --once --json and --dry-run --json (doc/hpfilld-json.schema.json). */
#include "service/exitstatus.h"
#include "service/report_doc.h"
#include "util/json.h"

static void next_boot(struct json_writer *w, const struct job_result *res) {
        json_key(w, "next_boot");
        if (!res || !*res->advice_cmdline) {
                json_null(w);
                return;
        }
        json_begin_object(w);
        json_key(w, "cmdline"), json_string(w, res->advice_cmdline);
        json_key(w, "initramfs"), json_string(w, res->advice_initramfs);
        json_end_object(w);
}

int report_document(FILE *f, bool dry_run, bool plan_from_cli, int exit_status, const char *body,
                    const struct job_result *res) {
        bool empty = !body || !*body;
        struct json_writer w;

        json_writer_init(&w, f);
        json_begin_object(&w);
        json_key(&w, "kind"), json_string(&w, dry_run ? "plan" : "report");
        json_key(&w, "exit_status"), json_i64(&w, exit_status);
        json_key(&w, "exit_meaning"), json_string(&w, exit_status_name(exit_status));
        json_key(&w, "plan_source"), json_string(&w, plan_from_cli ? "command line" : "configuration");
        if (dry_run) {
                if (empty) {
                        json_key(&w, "plan"), json_null(&w);
                        json_key(&w, "kernel"), json_null(&w);
                }
                json_members(&w, body);
        } else {
                json_key(&w, "elapsed_seconds");
                if (res && res->elapsed_ns)
                        json_double(&w, (double) res->elapsed_ns / 1e9, 6);
                else
                        json_null(&w);
                if (empty) {
                        json_key(&w, "pools"), json_begin_array(&w), json_end_array(&w);
                        json_key(&w, "kernel"), json_null(&w);
                        json_key(&w, "reservations"), json_begin_array(&w), json_end_array(&w);
                }
                json_members(&w, body);
                next_boot(&w, res);
        }
        json_end_object(&w);
        return json_writer_finish(&w);
}
