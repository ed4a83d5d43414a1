/* SPDX-License-Identifier: MIT */
/* calloc() that fails on purpose, as out of memory (fake-alloc.h). */
#include <errno.h>
#include <stdlib.h>

#include "fake-alloc.h"

int fake_calloc_fail_at = -1;

/* Declared from calloc() itself: a changed prototype fails to compile here. */
__typeof__(calloc) __real_calloc, __wrap_calloc;

void *__wrap_calloc(size_t n, size_t size) {
        if (fake_calloc_fail_at == 0) {
                fake_calloc_fail_at = -1;
                errno = ENOMEM;
                return NULL;
        }
        if (fake_calloc_fail_at > 0)
                fake_calloc_fail_at--;
        return __real_calloc(n, size);
}
