/* SPDX-License-Identifier: MIT */
/* A root test's mount(2), LD_PRELOADed: hugetlbfs refused with EPERM (as an LSM, or a container
 * without CAP_SYS_ADMIN in the host's namespace, refuses it), any other file system type the C
 * library's. What --create-mounts does when the kernel refuses its mount (oneoffs.sh). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mount.h>

int mount(const char *source, const char *target, const char *type, unsigned long flags, const void *data) {
        int (*real)(const char *, const char *, const char *, unsigned long, const void *);

        if (type && strcmp(type, "hugetlbfs") == 0) {
                errno = EPERM;
                return -1;
        }
        real = (int (*)(const char *, const char *, const char *, unsigned long, const void *)) dlsym(RTLD_NEXT, "mount");
        if (!real) {
                errno = ENOSYS;
                return -1;
        }
        return real(source, target, type, flags, data);
}
