/* store_untrusted.c - a learner's progress store opened as untrusted input
 * (store/store.h store_open_untrusted): its files taken without following
 * a link and only up to a size, copied into a private folder, and read
 * there through a connection that no crafted database can turn against
 * the reader (SQLite's "defense against the dark arts": defensive mode, no
 * trusted schema, triggers or views, small limits, a progress handler). */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/units.h"

/* The progress handler: non-zero (interrupt) once the deadline has
 * passed. */
static int past_deadline(void *db)
{
    const store *s = db;
    return s->deadline > 0 && clock_now_s() > s->deadline;
}

/* Opens dir/name (dfd: dir) to read, never through a link: a regular file
 * of at most STORE_UNTRUSTED_MAX_BYTES; *fd -1 when there is none. */
static bool open_member(int dfd, const char *dir, const char *name, int *fd, cl_err *err)
{
    *fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0 && errno == ENOENT)
        return true;
    if (*fd < 0 && errno == ELOOP)
        return err_set(err, "%s/%s is a symbolic link: a learner's store is read only from a "
                            "file of its own",
                       dir, name);
    if (*fd < 0)
        return err_set(err, "cannot open %s/%s: %s", dir, name, strerror(errno));
    struct stat st;
    char size[UNITS_MAX], max[UNITS_MAX];
    if (fstat(*fd, &st) != 0)
        err_set(err, "cannot read %s/%s: %s", dir, name, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        err_set(err, "%s/%s is not a regular file (a %s)", dir, name,
                S_ISDIR(st.st_mode)    ? "folder"
                : S_ISFIFO(st.st_mode) ? "FIFO"
                : S_ISSOCK(st.st_mode) ? "socket"
                                       : "device");
    else if ((long long)st.st_size > STORE_UNTRUSTED_MAX_BYTES)
        err_set(err, "%s/%s is %s (%lld bytes), past the %s a learner's store may hold: "
                     "refused without reading it",
                dir, name, units_bytes((double)st.st_size, size, sizeof size),
                (long long)st.st_size, units_bytes((double)STORE_UNTRUSTED_MAX_BYTES, max,
                                                   sizeof max));
    else
        return true;
    close(*fd);
    *fd = -1;
    return false;
}

/* Copies what fd holds (at most STORE_UNTRUSTED_MAX_BYTES: a file grown
 * past that since it was measured is refused) to a new file at to. */
static bool copy_member(int in, const char *from, const char *to, cl_err *err)
{
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0)
        return err_set(err, "cannot make the private copy %s: %s", to, strerror(errno));
    static char buf[1 << 16];
    long long total = 0;
    bool ok = true;
    while (ok) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            ok = err_set(err, "cannot read %s: %s", from, strerror(errno));
        if (got <= 0)
            break;
        total += got;
        if (total > STORE_UNTRUSTED_MAX_BYTES) {
            ok = err_set(err, "%s grew past %lld bytes while it was read: refused", from,
                         STORE_UNTRUSTED_MAX_BYTES);
            break;
        }
        for (ssize_t put = 0; ok && put < got;) {
            ssize_t w = write(out, buf + put, (size_t)(got - put));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                ok = err_set(err, "cannot write the private copy %s: %s", to,
                             w < 0 ? strerror(errno) : "nothing written");
            put += w > 0 ? w : 0;
        }
    }
    if (close(out) != 0 && ok)
        ok = err_set(err, "cannot write the private copy %s: %s", to, strerror(errno));
    if (!ok)
        unlink(to);
    return ok;
}

/* Copies the database (db) and its -wal file (wal, -1: none) of folder dir
 * into a new private folder under $TMPDIR (its name into s->snapshot, the
 * copy's path into copy). */
static bool private_copy(store *s, const char *dir, int db, int wal, char *copy, size_t cn,
                         cl_err *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char from[CL_PATH_MAX + 16], to[CL_PATH_MAX + 48];
    if ((size_t)snprintf(s->snapshot, sizeof s->snapshot, "%s/cudalab-store-XXXXXX", tmp) >=
        sizeof s->snapshot)
        return err_set(err, "the temporary folder's path %s is too long", tmp);
    if (!mkdtemp(s->snapshot)) {
        int e = errno;
        s->snapshot[0] = '\0';
        return err_set(err, "cannot make a private folder in %s for a copy of the learner's "
                            "store: %s",
                       tmp, strerror(e));
    }
    snprintf(copy, cn, "%s/%s", s->snapshot, STORE_FILE);
    snprintf(from, sizeof from, "%s/%s", dir, STORE_FILE);
    if (!copy_member(db, from, copy, err))
        return false;
    snprintf(from, sizeof from, "%s/%s-wal", dir, STORE_FILE);
    snprintf(to, sizeof to, "%s-wal", copy);
    return wal < 0 || copy_member(wal, from, to, err);
}

/* Limits on what one statement may build: far above what cudalab's own
 * schema and queries need (a source is at most 4 MiB), far below what a
 * crafted schema would use to exhaust memory or time. */
static void set_limits(sqlite3 *db)
{
    static const int limits[][2] = {
        {SQLITE_LIMIT_LENGTH, 8 << 20},     {SQLITE_LIMIT_SQL_LENGTH, 100000},
        {SQLITE_LIMIT_COLUMN, 100},         {SQLITE_LIMIT_EXPR_DEPTH, 100},
        {SQLITE_LIMIT_COMPOUND_SELECT, 8},  {SQLITE_LIMIT_VDBE_OP, 25000},
        {SQLITE_LIMIT_FUNCTION_ARG, 8},     {SQLITE_LIMIT_ATTACHED, 0},
        {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100}, {SQLITE_LIMIT_VARIABLE_NUMBER, 16},
        {SQLITE_LIMIT_TRIGGER_DEPTH, 1},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        sqlite3_limit(db, limits[i][0], limits[i][1]);
}

/* Defensive mode on, the schema untrusted, triggers, views and extensions
 * off, small limits, no memory map, nothing written, and the progress
 * handler; false when SQLite would not take one of them. */
static bool harden(store *s)
{
    static const int off[] = {SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
                              SQLITE_DBCONFIG_ENABLE_VIEW,
                              SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
    int got = -1;
    if (sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, &got) != SQLITE_OK || got != 1)
        return false;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (sqlite3_db_config(s->db, off[i], 0, &got) != SQLITE_OK || got != 0)
            return false;
    set_limits(s->db);
    sqlite3_progress_handler(s->db, 1000, past_deadline, s);
    return sqlite3_exec(s->db, "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0;"
                               " PRAGMA query_only = ON",
                        NULL, NULL, NULL) == SQLITE_OK;
}

/* Connects to the private copy at copy (with its -wal file when wal), only
 * to read; SQLite's result code. */
static int connect_copy(store *s, const char *copy, bool wal)
{
    char *uri = store_uri_of(copy, wal ? "mode=ro" : "mode=ro&immutable=1");
    if (!uri)
        return SQLITE_NOMEM;
    int rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                                              SQLITE_OPEN_NOFOLLOW, NULL);
    free(uri);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(s->db, 1);
        if (!harden(s))
            rc = SQLITE_MISUSE;
    }
    return rc;
}

/* What the copy holds: cudalab's store of a schema this cudalab reads,
 * every object as its migrations make it, its pages sound.  *empty when
 * nothing was recorded. */
static bool check_copy(store *s, const char *path, bool *empty, cl_err *err)
{
    store_ident id;
    char what[160];
    s->deadline = clock_now_s() + STORE_UNTRUSTED_OPEN_S;
    int rc = store_identify(s, &id);
    *empty = false;
    if (rc != SQLITE_OK)
        return store_fail(s, err, "cannot read the learner's store");
    if (!store_ident_ours(&id, what, sizeof what))
        return err_set(err, "%s is not cudalab's progress store: it is %s", path, what);
    if (id.version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s was written by a newer cudalab (schema %d; this cudalab reads "
                            "up to %d)",
                       path, id.version, STORE_SCHEMA_VERSION);
    if (id.version == 0 && id.tables == 0) {
        *empty = true;
        return true;
    }
    if (!store_schema_matches(s, id.version, err))
        return false;
    rc = store_check_pages(s, 0);
    if (rc == SQLITE_CORRUPT)
        return err_set(err, "%s is damaged: SQLite's quick_check found a bad page", path);
    if (rc != SQLITE_OK)
        return store_fail(s, err, "cannot read the learner's store");
    s->budget_s = STORE_UNTRUSTED_BUDGET_S;
    return true;
}

/* Opens a store of the files db and wal (-1: none) of folder dir. */
static bool open_copy(const char *dir, int db, int wal, store **out, cl_err *err)
{
    store *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(err, "out of memory opening the store of %s", dir);
    char copy[CL_PATH_MAX + 16];
    snprintf(s->path, sizeof s->path, "%s/%s", dir, STORE_FILE);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->readonly = true;
    snprintf(s->why, sizeof s->why, "%s is a learner's store, open only to read", s->path);
    bool ok = private_copy(s, dir, db, wal, copy, sizeof copy, err), empty = false;
    int rc = ok ? connect_copy(s, copy, wal >= 0) : SQLITE_OK;
    if (rc != SQLITE_OK) {
        char words[CL_ERR_MAX];
        store_explain(rc, 0, s->path, words, sizeof words);
        ok = err_set(err, "cannot read %s safely: %s", s->path, words);
    }
    if (ok)
        ok = check_copy(s, s->path, &empty, err);
    if (ok && !empty) {
        *out = s;
        return true;
    }
    store_close(s);
    return ok;
}

bool store_open_untrusted(const char *dir, store **out, cl_err *err)
{
    char data[CL_PATH_MAX];
    *out = NULL;
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, err))
            return false;
        dir = data;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return errno == ENOENT ? true   /* nothing was ever recorded here */
                               : err_set(err, "the data folder %s is not a folder", dir);
    if (dfd < 0)
        return err_set(err, "cannot open the data folder %s: %s", dir, strerror(errno));
    int db = -1, wal = -1;
    bool ok = open_member(dfd, dir, STORE_FILE, &db, err) &&
              (db < 0 || open_member(dfd, dir, STORE_FILE "-wal", &wal, err));
    close(dfd);
    if (ok && db >= 0)
        ok = open_copy(dir, db, wal, out, err);
    if (db >= 0)
        close(db);
    if (wal >= 0)
        close(wal);
    return ok;
}
