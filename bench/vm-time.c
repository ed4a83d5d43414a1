/* SPDX-License-Identifier: MIT */
/* vm-time CMD [ARG...]: runs CMD with stdout and stderr to /dev/null, prints the milliseconds
 * from fork to exit on stdout and exits with CMD's status. Static, for the bench guests of
 * bench/vm-cell.sh, whose busybox has no clock finer than /proc/uptime's 10 ms. */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
        double t0;
        int status;
        pid_t pid;

        if (argc < 2) {
                fprintf(stderr, "usage: vm-time CMD [ARG...]\n");
                return 2;
        }
        t0 = now_ms();
        pid = fork();
        if (pid < 0) {
                perror("vm-time: fork");
                return 1;
        }
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);

                if (null >= 0) {
                        dup2(null, 1);
                        dup2(null, 2);
                }
                execvp(argv[1], argv + 1);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0) {
                perror("vm-time: waitpid");
                return 1;
        }
        printf("%.3f\n", now_ms() - t0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
