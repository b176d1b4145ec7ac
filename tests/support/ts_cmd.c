#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TS_MAX_ARGS 32

void ts_output_free(ts_output *o)
{
    free(o->out);
    free(o->err);
    o->out = o->err = NULL;
}

/* The rest of f from its start, NUL-terminated (malloc'd); closes f. */
static char *slurp(FILE *f)
{
    rewind(f);
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static FILE *temp_file(char *path, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, n, "%s/cudalab-out-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w+");
    assert_non_null(f);
    return f;
}

int ts_shell(ts_output *o, bool merge, const char *fmt, ...)
{
    ts_output_free(o);
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(len >= 0);
    char *body = malloc((size_t)len + 1);
    assert_non_null(body);
    vsnprintf(body, (size_t)len + 1, fmt, aq);
    va_end(aq);

    char out_path[CL_PATH_MAX], err_path[CL_PATH_MAX];
    FILE *fo = temp_file(out_path, sizeof out_path);
    FILE *fe = temp_file(err_path, sizeof err_path);
    size_t n = (size_t)len + 2 * CL_PATH_MAX + 64;
    char *cmd = malloc(n);
    assert_non_null(cmd);
    if (merge)
        snprintf(cmd, n, "( %s ) >'%s' 2>&1 </dev/null", body, out_path);
    else
        snprintf(cmd, n, "( %s ) >'%s' 2>'%s' </dev/null", body, out_path, err_path);
    fflush(stdout);
    fflush(stderr);
    int st = system(cmd);
    o->status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    o->out = slurp(fo);
    o->err = slurp(fe);
    unlink(out_path);
    unlink(err_path);
    free(cmd);
    free(body);
    return o->status;
}

int ts_capture_cmd(ts_output *o, ts_cmd_fn cmd, cli_ctx *ctx, const char *name,
                   const char *const *words)
{
    ts_output_free(o);
    char *argv[TS_MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = (char *)name;
    for (; words && words[argc - 1]; argc++) {
        assert_true(argc < TS_MAX_ARGS);
        argv[argc] = (char *)words[argc - 1];
    }
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    assert_non_null(fo);
    assert_non_null(fe);
    int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
    assert_true(so >= 0 && se >= 0);
    dup2(fileno(fo), STDOUT_FILENO);
    dup2(fileno(fe), STDERR_FILENO);
    o->status = cmd(ctx, argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, STDOUT_FILENO);
    dup2(se, STDERR_FILENO);
    close(so);
    close(se);
    o->out = slurp(fo);
    o->err = slurp(fe);
    return o->status;
}

void ts_cli_ctx(cli_ctx *ctx, const char *home, double time_limit_s)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->prog = "cudalab";
    if (home) {
        snprintf(ctx->home, sizeof ctx->home, "%s", home);
        paths_join(ctx->shipped_labs, sizeof ctx->shipped_labs, home, "labs");
        ctx->lab_dirs[0] = ctx->shipped_labs;
        ctx->nlab_dirs = 1;
    }
    ctx->time_limit_s = time_limit_s;
}
