/* SPDX-License-Identifier: MIT */
/* The --root directory as messages show it before the paths below it. */
#include <limits.h>
#include <string.h>

#include "util/shown.h"

static char root_shown[PATH_MAX];

void shown_root_set(const char *root) {
        size_t n = strlen(root);

        if (n >= sizeof(root_shown))
                n = sizeof(root_shown) - 1;
        memcpy(root_shown, root, n);
        while (n > 0 && root_shown[n - 1] == '/')
                n--;
        root_shown[n] = 0;
}

const char *shown_root(void) {
        return root_shown;
}
