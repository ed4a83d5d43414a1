/* SPDX-License-Identifier: MIT */
/* The configuration: [Fill] settings and [Pool] sections from INI files and the command line. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "settings/conf.h"
#include "settings/settings.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/sanitize.h"

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
        struct pool_spec *p = (struct pool_spec *) pool_spec_find(c->pools, c->n_pools, spec->page_size);

        if (p) {
                amount_done(&p->amount);
                *p = *spec;
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
        struct reserve_spec *p = (struct reserve_spec *) reserve_spec_find(c->reserves, c->n_reserves, spec->name);

        if (p) {
                *p = *spec;
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

int config_put_claim(struct config *c, struct claim_spec *spec) {
        struct claim_spec *p;

        if (claim_spec_find(c->claims, c->n_claims, spec->name, spec->page_size))
                return -EEXIST;
        p = realloc(c->claims, (c->n_claims + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        c->claims = p;
        c->claims[c->n_claims++] = *spec;
        *spec = (struct claim_spec) {};
        return 0;
}

static void claims_free(struct claim_spec **claims, size_t *n) {
        for (size_t i = 0; i < *n; i++)
                amount_done(&(*claims)[i].amount);
        free(*claims);
        *claims = NULL;
        *n = 0;
}

void config_drop_claims(struct config *c) {
        claims_free(&c->claims, &c->n_claims);
}

size_t config_drop_claim(struct config *c, const char *name) {
        size_t k = 0, dropped = 0;

        for (size_t i = 0; i < c->n_claims; i++)
                if (strcmp(c->claims[i].name, name) == 0) {
                        amount_done(&c->claims[i].amount);
                        dropped++;
                } else
                        c->claims[k++] = c->claims[i];
        c->n_claims = k;
        return dropped;
}

void config_done(struct config *c) {
        config_drop_pools(c);
        config_drop_reserves(c);
        config_drop_claims(c);
}

/* What one file says, before it is applied: a file is applied whole or not at all. */
struct file_state {
        const char *name;
        unsigned line;
        enum { SECTION_NONE, SECTION_FILL, SECTION_POOL, SECTION_RESERVE, SECTION_CLAIM, SECTION_BAD } section;
        bool seen_fill;
        bool section_failed;       /* a line of this section was bad: it is not checked as a whole */
        struct error *errors;      /* every error of the file, one a line */
        int first_error;
        unsigned seen_fill_keys;   /* bit per settings_table[] entry given, good or bad */
        struct config fill;        /* [Fill] values; fill.set says which were good */
        struct pool_spec pool;     /* the [Pool] being read */
        unsigned seen_pool_keys;   /* bit per pool_keys[] */
        unsigned pool_line;
        struct pool_spec *pools;   /* finished [Pool] sections */
        size_t n_pools;
        struct reserve_spec reserve; /* the [Reserve] being read */
        unsigned seen_reserve_keys;  /* bit per reserve_keys[] */
        unsigned reserve_line;
        struct reserve_spec *reserves;
        size_t n_reserves;
        struct claim_spec claim;     /* the [Claim] being read */
        unsigned seen_claim_keys;    /* bit per claim_keys[] */
        unsigned claim_line;
        struct claim_spec *claims;
        size_t n_claims;
        unsigned n_sections;         /* headers read, of any kind */
        unsigned sections_before;    /* those of the files applied before this one */
        bool too_many;               /* beyond a bound of sections: the rest is not read */
};

enum { KEY_PAGE_SIZE, KEY_AMOUNT };
static const char *const pool_keys[] = { [KEY_PAGE_SIZE] = "PageSize", [KEY_AMOUNT] = "Amount" };
enum { RKEY_NAME, RKEY_PAGE_SIZE, RKEY_AMOUNT, RKEY_NODE, RKEY_OWNER, RKEY_GROUP, RKEY_MODE, RKEY_MOUNT };
_Static_assert(RKEY_GROUP - RKEY_OWNER == RESERVE_ATTR_GROUP && RKEY_MODE - RKEY_OWNER == RESERVE_ATTR_MODE &&
                       RKEY_MOUNT - RKEY_OWNER == RESERVE_ATTR_MOUNT,
               "[Reserve]'s Owner=... keys follow enum reserve_attr");
static const char *const reserve_keys[] = {
        [RKEY_NAME] = "Name", [RKEY_PAGE_SIZE] = "PageSize", [RKEY_AMOUNT] = "Amount", [RKEY_NODE] = "Node",
        [RKEY_OWNER] = "Owner", [RKEY_GROUP] = "Group", [RKEY_MODE] = "Mode", [RKEY_MOUNT] = "Mount",
};
enum { CKEY_NAME, CKEY_PAGE_SIZE, CKEY_AMOUNT };
static const char *const claim_keys[] = { [CKEY_NAME] = "Name", [CKEY_PAGE_SIZE] = "PageSize", [CKEY_AMOUNT] = "Amount" };
static const char *const section_names[] = { "Fill", "Pool", "Reserve", "Claim" };

static void file_state_done(struct file_state *s) {
        free(s->reserves);
        amount_done(&s->claim.amount);
        claims_free(&s->claims, &s->n_claims);
        amount_done(&s->pool.amount);
        for (size_t i = 0; i < s->n_pools; i++)
                amount_done(&s->pools[i].amount);
        free(s->pools);
}

static int finish_pool(struct file_state *s, struct error *e) {
        struct pool_spec *p;
        char name[32];

        if (s->section != SECTION_POOL || s->section_failed)
                return 0;
        if (!(s->seen_pool_keys & (1u << KEY_PAGE_SIZE)))
                return error_set(e, -EINVAL, "%s:%u: [Pool] has no PageSize=", s->name, s->pool_line);
        if (!(s->seen_pool_keys & (1u << KEY_AMOUNT)))
                return error_set(e, -EINVAL, "%s:%u: [Pool] has no Amount=", s->name, s->pool_line);
        if (pool_spec_find(s->pools, s->n_pools, s->pool.page_size))
                return error_set(e, -EINVAL, "%s:%u: a second [Pool] for page size %s", s->name, s->pool_line,
                                 page_size_name(s->pool.page_size, name));
        p = realloc(s->pools, (s->n_pools + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        s->pools = p;
        s->pools[s->n_pools++] = s->pool;
        s->pool = (struct pool_spec) {};
        return 0;
}

static int finish_reserve(struct file_state *s, struct error *e) {
        struct reserve_spec *p;

        if (s->section != SECTION_RESERVE || s->section_failed)
                return 0;
        if (!(s->seen_reserve_keys & (1u << RKEY_NAME)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no Name=", s->name, s->reserve_line);
        if (!(s->seen_reserve_keys & (1u << RKEY_PAGE_SIZE)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no PageSize=", s->name, s->reserve_line);
        if (!(s->seen_reserve_keys & (1u << RKEY_AMOUNT)))
                return error_set(e, -EINVAL, "%s:%u: [Reserve] has no Amount=", s->name, s->reserve_line);
        if (reserve_spec_find(s->reserves, s->n_reserves, s->reserve.name))
                return error_set(e, -EINVAL, "%s:%u: a second [Reserve] named '%s'", s->name, s->reserve_line,
                                 s->reserve.name);
        p = realloc(s->reserves, (s->n_reserves + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        s->reserves = p;
        (void) snprintf(s->reserve.origin, sizeof(s->reserve.origin), "%s:%u", s->name, s->reserve_line);
        s->reserves[s->n_reserves++] = s->reserve;
        return 0;
}

static int finish_claim(struct file_state *s, struct error *e) {
        struct claim_spec *p;
        char name[32];

        if (s->section != SECTION_CLAIM || s->section_failed)
                return 0;
        for (size_t k = 0; k < ELEMENTSOF(claim_keys); k++)
                if (!(s->seen_claim_keys & (1u << k)))
                        return error_set(e, -EINVAL, "%s:%u: [Claim] has no %s=", s->name, s->claim_line, claim_keys[k]);
        if (claim_spec_find(s->claims, s->n_claims, s->claim.name, s->claim.page_size))
                return error_set(e, -EINVAL, "%s:%u: a second [Claim] named '%s' for page size %s", s->name,
                                 s->claim_line, s->claim.name, page_size_name(s->claim.page_size, name));
        p = realloc(s->claims, (s->n_claims + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        s->claims = p;
        escape_controls(s->claim.file, sizeof(s->claim.file), s->name);
        s->claims[s->n_claims++] = s->claim;
        s->claim = (struct claim_spec) {};
        return 0;
}

static int finish_section(struct file_state *s, struct error *e) {
        int r = finish_pool(s, e);

        if (r >= 0)
                r = finish_reserve(s, e);
        return r < 0 ? r : finish_claim(s, e);
}

/* "unknown key 'PageSise' in [Pool]; did you mean 'PageSize'?" */
static int unknown_name(struct error *e, const char *prefix, const char *what, const char *name,
                        const char *const *names, size_t n) {
        const char *close = name_closest(name, names, n);

        if (!close)
                return error_set(e, -EINVAL, "%s: unknown %s", prefix, what);
        if (strcasecmp(close, name) == 0)
                return error_set(e, -EINVAL, "%s: unknown %s; names are case-sensitive: did you mean '%s'?", prefix,
                                 what, close);
        return error_set(e, -EINVAL, "%s: unknown %s; did you mean '%s'?", prefix, what, close);
}

/* The index of @key in @keys, marked as seen; an unknown key or one given twice is an error. */
static int find_key(struct file_state *s, const char *section, const char *key, const char *const *keys, size_t n,
                    unsigned *seen, struct error *e) {
        char where[320], what[320];

        for (size_t k = 0; k < n; k++)
                if (keys[k] && strcmp(key, keys[k]) == 0) {
                        if (*seen & (1u << k))
                                return error_set(e, -EINVAL, "%s:%u: %.64s= given twice in one section", s->name,
                                                 s->line, key);
                        *seen |= 1u << k;
                        return (int) k;
                }
        (void) snprintf(where, sizeof(where), "%s:%u", s->name, s->line);
        (void) snprintf(what, sizeof(what), "key '%.64s' in [%s]", key, section);
        return unknown_name(e, where, what, key, keys, n);
}

static int bad_value(struct file_state *s, struct error *e, int r, const char *key, const char *value) {
        if (*e->msg)
                return error_prefix(e, r, "%s:%u: %s=%.64s", s->name, s->line, key, value);
        return error_set(e, r, "%s:%u: bad value for %s: '%.64s'", s->name, s->line, key, value);
}

static int parse_fill_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        const char *keys[32];
        char where[300];
        int k;

        for (size_t i = 0; i < settings_count; i++)
                keys[i] = settings_table[i].key;
        k = find_key(s, "Fill", key, keys, settings_count, &s->seen_fill_keys, e);
        if (k < 0)
                return k;
        (void) snprintf(where, sizeof(where), "%s:%u", s->name, s->line);
        return setting_apply(&settings_table[k], SOURCE_FILE, where, value, &s->fill, e);
}

static int parse_pool_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        int k, r = 0;

        k = find_key(s, "Pool", key, pool_keys, ELEMENTSOF(pool_keys), &s->seen_pool_keys, e);
        if (k < 0)
                return k;
        e->msg[0] = 0;
        switch (k) {
        case KEY_PAGE_SIZE:
                r = parse_page_size(value, &s->pool.page_size, e);
                (void) snprintf(s->pool.page_size_origin, sizeof(s->pool.page_size_origin), "%s:%u", s->name, s->line);
                break;
        case KEY_AMOUNT:
                amount_done(&s->pool.amount);
                r = parse_amount(value, &s->pool.amount, e);
                /* what depends on the machine (nodes, memory) points at this line, not [Pool] */
                (void) snprintf(s->pool.origin, sizeof(s->pool.origin), "%s:%u", s->name, s->line);
                break;
        }
        if (r < 0 && r != -ENOMEM)
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
        struct reserve_spec *rs = &s->reserve;
        uint64_t node;
        int k, r = 0;

        k = find_key(s, "Reserve", key, reserve_keys, ELEMENTSOF(reserve_keys), &s->seen_reserve_keys, e);
        if (k < 0)
                return k;
        e->msg[0] = 0;
        switch (k) {
        case RKEY_NAME:
                r = check_reserve_name(value, e);
                if (r >= 0)
                        r = copy_name(rs->name, sizeof(rs->name), value);
                break;
        case RKEY_PAGE_SIZE:
                r = parse_page_size(value, &rs->page_size, e);
                break;
        case RKEY_AMOUNT:
                r = parse_count_or_bytes(value, &rs->value, &rs->bytes, e);
                break;
        case RKEY_NODE:
                /* one node syntax everywhere: "node1", as in pools' node1=...; "1" too */
                r = parse_u64(strncmp(value, "node", 4) == 0 ? value + 4 : value, &node);
                if (r >= 0 && node > 65535)
                        r = -ERANGE;
                rs->node = (int) node;
                break;
        case RKEY_OWNER:
        case RKEY_GROUP:
        case RKEY_MODE:
        case RKEY_MOUNT:
                r = reserve_spec_set_attr(rs, (enum reserve_attr) (k - RKEY_OWNER), value, e);
                if (r < 0)
                        return error_prefix(e, r, "%s:%u: %s=%.64s", s->name, s->line, key, value);
                break;
        }
        if (r < 0 && r != -ENOMEM)
                return bad_value(s, e, r, key, value);
        return r;
}

static int parse_claim_key(struct file_state *s, const char *key, const char *value, struct error *e) {
        struct claim_spec *cs = &s->claim;
        int k, r = 0;

        k = find_key(s, "Claim", key, claim_keys, ELEMENTSOF(claim_keys), &s->seen_claim_keys, e);
        if (k < 0)
                return k;
        e->msg[0] = 0;
        switch (k) {
        case CKEY_NAME:
                /* the rules of reservation names, which claims share */
                r = check_name(value, "claim", e);
                if (r >= 0)
                        r = copy_name(cs->name, sizeof(cs->name), value);
                break;
        case CKEY_PAGE_SIZE:
                r = parse_page_size(value, &cs->page_size, e);
                (void) snprintf(cs->page_size_origin, sizeof(cs->page_size_origin), "%s:%u", s->name, s->line);
                break;
        case CKEY_AMOUNT:
                amount_done(&cs->amount);
                r = parse_amount(value, &cs->amount, e);
                if (r >= 0 && amount_has_zero(&cs->amount))
                        return error_set(e, -EINVAL, "%s:%u: Amount=%.64s: a claim of zero pages claims nothing "
                                         "(remove the section to take the claim back)", s->name, s->line, value);
                (void) snprintf(cs->origin, sizeof(cs->origin), "%s:%u", s->name, s->line);
                break;
        }
        if (r < 0 && r != -ENOMEM)
                return bad_value(s, e, r, key, value);
        return r;
}

/* Keeps a line's error with the file's others, and takes it out of @e for the next line. */
static void note_error(struct file_state *s, int r, struct error *e) {
        if (s->first_error == 0)
                s->first_error = r;
        (void) error_append(s->errors, r, e);
        e->msg[0] = 0;
}

static char *strip(char *s) {
        char *end;

        s += strspn(s, " \t");
        end = s + strlen(s);
        while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                *--end = 0;
        return s;
}

/* A section header's bounds: sections of one file, and of all the files together */
static int count_section(struct file_state *s, struct error *e) {
        /* a bound, not an index: each section is checked against those before it (names,
         * page sizes), and each file's against the files before it */
        if (++s->n_sections > CONFIG_SECTIONS_MAX) {
                s->too_many = true;
                s->section = SECTION_BAD;
                return error_set(e, -E2BIG, "%s:%u: more than %u sections in one file (the most hpfilld takes)",
                                 s->name, s->line, CONFIG_SECTIONS_MAX);
        }
        /* and of all the files: 256 drop-ins of 1024 sections with the same names would
         * each be checked against all the names before them */
        if (s->sections_before + s->n_sections > CONFIG_SECTIONS_ALL_MAX) {
                s->too_many = true;
                s->section = SECTION_BAD;
                return error_set(e, -E2BIG,
                                 "%s:%u: more than %u sections in all the files together (the most hpfilld takes)",
                                 s->name, s->line, CONFIG_SECTIONS_ALL_MAX);
        }
        return 0;
}

/* The section @name ("Pool") begins */
static int begin_section(struct file_state *s, const char *name, struct error *e) {
        if (strcmp(name, "Fill") == 0) {
                if (s->seen_fill)
                        return error_set(e, -EINVAL, "%s:%u: a second [Fill] section", s->name, s->line);
                s->seen_fill = true;
                s->section = SECTION_FILL;
        } else if (strcmp(name, "Pool") == 0) {
                s->section = SECTION_POOL;
                s->seen_pool_keys = 0;
                s->pool_line = s->line;
        } else if (strcmp(name, "Reserve") == 0) {
                s->section = SECTION_RESERVE;
                s->seen_reserve_keys = 0;
                s->reserve = (struct reserve_spec) { .node = -1, .mode = RESERVE_DEFAULT_MODE };
                s->reserve_line = s->line;
        } else if (strcmp(name, "Claim") == 0) {
                s->section = SECTION_CLAIM;
                s->seen_claim_keys = 0;
                amount_done(&s->claim.amount);
                s->claim = (struct claim_spec) {};
                s->claim_line = s->line;
        } else {
                char where[300], what[300];

                (void) snprintf(where, sizeof(where), "%s:%u", s->name, s->line);
                (void) snprintf(what, sizeof(what), "section [%.64s]", name);
                return unknown_name(e, where, what, name, section_names, ELEMENTSOF(section_names));
        }
        return 0;
}

/* "[Section]": the section before finished, this one begun */
static int parse_header(struct file_state *s, char *line, struct error *e) {
        size_t len = strlen(line);
        int r;

        r = finish_section(s, e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                note_error(s, r, e);
        r = count_section(s, e);
        if (r < 0)
                return r;
        /* whatever the header, the keys that follow are not the last section's */
        s->section = SECTION_BAD;
        s->section_failed = false;
        if (line[len - 1] != ']')
                return error_set(e, -EINVAL, "%s:%u: bad section header '%.64s'", s->name, s->line, line);
        line[len - 1] = 0;
        return begin_section(s, line + 1, e);
}

static int parse_line(struct file_state *s, char *line, struct error *e) {
        char *eq, *key, *value;

        line = strip(line);
        if (!*line || *line == '#' || *line == ';')
                return 0;
        if (*line == '[')
                return parse_header(s, line, e);
        eq = strchr(line, '=');
        if (!eq)
                return error_set(e, -EINVAL, "%s:%u: expected Key=Value or [Section], got '%.64s'", s->name, s->line,
                                 line);
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
        case SECTION_CLAIM:
                return parse_claim_key(s, key, value, e);
        case SECTION_BAD:
                return 0; /* the bad header was reported; its keys mean nothing */
        default:
                return error_set(e, -EINVAL, "%s:%u: '%.64s=' outside of a section", s->name, s->line, key);
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

#define UTF8_BOM "\xef\xbb\xbf"

/* The pools and reservations of all files together, with this one's, within the bounds: checked
 * before the file changes anything (applied whole or not at all). */
static int check_totals(const struct config *c, const struct file_state *s, struct error *e) {
        size_t pools = c->n_pools, reserves = c->n_reserves;

        for (size_t i = 0; i < s->n_pools; i++) {
                bool known = false;

                for (size_t k = 0; k < c->n_pools && !known; k++)
                        known = c->pools[k].page_size == s->pools[i].page_size;
                pools += !known;
        }
        for (size_t i = 0; i < s->n_reserves; i++) {
                bool known = false;

                for (size_t k = 0; k < c->n_reserves && !known; k++)
                        known = strcmp(c->reserves[k].name, s->reserves[i].name) == 0;
                reserves += !known;
        }
        for (size_t i = 0; i < s->n_claims; i++) {
                const struct claim_spec *other = claim_spec_find(c->claims, c->n_claims, s->claims[i].name, 0);

                /* one claim, one file: all of it is said in one place */
                if (other)
                        return error_set(e, -EINVAL, "%s: a claim named '%s' is in %s already (a claim name lives in "
                                         "one file)", s->claims[i].origin, s->claims[i].name, other->file);
                reserves++;
        }
        if (pools + reserves > CONFIG_SECTIONS_MAX)
                return error_set(e, -E2BIG,
                                 "%s: with this file, more than %u [Pool], [Reserve] and [Claim] sections in all the files together "
                                 "(the most hpfilld takes)",
                                 s->name, CONFIG_SECTIONS_MAX);
        return 0;
}

int config_parse_text(struct config *c, const char *name, const char *text, size_t len, struct error *e) {
        _cleanup_(freep) char *copy = NULL;
        struct error all = {}, line_e = {};
        struct file_state s = { .name = name, .errors = &all, .sections_before = c->n_sections };
        char *line, *next;
        int r;

        /* a UTF-8 byte order mark, as some editors write: skipped, as systemd does */
        if (len >= 3 && memcmp(text, UTF8_BOM, 3) == 0) {
                text += 3;
                len -= 3;
        }
        r = check_text(name, text, len, e);
        if (r < 0)
                return r;
        copy = strndup(text, len);
        if (!copy)
                return -ENOMEM;

        /* Every line is read, so that one run reports every mistake in the file. */
        for (line = copy; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                s.line++;
                r = parse_line(&s, line, &line_e);
                if (r == -ENOMEM)
                        goto finish;
                if (r < 0) {
                        note_error(&s, r, &line_e);
                        s.section_failed = true;
                }
                if (s.too_many)
                        break;
        }
        r = finish_section(&s, &line_e);
        if (r == -ENOMEM)
                goto finish;
        if (r < 0)
                note_error(&s, r, &line_e);
        r = s.first_error;
        if (r < 0) {
                error_close(&all);
                if (e)
                        *e = all;
                goto finish;
        }

        r = check_totals(c, &s, e);
        if (r < 0)
                goto finish;
        /* The whole file was understood: only now does it change the configuration. */
        c->n_sections += s.n_sections;
        config_merge_settings(c, &s.fill);
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
        for (size_t i = 0; i < s.n_claims; i++) {
                r = config_put_claim(c, &s.claims[i]);
                if (r < 0)
                        goto finish;
        }
finish:
        file_state_done(&s);
        return r;
}

static const char *file_kind(mode_t mode) {
        return S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : S_ISCHR(mode) ? "a character device"
             : S_ISBLK(mode) ? "a block device" : S_ISDIR(mode) ? "a directory" : "not a regular file";
}

/* Opened as systemd opens its configuration (conf-files.c, null_or_empty()): symlinks
 * followed, inside the root (open_beneath(): /dev/null is the tree's), never blocking (a FIFO opens at once and is refused); /dev/null, where a drop-in
 * is masked by a symlink to it, reads as nothing (1); anything else but a regular file is
 * refused with what it is. */
static bool masked_by_link(int dirfd, const char *path) {
        _cleanup_(closep) int parent = -1;
        const char *name;
        char target[16];
        ssize_t n;

        /* a link to /dev/null masks, whether the tree has a /dev/null or not (systemd's
         * null_or_empty_path_with_root()) */
        parent = open_parent_beneath(dirfd, path, BENEATH_FOLLOW, &name);
        if (parent < 0)
                return false;
        n = readlinkat(parent, name, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = 0;
        return strcmp(target, "/dev/null") == 0;
}

/* @optional: a file whose absence is no error (the main file). Its link to /dev/null is looked
 * for only where the open found something: where it found nothing, a link to a /dev/null the
 * tree has not masks as much as no file does, and most hosts have neither. */
static int config_open(int dirfd, const char *path, const char *display, bool optional, int *ret_fd,
                       struct error *e) {
        _cleanup_(closep) int fd = -1;
        struct stat st;

        if (!optional && masked_by_link(dirfd, path))
                return 1;

        fd = open_beneath(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, BENEATH_FOLLOW);
        if (optional && fd != -ENOENT && masked_by_link(dirfd, path))
                return 1;
        if (fd == -ENXIO) { /* a socket */
                fd = open_beneath(dirfd, path, O_PATH | O_CLOEXEC, 0, BENEATH_FOLLOW);
                if (fd >= 0 && fstat(fd, &st) >= 0)
                        return error_set(e, -EBADFD, "%s: not a regular file (%s), refused", display,
                                         file_kind(st.st_mode));
                fd = -ENXIO;
        }
        if (fd < 0)
                return error_set(e, fd, "%s: cannot read: %s", display, strerror(-fd));
        if (fstat(fd, &st) < 0)
                return error_set(e, -errno, "%s: cannot read: %s", display, strerror(errno));
        if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
                return 1;
        if (S_ISDIR(st.st_mode))
                return error_set(e, -EISDIR, "%s: is a directory", display);
        if (!S_ISREG(st.st_mode))
                return error_set(e, -EBADFD, "%s: not a regular file (%s), refused", display, file_kind(st.st_mode));
        if (st.st_size == 0)
                return 1; /* empty: masks too, and has nothing to read */
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int load_file(struct config *c, int dirfd, const char *path, const char *name, bool optional, struct error *e) {
        _cleanup_(freep) char *text = NULL;
        _cleanup_(closep) int fd = -1;
        char display[PATH_MAX * 4];
        size_t len;
        int r;

        /* a newline in a file name must not start a line of its own in a list of errors */
        escape_controls(display, sizeof(display), name);
        r = config_open(dirfd, path, display, optional, &fd, e);
        if (r != 0)
                return r < 0 ? r : 0;
        r = read_full_fd(fd, CONFIG_FILE_MAX, &text, &len);
        if (r == -EFBIG)
                return error_set(e, r, "%s: larger than %d bytes", display, CONFIG_FILE_MAX);
        if (r < 0)
                return error_set(e, r, "%s: cannot read: %s", display, strerror(-r));
        return config_parse_text(c, display, text, len, e);
}

int config_load_file(struct config *c, int dirfd, const char *path, const char *name, struct error *e) {
        return load_file(c, dirfd, path, name, false, e);
}

struct dropin {
        char name[256];
        const char *dir;
};

static int dropin_compare(const void *a, const void *b) {
        return strcmp(((const struct dropin *) a)->name, ((const struct dropin *) b)->name);
}

/* Adds the *.conf files of @dir; a name seen before (from a lower-precedence dir) is replaced. */
static int collect_dropins(int rootfd, const char *root, const char *dir, struct dropin **list, size_t *n,
                           struct error *e) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd;

        fd = open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, BENEATH_FOLLOW);
        if (fd < 0)
                return fd == -ENOENT || fd == -ENOTDIR ? 0
                                                       : error_set(e, fd, "%s/%s: cannot open: %s", root, dir, strerror(-fd));
        d = fdopendir(fd);
        if (!d) {
                int r = error_set(e, -errno, "%s/%s: cannot open: %m", root, dir);

                closep(&fd);
                return r;
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
                if (i == *n && *n >= CONFIG_DROPINS_MAX)
                        return error_set(e, -E2BIG, "%s/%s/%s: more than %u drop-ins (the most hpfilld takes)", root, dir,
                                         de->d_name, CONFIG_DROPINS_MAX);
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
        return errno ? error_set(e, -errno, "%s/%s: cannot read: %m", root, dir) : 0;
}

int config_load_default(struct config *c, int rootfd, const char *root, struct error *e) {
        static const char *const dirs[] = CONFIG_DROPIN_DIRS;
        _cleanup_(freep) struct dropin *list = NULL;
        char path[512], display[PATH_MAX + 520];
        size_t n = 0;
        int r;

        (void) snprintf(display, sizeof(display), "%s/%s", root, CONFIG_MAIN_FILE);
        r = load_file(c, rootfd, CONFIG_MAIN_FILE, display, true, e);
        if (r < 0 && r != -ENOENT)
                return r;
        if (e)
                e->msg[0] = 0; /* no main file is fine */

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                r = collect_dropins(rootfd, root, dirs[i], &list, &n, e);
                if (r < 0)
                        return r;
        }
        if (n > 0)
                qsort(list, n, sizeof(*list), dropin_compare);
        for (size_t i = 0; i < n; i++) {
                (void) snprintf(path, sizeof(path), "%s/%s", list[i].dir, list[i].name);
                (void) snprintf(display, sizeof(display), "%s/%s", root, path);
                r = config_load_file(c, rootfd, path, display, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int config_load_credential(struct config *c, const char *creds_dir, struct error *e) {
        _cleanup_(closep) int dirfd = -1;
        char display[PATH_MAX + 32];
        int r;

        if (!creds_dir || !*creds_dir)
                return 0;
        (void) snprintf(display, sizeof(display), "%s/" CONFIG_CREDENTIAL " (credential)", creds_dir);
        /* systemd makes the directory and its files, read-only; a missing one is no credential */
        dirfd = open(creds_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return errno == ENOENT ? 0 : error_set(e, -errno, "%s: cannot open: %m", creds_dir);
        r = config_load_file(c, dirfd, CONFIG_CREDENTIAL, display, e);
        if (r == -ENOENT) {
                if (e)
                        e->msg[0] = 0;
                return 0;
        }
        return r;
}
