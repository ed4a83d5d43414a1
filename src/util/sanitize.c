/* SPDX-License-Identifier: MIT */
/* Text from files others control made safe for terminals and one-line edges: the output of
 * status (every format), STATUS=, the log, the record. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/macro.h"
#include "util/sanitize.h"

size_t utf8_len(const char *str) {
        const unsigned char *s = (const unsigned char *) str;
        size_t n;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, cp = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) /* a NUL ends the string here too */
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
                return 0;
        return n;
}

uint32_t utf8_control(const char *str, size_t n) {
        const unsigned char *s = (const unsigned char *) str;
        uint32_t cp;

        /* U+0080..U+009F: C2 80..C2 9F */
        if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
                return s[1];
        if (n != 3 || s[0] != 0xe2)
                return 0;
        cp = 0x2000 | (uint32_t) (s[1] & 0x3f) << 6 | (s[2] & 0x3f);
        /* U+2028..U+202E: line and paragraph separators, bidi embeddings and overrides;
         * U+2066..U+2069: bidi isolates */
        return (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ? cp : 0;
}

/* A byte that is a character of its own and goes out as it is */
static inline bool plain_ascii(unsigned char c) {
        return c >= 0x20 && c < 0x7f;
}

/* The length of the character at @s that goes out as it is, or 0 for a byte to escape: a C0
 * control, DEL, a C1 control (U+0080..U+009F: a UTF-8 terminal takes U+009B for CSI), a
 * character that reorders or breaks the text around it (utf8_control()), or a byte that is
 * not part of well-formed UTF-8 (raw 0x80..0x9f among them: an 8-bit terminal's C1
 * controls). */
size_t text_plain_len(const char *s) {
        unsigned char c = (unsigned char) *s;
        size_t n;

        if (plain_ascii(c))
                return 1;
        if (c < 0x80)
                return 0; /* a C0 control, DEL */
        n = utf8_len(s);
        return utf8_control(s, n) ? 0 : n;
}

/* How many bytes from @s on, @max at most, are printable ASCII: what most text is, and goes
 * out as it is without a look at each character as UTF-8 (text_plain_len() for the rest) */
static size_t plain_ascii_run(const char *s, size_t max) {
        size_t n = 0;

        while (n < max && plain_ascii((unsigned char) s[n]))
                n++;
        return n;
}

bool has_controls(const char *s) {
        for (;;) {
                size_t n;

                s += plain_ascii_run(s, SIZE_MAX);
                if (!*s)
                        return false;
                n = text_plain_len(s);
                if (n == 0)
                        return true;
                s += n;
        }
}

static void escape(char *buf, size_t size, const char *s, bool backslash) {
        size_t n = 0;

        if (size == 0)
                return;
        while (*s) {
                size_t len = text_plain_len(s);

                if (len == 0) {
                        if (n + 4 >= size)
                                break;
                        (void) snprintf(buf + n, size - n, "\\%03o", (unsigned char) *s);
                        n += 4;
                        s++;
                } else if (backslash && *s == '\\') { /* else a literal "\\033" reads as an escaped ESC */
                        if (n + 2 >= size)
                                break;
                        buf[n++] = '\\';
                        buf[n++] = '\\';
                        s++;
                } else {
                        /* this character and the printable ASCII after it, up to a backslash to
                         * double, as much as fits: whole characters only */
                        size_t run;
                        const char *bs;

                        if (n + len >= size)
                                break;
                        run = len + plain_ascii_run(s + len, size - 1 - n - len);
                        if (backslash && (bs = memchr(s + len, '\\', run - len)))
                                run = (size_t) (bs - s);
                        memcpy(buf + n, s, run);
                        n += run;
                        s += run;
                }
        }
        buf[n] = 0;
}

void escape_controls(char *buf, size_t size, const char *s) {
        escape(buf, size, s, true);
}

void escape_controls_only(char *buf, size_t size, const char *s) {
        escape(buf, size, s, false);
}

void escape_fputs(const char *s, FILE *f) {
        while (*s) {
                size_t len = text_plain_len(s);

                if (len == 0)
                        fprintf(f, "\\%03o", (unsigned char) *s++);
                else if (*s == '\\')
                        fputs("\\\\", f), s++;
                else {
                        (void) fwrite(s, 1, len, f);
                        s += len;
                }
        }
}
