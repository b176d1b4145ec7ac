#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/strbuf.h"

#define TS_FILE_MAX ((size_t)64 << 20)

static const char *env_root(const char *var)
{
    const char *root = getenv(var);
    if (!root || !root[0]) {
        print_error("%s is not set: run the tests through ctest\n", var);
        fail();
    }
    return root;
}

static void env_path(char *out, size_t n, const char *var, const char *fmt, va_list ap)
{
    const char *root = env_root(var);
    char rel[CL_PATH_MAX];
    vsnprintf(rel, sizeof rel, fmt, ap);
    snprintf(out, n, "%s/%s", root, rel);
}

void ts_home_path(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    env_path(out, n, "CUDALAB_HOME", fmt, ap);
    va_end(ap);
}

void ts_data_path(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    env_path(out, n, "CUDALAB_TEST_DATA", fmt, ap);
    va_end(ap);
}

const char *ts_exe(void)
{
    return env_root("CUDALAB_EXE");
}

bool ts_tmpdir(char *out, size_t n, const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, n, "%s/cudalab-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", tag);
    return mkdtemp(out) != NULL;
}

char ts_tmp[CL_PATH_MAX];

int ts_data_home(const char *dir)
{
    unsetenv("CUDALAB_DATA");
    unsetenv("CUDALAB_CACHE");
    if (setenv("XDG_DATA_HOME", dir, 1) != 0)
        return -1;
    return setenv("XDG_CACHE_HOME", dir, 1);
}

int ts_tmp_setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(ts_tmp, sizeof ts_tmp, "data"))
        return -1;
    return ts_data_home(ts_tmp) == 0 ? 0 : -1;
}

int ts_tmp_teardown(void **state)
{
    (void)state;
    return ts_rm_rf(ts_tmp) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

bool ts_rm_rf(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return access(dir, F_OK) != 0;
}

char *ts_read(const char *path)
{
    return file_read_all(path, TS_FILE_MAX, NULL, NULL);
}

bool ts_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

bool ts_same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = file_read_all(a, TS_FILE_MAX, &la, NULL);
    char *y = file_read_all(b, TS_FILE_MAX, &lb, NULL);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

char *ts_listing(const char *d)
{
    struct dirent **names = NULL;
    int n = scandir(d, &names, NULL, alphasort);
    strbuf b;
    strbuf_init(&b, 0);
    strbuf_str(&b, "");
    for (int i = 0; i < n; i++) {
        strbuf_printf(&b, "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return strbuf_take(&b);
}
