/* SPDX-License-Identifier: MIT */
/* Tests of the configuration parser and of the order in which files apply. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings/conf.h"
#include "fake-root.h"
#include "test.h"

#define MB (UINT64_C(1024) * 1024)

static int parse(struct config *c, const char *text, struct error *e) {
        return config_parse_text(c, "test.conf", text, strlen(text), e);
}

TEST(test_good_file) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&c,
                       "# comment\n"
                       "; another\n"
                       "\n"
                       "[Fill]\n"
                       "Mode = sysfs\n"
                       "ThreadsPerNode=4\r\n"
                       "MinPercent=90\n"
                       "Shrink=yes\n"
                       "DropCaches=true\n"
                       "ReleaseOnStop=on\n"
                       "[Pool]\n"
                       "PageSize=2M\n"
                       "Amount=8G\n"
                       "[Pool]\n"
                       "  Amount=node0=4,node1=4  \n"
                       "PageSize=1G\n",
                       &e),
                 0);
        CHECK_EQ(c.mode, FILL_MODE_SYSFS);
        CHECK_EQ(c.threads_per_node, 4);
        CHECK_EQ(c.min_percent, 90);
        CHECK(c.shrink);
        CHECK(c.drop_caches);
        CHECK(c.release_on_stop);
        CHECK_EQ(c.n_pools, 2);
        CHECK_EQ(c.pools[0].page_size, 2 * MB);
        CHECK_EQ(c.pools[0].amount.kind, AMOUNT_BYTES);
        /* what depends on the machine points at its key's line, not at [Pool] (line 11) */
        CHECK(strcmp(c.pools[0].origin, "test.conf:13") == 0);
        CHECK(strcmp(c.pools[0].page_size_origin, "test.conf:12") == 0);
        CHECK(strcmp(c.pools[1].origin, "test.conf:15") == 0);
        CHECK(strcmp(c.pools[1].page_size_origin, "test.conf:16") == 0);
        CHECK_EQ(c.pools[1].page_size, 1024 * MB);
        CHECK_EQ(c.pools[1].amount.kind, AMOUNT_PER_NODE);
        CHECK_EQ(c.pools[1].amount.n_nodes, 2);
        config_done(&c);
}

TEST(test_bad_files) {
        static const struct {
                const char *text, *why;
        } bad[] = {
                { "[Fill]\nMode=fast\n", "test.conf:2: Mode=" },
                { "[Fill]\nFoo=1\n", "test.conf:2: unknown key 'Foo'" },
                { "[Fill]\nMode=auto\nMode=sysfs\n", "test.conf:3: Mode= given twice" },
                { "[Fill]\n[Fill]\n", "test.conf:2: a second [Fill]" },
                { "[Fill]\nMinPercent=0\n", "test.conf:2: MinPercent=" },
                { "[Fill]\nMinPercent=101\n", "test.conf:2: MinPercent=" },
                { "[Fill]\nThreadsPerNode=0\n", "test.conf:2: ThreadsPerNode=" },
                { "[Fill]\nShrink=maybe\n", "test.conf:2: Shrink=" },
                { "[Fill]\nReleaseOnStop=2\n", "test.conf:2: ReleaseOnStop=" },
                { "[Fill]\nDropCaches=sometimes\n", "test.conf:2: DropCaches=" },
                { "[Fill]\nDropCaches=yes\nDropCaches=no\n", "test.conf:3: DropCaches= given twice" },
                { "[Fill\n", "test.conf:1: bad section header" },
                { "[Pools]\n", "test.conf:1: unknown section [Pools]" },
                { "Mode=auto\n", "test.conf:1: 'Mode=' outside of a section" },
                { "[Fill]\njunk\n", "test.conf:2: expected Key=Value" },
                { "[Fill]\n=1\n", "test.conf:2: empty key" },
                { "[Pool]\nPageSize=2M\n", "test.conf:1: [Pool] has no Amount=" },
                { "[Pool]\nAmount=1G\n", "test.conf:1: [Pool] has no PageSize=" },
                { "[Pool]\nPageSize=3M\nAmount=1G\n", "test.conf:2: PageSize=3M" },
                { "[Pool]\nPageSize=2M\nAmount=abc\n", "test.conf:3: Amount=abc" },
                { "[Pool]\nPageSize=2M\nAmount=101%\n", "over 100" },
                { "[Pool]\nPageSize=2M\nAmount=1G\nAmount=2G\n", "test.conf:4: Amount= given twice" },
                { "[Pool]\nPageSize=2M\nAmount=1G\n[Pool]\nPageSize=2048kB\nAmount=1\n",
                  "test.conf:4: a second [Pool] for page size 2M" },
                { "[Pool]\nPageSize=2M\nAmount=1G\nColor=blue\n", "test.conf:4: unknown key 'Color' in [Pool]" },
                { "[Fill]\nMode=auto # comment\n", "test.conf:2: Mode=" },
                { "[Fill]\n\xff\xfe\n", "test.conf:2: not a text file (invalid UTF-8)" },
                { "[Fill]\n\xc0\xaf\n", "invalid UTF-8" },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct config c = CONFIG_INIT;
                struct error e = {};

                CHECK(parse(&c, bad[i].text, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "case %zu: '%s'\n", i, e.msg);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
                /* a file is applied whole or not at all */
                CHECK_EQ(c.n_pools, 0);
                CHECK_EQ(c.mode, FILL_MODE_AUTO);
                config_done(&c);
        }

        /* NUL bytes: a binary file */
        struct config c = CONFIG_INIT;
        struct error e = {};
        CHECK(config_parse_text(&c, "bin", "[Fill]\n\0x", 9, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "bin:2: not a text file (NUL byte)");
}

TEST(test_utf8_ok) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&c, "# Größe: 2 MiB — ok\n[Fill]\n", &e), 0);
        config_done(&c);
}

TEST(test_dropins) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};

        fake_root_new(&r);
        fake_write(&r, "etc/hpfilld.conf", "[Fill]\nMinPercent=50\n[Pool]\nPageSize=2M\nAmount=100\n");
        /* 20-x in /usr/lib is overridden by /etc's 20-x; 10-a from /run applies first. */
        fake_write(&r, "usr/lib/hpfilld.conf.d/20-x.conf", "[Fill]\nMinPercent=10\n");
        fake_write(&r, "etc/hpfilld.conf.d/20-x.conf", "[Pool]\nPageSize=2M\nAmount=300\n");
        fake_write(&r, "run/hpfilld.conf.d/10-a.conf", "[Fill]\nMinPercent=70\n[Pool]\nPageSize=2M\nAmount=200\n");
        fake_write(&r, "run/hpfilld.conf.d/30-z.conf", "[Pool]\nPageSize=1G\nAmount=1\n");
        fake_write(&r, "etc/hpfilld.conf.d/README", "not a drop-in\n");
        fake_write(&r, "etc/hpfilld.conf.d/.hidden.conf", "garbage\n");

        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(c.min_percent, 70);
        CHECK_EQ(c.n_pools, 2);
        CHECK_EQ(c.pools[0].page_size, 2 * MB);
        CHECK_EQ(c.pools[0].amount.value, 300);
        CHECK_STR_CONTAINS(c.pools[0].origin, "/etc/hpfilld.conf.d/20-x.conf:3");
        CHECK_EQ(c.pools[1].amount.value, 1);
        config_done(&c);

        /* a bad drop-in names itself */
        fake_write(&r, "run/hpfilld.conf.d/40-bad.conf", "[Fill]\nMode=turbo\n");
        c = (struct config) CONFIG_INIT;
        CHECK(config_load_default(&c, r.fd, "", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "/run/hpfilld.conf.d/40-bad.conf:2");
        config_done(&c);

        /* a missing explicit file is an error; a directory too */
        c = (struct config) CONFIG_INIT;
        CHECK(config_load_file(&c, r.fd, "etc/nope.conf", "/etc/nope.conf", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "/etc/nope.conf: cannot read");
        CHECK(config_load_file(&c, r.fd, "etc", "/etc", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "is a directory");
        config_done(&c);
        fake_root_free(&r);
}

/* Masked drop-ins (a symlink to /dev/null, or an empty file) are skipped and mask the same
 * name in lower directories; anything but a regular file is refused at once, never waited on. */
TEST(test_masked_and_special) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};

        fake_root_new(&r);
        fake_write(&r, "usr/lib/hpfilld.conf.d/50-x.conf", "[Pool]\nPageSize=2M\nAmount=5\n");
        fake_write(&r, "etc/hpfilld.conf.d/keep", "");
        CHECK(symlinkat("/dev/null", r.fd, "etc/hpfilld.conf.d/50-x.conf") == 0);
        fake_write(&r, "usr/lib/hpfilld.conf.d/60-y.conf", "[Pool]\nPageSize=1G\nAmount=1\n");
        fake_write(&r, "run/hpfilld.conf.d/60-y.conf", "");
        fake_write(&r, "usr/lib/hpfilld.conf.d/70-z.conf", "[Fill]\nMinPercent=60\n");
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(c.n_pools, 0);
        CHECK_EQ(c.min_percent, 60);
        config_done(&c);

        /* the main file masked */
        CHECK(symlinkat("/dev/null", r.fd, "etc/hpfilld.conf") == 0);
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        config_done(&c);
        /* ...in a tree whose dev/null is a file with pools in it: masked all the same, not read */
        fake_write(&r, "dev/null", "[Pool]\nPageSize=2M\nAmount=7\n");
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(c.n_pools, 0);
        config_done(&c);
        CHECK(unlinkat(r.fd, "dev/null", 0) == 0);

        /* a FIFO: as a drop-in and as --config, refused with what it is */
        CHECK(mkfifoat(r.fd, "etc/hpfilld.conf.d/80-fifo.conf", 0644) == 0);
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), -EBADFD);
        CHECK_STR_CONTAINS(e.msg, "/etc/hpfilld.conf.d/80-fifo.conf: not a regular file (a FIFO), refused");
        CHECK_EQ(config_load_file(&c, r.fd, "etc/hpfilld.conf.d/80-fifo.conf", "fifo.conf", &e), -EBADFD);
        CHECK_STR_CONTAINS(e.msg, "fifo.conf: not a regular file (a FIFO), refused");
        /* a link to a device other than /dev/null: the tree's, never the host's (it has none) */
        CHECK(symlinkat("/dev/zero", r.fd, "zero.conf") == 0);
        CHECK_EQ(config_load_file(&c, r.fd, "zero.conf", "zero.conf", &e), -ENOENT);
        CHECK_STR_CONTAINS(e.msg, "zero.conf: cannot read: No such file or directory");
        /* one followed inside the tree, to a FIFO of the tree's */
        CHECK(symlinkat("/etc/hpfilld.conf.d/80-fifo.conf", r.fd, "fifo-link.conf") == 0);
        CHECK_EQ(config_load_file(&c, r.fd, "fifo-link.conf", "fifo-link.conf", &e), -EBADFD);
        CHECK_STR_CONTAINS(e.msg, "fifo-link.conf: not a regular file (a FIFO), refused");
        config_done(&c);
        fake_root_free(&r);
}

TEST(test_no_files) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};

        fake_root_new(&r);
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(c.n_pools, 0);
        CHECK_EQ(c.min_percent, 100);
        fake_root_free(&r);
}

TEST(test_reserve_sections) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&c,
                       "[Reserve]\nName=vm1\nPageSize=2M\nAmount=1G\nNode=1\nOwner=libvirt-qemu\nGroup=kvm\nMode=0640\n"
                       "[Reserve]\nName=vm2\nPageSize=1G\nAmount=2\nMount=/dev/hugepages1G\n",
                       &e),
                 0);
        CHECK_EQ(c.n_reserves, 2);
        CHECK(strcmp(c.reserves[0].name, "vm1") == 0);
        CHECK_EQ(c.reserves[0].node, 1);
        CHECK_EQ(c.reserves[0].mode, 0640);
        CHECK(strcmp(c.reserves[0].owner, "libvirt-qemu") == 0);
        CHECK(strcmp(c.reserves[0].group, "kvm") == 0);
        CHECK_STR_CONTAINS(c.reserves[0].origin, "test.conf:1");
        CHECK_EQ(c.reserves[1].node, -1);
        CHECK_EQ(c.reserves[1].mode, 0600);
        CHECK(strcmp(c.reserves[0].mount, "") == 0);
        CHECK(strcmp(c.reserves[1].mount, "/dev/hugepages1G") == 0);
        /* a later file replaces a reservation of the same name */
        CHECK_EQ(parse(&c, "[Reserve]\nName=vm1\nPageSize=2M\nAmount=64\n", &e), 0);
        CHECK_EQ(c.n_reserves, 2);
        CHECK_EQ(c.reserves[0].value, 64);
        config_done(&c);

        static const struct {
                const char *text, *why;
        } bad[] = {
                { "[Reserve]\nPageSize=2M\nAmount=1\n", "test.conf:1: [Reserve] has no Name=" },
                { "[Reserve]\nName=a\nAmount=1\n", "has no PageSize=" },
                { "[Reserve]\nName=a\nPageSize=2M\n", "has no Amount=" },
                { "[Reserve]\nName=a/b\n", "test.conf:2: Name=a/b: 'a/b' is not a reservation name (only A-Z a-z 0-9 _ . - are taken)" },
                { "[Reserve]\nName=.x\n", "test.conf:2: Name=.x: '.x' is not a reservation name (a leading '.' would hide its file)" },
                { "[Reserve]\nName=a\nMode=999\n", "test.conf:3: Mode=999: must be an octal file mode" },
                { "[Reserve]\nName=a\nMount=dev/hugepages\n", "test.conf:3: Mount=dev/hugepages: must be the absolute path of a hugetlbfs mount" },
                { "[Reserve]\nName=a\nMount=\n", "test.conf:3: Mount=: must be the absolute path" },
                { "[Reserve]\nName=a\nNode=x\n", "test.conf:3: bad value for Node" },
                { "[Reserve]\nName=a\nAmount=5%\n", "test.conf:3: Amount=5%" },
                { "[Reserve]\nName=a\nSize=1\n", "unknown key 'Size' in [Reserve]" },
                { "[Reserve]\nName=a\nPageSize=2M\nAmount=1\n[Reserve]\nName=a\nPageSize=2M\nAmount=2\n",
                  "test.conf:5: a second [Reserve] named 'a'" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct config c2 = CONFIG_INIT;

                e.msg[0] = 0;
                CHECK(parse(&c2, bad[i].text, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "case %zu: %s\n", i, e.msg);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
                CHECK_EQ(c2.n_reserves, 0);
                config_done(&c2);
        }
}

/* The service manager's credential hpfilld.conf applies after every file; none is fine; a bad one
 * names itself as the credential. */
TEST(test_credential) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};
        char creds[300];

        fake_root_new(&r);
        fake_write(&r, "etc/hpfilld.conf", "[Fill]\nMinPercent=50\n[Pool]\nPageSize=2M\nAmount=100\n");
        fake_write(&r, "etc/hpfilld.conf.d/99-last.conf", "[Pool]\nPageSize=2M\nAmount=200\n");
        (void) snprintf(creds, sizeof(creds), "%s/creds", r.path);

        /* no directory, no file in it: the files alone */
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(config_load_credential(&c, creds, &e), 0);
        CHECK_EQ(config_load_credential(&c, NULL, &e), 0);
        CHECK_EQ(c.pools[0].amount.value, 200);
        CHECK_EQ(e.msg[0], 0);
        fake_write(&r, "creds/other", "[Fill]\nMode=turbo\n");
        CHECK_EQ(config_load_credential(&c, creds, &e), 0);
        CHECK_EQ(e.msg[0], 0);
        config_done(&c);

        /* the credential over the last drop-in */
        fake_write(&r, "creds/hpfilld.conf", "[Fill]\nMinPercent=80\n[Pool]\nPageSize=2M\nAmount=300\n");
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), 0);
        CHECK_EQ(config_load_credential(&c, creds, &e), 0);
        CHECK_EQ(c.min_percent, 80);
        CHECK_EQ(c.n_pools, 1);
        CHECK_EQ(c.pools[0].amount.value, 300);
        CHECK_STR_CONTAINS(c.pools[0].origin, "/creds/hpfilld.conf (credential):5");
        config_done(&c);

        /* a bad one is an error that says where */
        fake_write(&r, "creds/hpfilld.conf", "[Fill]\nMode=turbo\n");
        c = (struct config) CONFIG_INIT;
        CHECK(config_load_credential(&c, creds, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "/creds/hpfilld.conf (credential):2");
        config_done(&c);
        fake_root_free(&r);
}

/* A text of @n [Reserve] sections r0, r1... */
static char *reserves_text(unsigned from, unsigned n) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(f);
        for (unsigned i = from; i < from + n; i++)
                fprintf(f, "[Reserve]\nName=r%u\nPageSize=2M\nAmount=1\n", i);
        CHECK(fclose(f) == 0);
        return text;
}

/* The bounds: counts, not timings. One file of CONFIG_SECTIONS_MAX sections is taken; one more
 * is an error at its line, the configuration unchanged; files together are bounded the same;
 * drop-ins beyond CONFIG_DROPINS_MAX are refused by name. */
TEST(test_bounds) {
        struct config c = CONFIG_INIT;
        struct error e = {};
        struct fake_root r;
        char *text, name[64];

        text = reserves_text(0, CONFIG_SECTIONS_MAX);
        CHECK_EQ(parse(&c, text, &e), 0);
        CHECK_EQ(c.n_reserves, CONFIG_SECTIONS_MAX);
        free(text);
        config_done(&c);

        c = (struct config) CONFIG_INIT;
        text = reserves_text(0, CONFIG_SECTIONS_MAX + 10);
        CHECK_EQ(parse(&c, text, &e), -E2BIG);
        CHECK_STR_CONTAINS(e.msg, "test.conf:4097: more than 1024 sections in one file (the most hpfilld takes)");
        CHECK_EQ(c.n_reserves, 0);
        free(text);
        config_done(&c);

        /* two files: the second overriding the first's is fine, adding beyond the bound is not */
        c = (struct config) CONFIG_INIT;
        text = reserves_text(0, 1000);
        CHECK_EQ(parse(&c, text, &e), 0);
        free(text);
        text = reserves_text(0, 1000);
        CHECK_EQ(parse(&c, text, &e), 0);
        free(text);
        text = reserves_text(1000, 25);
        CHECK_EQ(parse(&c, text, &e), -E2BIG);
        CHECK_STR_CONTAINS(e.msg, "test.conf: with this file, more than 1024 [Pool], [Reserve] and [Claim] sections in all the files together");
        CHECK_EQ(c.n_reserves, 1000);
        free(text);
        config_done(&c);

        /* files that repeat the same names: bounded all the same, by the sections they hold */
        c = (struct config) CONFIG_INIT;
        for (unsigned i = 0; i < CONFIG_SECTIONS_ALL_MAX / 1000; i++) {
                text = reserves_text(0, 1000);
                CHECK_EQ(parse(&c, text, &e), 0);
                free(text);
        }
        text = reserves_text(0, 1000);
        CHECK_EQ(parse(&c, text, &e), -E2BIG);
        /* 4000 before it: its 97th header, at line 4 * 96 + 1 */
        CHECK_STR_CONTAINS(e.msg, "test.conf:385: more than 4096 sections in all the files together (the most hpfilld takes)");
        CHECK_EQ(c.n_reserves, 1000);
        CHECK_EQ(c.n_sections, 4000);
        free(text);
        config_done(&c);

        fake_root_new(&r);
        for (unsigned i = 0; i <= CONFIG_DROPINS_MAX; i++) {
                snprintf(name, sizeof(name), "etc/hpfilld.conf.d/%04u.conf", i);
                fake_write(&r, name, "[Fill]\nMinPercent=50\n");
        }
        c = (struct config) CONFIG_INIT;
        CHECK_EQ(config_load_default(&c, r.fd, "", &e), -E2BIG);
        CHECK_STR_CONTAINS(e.msg, "more than 256 drop-ins (the most hpfilld takes)");
        config_done(&c);
        fake_root_free(&r);
}

TEST(test_claim_sections) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&c,
                       "[Claim]\n"
                       "Name=vm1\n"
                       "PageSize=2M\n"
                       "Amount=node0=64M,node1=32\n"
                       "[Claim]\n"
                       "Name=vm1\n"
                       "PageSize=1G\n"
                       "Amount=2\n",
                       &e),
                 0);
        CHECK_EQ(c.n_claims, 2);
        CHECK(strcmp(c.claims[0].name, "vm1") == 0);
        CHECK_EQ(c.claims[0].page_size, 2 * MB);
        CHECK_EQ(c.claims[0].amount.kind, AMOUNT_PER_NODE);
        CHECK_EQ(c.claims[0].amount.n_nodes, 2);
        CHECK(strcmp(c.claims[0].origin, "test.conf:4") == 0);
        CHECK(strcmp(c.claims[0].file, "test.conf") == 0);
        CHECK_EQ(c.claims[1].page_size, 1024 * MB);
        CHECK_EQ(c.n_pools, 0);

        /* one name, one file: another file naming vm1 is refused whole, with both places */
        static const char other[] = "[Claim]\nName=vm1\nPageSize=4M\nAmount=1\n[Pool]\nPageSize=2M\nAmount=1\n";
        CHECK_EQ(config_parse_text(&c, "other.conf", other, strlen(other), &e), -EINVAL);
        CHECK_STR_CONTAINS(e.msg, "other.conf:4: a claim named 'vm1' is in test.conf already");
        CHECK_EQ(c.n_claims, 2);
        CHECK_EQ(c.n_pools, 0);
        /* another name in another file adds */
        CHECK_EQ(parse(&c, "[Claim]\nName=db\nPageSize=2M\nAmount=10%\n", &e), 0);
        CHECK_EQ(c.n_claims, 3);

        CHECK_EQ(config_drop_claim(&c, "vm1"), 2);
        CHECK_EQ(c.n_claims, 1);
        config_done(&c);

        static const struct {
                const char *text, *msg;
        } bad[] = {
                { "[Claim]\nName=a\nPageSize=2M\nAmount=1\n[Claim]\nName=a\nPageSize=2M\nAmount=2\n",
                  "test.conf:5: a second [Claim] named 'a' for page size 2M" },
                { "[Claim]\nPageSize=2M\nAmount=1\n", "test.conf:1: [Claim] has no Name=" },
                { "[Claim]\nName=a\nAmount=1\n", "test.conf:1: [Claim] has no PageSize=" },
                { "[Claim]\nName=a\nPageSize=2M\n", "test.conf:1: [Claim] has no Amount=" },
                { "[Claim]\nName=.a\nPageSize=2M\nAmount=1\n", "a leading '.'" },
                { "[Claim]\nName=../a\nPageSize=2M\nAmount=1\n", "'../a' is not a claim name (only A-Z a-z 0-9 _ . - are taken)" },
                { "[Claim]\nName=a/b\nPageSize=2M\nAmount=1\n", "test.conf:2:" },
                { "[Claim]\nName=a\nPageSize=2M\nAmount=0\n", "test.conf:4: Amount=0: a claim of zero pages" },
                { "[Claim]\nName=a\nPageSize=2M\nAmount=node0=0,node1=4\n", "a claim of zero pages" },
                { "[Claim]\nName=a\nPageSize=2M\nAmount=lots\n", "test.conf:4:" },
                { "[Claim]\nName=a\nPageSize=3M\nAmount=1\n", "test.conf:3:" },
                { "[Claim]\nName=a\nPagesize=2M\n", "did you mean 'PageSize'" },
                { "[Claims]\n", "did you mean 'Claim'" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                c = (struct config) CONFIG_INIT;
                e = (struct error) {};
                CHECK(parse(&c, bad[i].text, &e) < 0);
                CHECK_STR_CONTAINS(e.msg, bad[i].msg);
                CHECK_EQ(c.n_claims, 0);
                config_done(&c);
        }
}

int main(void) {
        RUN(test_claim_sections);
        RUN(test_credential);
        RUN(test_bounds);
        RUN(test_reserve_sections);
        RUN(test_good_file);
        RUN(test_bad_files);
        RUN(test_utf8_ok);
        RUN(test_dropins);
        RUN(test_masked_and_special);
        RUN(test_no_files);
        return 0;
}
