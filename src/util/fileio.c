/* SPDX-License-Identifier: MIT */
/* Reading and writing small files below a directory fd: sysfs counters, config files. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/number.h"

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_(freep) char *buf = NULL;
        size_t len = 0, alloc = 4096;

        buf = malloc(alloc);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n;

                if (len + 1 >= alloc) {
                        char *b;

                        if (alloc > max)
                                return -EFBIG;
                        b = realloc(buf, alloc * 2);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        alloc *= 2;
                }
                n = read(fd, buf + len, alloc - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > max)
                        return -EFBIG;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* @path opened for reading, a regular file (or sysfs attribute): its fd (its stat in @st),
 * -EISDIR, -EBADFD */
static int open_file_beneath(int dirfd, const char *path, unsigned how, struct stat *st) {
        _cleanup_(closep) int fd = -1;

        /* O_NONBLOCK: a FIFO put where a file was expected opens at once, and is refused */
        fd = open_beneath(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, how);
        if (fd < 0)
                return fd;
        if (fstat(fd, st) < 0)
                return -errno;
        if (S_ISDIR(st->st_mode))
                return -EISDIR;
        if (!S_ISREG(st->st_mode))
                return -EBADFD;
        return TAKE_FD(fd);
}

int read_full_file_beneath(int dirfd, const char *path, unsigned how, size_t max, char **ret, size_t *ret_len) {
        struct stat st;
        _cleanup_(closep) int fd = open_file_beneath(dirfd, path, how, &st);

        return fd < 0 ? fd : read_full_fd(fd, max, ret, ret_len);
}

int read_full_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_len) {
        return read_full_file_beneath(dirfd, path, 0, max, ret, ret_len);
}

/* The index of the last of @lines that is a whole line of [@start, @end) (whole lines, the
 * last one ended by @end), or -1. Only the lines that hold @key are looked at, found with
 * memmem(): a kernel config has ten thousand lines, of which one is wanted. */
static int last_whole_line(const char *start, const char *end, const char *key, const char *const *lines,
                           size_t n_lines) {
        size_t klen = strlen(key);
        int k = -1;

        for (const char *p = start; (p = memmem(p, (size_t) (end - p), key, klen));) {
                const char *ls = memrchr(start, '\n', (size_t) (p - start)), *le = memchr(p, '\n', (size_t) (end - p));

                ls = ls ? ls + 1 : start;
                le = le ? le : end;
                for (size_t i = 0; i < n_lines; i++)
                        if (strlen(lines[i]) == (size_t) (le - ls) && memcmp(ls, lines[i], (size_t) (le - ls)) == 0)
                                k = (int) i;
                p = le;
        }
        return k;
}

int find_last_line_at(int dirfd, const char *path, const char *key, const char *const *lines, size_t n_lines,
                      size_t max) {
        struct stat st;
        _cleanup_(closep) int fd = open_file_beneath(dirfd, path, 0, &st);
        char buf[16384];
        size_t carry = 0; /* at buf's start: a line's end whose start is before it in the file */
        bool skipping = false; /* the rest of a line longer than @buf: none of @lines */
        off_t off;

        if (fd < 0)
                return fd;
        if (!*key)
                return -EINVAL; /* memmem() would find it everywhere */
        /* From the end back, a buffer at a time, each read put before what is left of the last */
        for (off = st.st_size; off > 0;) {
                size_t room = sizeof(buf) - carry;
                size_t n = off < (off_t) room ? (size_t) off : room; /* no size_t cast of a 64-bit off */
                const char *start, *end, *nl;
                ssize_t got;
                int k;

                if ((uint64_t) st.st_size - (uint64_t) off + n > max)
                        return -EFBIG;
                memmove(buf + n, buf, carry);
                got = pread(fd, buf, n, off - (off_t) n);
                if (got < 0 && errno == EINTR) {
                        memmove(buf, buf + n, carry);
                        continue;
                }
                if (got < 0)
                        return -errno;
                if ((size_t) got != n)
                        return -EIO; /* the file shrank under us: read it again another time */
                off -= (off_t) n;
                end = buf + n + carry;
                if (skipping) {
                        /* what follows the last newline belongs to the long line */
                        nl = memrchr(buf, '\n', n);
                        end = nl ? nl + 1 : buf;
                        skipping = !nl;
                }
                /* the line at the buffer's start goes on before it, but at the file's start */
                nl = off > 0 ? memchr(buf, '\n', (size_t) (end - buf)) : NULL;
                start = off > 0 ? (nl ? nl + 1 : end) : buf;
                k = last_whole_line(start, end, key, lines, n_lines); /* empty while skipping */
                if (k >= 0)
                        return k;
                carry = (size_t) (start - buf);
                if (carry == sizeof(buf)) {
                        skipping = true; /* a line that fills the buffer: not one of them */
                        carry = 0;
                }
        }
        return -ENOMSG;
}

int read_text_line_at(int dirfd, const char *path, size_t max, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t len;
        int r;

        r = read_full_file_at(dirfd, path, max, &text, &len);
        if (r < 0)
                return r;
        if (len > 0 && text[len - 1] == '\n')
                text[--len] = 0;
        if (memchr(text, 0, len) || memchr(text, '\n', len))
                return -EBADMSG;
        *ret = TAKE_PTR(text);
        return 0;
}

/* One short line from @fd into @buf, as read_line_at() says: read on from where it is, or with
 * @again from offset 0 (pread(): sysfs shows an attribute afresh at each read from 0). */
static int read_line_fd(int fd, char *buf, size_t size, bool again) {
        ssize_t n;

        do
                n = again ? pread(fd, buf, size, 0) : read(fd, buf, size);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n >= size)
                return -EBADMSG;
        if (n > 0 && buf[n - 1] == '\n')
                n--;
        buf[n] = 0;
        if (memchr(buf, 0, (size_t) n) || memchr(buf, '\n', (size_t) n))
                return -EBADMSG;
        return 0;
}

int read_line_at(int dirfd, const char *path, char *buf, size_t size) {
        _cleanup_(closep) int fd = open_beneath(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0);

        return fd < 0 ? fd : read_line_fd(fd, buf, size, false);
}

static int read_u64_line(int fd, bool again, uint64_t *ret) {
        char buf[32];
        int r;

        r = read_line_fd(fd, buf, sizeof(buf), again);
        if (r < 0)
                return r;
        return parse_u64(buf, ret) < 0 ? -EBADMSG : 0;
}

int read_u64_fd(int fd, uint64_t *ret) {
        return read_u64_line(fd, false, ret);
}

int read_u64_fd_again(int fd, uint64_t *ret) {
        return read_u64_line(fd, true, ret);
}

int read_u64_at(int dirfd, const char *path, uint64_t *ret) {
        _cleanup_(closep) int fd = open_beneath(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0);

        return fd < 0 ? fd : read_u64_fd(fd, ret);
}

int open_regular_at(int dirfd, const char *path, int flags, mode_t mode, struct stat *ret_st) {
        _cleanup_(closep) int fd = -1;
        struct stat st;

        fd = open_beneath(dirfd, path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if (ret_st)
                *ret_st = st;
        return TAKE_FD(fd);
}

int open_attr_at(int dirfd, const char *path) {
        return open_regular_at(dirfd, path, O_WRONLY, 0, NULL);
}

int write_string_fd(int fd, const char *s) {
        size_t len = strlen(s);
        ssize_t n;

        do
                n = write(fd, s, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        /* sysfs and procfs take each write() whole (kernfs_fop_write_iter(),
         * proc_sys_call_handler()): a short one is an error */
        return (size_t) n == len ? 0 : -EIO;
}

int write_string_at(int dirfd, const char *path, const char *s) {
        _cleanup_(closep) int fd = open_attr_at(dirfd, path);

        return fd < 0 ? fd : write_string_fd(fd, s);
}

const char *attr_error_reason(int error) {
        switch (error) {
        case -ELOOP:
                return "a symbolic link on its way or in its place, not a kernel attribute: refused";
        case -EBADFD:
        case -ENXIO:
                return "not a regular file, not a kernel attribute: refused";
        default:
                return NULL;
        }
}

int write_u64_at(int dirfd, const char *path, uint64_t v) {
        char buf[32];

        (void) snprintf(buf, sizeof(buf), "%" PRIu64 "\n", v);
        return write_string_at(dirfd, path, buf);
}

DIR *opendir_at(int dirfd) {
        int fd = dirfd < 0 ? -EBADF : openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d;

        if (fd < 0) {
                errno = fd == -EBADF ? EBADF : errno;
                return NULL;
        }
        d = fdopendir(fd);
        if (!d)
                closep(&fd);
        return d;
}

int stream_flush(FILE *f) {
        errno = 0;
        if (fflush(f) != 0)
                return -(errno ?: EIO);
        return ferror(f) ? -EIO : 0;
}
