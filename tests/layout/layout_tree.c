/* layout_tree.c - src/DEPS and the files of src/ and kernels/.
 *
 * Reads the table of layers (each folder and the folders it may include
 * from, [cuda] where CUDA headers are allowed) and each source file's
 * quoted includes, its first CUDA system header and its length.  Paths come
 * from $CUDALAB_HOME (the source tree). */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cmocka.h>

#include "layout.h"

folder layout_folders[LAYOUT_MAX_FOLDERS];
int layout_nfolders;
source *layout_files;
int layout_nfiles;
char layout_home[1024];
int layout_problems;

void layout_problem(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    layout_problems++;
}

int layout_folder_find(const char *name)
{
    for (int i = 0; i < layout_nfolders; i++)
        if (strcmp(layout_folders[i].name, name) == 0)
            return i;
    return -1;
}

static int folder_add(const char *name)
{
    int k = layout_folder_find(name);
    if (k >= 0)
        return k;
    assert_true(layout_nfolders < LAYOUT_MAX_FOLDERS);
    snprintf(layout_folders[layout_nfolders].name, LAYOUT_NAME_LEN, "%s", name);
    return layout_nfolders++;
}

/* ---- src/DEPS ------------------------------------------------------------ */

/* One "folder [cuda]: folders it may use" line, comment already cut. */
static void deps_line(char *line, int ln)
{
    char *colon = strchr(line, ':');
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return;
    if (!colon) {
        layout_problem("src/DEPS:%d: expected 'folder: folders it may use'", ln);
        return;
    }
    *colon = '\0';
    char name[LAYOUT_NAME_LEN];
    bool cuda = strstr(p, "[cuda]") != NULL;
    if (sscanf(p, "%63s", name) != 1)
        return;
    int k = folder_add(name);
    folder *f = &layout_folders[k];
    if (f->listed)
        layout_problem("src/DEPS:%d: '%s' is listed twice", ln, name);
    f->listed = true;
    f->cuda = cuda;
    f->deps_line = ln;
    for (char *tok = strtok(colon + 1, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        int d = layout_folder_find(tok);
        if (d < 0 || !layout_folders[d].listed)
            layout_problem("src/DEPS:%d: '%s' uses '%s', which is not listed above it", ln,
                           name, tok);
        else
            f->may[d] = true;
    }
}

void layout_read_deps(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/src/DEPS", layout_home);
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
        deps_line(line, ln);
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

/* Records the include on line ln of s, if the line is one. */
static void include_line(source *s, char *line, int ln)
{
    char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '#')
        return;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "include", 7) != 0)
        return;
    p += 7;
    while (*p == ' ' || *p == '\t')
        p++;
    char open = *p, close = open == '"' ? '"' : open == '<' ? '>' : 0;
    char *end = close ? strchr(p + 1, close) : NULL;
    if (!end)
        return;
    *end = '\0';
    if (open == '<') {
        if (!s->cuda_header[0] && is_cuda_header(p + 1)) {
            snprintf(s->cuda_header, sizeof s->cuda_header, "%s", p + 1);
            s->cuda_line = ln;
        }
    } else if (s->ninc < LAYOUT_MAX_INCLUDES) {
        snprintf(s->inc[s->ninc].target, sizeof s->inc[0].target, "%s", p + 1);
        s->inc[s->ninc].line = ln;
        s->ninc++;
    }
}

static void read_source(const char *rel, int fidx, bool in_src)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", layout_home, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    assert_true(layout_nfiles < LAYOUT_MAX_FILES);
    source *s = &layout_files[layout_nfiles++];
    memset(s, 0, sizeof *s);
    snprintf(s->rel, sizeof s->rel, "%s", rel);
    s->folder = fidx;
    s->in_src = in_src;
    char line[4096];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        include_line(s, line, ln);
    }
    s->lines = ln;
    fclose(f);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static bool is_source_name(const char *nm)
{
    return has_suffix(nm, ".c") || has_suffix(nm, ".h") || has_suffix(nm, ".cu") ||
           has_suffix(nm, ".cuh");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names in dir that pass keep (sorted, malloc'd), into names; their count. */
static int list_dir(const char *dir, char **names, int max, bool (*keep)(const char *dir,
                                                                          const char *name))
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max)
        if (de->d_name[0] != '.' && keep(dir, de->d_name))
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    return n;
}

static bool keep_source(const char *dir, const char *name)
{
    (void)dir;
    return is_source_name(name);
}

static bool keep_folder(const char *dir, const char *name)
{
    char sub[1400];
    struct stat st;
    snprintf(sub, sizeof sub, "%s/%s", dir, name);
    return stat(sub, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Calls read_source on each .c/.h/.cu/.cuh in reldir, sorted. */
static void read_dir(const char *reldir, int fidx, bool in_src)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", layout_home, reldir);
    char *names[LAYOUT_MAX_FILES];
    int n = list_dir(path, names, LAYOUT_MAX_FILES, keep_source);
    for (int i = 0; i < n; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", reldir, names[i]);
        read_source(rel, fidx, in_src);
        free(names[i]);
    }
}

/* The folder named in DEPS, or a new one with a problem: "where" is how
 * the tree names it. */
static int listed_folder(const char *name, const char *where)
{
    int k = layout_folder_find(name);
    if (k < 0 || !layout_folders[k].listed) {
        layout_problem("%s: a folder that src/DEPS does not list", where);
        k = folder_add(name);
    }
    return k;
}

void layout_read_tree(void)
{
    layout_files = calloc(LAYOUT_MAX_FILES, sizeof *layout_files);
    assert_non_null(layout_files);
    char path[1200];
    snprintf(path, sizeof path, "%s/src", layout_home);
    char *subs[LAYOUT_MAX_FOLDERS];
    int n = list_dir(path, subs, LAYOUT_MAX_FOLDERS, keep_folder);
    for (int i = 0; i < n; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "src/%s", subs[i]);
        char where[300];
        snprintf(where, sizeof where, "src/%s/", subs[i]);
        read_dir(rel, listed_folder(subs[i], where), true);
        free(subs[i]);
    }
    int m = layout_folder_find("main");
    if (m < 0)
        layout_problem("src/DEPS: no line for 'main' (src/main.c)");
    else
        read_source("src/main.c", m, true);
    read_dir("kernels", listed_folder("kernels", "kernels/"), false);
}

int layout_resolve(const char *target)
{
    char rel[512];
    if (strchr(target, '/'))
        snprintf(rel, sizeof rel, "src/%s", target);
    else
        snprintf(rel, sizeof rel, "kernels/%s", target);
    for (int i = 0; i < layout_nfiles; i++)
        if (strcmp(layout_files[i].rel, rel) == 0)
            return i;
    return -1;
}
