/* SPDX-License-Identifier: MIT */
/* Progress on a terminal: one line per pool, redrawn in place (cursor up, erase line), erased
 * before the report. */
#include <inttypes.h>

#include "service/progress.h"
#include "util/clock.h"
#include "util/number.h"

void progress_line(char *buf, size_t size, uint64_t page_size, uint64_t added, uint64_t wanted, uint64_t elapsed_ns) {
        double secs = (double) elapsed_ns / 1e9, bytes = (double) added * (double) page_size;
        double rate = secs > 0 ? bytes / secs : 0;
        char name[32];
        int n;

        n = snprintf(buf, size, "%s pool: %" PRIu64 "/%" PRIu64 " page%s", page_size_name(page_size, name), added, wanted,
                     plural(wanted));
        if (n < 0 || (size_t) n >= size)
                return;
        /* no rate before the first page: nothing to say how long the rest takes */
        if (added == 0 || rate <= 0) {
                (void) snprintf(buf + n, size - (size_t) n, ", starting");
                return;
        }
        (void) snprintf(buf + n, size - (size_t) n, ", %.1f GiB/s, %.0f s left", rate / (1024.0 * 1024 * 1024),
                        added >= wanted ? 0.0 : (double) (wanted - added) * (double) page_size / rate + 0.5);
}

void tty_progress_update(const struct job_status *s, void *userdata) {
        struct tty_progress *p = userdata;
        uint64_t elapsed = now_ns() - p->start_ns;

        /* back to the first line, then each line erased and written anew */
        if (p->lines > 0)
                fprintf(p->f, "\033[%zuA", p->lines);
        for (size_t i = 0; i < s->n_pools; i++) {
                char line[256];

                progress_line(line, sizeof(line), s->pools[i].page_size, s->pools[i].added, s->pools[i].wanted,
                              elapsed);
                fprintf(p->f, "\r\033[K%s\n", line);
        }
        p->lines = s->n_pools;
        (void) fflush(p->f);
}

void tty_progress_clear(void *userdata) {
        struct tty_progress *p = userdata;

        if (p->lines == 0)
                return;
        /* up to the first line, erase to the end of the screen */
        fprintf(p->f, "\033[%zuA\r\033[J", p->lines);
        p->lines = 0;
        (void) fflush(p->f);
}
