/* SPDX-License-Identifier: MIT */
/* The daemon's control socket, run/hpfilld/control: `hpfilld reload` asks the running daemon to
 * read its configuration again and fill, and waits for its answer. Root's only (SO_PEERCRED). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define CONTROL_NAME "control"
/* The one request: the configuration read anew, under the host lock, then a fill. */
#define CONTROL_APPLY "apply"
/* The answer: "STATUS\n" (an exit status, hpfilld(8)), then what the daemon says of it */
#define CONTROL_ANSWER_MAX 4096

/* The socket file a daemon bound: the one control_unlink() removes, and no other */
struct control_bound {
        dev_t dev;
        ino_t ino;
};

/* The daemon: the listening socket (non-blocking, mode 0600), made anew in run/hpfilld below
 * @rootfd, its file in *@ret_bound. Returns the fd or a negative errno. */
int control_listen(int rootfd, struct control_bound *ret_bound);
/* The daemon, before it closes the listening socket: its file removed where it is still the
 * one @bound says (another daemon's, bound there since, is left alone). */
void control_unlink(int rootfd, const struct control_bound *bound);
/* The daemon: one connection waiting on @listen_fd, its peer root or the daemon's own user.
 * Returns the connection's fd (non-blocking), -EPERM for another user (refused and closed),
 * -EAGAIN when none waits, or a negative errno. */
int control_accept(int listen_fd);
/* The daemon: the request waiting on connection @fd into @buf (a string). -EAGAIN when it has
 * not come yet, -EPIPE when the client went away, -EBADMSG for one longer than @buf or with a
 * NUL in it. */
int control_read(int fd, char *buf, size_t size);
/* The daemon: the answer to a request, then the connection closed. */
void control_answer(int fd, int status, const char *text);

/* A client: connects to the daemon's socket below @rootfd. -ENOENT when no daemon listens
 * there (no socket, or one a daemon that ended left). */
int control_connect(int rootfd);
/* A client: sends @request on @fd and waits for the answer: its status, and its text in @text.
 * -EPIPE when the daemon went away before it answered. */
int control_request(int fd, const char *request, int *ret_status, char *text, size_t size);
