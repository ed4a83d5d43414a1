/* SPDX-License-Identifier: MIT */
/* The settings table: one parser per setting whatever the source, the messages each source
 * gets, the layers' merge, and the hints for names that are nearly right. */
#include "settings/cmdline.h"
#include "settings/conf.h"
#include "settings/settings.h"
#include "fake-root.h"
#include "test.h"

static int parse(struct config *c, const char *text, struct error *e) {
        return config_parse_text(c, "test.conf", text, strlen(text), e);
}

/* Every entry is reachable from each source it names, and parses into its own field only. */
TEST(test_table) {
        for (size_t i = 0; i < settings_count; i++) {
                const struct setting *s = &settings_table[i];

                CHECK(setting_by_key(s->key) == s);
                if (s->word)
                        CHECK(setting_by_word(s->word) == s);
                CHECK(s->offset + s->size <= sizeof(struct config));
                CHECK(s->expected && *s->expected);
        }
        CHECK(setting_by_key("mode") == NULL);
        CHECK(setting_by_word("Mode") == NULL);
}

/* The same value means the same from a file, the kernel command line and an option. */
TEST(test_same_parser_everywhere) {
        static const char *const percents[] = { "90", "90%" };

        for (size_t i = 0; i < ELEMENTSOF(percents); i++) {
                struct config f = CONFIG_INIT, k = CONFIG_INIT, o = CONFIG_INIT;
                char text[64], line[64];
                struct error e = {};

                (void) snprintf(text, sizeof(text), "[Fill]\nMinPercent=%s\n", percents[i]);
                CHECK_EQ(parse(&f, text, &e), 0);
                (void) snprintf(line, sizeof(line), "hpfilld.min=%s", percents[i]);
                CHECK_EQ(cmdline_apply(line, &k, &e), 1);
                CHECK_EQ(setting_apply(setting_by_key("MinPercent"), SOURCE_OPTION, NULL, percents[i], &o, &e), 0);
                CHECK_EQ(f.min_percent, 90);
                CHECK_EQ(k.min_percent, 90);
                CHECK_EQ(o.min_percent, 90);
        }
}

TEST(test_messages_name_the_source) {
        const struct setting *s = setting_by_key("Mode");
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK(setting_apply(s, SOURCE_FILE, "a.conf:3", "fast", &c, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "a.conf:3: Mode= must be auto, sysfs or fault, not 'fast'");
        CHECK(setting_apply(s, SOURCE_CMDLINE, NULL, "fast", &c, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "kernel command line: hpfilld.mode=fast: expected auto, sysfs or fault");
        CHECK(setting_apply(s, SOURCE_OPTION, NULL, "fast", &c, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "--mode 'fast': expected auto, sysfs or fault");
        CHECK_EQ(c.mode, FILL_MODE_AUTO);
        CHECK_EQ(c.set, 0);
}

/* A later layer wins for what it set, and only that. */
TEST(test_merge) {
        struct config base = CONFIG_INIT, layer = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&base, "[Fill]\nMode=fault\nMinPercent=50\nShrink=yes\n", &e), 0);
        CHECK_EQ(setting_apply(setting_by_key("MinPercent"), SOURCE_OPTION, NULL, "70", &layer, &e), 0);
        CHECK_EQ(setting_apply(setting_by_key("Shrink"), SOURCE_OPTION, NULL, "no", &layer, &e), 0);
        config_merge_settings(&base, &layer);
        CHECK_EQ(base.mode, FILL_MODE_FAULT);
        CHECK_EQ(base.min_percent, 70);
        CHECK(!base.shrink);
}

TEST(test_did_you_mean) {
        static const struct {
                const char *text, *why;
        } cases[] = {
                { "[Pool]\nPageSise=2M\n", "unknown key 'PageSise' in [Pool]; did you mean 'PageSize'?" },
                { "[Pool]\npagesize=2M\n", "names are case-sensitive: did you mean 'PageSize'?" },
                { "[Fill]\nMinPercnet=5\n", "did you mean 'MinPercent'?" },
                { "[Fill]\nmode=auto\n", "did you mean 'Mode'?" },
                { "[Reserve]\nOwnr=kvm\n", "did you mean 'Owner'?" },
                { "[Pools]\n", "unknown section [Pools]; did you mean 'Pool'?" },
                { "[fill]\n", "names are case-sensitive: did you mean 'Fill'?" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct config c = CONFIG_INIT;
                struct error e = {};

                CHECK(parse(&c, cases[i].text, &e) < 0);
                CHECK_STR_CONTAINS(e.msg, cases[i].why);
                config_done(&c);
        }
        /* nothing close: no guess */
        struct config c = CONFIG_INIT;
        struct error e = {};
        CHECK(parse(&c, "[Fill]\nColour=blue\n", &e) < 0);
        CHECK(!strstr(e.msg, "did you mean"));
        CHECK(cmdline_apply("hpfilld.pools=2M:1", &c, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "unknown setting 'hpfilld.pools'; did you mean 'hpfilld.pool'?");
        CHECK(cmdline_apply("hpfilld.dropcaches=1", &c, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "did you mean 'hpfilld.drop_caches'?");
}

/* One run names every mistake in the file, each with its line. */
TEST(test_all_errors) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK(parse(&c,
                    "[Fill]\nMode=fast\nMinPercent=0\n[Bogus]\nKey=1\n[Pool]\nPageSize=2M\nAmount=abc\n"
                    "[Reserve]\nName=a\nMode=999\n",
                    &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "test.conf:2: Mode=");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:3: MinPercent=");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:4: unknown section [Bogus]");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:8: Amount=abc");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:11: Mode=999: must be an octal file mode such as 0640");
        /* a section with a bad line is not checked as a whole: no "has no PageSize=" for it */
        CHECK(!strstr(e.msg, "test.conf:9"));
        /* the keys of the unknown section are not reported on their own */
        CHECK(!strstr(e.msg, "test.conf:5"));
        /* and nothing applied */
        CHECK_EQ(c.mode, FILL_MODE_AUTO);
        CHECK_EQ(c.n_pools, 0);
}

/* An incomplete section does not hide the next one; a bad one causes no error in the next. */
TEST(test_errors_do_not_cascade) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK(parse(&c, "[Pool]\nAmount=1\n[Pool]\nPageSize=3M\nAmount=1\n[Reserve]\nName=a\n", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "test.conf:1: [Pool] has no PageSize=");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:4: PageSize=3M");
        CHECK_STR_CONTAINS(e.msg, "\ntest.conf:6: [Reserve] has no PageSize=");
        CHECK(parse(&c, "[Pool]\nPageSize=3M\nAmount=1\n[Pool]\nPageSize=5M\nAmount=1\n", &e) < 0);
        CHECK(!strstr(e.msg, "a second [Pool]"));
        CHECK(parse(&c, "[Fill]\nMode=bogus\nMode=fault\n", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "test.conf:3: Mode= given twice");
        CHECK_EQ(c.n_pools, 0);
}

/* Many errors: whole messages, then a count of the ones left out; long names are cut. */
TEST(test_many_errors) {
        char text[8192] = "[Fill]\n", key[400];
        struct config c = CONFIG_INIT;
        struct error e = {};
        size_t n = strlen(text);

        for (int i = 0; i < 200; i++)
                n += (size_t) snprintf(text + n, sizeof(text) - n, "Mod%d=x\n", i);
        CHECK(parse(&c, text, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "test.conf:2: unknown key 'Mod0'");
        CHECK(strstr(e.msg, " more") && strstr(e.msg, "\n... and "));
        /* every line before the count is a whole message */
        for (const char *l = e.msg; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
                CHECK(strncmp(l, "test.conf:", 10) == 0 || strncmp(l, "... and ", 8) == 0);

        memset(key, 'k', sizeof(key) - 1);
        key[sizeof(key) - 1] = 0;
        (void) snprintf(text, sizeof(text), "[Fill]\n%s=1\n[Pool]\nPageSize=2M\nAmount=abc\n", key);
        CHECK(parse(&c, text, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "test.conf:5: Amount=abc");
        CHECK(strlen(e.msg) < 600);
}

TEST(test_bom) {
        struct config c = CONFIG_INIT;
        struct error e = {};

        CHECK_EQ(parse(&c, "\xef\xbb\xbf[Pool]\nPageSize=2M\nAmount=8\n", &e), 0);
        CHECK_EQ(c.n_pools, 1);
        config_done(&c);
}

/* With --root, messages show the path really read. */
TEST(test_root_in_messages) {
        struct fake_root r;
        struct config c = CONFIG_INIT;
        struct error e = {};

        fake_root_new(&r);
        fake_write(&r, "etc/hpfilld.conf.d/50-x.conf", "[Fill]\nMode=turbo\n");
        CHECK(config_load_default(&c, r.fd, "/srv/image", &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "/srv/image/etc/hpfilld.conf.d/50-x.conf:2: Mode=");
        fake_root_free(&r);
}

int main(void) {
        RUN(test_table);
        RUN(test_same_parser_everywhere);
        RUN(test_messages_name_the_source);
        RUN(test_merge);
        RUN(test_did_you_mean);
        RUN(test_all_errors);
        RUN(test_errors_do_not_cascade);
        RUN(test_many_errors);
        RUN(test_bom);
        RUN(test_root_in_messages);
        return 0;
}
