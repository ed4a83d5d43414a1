/* SPDX-License-Identifier: MIT */
/* The configuration: [Fill] settings and [Pool] sections from INI files and the command line. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "settings/conf.h"
#include "util/fileio.h"

#define CONFIG_FILE_MAX (1024 * 1024)

static const char *const fill_mode_names[] = {
        [FILL_MODE_AUTO] = "auto",
        [FILL_MODE_SYSFS] = "sysfs",
        [FILL_MODE_FAULT] = "fault",
};

const char *fill_mode_to_string(enum fill_mode m) {
        return (size_t) m < ELEMENTSOF(fill_mode_names) ? fill_mode_names[m] : "?";
}

int fill_mode_from_string(const char *s, enum fill_mode *ret) {
        for (size_t i = 0; i < ELEMENTSOF(fill_mode_names); i++)
                if (strcmp(s, fill_mode_names[i]) == 0) {
                        *ret = (enum fill_mode) i;
                        return 0;
                }
        return -EINVAL;
}

int config_put_pool(struct config *c, struct pool_spec *spec) {
        struct pool_spec *p;

        for (size_t i = 0; i < c->n_pools; i++)
                if (c->pools[i].page_size == spec->page_size) {
                        amount_done(&c->pools[i].amount);
                        c->pools[i] = *spec;
                        *spec = (struct pool_spec) {};
                        return 0;
                }
        p = realloc(c->pools, (c->n_pools + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        c->pools = p;
        c->pools[c->n_pools++] = *spec;
        *spec = (struct pool_spec) {};
        return 0;
}

void config_drop_pools(struct config *c) {
        for (size_t i = 0; i < c->n_pools; i++)
                amount_done(&c->pools[i].amount);
        free(c->pools);
        c->pools = NULL;
        c->n_pools = 0;
}

int config_put_reserve(struct config *c, const struct reserve_spec *spec) {
        struct reserve_spec *p;

        for (size_t i = 0; i < c->n_reserves; i++)
                if (strcmp(c->reserves[i].name, spec->name) == 0) {
                        c->reserves[i] = *spec;
                        return 0;
                }
        p = realloc(c->reserves, (c->n_reserves + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        c->reserves = p;
        c->reserves[c->n_reserves++] = *spec;
        return 0;
}

void config_drop_reserves(struct config *c) {
        free(c->reserves);
        c->reserves = NULL;
        c->n_reserves = 0;
}

void config_done(struct config *c) {
        config_drop_pools(c);
        config_drop_reserves(c);
}

/* What one file says, before it is applied: a file is applied whole or not at all. */
struct file_state {
        const char *name;
        unsigned line;
        enum { SECTION_NONE, SECTION_FILL, SECTION_POOL, SECTION_RESERVE } section;
        unsigned seen_fill_keys; /* bit per key of [Fill] */
        unsigned seen_pool_keys;
        bool seen_fill;
        struct config fill;        /* [Fill] values */
        unsigned fill_set;         /* bit per key that was set */
        struct pool_spec pool;     /* the [Pool] being read */
        unsigned pool_line;
        struct pool_spec *pools;   /* finished [Pool] sections */
        size_t n_pools;
        struct reserve_spec reserve; /* the [Reserve] being read */
        unsigned seen_reserve_keys;
        unsigned reserve_line;
        struct reserve_spec *reserves;
        size_t n_reserves;
};

enum { KEY_MODE, KEY_THREADS, KEY_MIN, KEY_SHRINK, KEY_DROP_CACHES, KEY_RELEASE_ON_STOP, KEY_METRICS_FILE };
enum { KEY_PAGE_SIZE, KEY_AMOUNT };
enum { RKEY_NAME, RKEY_PAGE_SIZE, RKEY_AMOUNT, RKEY_NODE, RKEY_OWNER, RKEY_GROUP, RKEY_MODE };

static void file_state_done(struct file_state *s) {
        free(s->reserves);
        amount_done(&s->pool.amount);
        for (size_t i = 0; i < s->n_pools; i++)
                amount_done(&s->pools[i].amount);
        free(s->pools);
}

static int finish_pool(struct file_state *s, struct error *e) {
        struct pool_spec *p;
        char name[32];

        if (s->section != SECTION_POOL)
                return 0;
        if (!(s->seen_pool_keys & (1u << KEY_PAGE_SIZE)))
                return error_set(e, -EINVAL, "%s:%u: [Pool] has no PageSize=", s->name, s->pool_line);
        if (!(s->seen_pool_keys & (1u << KEY_AMOUNT)))
                return error_set(e, -EINVAL, "%s:%u: [Pool] has no Amount=", s->name, s->pool_line);
        for (size_t i = 0; i < s->n_pools; i++)
                if (s->pools[i].page_size == s->pool.page_size)
                        return error_set(e, -EINVAL, "%s:%u: a second [Pool] for page size %s", s->name,
                                         s->pool_line, page_size_name(s->pool.page_size, name));
        p = realloc(s->pools, (s->n_pools + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        s->pools = p;
        (void) snprintf(s->pool.origin, sizeof(s->pool.origin), "%s:%u", s->name, s->pool_line);
        s->pools[s->n_pools++] = s->pool;
        s->pool = (struct pool_spec) {};
        return 0;
}

static int finish_reserve(struct file_state *s, struct error *e) {
        struct reserve_spec *p;

        if (s->section != SECTION_RESERVE)
                return 0;
        if (!(s->seen_reserve_keys & (1u << RKEY_NAME)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no Name=", s->name, s->reserve_line);
        if (!(s->seen_reserve_keys & (1u << RKEY_PAGE_SIZE)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no PageSize=", s->name, s->reserve_line);
        if (!(s->seen_reserve_keys & (1u << RKEY_AMOUNT)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no Amount=", s->name, s->reserve_line);
        for (size_t i = 0; i < s->n_reserves; i++)
                if (strcmp(s->reserves[i].name, s->reserve.name) == 0)
                        return error_set(e, -EINVAL, "%s:%u: a second [Reserve] named '%s'", s->name,
                                         s->reserve_line, s->reserve.name);
        p = realloc(s->reserves, (s->n_reserves + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        s->reserves = p;
        (void) snprintf(s->reserve.origin, sizeof(s->reserve.origin), "%s:%u", s->name, s->reserve_line);
        s->reserves[s->n_reserves++] = s->reserve;
        return 0;
}

static int finish_section(struct file_state *s, struct error *e) {
        int r = finish_pool(s, e);

        return r < 0 ? r : finish_reserve(s, e);
}

static int bad_value(struct file_state *s, struct error *e, int r, const char *key, const char *value) {
        if (*e->msg)
                return error_prefix(e, r, "%s:%u: %s=%s", s->name, s->line, key, value);
        return error_set(e, r, "%s:%u: bad value for %s: '%s'", s->name, s->line, key, value);
}

static int mark_key(struct file_state *s, unsigned *seen, unsigned bit, const char *key, struct error *e) {
        if (*seen & (1u << bit))
                return error_set(e, -EINVAL, "%s:%u: %s= given twice in one section", s->name, s->line, key);
        *seen |= 1u << bit;
        return 0;
}

int config_check_metrics_file(const char *path) {
        size_t n = strlen(path);

        if (n == 0)
                return 0;
        /* a file in a directory: "/", "/dir/" and control characters are not */
        if (path[0] != '/' || path[n - 1] == '/' || n >= sizeof(((struct config *) NULL)->metrics_file))
                return -EINVAL;
        for (const char *p = path; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return -EINVAL;
        return 0;
}

static int parse_fill_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        int r;

        e->msg[0] = 0;
        if (strcmp(key, "Mode") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_MODE, key, e);
                if (r >= 0 && fill_mode_from_string(value, &s->fill.mode) < 0)
                        return error_set(e, -EINVAL, "%s:%u: Mode= must be auto, sysfs or fault, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "ThreadsPerNode") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_THREADS, key, e);
                if (r >= 0 && strcmp(value, "auto") == 0)
                        s->fill.threads_per_node = 0;
                else if (r >= 0 && parse_uint_range(value, 1, 1024, &s->fill.threads_per_node) < 0)
                        return error_set(e, -EINVAL, "%s:%u: ThreadsPerNode= must be auto or 1-1024, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "MinPercent") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_MIN, key, e);
                if (r >= 0 && parse_uint_range(value, 1, 100, &s->fill.min_percent) < 0)
                        return error_set(e, -EINVAL, "%s:%u: MinPercent= must be 1-100, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "Shrink") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_SHRINK, key, e);
                if (r >= 0 && parse_bool(value, &s->fill.shrink) < 0)
                        return error_set(e, -EINVAL, "%s:%u: Shrink= must be yes or no, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "DropCaches") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_DROP_CACHES, key, e);
                if (r >= 0 && parse_bool(value, &s->fill.drop_caches) < 0)
                        return error_set(e, -EINVAL, "%s:%u: DropCaches= must be yes or no, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "ReleaseOnStop") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_RELEASE_ON_STOP, key, e);
                if (r >= 0 && parse_bool(value, &s->fill.release_on_stop) < 0)
                        return error_set(e, -EINVAL, "%s:%u: ReleaseOnStop= must be yes or no, not '%s'",
                                         s->name, s->line, value);
        } else if (strcmp(key, "MetricsFile") == 0) {
                r = mark_key(s, &s->seen_fill_keys, KEY_METRICS_FILE, key, e);
                if (r >= 0 && config_check_metrics_file(value) < 0)
                        return error_set(e, -EINVAL, "%s:%u: MetricsFile= must be empty or an absolute file path "
                                         "(at most %zu bytes), not '%s'", s->name, s->line,
                                         sizeof(s->fill.metrics_file) - 1, value);
                if (r >= 0)
                        (void) snprintf(s->fill.metrics_file, sizeof(s->fill.metrics_file), "%s", value);
        } else
                return error_set(e, -EINVAL, "%s:%u: unknown key '%s' in [Fill]", s->name, s->line, key);
        return r;
}

static int parse_pool_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        int r;

        e->msg[0] = 0;
        if (strcmp(key, "PageSize") == 0) {
                r = mark_key(s, &s->seen_pool_keys, KEY_PAGE_SIZE, key, e);
                if (r >= 0)
                        r = parse_page_size(value, &s->pool.page_size, e);
        } else if (strcmp(key, "Amount") == 0) {
                r = mark_key(s, &s->seen_pool_keys, KEY_AMOUNT, key, e);
                if (r >= 0)
                        r = parse_amount(value, &s->pool.amount, e);
        } else
                return error_set(e, -EINVAL, "%s:%u: unknown key '%s' in [Pool]", s->name, s->line, key);
        if (r < 0 && r != -ENOMEM && !strstr(e->msg, "given twice"))
                return bad_value(s, e, r, key, value);
        return r;
}

static int copy_name(char *dst, size_t size, const char *value) {
        if (!*value || strlen(value) >= size)
                return -EINVAL;
        memcpy(dst, value, strlen(value) + 1);
        return 0;
}

static int parse_reserve_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        static const char *const keys[] = {
                [RKEY_NAME] = "Name", [RKEY_PAGE_SIZE] = "PageSize", [RKEY_AMOUNT] = "Amount", [RKEY_NODE] = "Node",
                [RKEY_OWNER] = "Owner", [RKEY_GROUP] = "Group", [RKEY_MODE] = "Mode",
        };
        struct reserve_spec *rs = &s->reserve;
        uint64_t node;
        unsigned k;
        int r;

        e->msg[0] = 0;
        for (k = 0; k < ELEMENTSOF(keys); k++)
                if (strcmp(key, keys[k]) == 0)
                        break;
        if (k == ELEMENTSOF(keys))
                return error_set(e, -EINVAL, "%s:%u: unknown key '%s' in [Reserve]", s->name, s->line, key);
        r = mark_key(s, &s->seen_reserve_keys, k, key, e);
        if (r < 0)
                return r;
        switch (k) {
        case RKEY_NAME:
                r = reserve_name_valid(value) ? copy_name(rs->name, sizeof(rs->name), value) : -EINVAL;
                break;
        case RKEY_PAGE_SIZE:
                r = parse_page_size(value, &rs->page_size, e);
                break;
        case RKEY_AMOUNT:
                r = parse_count_or_bytes(value, &rs->value, &rs->bytes, e);
                break;
        case RKEY_NODE:
                r = parse_u64(value, &node);
                if (r >= 0 && node > 65535)
                        r = -ERANGE;
                rs->node = (int) node;
                break;
        case RKEY_OWNER:
                r = copy_name(rs->owner, sizeof(rs->owner), value);
                break;
        case RKEY_GROUP:
                r = copy_name(rs->group, sizeof(rs->group), value);
                break;
        case RKEY_MODE:
                r = parse_file_mode(value, &rs->mode);
                break;
        }
        if (r < 0 && r != -ENOMEM)
                return bad_value(s, e, r, key, value);
        return r;
}

static char *strip(char *s) {
        char *end;

        s += strspn(s, " \t");
        end = s + strlen(s);
        while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                *--end = 0;
        return s;
}

static int parse_line(struct file_state *s, char *line, struct error *e) {
        char *eq, *key, *value;
        int r;

        line = strip(line);
        if (!*line || *line == '#' || *line == ';')
                return 0;

        if (*line == '[') {
                size_t len = strlen(line);

                if (line[len - 1] != ']')
                        return error_set(e, -EINVAL, "%s:%u: bad section header '%s'", s->name, s->line, line);
                r = finish_section(s, e);
                if (r < 0)
                        return r;
                line[len - 1] = 0;
                if (strcmp(line + 1, "Fill") == 0) {
                        if (s->seen_fill)
                                return error_set(e, -EINVAL, "%s:%u: a second [Fill] section", s->name, s->line);
                        s->seen_fill = true;
                        s->section = SECTION_FILL;
                } else if (strcmp(line + 1, "Pool") == 0) {
                        s->section = SECTION_POOL;
                        s->seen_pool_keys = 0;
                        s->pool_line = s->line;
                } else if (strcmp(line + 1, "Reserve") == 0) {
                        s->section = SECTION_RESERVE;
                        s->seen_reserve_keys = 0;
                        s->reserve = (struct reserve_spec) { .node = -1, .mode = RESERVE_DEFAULT_MODE };
                        s->reserve_line = s->line;
                } else
                        return error_set(e, -EINVAL, "%s:%u: unknown section [%s]", s->name, s->line, line + 1);
                return 0;
        }

        eq = strchr(line, '=');
        if (!eq)
                return error_set(e, -EINVAL, "%s:%u: expected Key=Value or [Section], got '%s'", s->name, s->line, line);
        *eq = 0;
        key = strip(line);
        value = strip(eq + 1);
        if (!*key)
                return error_set(e, -EINVAL, "%s:%u: empty key", s->name, s->line);
        switch (s->section) {
        case SECTION_FILL:
                return parse_fill_key(s, key, value, e);
        case SECTION_POOL:
                return parse_pool_key(s, key, value, e);
        case SECTION_RESERVE:
                return parse_reserve_key(s, key, value, e);
        default:
                return error_set(e, -EINVAL, "%s:%u: '%s=' outside of a section", s->name, s->line, key);
        }
}

/* Length of the valid UTF-8 sequence at @p, or 0. */
static size_t utf8_valid_len(const unsigned char *p, size_t left) {
        size_t n;
        uint32_t cp;

        if (p[0] < 0x80)
                return 1;
        if ((p[0] & 0xe0) == 0xc0)
                n = 2, cp = p[0] & 0x1f;
        else if ((p[0] & 0xf0) == 0xe0)
                n = 3, cp = p[0] & 0x0f;
        else if ((p[0] & 0xf8) == 0xf0)
                n = 4, cp = p[0] & 0x07;
        else
                return 0;
        if (n > left)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond Unicode */
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return n;
}

static int check_text(const char *name, const char *text, size_t len, struct error *e) {
        unsigned line = 1;

        for (size_t i = 0; i < len;) {
                size_t n;

                if (text[i] == 0)
                        return error_set(e, -EINVAL, "%s:%u: not a text file (NUL byte)", name, line);
                n = utf8_valid_len((const unsigned char *) text + i, len - i);
                if (n == 0)
                        return error_set(e, -EINVAL, "%s:%u: not a text file (invalid UTF-8)", name, line);
                line += text[i] == '\n';
                i += n;
        }
        return 0;
}

static void apply_file(struct config *c, struct file_state *s) {
        if (s->seen_fill_keys & (1u << KEY_MODE))
                c->mode = s->fill.mode;
        if (s->seen_fill_keys & (1u << KEY_THREADS))
                c->threads_per_node = s->fill.threads_per_node;
        if (s->seen_fill_keys & (1u << KEY_MIN))
                c->min_percent = s->fill.min_percent;
        if (s->seen_fill_keys & (1u << KEY_SHRINK))
                c->shrink = s->fill.shrink;
        if (s->seen_fill_keys & (1u << KEY_DROP_CACHES))
                c->drop_caches = s->fill.drop_caches;
        if (s->seen_fill_keys & (1u << KEY_RELEASE_ON_STOP))
                c->release_on_stop = s->fill.release_on_stop;
        if (s->seen_fill_keys & (1u << KEY_METRICS_FILE))
                memcpy(c->metrics_file, s->fill.metrics_file, sizeof(c->metrics_file));
}

int config_parse_text(struct config *c, const char *name, const char *text, size_t len, struct error *e) {
        _cleanup_(freep) char *copy = NULL;
        struct file_state s = { .name = name };
        char *line, *next;
        int r;

        r = check_text(name, text, len, e);
        if (r < 0)
                return r;
        copy = strndup(text, len);
        if (!copy)
                return -ENOMEM;

        for (line = copy; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                s.line++;
                r = parse_line(&s, line, e);
                if (r < 0)
                        goto finish;
        }
        r = finish_section(&s, e);
        if (r < 0)
                goto finish;

        /* The whole file was understood: only now does it change the configuration. */
        apply_file(c, &s);
        for (size_t i = 0; i < s.n_pools; i++) {
                r = config_put_pool(c, &s.pools[i]);
                if (r < 0)
                        goto finish;
        }
        for (size_t i = 0; i < s.n_reserves; i++) {
                r = config_put_reserve(c, &s.reserves[i]);
                if (r < 0)
                        goto finish;
        }
finish:
        file_state_done(&s);
        return r;
}

int config_load_file(struct config *c, int dirfd, const char *path, const char *display, struct error *e) {
        _cleanup_(freep) char *text = NULL;
        size_t len;
        int r;

        r = read_full_file_at(dirfd, path, CONFIG_FILE_MAX, &text, &len);
        if (r == -EFBIG)
                return error_set(e, r, "%s: larger than %d bytes", display, CONFIG_FILE_MAX);
        if (r == -EISDIR)
                return error_set(e, r, "%s: is a directory", display);
        if (r < 0)
                return error_set(e, r, "%s: cannot read: %s", display, strerror(-r));
        return config_parse_text(c, display, text, len, e);
}

struct dropin {
        char name[256];
        const char *dir;
};

static int dropin_compare(const void *a, const void *b) {
        return strcmp(((const struct dropin *) a)->name, ((const struct dropin *) b)->name);
}

/* Adds the *.conf files of @dir; a name seen before (from a lower-precedence dir) is replaced. */
static int collect_dropins(int rootfd, const char *dir, struct dropin **list, size_t *n, struct error *e) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd;

        fd = openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : error_set(e, -errno, "/%s: cannot open: %m", dir);
        d = fdopendir(fd);
        if (!d) {
                closep(&fd);
                return -errno;
        }
        while ((errno = 0, de = readdir(d))) {
                size_t len = strlen(de->d_name);
                struct dropin *l;
                size_t i;

                if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0 ||
                    len >= sizeof(l->name))
                        continue;
                for (i = 0; i < *n; i++)
                        if (strcmp((*list)[i].name, de->d_name) == 0)
                                break;
                if (i == *n) {
                        l = realloc(*list, (*n + 1) * sizeof(*l));
                        if (!l)
                                return -ENOMEM;
                        *list = l;
                        (*n)++;
                }
                memcpy((*list)[i].name, de->d_name, len + 1);
                (*list)[i].dir = dir;
        }
        return errno ? -errno : 0;
}

int config_load_default(struct config *c, int rootfd, struct error *e) {
        static const char *const dirs[] = CONFIG_DROPIN_DIRS;
        _cleanup_(freep) struct dropin *list = NULL;
        char path[512], display[520];
        size_t n = 0;
        int r;

        r = config_load_file(c, rootfd, CONFIG_MAIN_FILE, "/" CONFIG_MAIN_FILE, e);
        if (r < 0 && r != -ENOENT)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                r = collect_dropins(rootfd, dirs[i], &list, &n, e);
                if (r < 0)
                        return r;
        }
        if (n > 0)
                qsort(list, n, sizeof(*list), dropin_compare);
        for (size_t i = 0; i < n; i++) {
                (void) snprintf(path, sizeof(path), "%s/%s", list[i].dir, list[i].name);
                (void) snprintf(display, sizeof(display), "/%s", path);
                r = config_load_file(c, rootfd, path, display, e);
                if (r < 0)
                        return r;
        }
        return 0;
}
