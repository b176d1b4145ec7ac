/* store_readonly.c - opening the progress database only to read it,
 * changing nothing on disk (store/store.h store_open_readonly); a -wal
 * file left without its -shm is read from a private copy. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"

char *store_uri_of(const char *path, const char *query)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._~-";
    strbuf b;
    strbuf_init(&b, 0);
    strbuf_str(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (strchr(safe, *p))
            strbuf_putc(&b, (char)*p);
        else
            strbuf_printf(&b, "%%%02X", *p);
    }
    strbuf_printf(&b, "?%s", query);
    if (b.failed) {
        strbuf_free(&b);
        return NULL;
    }
    return strbuf_take(&b);
}

static bool exists(const char *path, const char *suffix)
{
    char p[CL_PATH_MAX + 8];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return paths_is_file(p);
}

/* Copies the file at from to a new file at to (mode 0600); false on any
 * error, the partial copy removed. */
static bool copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return false;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = out >= 0;
    char buf[1 << 16];
    while (ok) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            ok = got == 0;
            break;
        }
        for (ssize_t put = 0; ok && put < got;) {
            ssize_t w = write(out, buf + put, (size_t)(got - put));
            if (w < 0 && errno == EINTR)
                continue;
            ok = w > 0;
            put += w > 0 ? w : 0;
        }
    }
    close(in);
    if (out >= 0 && close(out) != 0)
        ok = false;
    if (!ok && out >= 0)
        unlink(to);
    return ok;
}

/* A -wal file left without its -shm (a writer that was killed, its -shm
 * since removed) holds records only a process that may write beside it can
 * replay.  Reading it changes nothing on disk when the database and its
 * -wal are copied into a private folder and the copies opened there; the
 * folder's name into dir, the copy's path into copy. */
static bool snapshot(const char *path, char *dir, size_t dn, char *copy, size_t cn)
{
    const char *tmp = getenv("TMPDIR");
    char from[CL_PATH_MAX + 8], to[CL_PATH_MAX + 40];
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if ((size_t)snprintf(dir, dn, "%s/cudalab-store-XXXXXX", tmp) >= dn || !mkdtemp(dir))
        return false;
    snprintf(copy, cn, "%s/%s", dir, STORE_FILE);
    snprintf(from, sizeof from, "%s-wal", path);
    snprintf(to, sizeof to, "%s-wal", copy);
    if (copy_file(path, copy) && copy_file(from, to))
        return true;
    unlink(copy);
    rmdir(dir);
    return false;
}

store *store_connect_readonly(const char *path, int *rc)
{
    /* Another process has the database open when its -wal and -shm files are
     * there: read through them.  A -wal alone is read from a private copy
     * (snapshot).  Otherwise the file holds everything, and reading it as
     * immutable makes SQLite create no -wal or -shm file, which a later
     * writer might not be able to use. */
    bool wal = exists(path, "-wal"), live = wal && exists(path, "-shm");
    store *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    char copy[CL_PATH_MAX + 16];
    const char *read_from = path;
    if (wal && !live && snapshot(path, s->snapshot, sizeof s->snapshot, copy, sizeof copy))
        read_from = copy;
    char *uri = store_uri_of(read_from, read_from != path ? "mode=rw"
                                        : live            ? "mode=ro"
                                                          : "immutable=1");
    if (!uri) {
        store_close(s);
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    int flags = read_from != path ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    *rc = sqlite3_open_v2(uri, &s->db, flags | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (*rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        sqlite3_extended_result_codes(s->db, 1);
    }
    return s;
}

bool store_open_readonly(const char *dir, store **out, cl_err *err)
{
    char data[CL_PATH_MAX], path[CL_PATH_MAX];
    *out = NULL;
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, err))
            return false;
        dir = data;
    }
    if (!paths_join(path, sizeof path, dir, STORE_FILE))
        return err_set(err, "the data folder's path is too long");
    if (!paths_is_file(path))
        return true;   /* nothing was ever recorded here */
    int rc = SQLITE_OK;
    store *s = store_connect_readonly(path, &rc);
    if (!s)
        return err_set(err, "out of memory opening %s", path);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->readonly = true;
    snprintf(s->why, sizeof s->why, "%s is open only to read", path);
    store_ident id;
    char what[160];
    if (rc == SQLITE_OK)
        rc = store_identify(s, &id);
    if (rc != SQLITE_OK) {
        err_set(err, "cannot read %s: %s", path, sqlite3_errstr(rc));
    } else if (!store_ident_ours(&id, what, sizeof what)) {
        store_foreign(path, what, err);
    } else if (id.version > STORE_SCHEMA_VERSION) {
        err_set(err, "%s was written by a newer cudalab (schema %d; this cudalab reads up to %d)",
                path, id.version, STORE_SCHEMA_VERSION);
    } else if (id.version == 0) {   /* created, but nothing recorded in it */
        store_close(s);
        return true;
    } else {
        *out = s;
        return true;
    }
    store_close(s);
    return false;
}
