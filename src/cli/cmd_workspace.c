/* cmd_workspace.c - `cudalab workspace [--backups] [--remove-backups LAB
 * [--yes]] [--json]`: the learner's exercise files and the backups resets
 * left. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_commands.h"
#include "cli/cli_labs.h"
#include "cli/cli_rows.h"
#include "core/units.h"
#include "lab/workspace.h"

enum { OPT_BACKUPS = CLI_LONG_ONLY, OPT_REMOVE, OPT_YES, OPT_JSON };

typedef struct ws_args {
    bool backups, yes, json;
    const char *remove;
} ws_args;

static const cli_opt workspace_opts[] = {
    {.name = "backups", .key = OPT_BACKUPS,
     .help = "list the backup folders that resets left, per lab"},
    {.name = "remove-backups", .key = OPT_REMOVE, .arg = "LAB",
     .help = "delete lab LAB's backup folders, after a confirmation",
     .need = "a lab id"},
    {.name = "yes", .key = OPT_YES, .help = "with --remove-backups: do not ask"},
    {.name = "json", .key = OPT_JSON,
     .help = "print one JSON document: {\"workspace\", \"exists\", \"labs\": "
             "[{\"id\", \"exercises\": [{\"id\", \"files\": [{\"path\", \"state\"}]}], \"backups\": "
             "[{\"path\", \"files\", \"bytes\", \"removable\"}]}]}"},
    {.name = NULL},
};

const cli_command cmd_workspace_spec = {
    .name = "workspace",
    .operands = "",
    .summary = "your exercise files, and the backups that resets left",
    .details = "Without options, lists each lab's exercise files in the workspace (--workspace DIR)\n"
               "and whether they still are the starters.  A reset (X in the lab) moves changed files\n"
               "into <lab>/backup-<time>/; --backups lists those folders, --remove-backups LAB\n"
               "deletes them after asking (or at once with --yes).",
    .opts = workspace_opts,
    .run = cmd_workspace,
};

static int workspace_option(cli_ctx *c, void *ud, int key, const char *v)
{
    ws_args *a = ud;
    (void)c;
    if (key == OPT_BACKUPS)
        a->backups = true;
    else if (key == OPT_YES)
        a->yes = true;
    else if (key == OPT_JSON)
        a->json = true;
    else if (key == OPT_REMOVE)
        a->remove = v;
    return EXIT_OK;
}

typedef enum file_state_id { FS_MISSING, FS_STARTER, FS_YOURS } file_state_id;

static file_state_id file_state_of(const char *mine, const char *starter)
{
    struct stat a, b;
    if (stat(mine, &a) != 0)
        return FS_MISSING;
    if (stat(starter, &b) == 0 && a.st_size == b.st_size) {
        FILE *fa = fopen(mine, "rb"), *fb = fopen(starter, "rb");
        bool same = fa && fb;
        while (same) {
            int x = fgetc(fa), y = fgetc(fb);
            same = x == y;
            if (x == EOF || !same)
                break;
        }
        if (fa)
            fclose(fa);
        if (fb)
            fclose(fb);
        if (same)
            return FS_STARTER;
    }
    return FS_YOURS;
}

static const char *file_state(const char *mine, const char *starter)
{
    static const char *const text[] = {
        [FS_MISSING] = "not made yet (opening the lab copies the starter)",
        [FS_STARTER] = "the starter, unchanged",
        [FS_YOURS] = "yours",
    };
    return text[file_state_of(mine, starter)];
}

/* The token --json gives a file's state. */
static const char *file_state_token(const char *mine, const char *starter)
{
    static const char *const token[] = {
        [FS_MISSING] = "missing", [FS_STARTER] = "starter", [FS_YOURS] = "yours",
    };
    return token[file_state_of(mine, starter)];
}

/* The backup folders of every exercise of lab l, into *out (caller frees). */
static bool all_backups(const lab *l, workspace_backup **out, size_t *n, cl_err *e)
{
    *out = NULL;
    *n = 0;
    for (size_t k = 0; k < l->nexercises; k++) {
        workspace_backup *b = NULL;
        size_t m = 0;
        if (!workspace_backups(NULL, l, &l->exercises[k], &b, &m, e)) {
            free(*out);
            *out = NULL;
            *n = 0;
            return false;
        }
        if (m > 0) {
            workspace_backup *v = realloc(*out, (*n + m) * sizeof *v);
            if (!v) {
                free(b);
                free(*out);
                *out = NULL;
                *n = 0;
                return err_set(e, "out of memory listing the backups of lab '%s'", l->id);
            }
            memcpy(v + *n, b, m * sizeof *b);
            *out = v;
            *n += m;
        }
        free(b);
    }
    return true;
}

/* Lists lab l's backups, under its id when header; false when they
 * cannot be read. */
static bool list_backups(const lab *l, bool header, size_t *total)
{
    workspace_backup *b = NULL;
    size_t n = 0;
    cl_err e = {{0}};
    if (!all_backups(l, &b, &n, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return false;
    }
    if (header && n > 0)
        printf("\n%s\n", l->id);
    for (size_t i = 0; i < n; i++) {
        char sz[32];
        printf("  %s  %d file%s, %s%s\n", b[i].path, b[i].nfiles, b[i].nfiles == 1 ? "" : "s",
               units_bytes((double)b[i].bytes, sz, sizeof sz),
               b[i].plain ? "" : " (holds folders too: not removed by --remove-backups)");
    }
    *total += n;
    free(b);
    return true;
}

static void show_files(const lab *l)
{
    for (size_t k = 0; k < l->nexercises; k++) {
        const lab_exercise *x = &l->exercises[k];
        workspace_files f;
        cl_err e = {{0}};
        if (x->id[0])
            printf("  exercise %s\n", x->id);
        if (!workspace_files_of(NULL, l, x, &f, &e)) {
            printf("  %s\n", e.msg);
            continue;
        }
        printf("  %s  %s\n", f.kernel, file_state(f.kernel, f.starter_kernel));
        if (f.launcher[0])
            printf("  %s  %s\n", f.launcher, file_state(f.launcher, f.starter_launcher));
    }
}

static void add_file(cJSON *files, const char *path, const char *starter)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "state", file_state_token(path, starter));
    cJSON_AddItemToArray(files, o);
}

/* Lab l's exercises and backups as one object of --json's "labs"; false
 * when its backups cannot be read (the message is in the object). */
static bool lab_json(const lab *l, cJSON *labs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", l->id);
    cJSON *xs = cJSON_AddArrayToObject(o, "exercises");
    for (size_t k = 0; k < l->nexercises; k++) {
        const lab_exercise *x = &l->exercises[k];
        workspace_files f;
        cl_err e = {{0}};
        cJSON *xo = cJSON_CreateObject();
        cJSON_AddStringToObject(xo, "id", x->id);
        cJSON *files = cJSON_AddArrayToObject(xo, "files");
        if (!workspace_files_of(NULL, l, x, &f, &e)) {
            cJSON_AddStringToObject(xo, "error", e.msg);
        } else {
            add_file(files, f.kernel, f.starter_kernel);
            if (f.launcher[0])
                add_file(files, f.launcher, f.starter_launcher);
        }
        cJSON_AddItemToArray(xs, xo);
    }
    workspace_backup *b = NULL;
    size_t n = 0;
    cl_err e = {{0}};
    bool ok = all_backups(l, &b, &n, &e);
    cJSON *bs = cJSON_AddArrayToObject(o, "backups");
    for (size_t i = 0; i < n; i++) {
        cJSON *bo = cJSON_CreateObject();
        cJSON_AddStringToObject(bo, "path", b[i].path);
        cJSON_AddNumberToObject(bo, "files", b[i].nfiles);
        cJSON_AddNumberToObject(bo, "bytes", (double)b[i].bytes);
        cJSON_AddBoolToObject(bo, "removable", b[i].plain);
        cJSON_AddItemToArray(bs, bo);
    }
    if (!ok)
        cJSON_AddStringToObject(o, "error", e.msg);
    free(b);
    cJSON_AddItemToArray(labs, o);
    return ok;
}

/* Asks on the terminal; true for an answer starting with y. */
static bool confirm(const char *lab_id, size_t n, int files)
{
    fprintf(stderr, "Delete %zu backup folder%s of lab '%s' (%d file%s)? [y/N] ", n,
            n == 1 ? "" : "s", lab_id, files, files == 1 ? "" : "s");
    fflush(stderr);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

static int remove_backups(cli_ctx *c, const lab_set *set, const ws_args *a)
{
    const lab *l = lab_set_find(set, a->remove);
    if (!l)
        return cli_usage_error(c, "workspace: no lab called '%s' (see 'cudalab list')",
                               a->remove);
    if (l->nexercises == 0)
        return cli_usage_error(c, "workspace: lab '%s' has no exercise", l->id);
    workspace_backup *b = NULL;
    size_t n = 0, removable = 0;
    int files = 0;
    cl_err e = {{0}};
    if (!all_backups(l, &b, &n, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return EXIT_ENV;
    }
    for (size_t i = 0; i < n; i++)
        if (b[i].plain) {
            removable++;
            files += b[i].nfiles;
            printf("  %s  %d file%s\n", b[i].path, b[i].nfiles, b[i].nfiles == 1 ? "" : "s");
        }
    int rc = EXIT_OK;
    if (removable == 0) {
        printf("Lab '%s' has no backups to delete.\n", l->id);
    } else if (!a->yes && !confirm(l->id, removable, files)) {
        fprintf(stderr, "cudalab: nothing was deleted\n");
        rc = EXIT_FAIL;
    } else {
        size_t done = 0;
        for (size_t i = 0; i < n; i++) {
            if (!b[i].plain)
                continue;
            if (workspace_backup_remove(&b[i], &e)) {
                done++;
            } else {
                fprintf(stderr, "cudalab: %s\n", e.msg);
                rc = EXIT_ENV;
            }
        }
        printf("Deleted %zu backup folder%s of lab '%s'.\n", done, done == 1 ? "" : "s", l->id);
    }
    free(b);
    return rc;
}

int cmd_workspace(cli_ctx *ctx, int argc, char **argv)
{
    ws_args a = {0};
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_workspace_spec, argc, argv, workspace_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(ctx, "workspace: unexpected argument '%s'", argv[first]);
    if (a.yes && !a.remove)
        return cli_usage_error(ctx, "workspace: --yes goes with --remove-backups LAB");
    if (a.backups && a.remove)
        return cli_usage_error(ctx, "workspace: --backups and --remove-backups go one at a time");
    if (a.json && a.remove)
        return cli_usage_error(ctx,
                               "workspace: --json lists; it does not go with --remove-backups");

    lab_set set = {0};
    lab_diags diags = {0};
    char root[CL_PATH_MAX];
    cl_err e = {{0}};
    rc = EXIT_ENV;
    if (!paths_workspace(root, sizeof root, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto done;
    }
    if (!cli_load_labs(ctx, &set, &diags))
        goto done;
    if (a.remove) {
        rc = remove_backups(ctx, &set, &a);
        goto done;
    }
    if (a.json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "workspace", root);
        cJSON_AddBoolToObject(doc, "exists", paths_is_dir(root));
        cJSON *labs = cJSON_AddArrayToObject(doc, "labs");
        rc = EXIT_OK;
        for (size_t i = 0; i < set.n; i++)
            if (set.v[i]->nexercises > 0 && !lab_json(set.v[i], labs))
                rc = EXIT_ENV;
        cli_print_json(doc);
        goto done;
    }
    printf("Workspace %s%s\n", root, paths_is_dir(root) ? "" : " (not made yet)");
    size_t total = 0;
    rc = EXIT_OK;
    for (size_t i = 0; i < set.n; i++) {
        const lab *l = set.v[i];
        if (l->nexercises == 0)
            continue;
        if (!a.backups) {
            printf("\n%s\n", l->id);
            show_files(l);
        }
        if (!list_backups(l, a.backups, &total))
            rc = EXIT_ENV;
    }
    if (a.backups && total == 0)
        printf("\nNo backups.\n");
    else if (!a.backups && total > 0)
        printf("\n%zu backup folder%s ('cudalab workspace --remove-backups LAB' deletes "
               "them).\n", total, total == 1 ? "" : "s");
done:
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}
