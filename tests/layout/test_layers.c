/* test_layers.c - src/ keeps the shape src/DEPS describes.
 *
 * Reads src/DEPS (each folder and the folders it may include from) and
 * every #include "..." under src/, and fails, naming file and line, on:
 *   - an include of a folder the table does not allow, or of an unknown one;
 *   - a cycle between folders, in the table or in the includes;
 *   - a CUDA header reached, directly or through other headers, from a
 *     folder the table does not mark [cuda];
 *   - a source file past the size limit, or a folder holding more than a
 *     quarter of src/'s lines.
 * Paths come from $CUDALAB_HOME (the source tree). */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#define MAX_FOLDERS 32
#define MAX_FILES 1024
#define MAX_INCLUDES 64
#define NAME_MAX_LEN 64
#define FILE_LINE_LIMIT 640    /* "about 600 lines", with a little room */
#define FOLDER_SHARE_LIMIT 0.25

typedef struct folder {
    char name[NAME_MAX_LEN];
    bool cuda;
    bool listed;               /* named in DEPS */
    bool may[MAX_FOLDERS];     /* may include from folder k */
    bool uses[MAX_FOLDERS];    /* does include from folder k */
    long lines;
} folder;

typedef struct include {
    char target[256];          /* as written between the quotes */
    int line;
} include;

typedef struct source {
    char rel[256];             /* "src/lab/labload.c", "kernels/kernels.h" */
    int folder;                /* -1 for kernels/ */
    long lines;
    int ninc;
    include inc[MAX_INCLUDES];
    char cuda_header[128];     /* the first CUDA system header it includes */
    int cuda_line;
} source;

static folder folders[MAX_FOLDERS];
static int nfolders;
static source *files;
static int nfiles;
static char home[1024];
static int problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    problems++;
}

static int folder_find(const char *name)
{
    for (int i = 0; i < nfolders; i++)
        if (strcmp(folders[i].name, name) == 0)
            return i;
    return -1;
}

static int folder_add(const char *name)
{
    int k = folder_find(name);
    if (k >= 0)
        return k;
    assert_true(nfolders < MAX_FOLDERS);
    snprintf(folders[nfolders].name, NAME_MAX_LEN, "%s", name);
    return nfolders++;
}

/* ---- src/DEPS ------------------------------------------------------------ */

static void read_deps(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/src/DEPS", home);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    char line[512];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *colon = strchr(line, ':');
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        if (!colon) {
            problem("src/DEPS:%d: expected 'folder: folders it may use'", ln);
            continue;
        }
        *colon = '\0';
        char name[NAME_MAX_LEN];
        bool cuda = strstr(p, "[cuda]") != NULL;
        if (sscanf(p, "%63s", name) != 1)
            continue;
        int k = folder_add(name);
        if (folders[k].listed)
            problem("src/DEPS:%d: '%s' is listed twice", ln, name);
        folders[k].listed = true;
        folders[k].cuda = cuda;
        for (char *tok = strtok(colon + 1, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
            int d = folder_find(tok);
            if (d < 0 || !folders[d].listed)
                problem("src/DEPS:%d: '%s' uses '%s', which is not listed above it", ln, name,
                        tok);
            else
                folders[k].may[d] = true;
        }
    }
    fclose(f);
}

/* ---- reading sources ------------------------------------------------------- */

static bool is_cuda_header(const char *h)
{
    static const char *const prefixes[] = {"cuda",   "cupti", "nvrtc",   "nvtx",   "cub/",
                                           "cublas", "curand", "driver_", "vector_", "thrust/",
                                           "mma.h",  "cooperative_groups"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(h, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static void read_source(const char *rel, int fidx)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", home, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    assert_true(nfiles < MAX_FILES);
    source *s = &files[nfiles++];
    memset(s, 0, sizeof *s);
    snprintf(s->rel, sizeof s->rel, "%s", rel);
    s->folder = fidx;
    char line[4096];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "include", 7) != 0)
            continue;
        p += 7;
        while (*p == ' ' || *p == '\t')
            p++;
        char open = *p, close = open == '"' ? '"' : open == '<' ? '>' : 0;
        char *end = close ? strchr(p + 1, close) : NULL;
        if (!end)
            continue;
        *end = '\0';
        if (open == '<') {
            if (!s->cuda_header[0] && is_cuda_header(p + 1)) {
                snprintf(s->cuda_header, sizeof s->cuda_header, "%s", p + 1);
                s->cuda_line = ln;
            }
        } else if (s->ninc < MAX_INCLUDES) {
            snprintf(s->inc[s->ninc].target, sizeof s->inc[0].target, "%s", p + 1);
            s->inc[s->ninc].line = ln;
            s->ninc++;
        }
    }
    s->lines = ln;
    fclose(f);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Calls read_source on each .c/.h/.cuh (and .cu with cu) in dir, sorted. */
static void read_dir(const char *reldir, int fidx, bool cu)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", home, reldir);
    DIR *d = opendir(path);
    if (!d)
        fail_msg("cannot open %s", path);
    char *names[MAX_FILES];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_FILES) {
        const char *nm = de->d_name;
        if (has_suffix(nm, ".c") || has_suffix(nm, ".h") || has_suffix(nm, ".cuh") ||
            (cu && has_suffix(nm, ".cu")))
            names[n++] = strdup(nm);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (int i = 0; i < n; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", reldir, names[i]);
        read_source(rel, fidx);
        free(names[i]);
    }
}

static void read_tree(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/src", home);
    DIR *d = opendir(path);
    assert_non_null(d);
    char *subs[MAX_FOLDERS];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_FOLDERS) {
        char sub[1400];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
        if (de->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            subs[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(subs, (size_t)n, sizeof subs[0], cmp_names);
    for (int i = 0; i < n; i++) {
        int k = folder_find(subs[i]);
        if (k < 0 || !folders[k].listed) {
            problem("src/%s/: a folder that src/DEPS does not list", subs[i]);
            k = folder_add(subs[i]);
        }
        char rel[256];
        snprintf(rel, sizeof rel, "src/%s", subs[i]);
        read_dir(rel, k, false);
        free(subs[i]);
    }
    int m = folder_find("main");
    if (m < 0)
        problem("src/DEPS: no line for 'main' (src/main.c)");
    else
        read_source("src/main.c", m);
    read_dir("kernels", -1, false);
}

/* ---- checks ------------------------------------------------------------------ */

/* The file an include names, or -1 (a system header, or missing). */
static int resolve(const char *target)
{
    char rel[512];
    if (strchr(target, '/'))
        snprintf(rel, sizeof rel, "src/%s", target);
    else
        snprintf(rel, sizeof rel, "kernels/%s", target);
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i].rel, rel) == 0)
            return i;
    return -1;
}

/* The folder an include's target belongs to: its first path component,
 * or kernels/ for a bare name. */
static int target_folder(const char *target, char *name, size_t n)
{
    const char *slash = strchr(target, '/');
    if (!slash) {
        snprintf(name, n, "kernels");
    } else {
        size_t len = (size_t)(slash - target);
        snprintf(name, n, "%.*s", (int)(len < n ? len : n - 1), target);
    }
    return folder_find(name);
}

static void check_includes(void)
{
    for (int i = 0; i < nfiles; i++) {
        const source *s = &files[i];
        if (s->folder < 0)
            continue;
        folder *me = &folders[s->folder];
        for (int j = 0; j < s->ninc; j++) {
            const include *in = &s->inc[j];
            char name[NAME_MAX_LEN];
            int k = target_folder(in->target, name, sizeof name);
            if (resolve(in->target) < 0) {
                problem("%s:%d: includes \"%s\", which is not a file of src/ or kernels/",
                        s->rel, in->line, in->target);
                continue;
            }
            if (k == s->folder)
                continue;
            if (k < 0) {
                problem("%s:%d: includes \"%s\" from '%s', a folder src/DEPS does not list",
                        s->rel, in->line, in->target, name);
                continue;
            }
            me->uses[k] = true;
            if (!me->may[k]) {
                char allowed[512] = "";
                size_t at = 0;
                for (int d = 0; d < nfolders; d++)
                    if (me->may[d])
                        at += (size_t)snprintf(allowed + at, at < sizeof allowed ? sizeof allowed - at : 0,
                                               "%s%s", at ? " " : "", folders[d].name);
                problem("%s:%d: includes \"%s\": '%s' may not use '%s' (src/DEPS allows: %s)",
                        s->rel, in->line, in->target, me->name, folders[k].name,
                        allowed[0] ? allowed : "nothing");
            }
        }
    }
}

/* Depth-first search for a cycle in edges (may or uses); prints it. */
static bool cycle_from(int v, int *state, int *stack, int depth, bool use_may, const char *what)
{
    state[v] = 1;
    stack[depth] = v;
    for (int w = 0; w < nfolders; w++) {
        bool edge = use_may ? folders[v].may[w] : folders[v].uses[w];
        if (!edge || w == v)
            continue;
        if (state[w] == 1) {
            char text[512] = "";
            size_t at = 0;
            int from = 0;
            while (stack[from] != w)
                from++;
            for (int k = from; k <= depth; k++)
                at += (size_t)snprintf(text + at, at < sizeof text ? sizeof text - at : 0, "%s -> ",
                                       folders[stack[k]].name);
            problem("%s: a cycle between folders: %s%s", what, text, folders[w].name);
            return true;
        }
        if (state[w] == 0 && cycle_from(w, state, stack, depth + 1, use_may, what))
            return true;
    }
    state[v] = 2;
    return false;
}

static void check_cycles(bool use_may, const char *what)
{
    int state[MAX_FOLDERS] = {0}, stack[MAX_FOLDERS];
    for (int v = 0; v < nfolders; v++)
        if (state[v] == 0 && cycle_from(v, state, stack, 0, use_may, what))
            return;
}

/* The chain of includes from file i to a CUDA header, into chain; false
 * when none is reached. */
static bool reaches_cuda(int i, bool *seen, char *chain, size_t n)
{
    const source *s = &files[i];
    if (seen[i])
        return false;
    seen[i] = true;
    if (s->cuda_header[0]) {
        snprintf(chain, n, "%s:%d <%s>", s->rel, s->cuda_line, s->cuda_header);
        return true;
    }
    for (int j = 0; j < s->ninc; j++) {
        int t = resolve(s->inc[j].target);
        char rest[1024];
        if (t >= 0 && reaches_cuda(t, seen, rest, sizeof rest)) {
            snprintf(chain, n, "%s:%d -> %s", s->rel, s->inc[j].line, rest);
            return true;
        }
    }
    return false;
}

static void check_cuda_free(void)
{
    bool *seen = calloc((size_t)nfiles, sizeof *seen);
    assert_non_null(seen);
    for (int i = 0; i < nfiles; i++) {
        if (files[i].folder < 0 || folders[files[i].folder].cuda)
            continue;
        memset(seen, 0, (size_t)nfiles * sizeof *seen);
        char chain[1024];
        if (reaches_cuda(i, seen, chain, sizeof chain))
            problem("%s: '%s' must stay CUDA-free (src/DEPS), but reaches a CUDA header: %s",
                    files[i].rel, folders[files[i].folder].name, chain);
    }
    free(seen);
}

static void check_sizes(void)
{
    long total = 0;
    for (int i = 0; i < nfiles; i++) {
        const source *s = &files[i];
        if (s->folder < 0)
            continue;
        folders[s->folder].lines += s->lines;
        total += s->lines;
        if (s->lines > FILE_LINE_LIMIT)
            problem("%s: %ld lines, past the limit of %d: split it by responsibility", s->rel,
                    s->lines, FILE_LINE_LIMIT);
    }
    for (int k = 0; k < nfolders; k++) {
        double share = total ? (double)folders[k].lines / (double)total : 0.0;
        if (share > FOLDER_SHARE_LIMIT)
            problem("src/%s/: %ld of src/'s %ld lines (%.1f%%), more than a quarter",
                    folders[k].name, folders[k].lines, total, 100.0 * share);
    }
}

static void test_layers(void **state)
{
    (void)state;
    const char *h = getenv("CUDALAB_HOME");
    if (!h)
        fail_msg("CUDALAB_HOME is not set (run the tests through ctest)");
    snprintf(home, sizeof home, "%s", h);
    files = calloc(MAX_FILES, sizeof *files);
    assert_non_null(files);
    read_deps();
    check_cycles(true, "src/DEPS");
    read_tree();
    check_includes();
    check_cycles(false, "src/ includes");
    check_cuda_free();
    check_sizes();
    printf("checked %d files in %d folders against src/DEPS\n", nfiles, nfolders);
    free(files);
    assert_int_equal(problems, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_layers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
