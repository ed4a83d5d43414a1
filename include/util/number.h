/* SPDX-License-Identifier: MIT */
/* Numbers an administrator or the kernel writes: plain counts, sizes with binary units, modes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

/* Decimal digits only, no sign, no spaces: -EINVAL if malformed, -ERANGE on overflow. */
int parse_u64(const char *s, uint64_t *ret);

/* As parse_u64, within [min, max]. */
int parse_uint_range(const char *s, unsigned min, unsigned max, unsigned *ret);

/* yes/no, true/false, on/off, 1/0. */
int parse_bool(const char *s, bool *ret);

/* "2M", "2MB", "2048kB", "1G", "1GB", "1048576kB", case-insensitive; a unit is required. */
int parse_page_size(const char *s, uint64_t *ret_bytes, struct error *e);

/* A count ("512") or bytes ("4G", "512M"); *ret_bytes tells which. Zero is rejected. */
int parse_count_or_bytes(const char *s, uint64_t *ret, bool *ret_bytes, struct error *e);
/* As parse_count_or_bytes(), zero accepted: a pool's target ("0", "0G"). */
int parse_count_or_bytes_or_zero(const char *s, uint64_t *ret, bool *ret_bytes, struct error *e);

/* An octal file mode, at most 0777: "0600", "640". */
int parse_file_mode(const char *s, unsigned *ret);

/* "2M", "1G", "64K": the short name of a page size used in reports. */
const char *page_size_name(uint64_t bytes, char buf[static 32]);
