/* SPDX-License-Identifier: MIT */
/* Every [Fill] setting declared once: its key, its kernel command line word, its option, its
 * parser and its field. Files, the kernel command line and the options all go through it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "settings/conf.h"

/* Where a value was said: the message for a bad one is worded for that place. */
enum setting_source {
        SOURCE_FILE,    /* "FILE:LINE" */
        SOURCE_CMDLINE, /* the kernel command line */
        SOURCE_OPTION,  /* the command line */
};

struct setting {
        const char *key;      /* in [Fill] */
        const char *word;     /* hpfilld.WORD= on the kernel command line; NULL: not there */
        const char *option;   /* --OPTION; NULL: none */
        char short_option;    /* -X; 0: none */
        bool flag;            /* the option takes no value and means "yes" */
        const char *expected; /* what a value may be, for messages */
        int (*parse)(const char *value, void *field);
        size_t offset, size;  /* the field in struct config */
        /* NULL, or what a parsed value must also pass on this machine (a directory's owner and
         * mode): 0, or -errno with the reason in @e; refused there, the value is bad input */
        int (*check)(const char *value, struct error *e);
};

extern const struct setting settings_table[];
extern const size_t settings_count;

const struct setting *setting_by_key(const char *key);
const struct setting *setting_by_word(const char *word);
/* Index of the setting, for struct config's set mask. */
static inline unsigned setting_index(const struct setting *s) {
        return (unsigned) (s - settings_table);
}

/* Parses @value into @c's field and marks it set in @c. A bad value is an error whose message
 * names @where ("file:line" for SOURCE_FILE; ignored for the others) and what is expected. */
int setting_apply(const struct setting *s, enum setting_source source, const char *where, const char *value,
                  struct config *c, struct error *e);

/* Copies into @dst every setting @layer set: the later layer wins. Pools and reservations are
 * the callers'. */
void config_merge_settings(struct config *dst, const struct config *layer);

/* The name in @names closest to @name (a typo or the wrong case), or NULL when none is close. */
const char *name_closest(const char *name, const char *const *names, size_t n);
