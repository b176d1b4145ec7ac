/* bwrap.c - bubblewrap's command line for the namespace sandbox
 * (core/bwrap.h). */
#include "core/bwrap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/spawn.h"
#include "core/which.h"

#define BWRAP_MAX_ARGS 1024

typedef struct argvec {
    char **v;
    size_t n;
    bool failed;
} argvec;

static void add(argvec *a, const char *s)
{
    if (a->failed || a->n + 1 >= BWRAP_MAX_ARGS) {
        a->failed = true;
        return;
    }
    a->v[a->n] = strdup(s);
    if (!a->v[a->n]) {
        a->failed = true;
        return;
    }
    a->v[++a->n] = NULL;
}

static void add3(argvec *a, const char *opt, const char *x, const char *y)
{
    add(a, opt);
    add(a, x);
    if (y)
        add(a, y);
}

bool bwrap_find(char *out, size_t cap)
{
    if (which_tool(BWRAP_PROGRAM, out, cap))
        return true;
    if (access("/usr/bin/" BWRAP_PROGRAM, X_OK) == 0) {
        snprintf(out, cap, "/usr/bin/" BWRAP_PROGRAM);
        return true;
    }
    return false;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether p lies inside (or is) dir. */
static bool inside(const char *p, const char *dir)
{
    size_t k = strlen(dir);
    while (k > 1 && dir[k - 1] == '/')
        k--;
    return strncmp(p, dir, k) == 0 && (p[k] == '\0' || p[k] == '/' || k == 1);
}

/* The read-only binds, parents first, each once; a top-level link (/lib
 * on a merged-/usr system) made again as a link. */
static void add_ro(argvec *a, const bwrap_spec *s)
{
    const char **v = malloc((s->nro + 1) * sizeof *v);
    if (!v) {
        a->failed = true;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < s->nro; i++)
        if (s->ro[i] && s->ro[i][0] == '/' && strcmp(s->ro[i], "/") != 0)
            v[n++] = s->ro[i];
    qsort(v, n, sizeof *v, by_path);
    for (size_t i = 0; i < n; i++) {
        bool covered = false;
        for (size_t k = 0; k < i && !covered; k++)
            covered = inside(v[i], v[k]) && strcmp(v[i], v[k]) != 0;
        if (covered || (i > 0 && strcmp(v[i], v[i - 1]) == 0))
            continue;
        struct stat st;
        char target[PATH_MAX];
        ssize_t len;
        if (lstat(v[i], &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode) && strchr(v[i] + 1, '/') == NULL &&
            (len = readlink(v[i], target, sizeof target - 1)) > 0) {
            target[len] = '\0';
            add3(a, "--symlink", target, v[i]);
            continue;
        }
        add3(a, "--ro-bind-try", v[i], v[i]);
    }
    free(v);
}

char **bwrap_argv(const bwrap_spec *s, const char *const *cmd, cl_err *err)
{
    char prog[PATH_MAX];
    if (!bwrap_find(prog, sizeof prog))
        return err_set(err, "bubblewrap is not installed (apt-get install bubblewrap)"), NULL;
    argvec a = {calloc(BWRAP_MAX_ARGS, sizeof(char *)), 0, false};
    if (!a.v)
        return err_set(err, "out of memory"), NULL;
    /* bwrap itself starts with an empty environment (but the loader's
     * path): what the caller's holds is never in a process the sandbox
     * could look at */
    add(&a, "/usr/bin/env");
    add(&a, "-i");
    const char *ld = getenv("LD_LIBRARY_PATH");
    if (ld && ld[0]) {
        /* where bwrap's own libraries may be (a machine given them apart) */
        char v[8192];
        snprintf(v, sizeof v, "LD_LIBRARY_PATH=%s", ld);
        add(&a, v);
    }
    add(&a, prog);
    /* every namespace, no terminal, nothing outlives the grader; the
     * command is the namespace's PID 1, so no process inside shows bwrap's
     * command line */
    add(&a, "--unshare-all");
    add(&a, "--as-pid-1");
    add(&a, "--new-session");
    add(&a, "--die-with-parent");
    add3(&a, "--cap-drop", "ALL", NULL);
    add3(&a, "--hostname", "cudalab-sandbox", NULL);
    add(&a, "--clearenv");
    for (size_t i = 0; i < s->nenv; i++) {
        const char *eq = strchr(s->env[i], '=');
        if (!eq)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - s->env[i]), s->env[i]);
        add3(&a, "--setenv", name, eq + 1);
    }
    /* /tmp first, so that a bound folder below it (a python3 package
     * folder) lands on the private one */
    add3(&a, "--tmpfs", "/tmp", NULL);
    add_ro(&a, s);
    add3(&a, "--dev", "/dev", NULL);
    for (size_t i = 0; i < s->ndev; i++)
        add3(&a, "--dev-bind-try", s->dev[i], s->dev[i]);
    add3(&a, "--proc", "/proc", NULL);
    /* the kernel's settings read-only (core_pattern and the like) */
    add3(&a, "--ro-bind-try", "/proc/sys", "/proc/sys");
    add3(&a, "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger");
    if (s->scratch)
        add3(&a, "--bind", s->scratch, s->scratch);
    for (size_t i = 0; i < s->nfiles; i++)
        if (access(s->files[i][0], R_OK) == 0)
            add3(&a, "--ro-bind", s->files[i][0], s->files[i][1]);
    for (size_t i = 0; i < s->nhide; i++) {
        /* only where a bind shows it: elsewhere it does not exist inside */
        bool shown = s->scratch && inside(s->hide[i], s->scratch);
        for (size_t k = 0; k < s->nro && !shown; k++)
            shown = s->ro[k] && s->ro[k][0] == '/' && inside(s->hide[i], s->ro[k]);
        if (!shown)
            continue;
        if (paths_is_dir(s->hide[i]))
            add3(&a, "--tmpfs", s->hide[i], NULL);
        else if (access(s->hide[i], F_OK) == 0)
            add3(&a, "--ro-bind", "/dev/null", s->hide[i]);
    }
    add3(&a, "--chdir", s->chdir ? s->chdir : s->scratch ? s->scratch : "/", NULL);
    add(&a, "--");
    for (size_t i = 0; cmd && cmd[i]; i++)
        add(&a, cmd[i]);
    if (a.failed) {
        bwrap_argv_free(a.v);
        return err_set(err, "the sandbox's command line is too long or out of memory"), NULL;
    }
    return a.v;
}

void bwrap_argv_free(char **argv)
{
    if (!argv)
        return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

bool bwrap_works(char *why, size_t why_n)
{
    static int known = -1;
    static char said[512];
    if (known < 0) {
        static const char *const ro[] = {"/usr", "/lib", "/lib64", "/bin"};
        static const char *const cmd[] = {"/bin/sh", "-c", "exit 0", NULL};
        bwrap_spec s = {.ro = ro, .nro = sizeof ro / sizeof ro[0]};
        cl_err e = {{0}};
        char **argv = bwrap_argv(&s, cmd, &e);
        if (!argv) {
            snprintf(said, sizeof said, "%s", e.msg);
            known = 0;
        } else {
            char out[512] = "";
            int status = 0;
            spawn_opts o = {.argv = (const char *const *)argv, .what = "bwrap",
                            .err = SPAWN_TO_OUT, .own_group = true};
            bool ran = spawn_capture(&o, 20.0, out, sizeof out, &status, &e);
            known = ran && WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!known) {
                out[strcspn(out, "\n")] = '\0';
                snprintf(said, sizeof said, "bubblewrap cannot make a sandbox here: %s",
                         !ran ? e.msg : out[0] ? out : "it failed");
            }
            bwrap_argv_free(argv);
        }
    }
    if (!known && why)
        snprintf(why, why_n, "%s", said);
    return known == 1;
}
