/* SPDX-License-Identifier: MIT */
/* Giving up privileges after setup: every capability but those still needed, bounding and
 * ambient sets included, and no new privileges through exec. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "service/caps.h"
#include "config.h"
#include "util/fileio.h"

#if HAVE_LIBCAP
#include <sys/capability.h>
#endif

/* The highest capability this kernel knows, from /proc (CAP_LAST_CAP of the headers may be
 * older or newer than the kernel). */
static unsigned last_cap(void) {
        uint64_t v;

        if (read_u64_at(AT_FDCWD, "/proc/sys/kernel/cap_last_cap", &v) >= 0 && v < 64)
                return (unsigned) v;
        return CAP_LAST_CAP;
}

static int drop_bounding(uint64_t keep) {
        unsigned last = last_cap();

        for (unsigned c = 0; c <= last; c++) {
                if (keep & (UINT64_C(1) << c))
                        continue;
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                        return -errno;
        }
        return 0;
}

static int set_caps_raw(uint64_t keep) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};

        d[0].permitted = d[0].effective = (uint32_t) keep;
        d[1].permitted = d[1].effective = (uint32_t) (keep >> 32);
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

#if HAVE_LIBCAP
/* libcap, loaded when the daemon drops its privileges: linked, it cost every --once run start-up
 * time (bench/fill-bench.py), for what one capset() does there. */
static int set_caps_libcap(uint64_t keep) {
        cap_t (*init)(void);
        int (*set_flag)(cap_t, cap_flag_t, int, const cap_value_t *, cap_flag_value_t);
        int (*set_proc)(cap_t);
        int (*free_)(void *);
        cap_value_t list[64];
        unsigned last = last_cap();
        int n = 0, r = 0;
        void *lib;
        cap_t caps;

        lib = dlopen("libcap.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
                return -ENOSYS;
        init = (cap_t (*)(void)) dlsym(lib, "cap_init");
        set_flag = (int (*)(cap_t, cap_flag_t, int, const cap_value_t *, cap_flag_value_t)) dlsym(lib, "cap_set_flag");
        set_proc = (int (*)(cap_t)) dlsym(lib, "cap_set_proc");
        free_ = (int (*)(void *)) dlsym(lib, "cap_free");
        if (!init || !set_flag || !set_proc || !free_)
                return -ENOSYS;
        for (unsigned c = 0; c <= last; c++)
                if (keep & (UINT64_C(1) << c))
                        list[n++] = (cap_value_t) c;
        caps = init(); /* all clear */
        if (!caps)
                return -errno;
        if (n > 0 && (set_flag(caps, CAP_PERMITTED, n, list, CAP_SET) < 0 ||
                      set_flag(caps, CAP_EFFECTIVE, n, list, CAP_SET) < 0))
                r = -errno;
        if (r >= 0 && set_proc(caps) < 0)
                r = -errno;
        (void) free_(caps);
        return r;
}
#endif

static int set_caps(uint64_t keep, bool daemon) {
        int r = -ENOSYS;

#if HAVE_LIBCAP
        if (daemon)
                r = set_caps_libcap(keep);
#else
        (void) daemon;
#endif
        if (r == -ENOSYS)
                r = set_caps_raw(keep);
        if (r < 0)
                return r;
        /* one call, where libcap's cap_reset_ambient() asks about every capability first */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        return 0;
}

int caps_drop_all_but(uint64_t keep, bool bounding, bool daemon) {
        uint64_t eff = 0;
        int r;

        /* The bounding set first: dropping from it needs CAP_SETPCAP, which goes next. Without
         * CAP_SETPCAP (a unit's CapabilityBoundingSet= took it) the bounding set is the unit's
         * already. */
        (void) caps_effective(&eff);
        if (bounding && (eff & (UINT64_C(1) << CAP_SETPCAP))) {
                r = drop_bounding(keep);
                if (r < 0)
                        return r;
        }
        keep &= eff; /* capset() cannot add what we do not have */
        r = set_caps(keep, daemon);
        if (r < 0)
                return r;
        return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

int caps_effective_set(uint64_t mask, bool on) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        for (int i = 0; i < 2; i++) {
                uint32_t m = (uint32_t) (mask >> (32 * i));

                d[i].effective = on ? d[i].effective | (m & d[i].permitted) : d[i].effective & ~m;
        }
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

int caps_effective(uint64_t *ret) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        *ret = (uint64_t) d[0].effective | ((uint64_t) d[1].effective << 32);
        return 0;
}
