/* SPDX-License-Identifier: MIT */
/* The table of [Fill] settings and the parsers of their values. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "settings/settings.h"
#include "util/trusted_dir.h"

static int parse_mode(const char *value, void *field) {
        return fill_mode_from_string(value, field);
}

static int parse_threads(const char *value, void *field) {
        unsigned *threads = field;

        if (strcmp(value, "auto") == 0) {
                *threads = 0;
                return 0;
        }
        return parse_uint_range(value, 1, 1024, threads);
}

/* "90" or "90%": one spelling of percentages everywhere, as amounts take them. */
static int parse_percent(const char *value, void *field) {
        size_t len = strlen(value);
        char digits[8];

        if (len > 0 && value[len - 1] == '%')
                len--;
        if (len == 0 || len >= sizeof(digits))
                return -EINVAL;
        memcpy(digits, value, len);
        digits[len] = 0;
        return parse_uint_range(digits, 1, 100, field);
}

/* seconds, 0 (off) to a day */
static int parse_interval(const char *value, void *field) {
        return parse_uint_range(value, 0, 86400, field);
}

static int parse_yes_no(const char *value, void *field) {
        return parse_bool(value, field);
}

int config_check_path(const char *path, size_t size) {
        size_t n = strlen(path);

        if (n == 0)
                return 0;
        /* a file in a directory: "/", "/dir/" and control characters are not */
        if (path[0] != '/' || path[n - 1] == '/' || n >= size)
                return -EINVAL;
        for (const char *p = path; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return -EINVAL;
        return 0;
}

int config_check_metrics_file(const char *path) {
        return config_check_path(path, sizeof(((struct config *) NULL)->metrics_file));
}

static int parse_metrics_file(const char *value, void *field) {
        char *path = field;
        int r = config_check_metrics_file(value);

        if (r < 0)
                return r;
        memcpy(path, value, strlen(value) + 1);
        return 0;
}

/* The directory the file goes to, checked before anything is done: a fill that would end with
 * a file it refuses to write is not started (metrics_write_atomic() checks again when it
 * writes). One that is not there is refused once the value that counts is known
 * (metrics_file_check()). */
static int check_metrics_file(const char *value, struct error *e) {
        return *value ? trusted_dir_check(value, e) : 0;
}

#define FIELD(f) .offset = offsetof(struct config, f), .size = sizeof(((struct config *) NULL)->f)

const struct setting settings_table[] = {
        { "Mode", "mode", "mode", 'm', false, "auto, sysfs or fault", parse_mode, FIELD(mode) },
        { "ThreadsPerNode", "threads", "threads-per-node", 't', false, "auto or 1-1024", parse_threads,
          FIELD(threads_per_node) },
        { "MinPercent", "min", "min", 0, false, "a percentage from 1 to 100", parse_percent, FIELD(min_percent) },
        { "Shrink", "shrink", "shrink", 0, true, "yes or no", parse_yes_no, FIELD(shrink) },
        { "DropCaches", "drop_caches", "drop-caches", 0, true, "yes or no", parse_yes_no, FIELD(drop_caches) },
        { "ReleaseOnStop", NULL, NULL, 0, false, "yes or no", parse_yes_no, FIELD(release_on_stop) },
        { "CreateMounts", NULL, "create-mounts", 0, true, "yes or no", parse_yes_no, FIELD(create_mounts) },
        { "MetricsFile", NULL, "metrics-file", 0, false, "empty or an absolute file path", parse_metrics_file,
          FIELD(metrics_file), .check = check_metrics_file },
        { "MetricsInterval", NULL, NULL, 0, false, "seconds from 0 to 86400", parse_interval,
          FIELD(metrics_interval_s) },
};
const size_t settings_count = ELEMENTSOF(settings_table);

_Static_assert(ELEMENTSOF(settings_table) <= 8 * sizeof(((struct config *) NULL)->set),
               "struct config's set mask is too small");

const struct setting *setting_by_key(const char *key) {
        for (size_t i = 0; i < settings_count; i++)
                if (strcmp(settings_table[i].key, key) == 0)
                        return &settings_table[i];
        return NULL;
}

const struct setting *setting_by_word(const char *word) {
        for (size_t i = 0; i < settings_count; i++)
                if (settings_table[i].word && strcmp(settings_table[i].word, word) == 0)
                        return &settings_table[i];
        return NULL;
}

int setting_apply(const struct setting *s, enum setting_source source, const char *where, const char *value,
                  struct config *c, struct error *e) {
        int r = s->parse(value, (char *) c + s->offset);
        struct error why = {};

        if (r == -ENOMEM)
                return r;
        if (r >= 0 && s->check && s->check(value, &why) < 0)
                switch (source) {
                case SOURCE_FILE:
                        return error_set(e, -EINVAL, "%s: %s=%s: %s", where, s->key, value, why.msg);
                case SOURCE_CMDLINE:
                        return error_set(e, -EINVAL, "kernel command line: hpfilld.%s=%s: %s", s->word, value, why.msg);
                case SOURCE_OPTION:
                        return error_set(e, -EINVAL, "--%s '%s': %s", s->option, value, why.msg);
                }
        if (r < 0)
                switch (source) {
                case SOURCE_FILE:
                        return error_set(e, -EINVAL, "%s: %s= must be %s, not '%.64s'", where, s->key, s->expected, value);
                case SOURCE_CMDLINE:
                        return error_set(e, -EINVAL, "kernel command line: hpfilld.%s=%.64s: expected %s", s->word, value,
                                         s->expected);
                case SOURCE_OPTION:
                        return error_set(e, -EINVAL, "--%s '%.64s': expected %s", s->option, value, s->expected);
                }
        c->set |= 1u << setting_index(s);
        return 0;
}

void config_merge_settings(struct config *dst, const struct config *layer) {
        for (size_t i = 0; i < settings_count; i++)
                if (layer->set & (1u << i)) {
                        memcpy((char *) dst + settings_table[i].offset, (const char *) layer + settings_table[i].offset,
                               settings_table[i].size);
                        dst->set |= 1u << i;
                }
}

/* Optimal string alignment distance, case-insensitive, capped at 3 (names are short). */
static unsigned distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        unsigned d[32][32];

        if (la >= 32 || lb >= 32)
                return 3;
        for (size_t i = 0; i <= la; i++)
                d[i][0] = (unsigned) i;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = (unsigned) j;
        for (size_t i = 1; i <= la; i++)
                for (size_t j = 1; j <= lb; j++) {
                        unsigned cost = tolower((unsigned char) a[i - 1]) != tolower((unsigned char) b[j - 1]);

                        d[i][j] = MIN(MIN(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                        if (i > 1 && j > 1 && tolower((unsigned char) a[i - 1]) == tolower((unsigned char) b[j - 2]) &&
                            tolower((unsigned char) a[i - 2]) == tolower((unsigned char) b[j - 1]))
                                d[i][j] = MIN(d[i][j], d[i - 2][j - 2] + 1);
                }
        return MIN(d[la][lb], 3u);
}

const char *name_closest(const char *name, const char *const *names, size_t n) {
        const char *best = NULL;
        unsigned best_d = 3;

        for (size_t i = 0; i < n; i++) {
                unsigned d = distance(name, names[i]);

                /* two edits are a typo in a long name, not in "Mode" */
                if (d < best_d && (d <= 1 || strlen(names[i]) >= 6)) {
                        best = names[i];
                        best_d = d;
                }
        }
        return best;
}
