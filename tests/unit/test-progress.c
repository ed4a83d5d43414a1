/* SPDX-License-Identifier: MIT */
/* Tests of the terminal progress: the line per pool, and the redraw in place. */
#include "service/progress.h"
#include "test.h"

#define MB (UINT64_C(1024) * 1024)

TEST(test_line) {
        char buf[256];

        /* 512 pages of 2 MiB in 0.5 s: 2 GiB/s; 1536 more pages (3 GiB) take 1.5 s */
        progress_line(buf, sizeof(buf), 2 * MB, 512, 2048, 500000000);
        CHECK(strcmp(buf, "2M pool: 512/2048 pages, 2.0 GiB/s, 2 s left") == 0);
        progress_line(buf, sizeof(buf), 1024 * MB, 0, 4, 300000000);
        CHECK(strcmp(buf, "1G pool: 0/4 pages, starting") == 0);
        progress_line(buf, sizeof(buf), 1024 * MB, 0, 1, 300000000);
        CHECK(strcmp(buf, "1G pool: 0/1 page, starting") == 0);
        progress_line(buf, sizeof(buf), 2 * MB, 10, 10, 1000000000);
        CHECK(strcmp(buf, "2M pool: 10/10 pages, 0.0 GiB/s, 0 s left") == 0);
        /* cut to the buffer, still a string */
        progress_line(buf, 12, 2 * MB, 512, 2048, 500000000);
        CHECK_EQ(strlen(buf), 11);
}

TEST(test_redraw) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct tty_progress p = { .f = f, .start_ns = 0 };
        struct job_status st = { .n_pools = 2 };

        st.pools[0].page_size = 2 * MB;
        st.pools[0].wanted = 100;
        st.pools[1].page_size = 1024 * MB;
        st.pools[1].wanted = 4;
        tty_progress_update(&st, &p);
        CHECK_EQ(p.lines, 2);
        tty_progress_update(&st, &p);
        tty_progress_clear(&p);
        CHECK_EQ(p.lines, 0);
        tty_progress_clear(&p); /* nothing on the screen: nothing written */
        CHECK_EQ(fclose(f), 0);
        CHECK(strcmp(text, "\r\033[K2M pool: 0/100 pages, starting\n\r\033[K1G pool: 0/4 pages, starting\n"
                           "\033[2A\r\033[K2M pool: 0/100 pages, starting\n\r\033[K1G pool: 0/4 pages, starting\n"
                           "\033[2A\r\033[J") == 0);
        free(text);
}

int main(void) {
        RUN(test_line);
        RUN(test_redraw);
        return 0;
}
