/* SPDX-License-Identifier: MIT */
/* Reading and writing small files below a directory fd: sysfs counters, config files. Every
 * path is opened with open_beneath(): it stays below the fd, a symbolic link on the way is
 * refused (-ELOOP). */
#pragma once

#include <dirent.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* Generous caps for files without a fixed size: the kernel command line (bootconfig makes it
 * long), node and CPU lists, and the mount table (a Kubernetes node has thousands of mounts). */
#define FILEIO_LINE_MAX (1024 * 1024)
#define FILEIO_MOUNTS_MAX (64 * 1024 * 1024)

/* @f flushed: 0, or the -errno of a write that failed, now or before (-EIO where none is known):
 * a document printed to a full disk or a closed pipe is an error to say, not a success. */
int stream_flush(FILE *f);
/* Reads what is left of @fd, at most @max bytes (-EFBIG beyond); NUL-terminates it. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len);
/* Reads a whole regular file (or sysfs attribute) of at most @max bytes; NUL-terminates it.
 * Opened non-blocking: a FIFO or device is -EBADFD, never waited on. @path stays below @dirfd
 * (open_beneath()): a symbolic link on the way is -ELOOP. */
int read_full_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_len);
/* The same, with open_beneath()'s @how: BENEATH_FOLLOW for /proc/self (a link), still inside. */
int read_full_file_beneath(int dirfd, const char *path, unsigned how, size_t max, char **ret, size_t *ret_len);
/* Which of the lines @lines (each whole, without its newline, and each holding @key, not
 * empty) comes last in the regular file @path, read from its end back no further than that
 * line: its index, -ENOMSG where none is there, -EFBIG where reading on to find one would take
 * more than @max bytes, or the error of the open or a read (-EIO: the file shrank while read).
 * Read through a 16 KiB buffer and searched for @key, for a large file of which one line near
 * its end is wanted (/boot/config-*: hundreds of KiB, the security options' lines in the last
 * fifth); a line of 16 KiB less one byte or more is none of @lines. Opened as
 * read_full_file_at() opens. */
int find_last_line_at(int dirfd, const char *path, const char *key, const char *const *lines, size_t n_lines,
                      size_t max);
/* A one-line file of any length up to @max, without its trailing newline: -EBADMSG if it holds
 * a NUL or a second line. */
int read_text_line_at(int dirfd, const char *path, size_t max, char **ret);
/* Reads a short one-line file into @buf without its trailing newline. -EBADMSG if longer than @size - 1. */
int read_line_at(int dirfd, const char *path, char *buf, size_t size);
/* A decimal counter, as sysfs prints them: digits and one optional newline, nothing else (-EBADMSG). */
int read_u64_at(int dirfd, const char *path, uint64_t *ret);
/* The same, from an fd opened by the caller (at its start). */
int read_u64_fd(int fd, uint64_t *ret);
/* The same from offset 0 (pread()), whatever was read before: a kept sysfs attribute read afresh. */
int read_u64_fd_again(int fd, uint64_t *ret);
/* Writes "@v\n" in one write(); sysfs takes the value whole or not at all. */
int write_u64_at(int dirfd, const char *path, uint64_t v);
/* Writes a short string in one write() to the kernel attribute @path (open_attr_at()). */
int write_string_at(int dirfd, const char *path, const char *s);
/* The same, to an fd the caller opened for writing (a file of a fake tree is cut to it). */
int write_string_fd(int fd, const char *s);
/* Opens @path with @flags (and @mode, for O_CREAT), never following a symbolic link in its
 * place (-ELOOP), non-blocking, and only a regular file (-EBADFD); its stat in @ret_st. */
int open_regular_at(int dirfd, const char *path, int flags, mode_t mode, struct stat *ret_st);
/* Opens the kernel attribute (sysfs, /proc/sys) @path for writing, as it is: never created
 * (missing: -ENOENT), never truncated, a symbolic link in its place or on its way refused
 * (-ELOOP, not followed: a tree under --root may be others'), and anything but a regular file (a FIFO, a
 * device) refused at once (-EBADFD or -ENXIO, never waited on). Returns the fd. */
int open_attr_at(int dirfd, const char *path);
/* What to say of an error of open_attr_at() that is not the system's own: the refusals; NULL
 * for the others (use %m). */
const char *attr_error_reason(int error);

/* The entries of directory @dirfd from the first, on a descriptor of their own (a dup() would
 * share @dirfd's place with every other reader of it): NULL, errno set, where it cannot. */
DIR *opendir_at(int dirfd);
