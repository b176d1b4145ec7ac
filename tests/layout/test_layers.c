/* test_layers.c - src/ and kernels/ keep the shape src/DEPS describes.
 *
 * Reads src/DEPS (each folder and the folders it may include from), every
 * #include "..." under src/ and kernels/, and the functions each file
 * defines and calls (layout_tree.c, layout_code.c).  Fails, naming file and
 * line, on:
 *   - an include of a folder the table does not allow, or of an unknown one;
 *   - a cycle between folders, in the table or in the includes;
 *   - a CUDA header reached, directly or through other headers, from a
 *     folder the table does not mark [cuda];
 *   - a permission in the table that no include uses;
 *   - a source file past FILE_LINE_LIMIT lines, or a folder holding more
 *     than a quarter of src/'s lines;
 *   - a loop of files inside a folder of src/: file A calls a function (or
 *     uses a variable) that file B of the same folder defines and B,
 *     directly or through other files of the folder, calls back into A;
 *   - a function longer than FUNC_LINE_LIMIT lines from its '{' to its '}';
 *     in kernels/ a longer one passes when the comment on the lines right
 *     above it explains why its "instruction mix" is the point.
 * Paths come from $CUDALAB_HOME (the source tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "layout.h"

#define FILE_LINE_LIMIT 600
#define FUNC_LINE_LIMIT 80
#define FOLDER_SHARE_LIMIT 0.25
#define MAX_LOOP_FILES 128

static folder *const folders = layout_folders;

static bool is_kernels(int k) { return strcmp(folders[k].name, "kernels") == 0; }

/* ---- includes ---------------------------------------------------------------- */

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
    return layout_folder_find(name);
}

/* The folders k may use, as "a b c" (or "nothing"). */
static const char *allowed_text(int k, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int d = 0; d < layout_nfolders; d++)
        if (folders[k].may[d] && at < n)
            at += (size_t)snprintf(out + at, n - at, "%s%s", at ? " " : "", folders[d].name);
    return out[0] ? out : "nothing";
}

/* Checks (report) or only records in folder.uses (!report) every include. */
static void walk_includes(bool report)
{
    for (int i = 0; i < layout_nfiles; i++) {
        const source *s = &layout_files[i];
        folder *me = &folders[s->folder];
        for (int j = 0; j < s->ninc; j++) {
            const include *in = &s->inc[j];
            char name[LAYOUT_NAME_LEN], allowed[512];
            int k = target_folder(in->target, name, sizeof name);
            if (layout_resolve(in->target) < 0) {
                if (report)
                    layout_problem("%s:%d: includes \"%s\", which is not a file of src/ or kernels/",
                                   s->rel, in->line, in->target);
            } else if (k < 0) {
                if (report)
                    layout_problem("%s:%d: includes \"%s\" from '%s', a folder src/DEPS does not list",
                                   s->rel, in->line, in->target, name);
            } else if (k != s->folder) {
                me->uses[k] = true;
                if (report && !me->may[k])
                    layout_problem("%s:%d: includes \"%s\": '%s' may not use '%s' (src/DEPS allows: %s)",
                                   s->rel, in->line, in->target, me->name, folders[k].name,
                                   allowed_text(s->folder, allowed, sizeof allowed));
            }
        }
    }
}

/* Depth-first search for a cycle in edges (may or uses); prints it. */
static bool cycle_from(int v, int *state, int *stack, int depth, bool use_may, const char *what)
{
    state[v] = 1;
    stack[depth] = v;
    for (int w = 0; w < layout_nfolders; w++) {
        bool edge = use_may ? folders[v].may[w] : folders[v].uses[w];
        if (!edge || w == v)
            continue;
        if (state[w] == 1) {
            char text[512] = "";
            size_t at = 0;
            int from = 0;
            while (stack[from] != w)
                from++;
            for (int k = from; k <= depth && at < sizeof text; k++)
                at += (size_t)snprintf(text + at, sizeof text - at, "%s -> ", folders[stack[k]].name);
            layout_problem("%s: a cycle between folders: %s%s", what, text, folders[w].name);
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
    int state[LAYOUT_MAX_FOLDERS] = {0}, stack[LAYOUT_MAX_FOLDERS];
    for (int v = 0; v < layout_nfolders; v++)
        if (state[v] == 0 && cycle_from(v, state, stack, 0, use_may, what))
            return;
}

/* The chain of includes from file i to a CUDA header, into chain; false
 * when none is reached. */
static bool reaches_cuda(int i, bool *seen, char *chain, size_t n)
{
    const source *s = &layout_files[i];
    if (seen[i])
        return false;
    seen[i] = true;
    if (s->cuda_header[0]) {
        snprintf(chain, n, "%s:%d <%s>", s->rel, s->cuda_line, s->cuda_header);
        return true;
    }
    for (int j = 0; j < s->ninc; j++) {
        int t = layout_resolve(s->inc[j].target);
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
    bool *seen = calloc((size_t)layout_nfiles, sizeof *seen);
    assert_non_null(seen);
    for (int i = 0; i < layout_nfiles; i++) {
        if (folders[layout_files[i].folder].cuda)
            continue;
        memset(seen, 0, (size_t)layout_nfiles * sizeof *seen);
        char chain[1024];
        if (reaches_cuda(i, seen, chain, sizeof chain))
            layout_problem("%s: '%s' must stay CUDA-free (src/DEPS), but reaches a CUDA header: %s",
                           layout_files[i].rel, folders[layout_files[i].folder].name, chain);
    }
    free(seen);
}

/* ---- the tests ------------------------------------------------------------------ */

static int setup_problems;

static int read_everything(void **state)
{
    (void)state;
    const char *h = getenv("CUDALAB_HOME");
    if (!h) {
        fprintf(stderr, "CUDALAB_HOME is not set (run the tests through ctest)\n");
        return -1;
    }
    snprintf(layout_home, sizeof layout_home, "%s", h);
    layout_problems = 0;
    layout_read_deps();
    layout_read_tree();
    layout_read_code();
    walk_includes(false);
    setup_problems = layout_problems;
    printf("read %d files in %d folders, %d names\n", layout_nfiles, layout_nfolders,
           layout_nidents());
    return 0;
}

static int free_everything(void **state)
{
    (void)state;
    layout_free();
    return 0;
}

/* Fails with the count of problems printed since layout_problems was reset. */
static void expect_none(const char *what)
{
    if (layout_problems > 0)
        fail_msg("%d %s (each printed above with its file and line)", layout_problems, what);
}

static void test_includes(void **state)
{
    (void)state;
    layout_problems = setup_problems;
    check_cycles(true, "src/DEPS");
    walk_includes(true);
    check_cycles(false, "src/ includes");
    check_cuda_free();
    expect_none("problems with the layers");
}

/* A permission in src/DEPS that no include uses. */
static void test_permissions_used(void **state)
{
    (void)state;
    layout_problems = 0;
    for (int k = 0; k < layout_nfolders; k++)
        for (int d = 0; d < layout_nfolders; d++)
            if (folders[k].listed && folders[k].may[d] && !folders[k].uses[d])
                layout_problem("src/DEPS:%d: '%s' may use '%s', but no file of '%s' includes a "
                               "header of '%s': remove the permission",
                               folders[k].deps_line, folders[k].name, folders[d].name,
                               folders[k].name, folders[d].name);
    expect_none("unused permissions in src/DEPS");
}

static void test_sizes(void **state)
{
    (void)state;
    layout_problems = 0;
    long total = 0;
    for (int i = 0; i < layout_nfiles; i++) {
        const source *s = &layout_files[i];
        if (s->lines > FILE_LINE_LIMIT)
            layout_problem("%s:%ld: %ld lines, past the limit of %d: split it by responsibility",
                           s->rel, s->lines, s->lines, FILE_LINE_LIMIT);
        if (!s->in_src)
            continue;
        folders[s->folder].lines += s->lines;
        total += s->lines;
    }
    for (int k = 0; k < layout_nfolders; k++) {
        double share = total ? (double)folders[k].lines / (double)total : 0.0;
        if (share > FOLDER_SHARE_LIMIT)
            layout_problem("src/%s/: %ld of src/'s %ld lines (%.1f%%), more than a quarter",
                           folders[k].name, folders[k].lines, total, 100.0 * share);
    }
    expect_none("files or folders too large");
}

/* ---- loops of files inside a folder ------------------------------------------------ */

typedef struct call_graph {
    int n;
    int file[MAX_LOOP_FILES];                    /* node -> index in layout_files */
    int call_line[MAX_LOOP_FILES][MAX_LOOP_FILES]; /* first use of b's function in a; 0: none */
    int call_id[MAX_LOOP_FILES][MAX_LOOP_FILES];
    int index[MAX_LOOP_FILES], low[MAX_LOOP_FILES], stack[MAX_LOOP_FILES];
    bool on_stack[MAX_LOOP_FILES];
    int next_index, depth;
    int loops;
} call_graph;

static const char *base_name(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? slash + 1 : rel;
}

/* Prints the loop g->stack[from..depth) as one problem. */
static void report_loop(call_graph *g, int from)
{
    char text[16384];
    size_t at = 0;
    const char *rel = layout_files[g->file[g->stack[from]]].rel;
    at += (size_t)snprintf(text + at, sizeof text - at,
                           "%.*s: a loop of %d files that call each other (move what they share "
                           "into a leaf file that calls none of them):",
                           (int)(base_name(rel) - rel), rel, g->depth - from);
    for (int i = from; i < g->depth && at < sizeof text; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, " %s",
                               base_name(layout_files[g->file[g->stack[i]]].rel));
    for (int i = from; i < g->depth; i++)
        for (int j = from; j < g->depth && at < sizeof text; j++) {
            int a = g->stack[i], b = g->stack[j];
            if (g->call_line[a][b])
                at += (size_t)snprintf(text + at, sizeof text - at, "\n    %s:%d calls %s (%s)",
                                       layout_files[g->file[a]].rel, g->call_line[a][b],
                                       layout_ident(g->call_id[a][b]),
                                       base_name(layout_files[g->file[b]].rel));
        }
    layout_problem("%s", text);
    g->loops++;
}

/* Tarjan's strongly connected components from node v. */
static void strong_from(call_graph *g, int v)
{
    g->index[v] = g->low[v] = ++g->next_index;
    g->stack[g->depth++] = v;
    g->on_stack[v] = true;
    for (int w = 0; w < g->n; w++) {
        if (!g->call_line[v][w])
            continue;
        if (!g->index[w]) {
            strong_from(g, w);
            if (g->low[w] < g->low[v])
                g->low[v] = g->low[w];
        } else if (g->on_stack[w] && g->index[w] < g->low[v]) {
            g->low[v] = g->index[w];
        }
    }
    if (g->low[v] != g->index[v])
        return;
    int from = g->depth;
    do
        from--;
    while (g->stack[from] != v);
    if (g->depth - from > 1)
        report_loop(g, from);
    for (int i = from; i < g->depth; i++)
        g->on_stack[g->stack[i]] = false;
    g->depth = from;
}

/* The calls between the .c files of src folder k: an edge a -> b where a
 * names a function or variable that b defines, not static, and a does not
 * define. */
static void build_graph(call_graph *g, int k, int *owner, int *own)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < layout_nfiles; i++) {
        const source *s = &layout_files[i];
        size_t len = strlen(s->rel);
        if (s->folder != k || !s->in_src || len < 2 || strcmp(s->rel + len - 2, ".c") != 0)
            continue;
        assert_true(g->n < MAX_LOOP_FILES);
        for (int f = 0; f < s->nfuncs; f++)
            if (!s->funcs[f].is_static)
                owner[s->funcs[f].id] = g->n;
        g->file[g->n++] = i;
    }
    for (int a = 0; a < g->n; a++) {
        const source *s = &layout_files[g->file[a]];
        for (int f = 0; f < s->nfuncs; f++)
            own[s->funcs[f].id] = a + 1;
        for (int r = 0; r < s->nrefs; r++) {
            int id = s->refs[r].id, b = owner[id];
            if (b >= 0 && b != a && own[id] != a + 1 && !g->call_line[a][b]) {
                g->call_line[a][b] = s->refs[r].line;
                g->call_id[a][b] = id;
            }
        }
    }
    for (int a = 0; a < g->n; a++) {
        const source *s = &layout_files[g->file[a]];
        for (int f = 0; f < s->nfuncs; f++)
            owner[s->funcs[f].id] = -1;
    }
}

static void test_no_loops_in_folders(void **state)
{
    (void)state;
    layout_problems = 0;
    int n = layout_nidents();
    int *owner = malloc((size_t)n * sizeof *owner);
    int *own = calloc((size_t)n, sizeof *own);
    call_graph *g = malloc(sizeof *g);
    assert_true(owner && own && g);
    for (int i = 0; i < n; i++)
        owner[i] = -1;
    int loops = 0;
    for (int k = 0; k < layout_nfolders; k++) {
        if (is_kernels(k))
            continue;
        build_graph(g, k, owner, own);
        memset(own, 0, (size_t)n * sizeof *own);
        for (int v = 0; v < g->n; v++)
            if (!g->index[v])
                strong_from(g, v);
        loops += g->loops;
    }
    free(owner);
    free(own);
    free(g);
    if (loops > 0)
        fail_msg("%d loops of files inside folders (each printed above with its calls)", loops);
}

/* ---- long functions ----------------------------------------------------------------- */

static void test_function_lengths(void **state)
{
    (void)state;
    layout_problems = 0;
    for (int i = 0; i < layout_nfiles; i++) {
        const source *s = &layout_files[i];
        for (int f = 0; f < s->nfuncs; f++) {
            const func_def *fn = &s->funcs[f];
            int lines = fn->close_line - fn->open_line + 1;
            if (fn->is_data || lines <= FUNC_LINE_LIMIT || (!s->in_src && fn->mix_note))
                continue;
            layout_problem("%s:%d: %s is %d lines long (its body, lines %d-%d), past the limit "
                           "of %d: split it into helpers, each one idea%s",
                           s->rel, fn->name_line, fn->name, lines, fn->open_line, fn->close_line,
                           FUNC_LINE_LIMIT,
                           s->in_src ? "" : "; or, where the instruction mix is the point, say "
                                            "why in a comment on the lines right above it");
        }
    }
    expect_none("functions too long");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_includes),
        cmocka_unit_test(test_permissions_used),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_no_loops_in_folders),
        cmocka_unit_test(test_function_lengths),
    };
    return cmocka_run_group_tests(tests, read_everything, free_everything);
}
