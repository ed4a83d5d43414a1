/* SPDX-License-Identifier: MIT */
/* The configuration: [Fill] settings and [Pool] sections from INI files and the command line. */
#pragma once

#include <stdbool.h>

#include "settings/parse.h"

enum fill_mode {
        FILL_MODE_AUTO,
        FILL_MODE_SYSFS,
        FILL_MODE_FAULT,
};

struct config {
        enum fill_mode mode;
        unsigned threads_per_node; /* 0: auto */
        unsigned min_percent;
        bool shrink;
        bool drop_caches;     /* when pools fall short after compaction, drop the caches and retry */
        bool release_on_stop; /* daemon: give back the pages it added when stopped */
        bool create_mounts;   /* a reservation's page size without a hugetlbfs mount gets one (mount_create.h) */
        unsigned set;         /* bit per settings_table[] entry this layer set */
        char metrics_file[1024]; /* "": none; else an absolute path for node_exporter's textfile collector */
        unsigned metrics_interval_s; /* daemon: metrics_file follows the pools this often; 0: at fills only */
        /* init_on_alloc= on the kernel command line the configuration was read with (when
         * cmdline_read), so that the fill need not read it again: 1, 0, -1 for none */
        bool cmdline_read;
        signed char cmdline_ioa;
        struct pool_spec *pools;
        size_t n_pools;
        struct reserve_spec *reserves;
        size_t n_reserves;
        struct claim_spec *claims; /* [Claim]: added to the pools' targets */
        size_t n_claims;
        unsigned n_sections; /* section headers of the files applied, repeats and all */
        /* --pool or --reserve given: the command line's pools and reservations are the plan, the
         * files' [Pool] and [Reserve] sections (and the kernel command line's pools) are not used */
        bool plan_from_cli;
};

/* The daemon's MetricsFile= follows the pools this often by default (MetricsInterval=) */
#define CONFIG_METRICS_INTERVAL_S 15u

#define CONFIG_INIT { .mode = FILL_MODE_AUTO, .min_percent = 100, .metrics_interval_s = CONFIG_METRICS_INTERVAL_S }

/* Bounds of the configuration, each a clear error naming the file (and line) beyond it: sections
 * of one file, distinct [Pool] and [Reserve] sections of all files together (each is checked
 * against those before it), sections of all files together however many repeat a name (each
 * repeat is checked against those before it too), and drop-in files in the drop-in directories
 * together. */
#define CONFIG_SECTIONS_MAX 1024u
#define CONFIG_SECTIONS_ALL_MAX 4096u
#define CONFIG_DROPINS_MAX 256u

/* The default files below @root_path ("" for the host), in the order they apply. */
#define CONFIG_MAIN_FILE "etc/hpfilld.conf"
#define CONFIG_DROPIN_DIRS { "usr/lib/hpfilld.conf.d", "run/hpfilld.conf.d", "etc/hpfilld.conf.d" }

const char *fill_mode_to_string(enum fill_mode m);
/* MetricsFile=, --metrics-file: empty, or an absolute path of a file. */
int config_check_metrics_file(const char *path);
/* An absolute path shorter than @size, not ending in "/", without control characters ("" too):
 * 0 or -EINVAL. */
int config_check_path(const char *path, size_t size);
int fill_mode_from_string(const char *s, enum fill_mode *ret);

/* Applies one file's text on top of @c. @name is used in messages ("file:line: ..."). */
int config_parse_text(struct config *c, const char *name, const char *text, size_t len, struct error *e);
/* Reads and applies one file; the file must exist. */
int config_load_file(struct config *c, int dirfd, const char *path, const char *display, struct error *e);
/* Main file (if present) and drop-ins (*.conf) relative to @rootfd, in systemd's order. @root
 * is what messages show before each path: "" for the host's /, else the --root directory. */
int config_load_default(struct config *c, int rootfd, const char *root, struct error *e);
/* The service manager's credential CONFIG_CREDENTIAL in the directory @creds_dir
 * ($CREDENTIALS_DIRECTORY: LoadCredential=, SetCredential=), applied after the files; none
 * there (or no @creds_dir) is fine. */
#define CONFIG_CREDENTIAL "hpfilld.conf"
int config_load_credential(struct config *c, const char *creds_dir, struct error *e);

/* Adds a pool, replacing one of the same page size; takes the amount's memory. */
int config_put_pool(struct config *c, struct pool_spec *spec);
void config_drop_pools(struct config *c);
/* Adds a reservation, replacing one of the same name. */
int config_put_reserve(struct config *c, const struct reserve_spec *spec);
void config_drop_reserves(struct config *c);
/* Adds a claim; one of the same name and page size is -EEXIST. Takes the amount's memory. */
int config_put_claim(struct config *c, struct claim_spec *spec);
void config_drop_claims(struct config *c);
/* Drops the claims named @name; returns how many there were. */
size_t config_drop_claim(struct config *c, const char *name);
void config_done(struct config *c);
