/* store_readonly.c - opening the progress database only to read it,
 * changing nothing on disk (store/store.h store_open_readonly). */
#include "store/store.h"
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* path as an SQLite URI ("file:/a%20b/progress.db?mode=ro"): every byte
 * but letters, digits and "/._~-" percent-encoded, then the query. */
static char *uri_of(const char *path, const char *query)
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

/* The schema version, reading the file's first pages: SQLite's primary
 * result code. */
static int probe(store *s, int *version)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *version = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    return rc & 0xff;
}

bool store_open_readonly(const char *dir, store **out, cl_err *e)
{
    char data[CL_PATH_MAX], path[CL_PATH_MAX];
    *out = NULL;
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, e))
            return false;
        dir = data;
    }
    if (!paths_join(path, sizeof path, dir, STORE_FILE))
        return err_set(e, "the data folder's path is too long");
    if (!paths_is_file(path))
        return true;   /* nothing was ever recorded here */
    /* Another process has the database open when its -wal and -shm files are
     * there: read through them.  Otherwise the file holds everything, and
     * reading it as immutable makes SQLite create no -wal or -shm file. */
    bool live = exists(path, "-wal") && exists(path, "-shm");
    char *uri = uri_of(path, live ? "mode=ro" : "immutable=1");
    store *s = calloc(1, sizeof *s);
    if (!uri || !s) {
        free(uri);
        free(s);
        return err_set(e, "out of memory opening %s", path);
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    int rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    int version = 0;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        rc = probe(s, &version);
    }
    if (rc != SQLITE_OK) {
        err_set(e, "cannot read %s: %s", path, sqlite3_errstr(rc));
        store_close(s);
        return false;
    }
    if (version > STORE_SCHEMA_VERSION) {
        err_set(e, "%s was written by a newer cudalab (schema %d; this cudalab reads up to %d)",
                path, version, STORE_SCHEMA_VERSION);
        store_close(s);
        return false;
    }
    if (version == 0) {   /* created, but nothing recorded in it */
        store_close(s);
        return true;
    }
    *out = s;
    return true;
}
