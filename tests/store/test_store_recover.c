/* test_store_recover.c - a damaged store is moved aside once, whole, and a
 * new one started: for each kind of damage (not a database, a damaged
 * header, a damaged page under a sound header, with -wal and -shm files
 * beside it), opened by one process, and 200 times by several processes at
 * once, every one of which ends with a store that records its run. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "store/store.h"
#include "support.h"

#define ROUNDS 200
#define OPENERS 6

static char dir[CL_PATH_MAX];

/* The bytes of a file. */
typedef struct bytes {
    unsigned char *b;
    size_t n;
} bytes;

static bytes slurp(const char *path)
{
    bytes r = {NULL, 0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return r;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    r.b = malloc((size_t)len + 1);
    assert_non_null(r.b);
    r.n = fread(r.b, 1, (size_t)len, f);
    fclose(f);
    return r;
}

static void spill(const char *path, bytes x)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(x.b, 1, x.n, f), x.n);
    fclose(f);
}

static bool same(bytes a, bytes b)
{
    return a.b && b.b && a.n == b.n && memcmp(a.b, b.b, a.n) == 0;
}

/* One kind of damage: the database's bytes and, when wal.b, a -wal and a
 * -shm file beside it. */
typedef struct damage {
    const char *name;
    bytes db, wal;
} damage;

enum { NOT_A_DB, BAD_HEADER, BAD_PAGE, BAD_PAGE_WITH_WAL, NKINDS };
static damage kinds[NKINDS];

/* A sound store of 400 milestones in folder d, closed: its bytes. */
static bytes sound_store(const char *d)
{
    store *s = NULL;
    char notice[512], id[32], shown[200], path[CL_PATH_MAX + 16];
    cl_err e = {{0}};
    assert_int_equal(mkdir(d, 0700), 0);
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    for (int i = 0; i < 400; i++) {
        snprintf(id, sizeof id, "m%03d", i);
        snprintf(shown, sizeof shown, "%0150d", i);   /* rows long enough to fill pages */
        bool first = false;
        assert_true(store_milestone_reached(s, "reduction", id, shown, 0, 0, &first, &e));
    }
    store_close(s);
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    return slurp(path);
}

/* The page number and size of the last leaf page of table in the database
 * at path. */
static void leaf_page(const char *path, const char *table, long *page, long *size)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char sql[160];
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "SELECT max(pageno) FROM dbstat WHERE name = '%s' AND pagetype = 'leaf'", table);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    *page = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL), SQLITE_OK);
    *size = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(*page > 1 && *size > 0);
}

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(dir, sizeof dir, "storerec"))
        return -1;
    char d[CL_PATH_MAX + 16], path[CL_PATH_MAX + 32];
    const char *text = "this is not a database, it is a text file that lost its way\n";
    kinds[NOT_A_DB] = (damage){"not a database", {(unsigned char *)strdup(text), strlen(text)},
                               {NULL, 0}};
    snprintf(d, sizeof d, "%s/template", dir);
    bytes good = sound_store(d);
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    long page = 0, size = 0;
    leaf_page(path, "milestones", &page, &size);

    bytes header = {malloc(good.n), good.n};
    memcpy(header.b, good.b, good.n);
    header.b[16] = 0x00;   /* a page size of 7 bytes */
    header.b[17] = 0x07;
    kinds[BAD_HEADER] = (damage){"a damaged header", header, {NULL, 0}};

    bytes inner = {malloc(good.n), good.n};
    memcpy(inner.b, good.b, good.n);
    assert_true((size_t)(page * size) <= inner.n);
    memset(inner.b + (page - 1) * size, 0xA5, (size_t)size);
    kinds[BAD_PAGE] = (damage){"a damaged page under a sound header", inner, {NULL, 0}};

    bytes copy = {malloc(inner.n), inner.n};
    memcpy(copy.b, inner.b, inner.n);
    const char *wal = "a -wal file that is not one, kept with the database\n";
    kinds[BAD_PAGE_WITH_WAL] = (damage){"a damaged page, with -wal and -shm files", copy,
                                        {(unsigned char *)strdup(wal), strlen(wal)}};
    free(good.b);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 0; k < NKINDS; k++) {
        free(kinds[k].db.b);
        free(kinds[k].wal.b);
    }
    ts_rm_rf(dir);
    return 0;
}

/* Folder d, made afresh, holding damage k. */
static void damaged(char *d, size_t n, const char *name, int k)
{
    char path[CL_PATH_MAX + 32];
    snprintf(d, n, "%s/%s", dir, name);
    ts_rm_rf(d);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    spill(path, kinds[k].db);
    if (kinds[k].wal.b) {
        snprintf(path, sizeof path, "%s/%s-wal", d, STORE_FILE);
        spill(path, kinds[k].wal);
        snprintf(path, sizeof path, "%s/%s-shm", d, STORE_FILE);
        assert_true(ts_write(path, ""));
    }
}

/* The files in d moved aside (progress.db.corrupt-*, not their -wal and
 * -shm): how many, and the last one's path into moved. */
static int moved_aside(const char *d, char *moved, size_t n)
{
    DIR *dh = opendir(d);
    assert_non_null(dh);
    struct dirent *de;
    int count = 0;
    size_t pre = strlen(STORE_FILE ".corrupt-");
    while ((de = readdir(dh))) {
        size_t len = strlen(de->d_name);
        if (strncmp(de->d_name, STORE_FILE ".corrupt-", pre) != 0 ||
            (len > 4 && (strcmp(de->d_name + len - 4, "-wal") == 0 ||
                         strcmp(de->d_name + len - 4, "-shm") == 0)))
            continue;
        count++;
        snprintf(moved, n, "%s/%s", d, de->d_name);
    }
    closedir(dh);
    return count;
}

/* Opens d, records a run of one row in it, closes it: 0 when all of that
 * worked.  What it was told goes to fd: "ok <notice>" or "failed <why>". */
static int opener(const char *d, int fd)
{
    store *s = NULL;
    char notice[1024], line[2048];
    cl_err e = {{0}};
    bool ok = store_open(d, &s, notice, sizeof notice, &e);
    int64_t run = 0;
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.size, sizeof r.size, "2^20");
    r.kind = RK_EXERCISE;
    store_run_info info = {.lab = "reduction", .origin = "test"};
    ok = ok && store_run_begin(s, &info, &run, &e) && store_row_add(s, run, &r, NULL, NULL, &e);
    store_close(s);
    int len = snprintf(line, sizeof line, "%s %s", ok ? "ok" : "failed", ok ? notice : e.msg);
    if (write(fd, line, (size_t)len) != len)
        return 2;
    return ok ? 0 : 1;
}

static int64_t runs_in(const char *d)
{
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (!store_open(d, &s, notice, sizeof notice, &e))
        fail_msg("reopening %s: %s", d, e.msg);
    int64_t runs = -1, rows = -1;
    assert_true(store_counts(s, &runs, &rows, &e));
    store_close(s);
    return runs;
}

/* Each kind of damage, one process: moved aside whole (with its -wal and
 * -shm files), a notice naming where, a new store that works. */
static void test_each_damage(void **state)
{
    (void)state;
    for (int k = 0; k < NKINDS; k++) {
        char d[CL_PATH_MAX + 32], name[32], moved[CL_PATH_MAX + 128], side[CL_PATH_MAX + 160];
        snprintf(name, sizeof name, "one-%d", k);
        damaged(d, sizeof d, name, k);
        int p[2];
        assert_int_equal(pipe(p), 0);
        int rc = opener(d, p[1]);
        close(p[1]);
        char said[2048] = "";
        ssize_t got = read(p[0], said, sizeof said - 1);
        close(p[0]);
        said[got > 0 ? got : 0] = '\0';
        if (rc != 0 || !strstr(said, "was damaged") || !strstr(said, "moved aside to"))
            fail_msg("%s: %s", kinds[k].name, said);
        assert_int_equal(moved_aside(d, moved, sizeof moved), 1);
        if (!strstr(said, moved))
            fail_msg("%s: the notice does not name %s: %s", kinds[k].name, moved, said);
        bytes kept = slurp(moved);
        if (!same(kept, kinds[k].db))
            fail_msg("%s: %s does not hold the damaged file's bytes", kinds[k].name, moved);
        free(kept.b);
        if (kinds[k].wal.b) {
            snprintf(side, sizeof side, "%s-wal", moved);
            kept = slurp(side);
            assert_true(same(kept, kinds[k].wal));
            free(kept.b);
            snprintf(side, sizeof side, "%s-shm", moved);
            assert_true(paths_is_file(side));
        }
        assert_int_equal(runs_in(d), 1);
    }
}

/* OPENERS processes open the same damaged store at once, ROUNDS times:
 * the damaged bytes survive in exactly one file moved aside, one process
 * says so, naming it, and every process records its run in the new store. */
static void test_openers_at_once(void **state)
{
    (void)state;
    int told = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int k = round % NKINDS;
        char d[CL_PATH_MAX + 32], moved[CL_PATH_MAX + 128];
        damaged(d, sizeof d, "at-once", k);
        int go[2], out[OPENERS][2];
        pid_t kid[OPENERS];
        assert_int_equal(pipe(go), 0);
        for (int i = 0; i < OPENERS; i++) {
            assert_int_equal(pipe(out[i]), 0);
            kid[i] = fork();
            assert_true(kid[i] >= 0);
            if (kid[i] == 0) {
                char c;
                close(go[1]);
                close(out[i][0]);
                if (read(go[0], &c, 1) < 0)   /* returns when the parent closes go */
                    _exit(3);
                _exit(opener(d, out[i][1]));
            }
            close(out[i][1]);
        }
        close(go[0]);
        close(go[1]);
        int noticed = 0;
        for (int i = 0; i < OPENERS; i++) {
            int status = 0;
            assert_int_equal(waitpid(kid[i], &status, 0), kid[i]);
            char said[2048] = "";
            ssize_t got = read(out[i][0], said, sizeof said - 1);
            close(out[i][0]);
            said[got > 0 ? got : 0] = '\0';
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strncmp(said, "ok", 2) != 0)
                fail_msg("round %d (%s), opener %d: %s", round, kinds[k].name, i, said);
            if (strlen(said) > 3 && !strstr(said, d))
                fail_msg("round %d, opener %d said what does not name the folder: %s", round, i,
                         said);
            noticed += strstr(said, "moved aside to") != NULL;
        }
        if (noticed != 1)
            fail_msg("round %d (%s): %d processes moved the store aside", round, kinds[k].name,
                     noticed);
        told += noticed;
        int n = moved_aside(d, moved, sizeof moved);
        if (n != 1)
            fail_msg("round %d (%s): %d files moved aside", round, kinds[k].name, n);
        bytes kept = slurp(moved);
        if (!same(kept, kinds[k].db))
            fail_msg("round %d (%s): %s does not hold the damaged file's bytes", round,
                     kinds[k].name, moved);
        free(kept.b);
        int64_t runs = runs_in(d);
        if (runs != OPENERS)
            fail_msg("round %d (%s): %lld runs recorded of %d", round, kinds[k].name,
                     (long long)runs, OPENERS);
    }
    printf("%d rounds of %d processes: each damaged store moved aside once, whole; "
           "every run recorded\n",
           ROUNDS, OPENERS);
    assert_int_equal(told, ROUNDS);
}

/* Names moved aside never meet: a store damaged again the same second is
 * moved beside the first, which keeps its bytes. */
static void test_never_over_another(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32], moved[CL_PATH_MAX + 128];
    damaged(d, sizeof d, "twice", NOT_A_DB);
    assert_int_equal(runs_in(d), 0);
    char path[CL_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    assert_true(ts_write(path, "a second damaged file, moved aside in the same second\n"));
    assert_int_equal(runs_in(d), 0);
    assert_int_equal(moved_aside(d, moved, sizeof moved), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_damage),
        cmocka_unit_test(test_never_over_another),
        cmocka_unit_test(test_openers_at_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
