#include "exutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"

static void env_path(char *out, size_t n, const char *var, const char *mid, const char *rel)
{
    const char *root = getenv(var);
    if (!root || !root[0]) {
        print_error("%s is not set: run the tests through ctest\n", var);
        fail();
    }
    snprintf(out, n, "%s/%s%s", root, mid, rel);
}

void ex_home_path(char *out, size_t n, const char *rel)
{
    env_path(out, n, "CUDALAB_HOME", "", rel);
}

void ex_data_path(char *out, size_t n, const char *rel)
{
    env_path(out, n, "CUDALAB_TEST_DATA", "exercises/", rel);
}

void ex_tmpdir(char *out, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, n, "%s/cudalab-ex-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(out));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void ex_rm_rf(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *ex_read(const char *path)
{
    return file_read_all(path, (size_t)64 << 20, NULL, NULL);
}

bool ex_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

bool ex_same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = file_read_all(a, (size_t)64 << 20, &la, NULL);
    char *y = file_read_all(b, (size_t)64 << 20, &lb, NULL);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}
