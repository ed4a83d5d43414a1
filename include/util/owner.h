/* SPDX-License-Identifier: MIT */
/* A file's owner as messages name it: "user 'prometheus' (uid 108)", or "uid 4242". */
#pragma once

#include <stddef.h>
#include <sys/types.h>

void owner_name(uid_t uid, char *buf, size_t size);
