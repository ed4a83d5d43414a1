/* SPDX-License-Identifier: MIT */
/* Parsers for the values an administrator types: numbers, sizes, amounts, pool specs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum amount_kind {
        AMOUNT_PAGES,    /* "512": a page count, spread over the nodes */
        AMOUNT_BYTES,    /* "4G": bytes, spread over the nodes */
        AMOUNT_PERCENT,  /* "25%": a share of each node's memory */
        AMOUNT_PER_NODE, /* "node0=4G,node1=512" */
};

struct node_amount {
        unsigned node;
        bool bytes;     /* value is bytes, else pages */
        uint64_t value;
};

struct amount {
        enum amount_kind kind;
        uint64_t value; /* pages, bytes or percent; unused for AMOUNT_PER_NODE */
        struct node_amount *nodes;
        size_t n_nodes;
};

struct pool_spec {
        uint64_t page_size; /* bytes */
        struct amount amount;
        char origin[160]; /* where it was said, for messages: "--pool 2M:1G", "file:line" */
};

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
int parse_amount(const char *s, struct amount *ret, struct error *e);
/* "SIZE:AMOUNT" */
int parse_pool_spec(const char *s, struct pool_spec *ret, struct error *e);

void amount_done(struct amount *a);
int amount_copy(struct amount *dst, const struct amount *src);

/* "2M", "1G", "64K": the short name of a page size used in reports. */
const char *page_size_name(uint64_t bytes, char buf[static 32]);
