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

store *store_connect_readonly(const char *path, int *rc)
{
    /* Another process has the database open when its -wal and -shm files are
     * there: read through them.  Otherwise the file holds everything (but a
     * -wal left without its -shm, which only a writer may replay), and
     * reading it as immutable makes SQLite create no -wal or -shm file,
     * which a later writer might not be able to use. */
    bool live = exists(path, "-wal") && exists(path, "-shm");
    char *uri = uri_of(path, live ? "mode=ro" : "immutable=1");
    store *s = calloc(1, sizeof *s);
    if (!uri || !s) {
        free(uri);
        free(s);
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    *rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (*rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        sqlite3_extended_result_codes(s->db, 1);
    }
    return s;
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
    int rc = SQLITE_OK;
    store *s = store_connect_readonly(path, &rc);
    if (!s)
        return err_set(e, "out of memory opening %s", path);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->readonly = true;
    snprintf(s->why, sizeof s->why, "%s is open only to read", path);
    store_ident id;
    char what[160];
    if (rc == SQLITE_OK)
        rc = store_identify(s, &id);
    if (rc != SQLITE_OK) {
        err_set(e, "cannot read %s: %s", path, sqlite3_errstr(rc));
    } else if (!store_ident_ours(&id, what, sizeof what)) {
        store_foreign(path, what, e);
    } else if (id.version > STORE_SCHEMA_VERSION) {
        err_set(e, "%s was written by a newer cudalab (schema %d; this cudalab reads up to %d)",
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
