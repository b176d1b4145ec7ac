/* store_recover.c - what lets several processes open the database at once
 * and lose nothing: the open lock, moving a damaged file aside under a name
 * of its own, checking the pages, and -wal and -shm files left unwritable. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool store_lock(const char *path, int *fd, cl_err *err)
{
    char lock[CL_PATH_MAX + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    /* Read-only is enough for flock, and opens a lock file another user made. */
    *fd = open(lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0 && (errno == EACCES || errno == EPERM))
        return true;   /* another user's, unreadable: open as before there was one */
    if (*fd < 0)
        return err_set(err, "cannot open the lock file %s: %s", lock, strerror(errno));
    struct timespec pause = {0, 5 * 1000 * 1000};
    bool ok = true;
    for (long waited = 0; ok && flock(*fd, LOCK_EX | LOCK_NB) != 0; waited++) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            ok = err_set(err, "cannot lock %s: %s", lock, strerror(errno));
        else if (waited * 5 >= STORE_LOCK_WAIT_S * 1000L)
            ok = err_set(err, "another cudalab process has held %s for %d s while opening %s; "
                            "try again when it is done",
                         lock, STORE_LOCK_WAIT_S, path);
        else
            nanosleep(&pause, NULL);
    }
    if (!ok) {
        close(*fd);
        *fd = -1;
    }
    return ok;
}

void store_unlock(int fd)
{
    if (fd >= 0)
        close(fd);   /* releases the flock */
}

static bool taken(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 || errno != ENOENT;
}

/* Gives from the name to, which no file has: a hard link then an unlink
 * (link never replaces a file), or a rename where the file system has no
 * hard links and to was checked to be free. */
static int move_to(const char *from, const char *to)
{
    if (link(from, to) == 0)
        return unlink(from);
    if (errno == EEXIST || errno == ENOENT)
        return -1;
    if (taken(to)) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}

bool store_move_aside(const char *path, char *moved, size_t cap, cl_err *err)
{
    static const char *const sides[] = {"-wal", "-shm"};
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 0; k < 100; k++) {
        char tail[24] = "";
        if (k)
            snprintf(tail, sizeof tail, "-%d", k);
        snprintf(moved, cap, "%s.corrupt-%s.%09ld-%ld%s", path, stamp, (long)ts.tv_nsec,
                 (long)getpid(), tail);
        char a[CL_PATH_MAX + 128], b[CL_PATH_MAX + 128];
        snprintf(a, sizeof a, "%s-wal", moved);
        snprintf(b, sizeof b, "%s-shm", moved);
        if (taken(moved) || taken(a) || taken(b))
            continue;
        if (move_to(path, moved) != 0) {
            if (errno == EEXIST)
                continue;
            return err_set(err, "cannot move the damaged %s aside to %s: %s", path, moved,
                           strerror(errno));
        }
        for (size_t i = 0; i < 2; i++) {
            snprintf(a, sizeof a, "%s%s", path, sides[i]);
            snprintf(b, sizeof b, "%s%s", moved, sides[i]);
            if (taken(a) && move_to(a, b) != 0 && unlink(a) != 0 && errno != ENOENT)
                return err_set(err, "moved the damaged %s aside to %s, but %s stays: %s", path,
                               moved, a, strerror(errno));
        }
        return true;
    }
    return err_set(err, "cannot move the damaged %s aside: every name tried is taken", path);
}

/* Runs a quick_check statement; SQLITE_OK when it says "ok". */
static int quick_check(store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        rc = v && strcmp((const char *)v, "ok") == 0 ? SQLITE_OK : SQLITE_CORRUPT;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_check_pages(store *db, long long size)
{
    if (size <= STORE_CHECK_MAX_BYTES)
        return quick_check(db, "PRAGMA quick_check(1)");
    /* A large store: every table but the three that grow with the runs
     * (and the schema, which SQLite reads anyway). */
    static const char *const small[] = {"meta", "milestones", "quiz_answers", "hints",
                                        "places"};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA quick_check(\"%s\")", small[i]);
        int rc = quick_check(db, sql);
        if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_ERROR)   /* ERROR: no such table yet */
            return rc;
    }
    return SQLITE_OK;
}

bool store_side_files_writable(const char *path, char *why, size_t cap)
{
    static const char *const sides[] = {"-shm", "-wal"};
    struct stat db;
    if (stat(path, &db) != 0)
        return true;
    for (size_t i = 0; i < 2; i++) {
        char p[CL_PATH_MAX + 8];
        snprintf(p, sizeof p, "%s%s", path, sides[i]);
        struct stat st;
        /* (A file gone meanwhile was another process's, closing.) */
        if (stat(p, &st) != 0 || access(p, R_OK | W_OK) == 0 || errno == ENOENT)
            continue;
        /* Ours: give it the database's permissions (a chmod leaves any
         * process that has it open undisturbed). */
        if (st.st_uid == geteuid() &&
            chmod(p, (st.st_mode | (db.st_mode & 0666) | S_IRUSR | S_IWUSR) & 07777) == 0 &&
            access(p, R_OK | W_OK) == 0)
            continue;
        if (errno == ENOENT)
            continue;
        snprintf(why, cap,
                 "%s cannot be written (%s; it belongs to user %ld): remove it when no cudalab "
                 "is running",
                 p, strerror(EACCES), (long)st.st_uid);
        return false;
    }
    return true;
}
