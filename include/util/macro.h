/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every file: cleanup attributes and array sizes. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define DIV_ROUND_UP(a, b) (((a) + (b) - 1) / (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The "s" of a plural after a count: "%zu pool%s", n, plural(n) ("1 pool", "0 pools"). */
static inline const char *plural(unsigned long long n) {
        return n == 1 ? "" : "s";
}

static inline void freep(void *p) {
        free(*(void **) p);
}

/* close() that keeps errno and accepts -1, for _cleanup_. */
static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}

static inline void closedirp(DIR **d) {
        if (*d)
                (void) closedir(*d);
}

/* A new last element of the malloc()ed @array of @n (n counted up), left for the caller to set;
 * NULL where out of memory, the array as it was. */
#define GROW(array, n) ({                                                                \
        __typeof__(array) _p = realloc((array), ((n) + 1) * sizeof(*(array)));          \
        if (_p)                                                                          \
                (array) = _p;                                                           \
        _p ? &(array)[(n)++] : NULL;                                                    \
})

/* Hand a cleaned-up pointer or fd to the caller. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })
