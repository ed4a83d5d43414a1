/* SPDX-License-Identifier: MIT */
/* pthread_create() as TasksMax= or pids.max make it: EAGAIN past a limit (fake-threads.h). */
#include <errno.h>
#include <pthread.h>

#include "fake-threads.h"

int fake_threads_left = -1;

/* Declared from pthread_create() itself: a changed prototype fails to compile here. */
__typeof__(pthread_create) __real_pthread_create, __wrap_pthread_create;

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
        if (fake_threads_left == 0)
                return EAGAIN;
        if (fake_threads_left > 0)
                fake_threads_left--;
        return __real_pthread_create(thread, attr, fn, arg);
}
