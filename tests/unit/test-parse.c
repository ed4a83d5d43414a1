/* SPDX-License-Identifier: MIT */
/* Table tests of the size, amount and pool-spec parsers, every rejection included. */
#include "settings/parse.h"
#include "test.h"

#define KB UINT64_C(1024)
#define MB (KB * 1024)
#define GB (MB * 1024)

TEST(test_page_sizes) {
        static const struct {
                const char *in;
                uint64_t bytes;
        } good[] = {
                { "2M", 2 * MB },       { "2MB", 2 * MB }, { "2048kB", 2 * MB }, { "2048KB", 2 * MB },
                { "2mb", 2 * MB },      { "1G", GB },      { "1GB", GB },        { "1gb", GB },
                { "1048576kB", GB },    { "64K", 64 * KB }, { "16GiB", 16 * GB },
        };
        static const struct {
                const char *in, *why;
        } bad[] = {
                { "", "not a page size" },       { "2", "needs a unit" },       { "2X", "not a page size" },
                { "M", "not a page size" },      { "-2M", "not a page size" },  { "3M", "power of two" },
                { "1K", "power of two" },        { "2M ", "not a page size" },  { " 2M", "not a page size" },
                { "99999999999999999999M", "out of range" },                    { "17179869184G", "out of range" },
                { "2MM", "not a page size" },
        };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                uint64_t v = 0;
                struct error e = {};
                CHECK_EQ(parse_page_size(good[i].in, &v, &e), 0);
                CHECK_EQ(v, good[i].bytes);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint64_t v = 7;
                struct error e = {};
                CHECK(parse_page_size(bad[i].in, &v, &e) < 0);
                CHECK_EQ(v, 7);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
        }
}

TEST(test_amounts) {
        static const struct {
                const char *in;
                enum amount_kind kind;
                uint64_t value;
        } good[] = {
                { "512", AMOUNT_PAGES, 512 },       { "4G", AMOUNT_BYTES, 4 * GB },
                { "512M", AMOUNT_BYTES, 512 * MB }, { "25%", AMOUNT_PERCENT, 25 },
                { "100%", AMOUNT_PERCENT, 100 },    { "1", AMOUNT_PAGES, 1 },
                { "2T", AMOUNT_BYTES, 2048 * GB },
                /* zero: a pool given back (the planner wants --shrink for it) */
                { "0", AMOUNT_PAGES, 0 },           { "0G", AMOUNT_BYTES, 0 },
                { "0%", AMOUNT_PERCENT, 0 },        { "node0=0", AMOUNT_PER_NODE, 0 },
        };
        static const struct {
                const char *in, *why;
        } bad[] = {
                { "", "empty" },
                { "-5", "negative" },
                { "101%", "over 100" },
                { "%", "not a percentage" },
                { "5.5%", "not a percentage" },
                { "abc", "not an amount" },
                { "12x", "not an amount" },
                { "18446744073709551616", "too large" },
                { "17179869184G", "too large" },
                { "99999999999999999999999%", "out of range" },
                { "node", "not nodeN=AMOUNT" },
                { "node0", "not nodeN=AMOUNT" },
                { "node0=", "empty" },
                { "nodeX=4", "not a node name" },
                { "node0=4,", "empty entry" },
                { "node0=4,,node1=2", "empty entry" },
                { "node0=4,node0=2", "listed twice" },
                { "node0=4,node1=abc", "node1" },
                { "node99999999=1", "not a node name" },
                { "node0=-1", "negative" },
        };
        /* a message never suggests a form it has just refused */
        static const struct {
                const char *in, *refused;
        } no_hint[] = {
                { "node0=50%", "a percentage or nodeN" },
                { "node0=4,node1=abc", "a percentage or nodeN" },
        };

        for (size_t i = 0; i < ELEMENTSOF(no_hint); i++) {
                struct amount a = {};
                struct error e = {};
                CHECK(parse_amount(no_hint[i].in, &a, &e) < 0);
                if (strstr(e.msg, no_hint[i].refused))
                        fprintf(stderr, "input '%s': message '%s'\n", no_hint[i].in, e.msg);
                CHECK(!strstr(e.msg, no_hint[i].refused));
        }
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                struct amount a = {};
                struct error e = {};
                CHECK_EQ(parse_amount(good[i].in, &a, &e), 0);
                CHECK_EQ(a.kind, good[i].kind);
                CHECK_EQ(a.value, good[i].value);
                amount_done(&a);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct amount a = {};
                struct error e = {};
                CHECK(parse_amount(bad[i].in, &a, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "input '%s': message '%s'\n", bad[i].in, e.msg);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
                CHECK(a.nodes == NULL);
        }
}

TEST(test_per_node) {
        struct amount a = {};
        struct error e = {};

        CHECK_EQ(parse_amount("node1=4G,node0=512", &a, &e), 0);
        CHECK_EQ(a.kind, AMOUNT_PER_NODE);
        CHECK_EQ(a.n_nodes, 2);
        CHECK_EQ(a.nodes[0].node, 1);
        CHECK(a.nodes[0].bytes);
        CHECK_EQ(a.nodes[0].value, 4 * GB);
        CHECK_EQ(a.nodes[1].node, 0);
        CHECK(!a.nodes[1].bytes);
        CHECK_EQ(a.nodes[1].value, 512);

        struct amount b;
        CHECK_EQ(amount_copy(&b, &a), 0);
        CHECK(b.nodes != a.nodes);
        CHECK_EQ(b.nodes[1].value, 512);
        amount_done(&a);
        amount_done(&b);
}

TEST(test_pool_spec) {
        struct pool_spec s = {};
        struct error e = {};

        CHECK_EQ(parse_pool_spec("2M:1G", &s, &e), 0);
        CHECK_EQ(s.page_size, 2 * MB);
        CHECK_EQ(s.amount.kind, AMOUNT_BYTES);
        CHECK_EQ(s.amount.value, GB);
        CHECK_STR_CONTAINS(s.origin, "--pool 2M:1G");

        CHECK(parse_pool_spec("2M", &s, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "SIZE:AMOUNT");
        CHECK(parse_pool_spec("3M:1G", &s, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "power of two");
        CHECK(parse_pool_spec("2M:", &s, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "empty");
        CHECK(parse_pool_spec("2M:1G:3", &s, &e) < 0);
        CHECK(parse_pool_spec(":1G", &s, &e) < 0);
}

TEST(test_numbers) {
        uint64_t v;
        unsigned u;
        bool b;

        CHECK_EQ(parse_u64("18446744073709551615", &v), 0);
        CHECK_EQ(v, UINT64_MAX);
        CHECK_EQ(parse_u64("18446744073709551616", &v), -ERANGE);
        CHECK_EQ(parse_u64("+1", &v), -EINVAL);
        CHECK_EQ(parse_u64("1 ", &v), -EINVAL);
        CHECK_EQ(parse_u64("", &v), -EINVAL);
        CHECK_EQ(parse_uint_range("100", 1, 100, &u), 0);
        CHECK_EQ(u, 100);
        CHECK_EQ(parse_uint_range("0", 1, 100, &u), -ERANGE);
        CHECK_EQ(parse_uint_range("101", 1, 100, &u), -ERANGE);
        CHECK_EQ(parse_bool("Yes", &b), 0);
        CHECK(b);
        CHECK_EQ(parse_bool("off", &b), 0);
        CHECK(!b);
        CHECK_EQ(parse_bool("maybe", &b), -EINVAL);
}

TEST(test_page_size_name) {
        char buf[32];

        CHECK(strcmp(page_size_name(2 * MB, buf), "2M") == 0);
        CHECK(strcmp(page_size_name(GB, buf), "1G") == 0);
        CHECK(strcmp(page_size_name(64 * KB, buf), "64K") == 0);
        CHECK(strcmp(page_size_name(16 * GB, buf), "16G") == 0);
}

TEST(test_reserve_spec) {
        struct reserve_spec r;
        struct error e = {};
        unsigned mode;

        CHECK_EQ(parse_reserve_spec("vm1:2M:2G@0", &r, &e), 0);
        CHECK(strcmp(r.name, "vm1") == 0);
        CHECK_EQ(r.page_size, 2 * MB);
        CHECK(r.bytes);
        CHECK_EQ(r.value, 2 * GB);
        CHECK_EQ(r.node, 0);
        CHECK_EQ(r.mode, 0600);
        CHECK_STR_CONTAINS(r.origin, "--reserve vm1:2M:2G@0");
        CHECK_EQ(parse_reserve_spec("db.buf-2:1G:4@node3", &r, &e), 0);
        CHECK_EQ(r.node, 3);
        CHECK(!r.bytes);
        CHECK_EQ(parse_reserve_spec("x:2M:10", &r, &e), 0);
        CHECK_EQ(r.node, -1);
        CHECK(!*r.owner && !*r.group && !*r.mount);
        /* owner, group, mode and mount after the first comma, in any order, as [Reserve] takes them */
        CHECK_EQ(parse_reserve_spec("vm1:2M:2G@node0,owner=libvirt-qemu,group=kvm,mode=0660", &r, &e), 0);
        CHECK(strcmp(r.owner, "libvirt-qemu") == 0);
        CHECK(strcmp(r.group, "kvm") == 0);
        CHECK_EQ(r.mode, 0660);
        CHECK_EQ(r.node, 0);
        CHECK_EQ(r.value, 2 * GB);
        CHECK_EQ(parse_reserve_spec("vm2:2M:8,mount=/mnt/huge,mode=640,owner=107", &r, &e), 0);
        CHECK(strcmp(r.mount, "/mnt/huge") == 0);
        CHECK(strcmp(r.owner, "107") == 0);
        CHECK(!*r.group);
        CHECK_EQ(r.mode, 0640);
        CHECK_EQ(r.node, -1);

        static const struct {
                const char *in, *why;
        } bad[] = {
                { "vm1", "NAME:SIZE:AMOUNT" },      { "vm1:2M", "NAME:SIZE:AMOUNT" },
                { ":2M:1G", "reservation name" },   { ".x:2M:1G", "reservation name" },
                { "a/b:2M:1G", "reservation name" }, { "vm1:3M:1G", "power of two" },
                { "vm1:2M:0", "zero" },             { "vm1:2M:1G@", "not a node" },
                { "vm1:2M:1G@x", "not a node" },     { "vm1:2M:25%", "not an amount" },
                { "vm1:2M:", "empty" },
                { "vm1:2M:1,", "not KEY=VALUE" },   { "vm1:2M:1,owner", "not KEY=VALUE" },
                { "vm1:2M:1,grop=kvm", "did you mean 'group'" }, { "vm1:2M:1,uid=1", "unknown key 'uid'" },
                { "vm1:2M:1,mode=0999", "mode=0999: must be an octal file mode" },
                { "vm1:2M:1,owner=", "owner=: must be a user name" },
                { "vm1:2M:1,group=a,group=b", "group= given twice" },
                { "vm1:2M:1,mount=huge", "mount=huge: must be the absolute path" },
                { "vm1,owner=a:2M:1", "NAME:SIZE:AMOUNT" },
                { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:2M:1", "reservation name" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                e.msg[0] = 0;
                CHECK(parse_reserve_spec(bad[i].in, &r, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "%s: %s\n", bad[i].in, e.msg);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
        }

        CHECK_EQ(parse_file_mode("0640", &mode), 0);
        CHECK_EQ(mode, 0640);
        CHECK_EQ(parse_file_mode("600", &mode), 0);
        CHECK_EQ(mode, 0600);
        CHECK(parse_file_mode("0800", &mode) < 0);
        CHECK(parse_file_mode("1777", &mode) < 0);
        CHECK(parse_file_mode("", &mode) < 0);
        CHECK(parse_file_mode("06000", &mode) < 0);
}

/* Every node id once, then the first again: all of them checked, the last entry caught. */
TEST(test_long_node_list) {
        char *list = malloc(65536 * 16);
        struct amount a = {};
        struct error e = {};
        size_t n = 0;

        CHECK(list);
        for (unsigned node = 0; node <= 65535; node++)
                n += (size_t) sprintf(list + n, "%snode%u=1", node ? "," : "", node);
        CHECK_EQ(parse_amount(list, &a, &e), 0);
        CHECK_EQ(a.n_nodes, 65536);
        amount_done(&a);
        (void) sprintf(list + n, ",node0=2");
        CHECK_EQ(parse_amount(list, &a, &e), -EINVAL);
        CHECK_STR_CONTAINS(e.msg, "node0 is listed twice");
        free(list);
}

int main(void) {
        RUN(test_reserve_spec);
        RUN(test_page_sizes);
        RUN(test_amounts);
        RUN(test_per_node);
        RUN(test_long_node_list);
        RUN(test_pool_spec);
        RUN(test_numbers);
        RUN(test_page_size_name);
        return 0;
}
