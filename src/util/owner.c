/* SPDX-License-Identifier: MIT */
/* A file's owner as messages name it: "user 'prometheus' (uid 108)", or "uid 4242". */
#include <pwd.h>
#include <stdio.h>

#include "util/owner.h"

void owner_name(uid_t uid, char *buf, size_t size) {
        struct passwd *pw = getpwuid(uid);

        if (pw)
                (void) snprintf(buf, size, "user '%s' (uid %u)", pw->pw_name, (unsigned) uid);
        else
                (void) snprintf(buf, size, "uid %u", (unsigned) uid);
}
