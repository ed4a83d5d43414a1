/* SPDX-License-Identifier: MIT */
/* The state as text and back: one format, one parser (text.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "settings/parse.h"
#include "state/text.h"
#include "util/number.h"

#define WORDS_MAX 4096

int state_format(FILE *f, const struct state *s) {
        fprintf(f, "hpfilld-state %d\n", STATE_TEXT_VERSION);
        if (*s->boot)
                fprintf(f, "boot %s\n", s->boot);
        fprintf(f, "seq %" PRIu64 "\n", s->next_seq);
        if (s->legacy)
                fputs("legacy\n", f);
        if (s->daemon_pid > 0)
                fprintf(f, "daemon %d %" PRIu64 "\n", (int) s->daemon_pid, s->daemon_start);
        for (size_t i = 0; i < s->n_owners; i++)
                fprintf(f, "owner %s %" PRIu64 " %s%s%s\n", s->owners[i].name, s->owners[i].seq,
                        s->owners[i].gone ? "gone" : "active", *s->owners[i].spec ? " " : "", s->owners[i].spec);
        for (size_t p = 0; p < s->n_pools; p++) {
                fprintf(f, "pool %" PRIu64 " %u %" PRIu64, s->pools[p].page_size, s->pools[p].node, s->pools[p].last);
                for (size_t i = 0; i < s->n_shares; i++)
                        if (s->shares[i].pool == p) {
                                fprintf(f, " %s=%" PRIu64 "/%" PRIu64, s->owners[s->shares[i].owner].name,
                                        s->shares[i].held, s->shares[i].want);
                                if (s->shares[i].mark)
                                        fprintf(f, "/%" PRIu64, s->shares[i].mark);
                        }
                fputc('\n', f);
        }
        for (size_t i = 0; i < s->n_intents; i++) {
                const struct state_intent *in = &s->intents[i];

                fprintf(f, "intent %" PRIu64 " %u %" PRIu64 " %" PRIu64, s->pools[in->pool].page_size,
                        s->pools[in->pool].node, in->from, in->to);
                for (size_t k = 0; k < in->n_parts; k++)
                        fprintf(f, " %s=%" PRIu64, s->owners[in->parts[k].owner].name, in->parts[k].pages);
                fputc('\n', f);
        }
        for (size_t i = 0; i < s->n_settings; i++)
                fprintf(f, "setting %s %" PRIu64 " %" PRIu64 "\n", s->settings[i].path, s->settings[i].found,
                        s->settings[i].set);
        for (size_t i = 0; i < s->n_reserves; i++)
                fprintf(f, "reserve %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s->reserves[i].name,
                        s->reserves[i].page_size, s->reserves[i].pages, s->reserves[i].dev, s->reserves[i].ino);
        fill_record_format(f, &s->record);
        fputs("end\n", f);
        return ferror(f) ? -EIO : 0;
}

struct parse {
        struct state *s;
        char **w;  /* the line's words */
        size_t n;
        bool head, end;
        struct error *e;
};

static int bad(struct parse *p, const char *what) {
        return error_set(p->e, -EBADMSG, "%s", what);
}

static int count(struct parse *p, const char *word, uint64_t *ret) {
        if (parse_u64(word, ret) < 0 || *ret >= STATE_COUNT_MAX)
                return bad(p, "a count out of range");
        return 0;
}

/* A page size: a power of two of at least 4 KiB; a node: below 65536 */
static int pool_key(struct parse *p, const char *size, const char *node, uint64_t *ret_size, unsigned *ret_node) {
        uint64_t v;

        if (parse_u64(size, ret_size) < 0 || !state_pool_key_valid(*ret_size, 0))
                return bad(p, "not a page size");
        if (parse_u64(node, &v) < 0 || !state_pool_key_valid(4096, v))
                return bad(p, "not a node");
        *ret_node = (unsigned) v;
        return 0;
}

/* "OWNER=VALUE": the owner (declared before), and the rest after '=' */
static int owner_ref(struct parse *p, char *word, size_t *ret_owner, char **ret_rest) {
        char *eq = strchr(word, '=');
        int o;

        if (!eq)
                return bad(p, "not OWNER=...");
        *eq = 0;
        o = state_owner_find(p->s, word);
        if (o < 0)
                return bad(p, "an owner not declared before");
        *ret_owner = (size_t) o;
        *ret_rest = eq + 1;
        return 0;
}

static int line_head(struct parse *p) {
        if (p->n != 2 || strcmp(p->w[1], "1") != 0)
                return bad(p, "a state of another version");
        p->head = true;
        return 0;
}

static int line_boot(struct parse *p) {
        size_t n = p->n == 2 ? strlen(p->w[1]) : 0;

        if (n == 0 || n >= sizeof(p->s->boot) || strspn(p->w[1], "0123456789abcdefABCDEF-") != n)
                return bad(p, "not a boot id");
        memcpy(p->s->boot, p->w[1], n + 1);
        return 0;
}

static int line_seq(struct parse *p) {
        return p->n == 2 ? count(p, p->w[1], &p->s->next_seq) : bad(p, "not seq N");
}

static int line_legacy(struct parse *p) {
        if (p->n != 1)
                return bad(p, "not legacy");
        p->s->legacy = true;
        return 0;
}

static int line_daemon(struct parse *p) {
        uint64_t pid;

        if (p->n != 3 || parse_u64(p->w[1], &pid) < 0 || pid == 0 || pid > INT32_MAX ||
            parse_u64(p->w[2], &p->s->daemon_start) < 0)
                return bad(p, "not daemon PID START");
        p->s->daemon_pid = (pid_t) pid;
        return 0;
}

static int line_owner(struct parse *p) {
        struct state_owner *o;
        size_t len = 0;
        uint64_t seq, next;
        int i;

        if (p->n < 4 || (strcmp(p->w[3], "active") != 0 && strcmp(p->w[3], "gone") != 0))
                return bad(p, "not owner NAME SEQ active|gone");
        if (state_owner_find(p->s, p->w[1]) >= 0)
                return bad(p, "an owner declared twice");
        if (count(p, p->w[2], &seq) < 0)
                return -EBADMSG;
        if (seq == 0 || seq > p->s->next_seq)
                return bad(p, "an owner made after the seq line's count");
        next = p->s->next_seq;
        i = state_owner_get(p->s, p->w[1]);
        p->s->next_seq = next; /* the seq line's, not one made up here */
        if (i == -ENOMEM)
                return error_set(p->e, -ENOMEM, "out of memory");
        if (i < 0)
                return bad(p, "not an owner's name");
        o = &p->s->owners[i];
        o->seq = seq;
        o->gone = strcmp(p->w[3], "gone") == 0;
        /* a claim's pools, as --pool took them: checked again where they are used */
        for (size_t k = 4; k < p->n; k++) {
                size_t n = strlen(p->w[k]);

                if (o->kind != OWNER_CLAIM || strspn(p->w[k], "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:=,%.") != n ||
                    len + n + 1 >= sizeof(o->spec))
                        return bad(p, "not a claim's pool");
                len += (size_t) snprintf(o->spec + len, sizeof(o->spec) - len, "%s%s", len ? " " : "", p->w[k]);
        }
        return 0;
}

static int line_pool(struct parse *p) {
        uint64_t size, last;
        unsigned node;
        int i;

        if (p->n < 4)
                return bad(p, "not pool PAGE_SIZE NODE LAST ...");
        if (pool_key(p, p->w[1], p->w[2], &size, &node) < 0 || count(p, p->w[3], &last) < 0)
                return -EBADMSG;
        if (state_pool_find(p->s, size, node) >= 0)
                return bad(p, "a pool said twice");
        i = state_pool_get(p->s, size, node, last);
        if (i < 0)
                return error_set(p->e, i, "out of memory");
        for (size_t k = 4; k < p->n; k++) {
                struct state_share *sh;
                uint64_t held, want, mark = 0;
                size_t o;
                char *rest, *slash, *slash2;

                if (owner_ref(p, p->w[k], &o, &rest) < 0)
                        return -EBADMSG;
                slash = strchr(rest, '/');
                if (!slash)
                        return bad(p, "not OWNER=HELD/WANT[/MARK]");
                *slash = 0;
                slash2 = strchr(slash + 1, '/');
                if (slash2)
                        *slash2 = 0;
                if (count(p, rest, &held) < 0 || count(p, slash + 1, &want) < 0 ||
                    (slash2 && count(p, slash2 + 1, &mark) < 0))
                        return -EBADMSG;
                if (state_share(p->s, (size_t) i, o, false))
                        return bad(p, "an owner said twice in a pool");
                sh = state_share(p->s, (size_t) i, o, true);
                if (!sh)
                        return error_set(p->e, -ENOMEM, "out of memory");
                sh->held = held;
                sh->want = want;
                sh->mark = mark;
        }
        return 0;
}

static int line_intent(struct parse *p) {
        _cleanup_(freep) struct state_part *parts = NULL;
        struct state_intent in = {};
        uint64_t size;
        unsigned node;
        int i;

        if (p->n < 5)
                return bad(p, "not intent PAGE_SIZE NODE FROM TO ...");
        if (pool_key(p, p->w[1], p->w[2], &size, &node) < 0 || count(p, p->w[3], &in.from) < 0 ||
            count(p, p->w[4], &in.to) < 0)
                return -EBADMSG;
        i = state_pool_find(p->s, size, node);
        if (i < 0)
                return bad(p, "an intent of a pool not said before");
        if (state_intent_find(p->s, (size_t) i) >= 0)
                return bad(p, "a second intent of a pool");
        in.pool = (size_t) i;
        parts = calloc(p->n - 5 + 1, sizeof(*parts));
        if (!parts)
                return error_set(p->e, -ENOMEM, "out of memory");
        for (size_t k = 5; k < p->n; k++) {
                char *rest;

                if (owner_ref(p, p->w[k], &parts[k - 5].owner, &rest) < 0 || count(p, rest, &parts[k - 5].pages) < 0)
                        return -EBADMSG;
        }
        in.parts = parts;
        in.n_parts = p->n - 5;
        return state_intent_add(p->s, &in) < 0 ? error_set(p->e, -ENOMEM, "out of memory") : 0;
}

/* The one setting a fill raises: a pool's nr_overcommit_hugepages */
static bool setting_path_ok(const char *path) {
        static const char prefix[] = "sys/kernel/mm/hugepages/hugepages-", suffix[] = "kB/nr_overcommit_hugepages";
        size_t n = strlen(path), k = strlen(prefix), m = strlen(suffix), digits;

        if (n <= k + m || strncmp(path, prefix, k) != 0 || strcmp(path + n - m, suffix) != 0)
                return false;
        digits = strspn(path + k, "0123456789");
        return digits > 0 && k + digits + m == n;
}

static int line_setting(struct parse *p) {
        uint64_t found, set;

        if (p->n != 4 || !setting_path_ok(p->w[1]))
                return bad(p, "not setting PATH FOUND SET, of a pool's nr_overcommit_hugepages");
        if (count(p, p->w[2], &found) < 0 || count(p, p->w[3], &set) < 0)
                return -EBADMSG;
        if (state_setting_find(p->s, p->w[1]) >= 0)
                return bad(p, "a setting said twice");
        return state_setting_add(p->s, p->w[1], found, set) < 0 ? error_set(p->e, -ENOMEM, "out of memory") : 0;
}

static int line_reserve(struct parse *p) {
        struct state_reserve r = {};

        /* a name as check_name() allows it */
        if (p->n != 6 || check_name(p->w[1], "reservation", NULL) < 0 || parse_u64(p->w[2], &r.page_size) < 0 ||
            !state_pool_key_valid(r.page_size, 0) || count(p, p->w[3], &r.pages) < 0 || parse_u64(p->w[4], &r.dev) < 0 ||
            parse_u64(p->w[5], &r.ino) < 0)
                return bad(p, "not reserve NAME PAGE_SIZE PAGES DEV INO");
        memcpy(r.name, p->w[1], strlen(p->w[1]) + 1);
        if (state_reserve_find(p->s, r.name, r.page_size) >= 0)
                return bad(p, "a reservation said twice");
        return state_reserve_add(p->s, &r) < 0 ? error_set(p->e, -ENOMEM, "out of memory") : 0;
}

static int line_end(struct parse *p) {
        if (p->n != 1)
                return bad(p, "not end");
        p->end = true;
        return 0;
}

static const struct {
        const char *kind;
        int (*parse)(struct parse *p);
} lines[] = {
        { "hpfilld-state", line_head }, { "boot", line_boot },       { "seq", line_seq },
        { "legacy", line_legacy },
        { "daemon", line_daemon },      { "owner", line_owner },     { "pool", line_pool },
        { "intent", line_intent },      { "setting", line_setting }, { "reserve", line_reserve },
        { "end", line_end },
};

/* @line (changed in place) into words; -EBADMSG for an empty word (two spaces, a space at an end) */
static int split(struct parse *p, char *line) {
        p->n = 0;
        for (char *w = line;;) {
                char *sp = strchr(w, ' ');

                if (p->n == WORDS_MAX || (sp ? sp == w : !*w))
                        return bad(p, "not words between single spaces");
                p->w[p->n++] = w;
                if (!sp)
                        return 0;
                *sp = 0;
                w = sp + 1;
        }
}

static int parse_line(struct parse *p, char *line) {
        int r;

        /* the record of the last fill: its texts are the rest of their lines (record.h) */
        if (p->head && !p->end && strncmp(line, "last-", 5) == 0) {
                r = fill_record_parse_line(&p->s->record, line);
                if (r == -ENOMEM)
                        return error_set(p->e, r, "out of memory");
                return r <= 0 ? bad(p, "not a line of the last fill's record") : 0;
        }
        if (split(p, line) < 0)
                return -EBADMSG;
        if (!p->head && strcmp(p->w[0], "hpfilld-state") != 0)
                return bad(p, "not a state (no hpfilld-state line first)");
        if (p->end)
                return bad(p, "a line after end");
        for (size_t i = 0; i < ELEMENTSOF(lines); i++)
                if (strcmp(p->w[0], lines[i].kind) == 0)
                        return p->head && i == 0 ? bad(p, "a second hpfilld-state line") : lines[i].parse(p);
        return bad(p, "an unknown line");
}

int state_parse(const char *text, struct state *ret, struct error *e) {
        _cleanup_(freep) char **words = malloc(WORDS_MAX * sizeof(*words)); /* filled as a line is split */
        _cleanup_(freep) char *copy = strdup(text);
        struct state s = {};
        struct parse p = { .s = &s, .w = words, .e = e };
        unsigned line = 0;
        int r = 0;

        if (!words || !copy)
                return error_set(e, -ENOMEM, "out of memory");
        for (char *l = copy, *next; r >= 0 && *l; l = next) {
                next = strchr(l, '\n');
                if (!next) {
                        r = error_set(e, -EBADMSG, "line %u: cut short (no newline)", line + 1);
                        break;
                }
                *next++ = 0;
                line++;
                r = parse_line(&p, l);
                if (r < 0)
                        (void) error_prefix(e, r, "line %u", line);
        }
        if (r >= 0 && !p.end)
                r = error_set(e, -EBADMSG, "cut short (no end line)");
        if (r >= 0 && !s.record.valid &&
            (s.record.n_sizes || s.record.n_reserves || *s.record.summary || *s.record.next_boot))
                r = error_set(e, -EBADMSG, "a record of the last fill without its last-fill line");
        if (r < 0) {
                state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}
