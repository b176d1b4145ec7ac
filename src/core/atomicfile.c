#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool atomicfile_write(const char *path, const void *data, size_t len, cl_err *err)
{
    char tmp[4096];
    int w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (w < 0 || (size_t)w >= sizeof tmp)
        return err_set(err, "path is too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t k = write(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            err_set(err, "cannot write %s: %s", tmp, strerror(errno));
            goto fail;
        }
        p += k;
        left -= (size_t)k;
    }
    if (fsync(fd) != 0) {
        err_set(err, "cannot flush %s: %s", tmp, strerror(errno));
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        err_set(err, "cannot close %s: %s", tmp, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        err_set(err, "cannot replace %s: %s", path, strerror(errno));
        goto fail;
    }
    return true;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return false;
}

/* Reads the rest of f (path names it in messages), then closes it. */
static char *read_stream(FILE *f, const char *path, size_t max_bytes, size_t *len, cl_err *e)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        goto oom;
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max_bytes) {
                err_set(e, "%s is larger than %zu bytes", path, max_bytes);
                goto fail;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                goto oom;
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    if (ferror(f)) {
        err_set(e, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (n > max_bytes) {
        err_set(e, "%s is larger than %zu bytes", path, max_bytes);
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
oom:
    err_set(e, "out of memory reading %s", path);
fail:
    free(buf);
    fclose(f);
    return NULL;
}

char *file_read_all(const char *path, size_t max_bytes, size_t *len, cl_err *err)
{
    /* Not blocking: a FIFO put where a file was expected must not hang the
     * open; it is refused below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        err_set(err, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        err_set(err, "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        err_set(err, "%s is larger than %zu bytes", path, max_bytes);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        err_set(err, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    return read_stream(f, path, max_bytes, len, err);
}
