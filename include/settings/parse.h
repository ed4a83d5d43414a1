/* SPDX-License-Identifier: MIT */
/* Parsers for what an administrator asks for: amounts, pool specs, reservation specs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/number.h"

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
        /* where it was said, for messages: "--pool 2M:1G", or in a file the Amount= line
         * ("file:line"), what the machine's nodes and memory are checked against */
        char origin[160];
        char page_size_origin[160]; /* in a file the PageSize= line; empty: @origin */
};

/* A prefaulted reservation: pages kept, zeroed, in a named hugetlbfs file. */
struct reserve_spec {
        char name[64];
        uint64_t page_size;
        uint64_t value;     /* pages, or bytes when @bytes */
        bool bytes;
        int node;           /* -1: spread over the nodes that have memory */
        char owner[64];     /* user name or uid; empty: root */
        char group[64];     /* group name or gid; empty: root */
        unsigned mode;      /* file mode, default 0600 */
        char mount[256];    /* Mount=: the hugetlbfs mount to use; empty: the mount table's first */
        char origin[160];
};

#define RESERVE_DEFAULT_MODE 0600

/* A claim: pages a consumer needs of one pool, added to the pool's target ([Claim], `hpfilld
 * claim`). One name lives in one file; its sections there differ by page size. */
struct claim_spec {
        char name[64];
        uint64_t page_size;
        struct amount amount; /* as --pool's AMOUNT; never zero */
        char origin[160];     /* the Amount= line, "file:line" */
        char page_size_origin[160];
        char file[1024];      /* the file it was read from, as messages show it */
};

int parse_amount(const char *s, struct amount *ret, struct error *e);
/* "SIZE:AMOUNT" */
int parse_pool_spec(const char *s, struct pool_spec *ret, struct error *e);

/* One pool per page size and one reservation per name, wherever they are said (--pool, [Pool],
 * hpfilld.pool=): the one of @page_size (of @name) among the @n already said, or NULL. */
const struct pool_spec *pool_spec_find(const struct pool_spec *pools, size_t n, uint64_t page_size);
const struct reserve_spec *reserve_spec_find(const struct reserve_spec *reserves, size_t n, const char *name);

/* A reservation name: 1-63 of [A-Za-z0-9_.-], not starting with '.'. 0, or -EINVAL with the
 * reason in @e. */
int check_reserve_name(const char *s, struct error *e);
/* The same rules for the name of @what ("claim"). */
int check_name(const char *s, const char *what, struct error *e);
/* What a reservation may say beyond its name, size, amount and node: [Reserve]'s Owner=, Group=,
 * Mode= and Mount=, --reserve's owner=, group=, mode= and mount=, one parser for both. */
enum reserve_attr { RESERVE_ATTR_OWNER, RESERVE_ATTR_GROUP, RESERVE_ATTR_MODE, RESERVE_ATTR_MOUNT };
/* Sets @a of @rs from @value: 0, or -EINVAL with "must be ..." in @e (the caller says where). */
int reserve_spec_set_attr(struct reserve_spec *rs, enum reserve_attr a, const char *value, struct error *e);
/* "NAME:SIZE:AMOUNT[@NODE][,owner=USER][,group=GROUP][,mode=MODE][,mount=PATH]", AMOUNT a count
 * or bytes. */
int parse_reserve_spec(const char *s, struct reserve_spec *ret, struct error *e);

const struct claim_spec *claim_spec_find(const struct claim_spec *claims, size_t n, const char *name,
                                         uint64_t page_size);
/* A claim's amount takes pages: none of it zero ("0", "0%", "node1=0"). */
bool amount_has_zero(const struct amount *a);

void amount_done(struct amount *a);
int amount_copy(struct amount *dst, const struct amount *src);
