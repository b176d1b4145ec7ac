/* Workspace: starters are copied once and never overwritten; a failed
 * set-up leaves nothing behind; reset needs confirmation, keeps a backup of
 * what changed (and makes none when nothing did) and restores the starters;
 * backups are listed and removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/workspace.h"
#include "support.h"

typedef struct fixture {
    char ws[CL_PATH_MAX];
    char labdir[CL_PATH_MAX];
    char id[32], kernel[32], launcher[32], exid[8];
    lab_exercise x;
    lab l;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (!ts_tmpdir(f->ws, sizeof f->ws, "ex")) {
        free(f);
        return -1;
    }
    ts_home_path(f->labdir, sizeof f->labdir, "labs/reduction");
    snprintf(f->id, sizeof f->id, "reduction");
    snprintf(f->kernel, sizeof f->kernel, "starter.cu");
    snprintf(f->launcher, sizeof f->launcher, "starter.lua");
    f->l.id = f->id;
    f->l.dir = f->labdir;
    f->x.id = f->exid;
    f->x.kernel = f->kernel;
    f->x.launcher = f->launcher;
    f->l.exercises = &f->x;
    f->l.nexercises = 1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ts_rm_rf(f->ws);
    free(f);
    return 0;
}

/* Names of the backup-* folders in dir (up to max), returns how many. */
static int backups(const char *dir, char names[][64], int max)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "backup-", 7) == 0 && n < max)
            snprintf(names[n++], 64, "%s", de->d_name);
    }
    closedir(d);
    return n;
}

static void test_files_of_names_the_paths(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    assert_true(workspace_files_of(f->ws, &f->l, NULL, &wf, &e));
    char want[CL_PATH_MAX];
    snprintf(want, sizeof want, "%s/reduction", f->ws);
    assert_string_equal(wf.dir, want);
    snprintf(want, sizeof want, "%s/reduction/starter.cu", f->ws);
    assert_string_equal(wf.kernel, want);
    snprintf(want, sizeof want, "%s/reduction/starter.lua", f->ws);
    assert_string_equal(wf.launcher, want);
    snprintf(want, sizeof want, "%s/starter.cu", f->labdir);
    assert_string_equal(wf.starter_kernel, want);
    struct stat st;
    assert_int_not_equal(stat(wf.dir, &st), 0);          /* nothing made yet */
}

static void test_prepare_copies_then_never_overwrites(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(wf.kernel_created);
    assert_true(wf.launcher_created);
    assert_true(ts_same_file(wf.kernel, wf.starter_kernel));
    assert_true(ts_same_file(wf.launcher, wf.starter_launcher));

    const char *mine = "// my own kernel\nextern \"C\" __global__ void reduce_sum() {}\n";
    assert_true(ts_write(wf.kernel, mine));
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_false(wf.kernel_created);
    assert_false(wf.launcher_created);
    char *now = ts_read(wf.kernel);
    assert_non_null(now);
    assert_string_equal(now, mine);
    free(now);

    /* A launcher the learner deleted comes back; the kernel stays theirs. */
    assert_int_equal(remove(wf.launcher), 0);
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_false(wf.kernel_created);
    assert_true(wf.launcher_created);
    assert_true(ts_same_file(wf.launcher, wf.starter_launcher));
    now = ts_read(wf.kernel);
    assert_string_equal(now, mine);
    free(now);

    /* No temporary files are left behind. */
    char names[4][64];
    assert_int_equal(backups(wf.dir, names, 4), 0);
    DIR *d = opendir(wf.dir);
    assert_non_null(d);
    int entries = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            entries++;
    closedir(d);
    assert_int_equal(entries, 2);
}

static void test_reset_needs_confirmation(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(ts_write(wf.kernel, "mine\n"));
    char backup[CL_PATH_MAX] = "x";
    assert_false(workspace_reset(f->ws, &f->l, NULL, false, &wf, backup, sizeof backup, &e));
    assert_non_null(strstr(e.msg, "confirmation"));
    assert_string_equal(backup, "");
    char *now = ts_read(wf.kernel);
    assert_string_equal(now, "mine\n");
    free(now);
    char names[4][64];
    assert_int_equal(backups(wf.dir, names, 4), 0);
}

static void test_reset_keeps_a_backup_and_restores(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(ts_write(wf.kernel, "my kernel, version 1\n"));
    assert_true(ts_write(wf.launcher, "return function() end -- mine\n"));

    char backup[CL_PATH_MAX];
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, backup, sizeof backup, &e));
    assert_true(wf.kernel_created);
    assert_true(wf.launcher_created);
    assert_true(ts_same_file(wf.kernel, wf.starter_kernel));
    assert_true(ts_same_file(wf.launcher, wf.starter_launcher));
    assert_non_null(strstr(backup, "/reduction/backup-"));
    char saved[CL_PATH_MAX * 2];
    snprintf(saved, sizeof saved, "%s/starter.cu", backup);
    char *old = ts_read(saved);
    assert_non_null(old);
    assert_string_equal(old, "my kernel, version 1\n");
    free(old);
    snprintf(saved, sizeof saved, "%s/starter.lua", backup);
    old = ts_read(saved);
    assert_non_null(old);
    assert_string_equal(old, "return function() end -- mine\n");
    free(old);

    /* A second reset in the same second gets its own folder. */
    assert_true(ts_write(wf.kernel, "my kernel, version 2\n"));
    char backup2[CL_PATH_MAX];
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, backup2, sizeof backup2, &e));
    assert_string_not_equal(backup, backup2);
    char names[4][64];
    assert_int_equal(backups(wf.dir, names, 4), 2);
    snprintf(saved, sizeof saved, "%s/starter.cu", backup2);
    old = ts_read(saved);
    assert_string_equal(old, "my kernel, version 2\n");
    free(old);
    snprintf(saved, sizeof saved, "%s/starter.cu", backup);
    old = ts_read(saved);
    assert_string_equal(old, "my kernel, version 1\n");
    free(old);
}

static void test_reset_with_nothing_to_save(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    char backup[CL_PATH_MAX];
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, backup, sizeof backup, &e));
    assert_string_equal(backup, "");
    assert_true(ts_same_file(wf.kernel, wf.starter_kernel));
}

static void test_reset_of_unchanged_files_makes_no_backup(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    char names[4][64], backup[CL_PATH_MAX];
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, backup, sizeof backup, &e));
    assert_string_equal(backup, "");
    assert_false(wf.kernel_created);
    assert_int_equal(backups(wf.dir, names, 4), 0);

    /* Only the changed launcher is saved; the kernel was the starter. */
    assert_true(ts_write(wf.launcher, "return function() end -- mine\n"));
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, backup, sizeof backup, &e));
    assert_int_equal(backups(wf.dir, names, 4), 1);
    char saved[CL_PATH_MAX * 2];
    snprintf(saved, sizeof saved, "%s/starter.lua", backup);
    assert_true((access(saved, F_OK) == 0));
    snprintf(saved, sizeof saved, "%s/starter.cu", backup);
    assert_false((access(saved, F_OK) == 0));
    assert_true(ts_same_file(wf.kernel, wf.starter_kernel));
    assert_true(ts_same_file(wf.launcher, wf.starter_launcher));
}

static void test_failed_prepare_leaves_nothing(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    char ws[CL_PATH_MAX + 16], top[CL_PATH_MAX + 16], dir[CL_PATH_MAX * 2];
    snprintf(ws, sizeof ws, "%s/new/a/b", f->ws);
    snprintf(top, sizeof top, "%s/new", f->ws);
    char missing[] = "no-such-launcher.lua";
    lab l = f->l;
    lab_exercise x = f->x;
    x.launcher = missing;
    l.exercises = &x;
    assert_false(workspace_prepare(ws, &l, NULL, &wf, &e));
    assert_non_null(strstr(e.msg, "no-such-launcher.lua"));
    snprintf(dir, sizeof dir, "%s/reduction", ws);
    assert_false((access(wf.kernel, F_OK) == 0));
    assert_false((access(dir, F_OK) == 0));
    assert_false((access(ws, F_OK) == 0));
    assert_false((access(top, F_OK) == 0));

    /* A folder the learner already had stays, with their own files. */
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(ts_write(wf.kernel, "mine\n"));
    unlink(wf.launcher);
    assert_false(workspace_prepare(f->ws, &l, NULL, &wf, &e));
    char *mine = ts_read(wf.kernel);
    assert_non_null(mine);
    assert_string_equal(mine, "mine\n");
    free(mine);
}

static void test_backups_listed_and_removed(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    char b1[CL_PATH_MAX], b2[CL_PATH_MAX];
    workspace_backup *v = NULL;
    size_t n = 9;
    assert_true(workspace_backups(f->ws, &f->l, NULL, &v, &n, &e));
    assert_int_equal(n, 0);
    assert_true(workspace_prepare(f->ws, &f->l, NULL, &wf, &e));
    assert_true(ts_write(wf.kernel, "one\n"));
    assert_true(ts_write(wf.launcher, "return 1\n"));
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, b1, sizeof b1, &e));
    assert_true(ts_write(wf.kernel, "two\n"));
    assert_true(workspace_reset(f->ws, &f->l, NULL, true, &wf, b2, sizeof b2, &e));
    char extra[CL_PATH_MAX * 2];
    snprintf(extra, sizeof extra, "%s/notes", b2);
    assert_int_equal(mkdir(extra, 0755), 0);

    assert_true(workspace_backups(f->ws, &f->l, NULL, &v, &n, &e));
    assert_int_equal(n, 2);
    assert_string_equal(v[0].path, b1);
    assert_int_equal(v[0].nfiles, 2);
    assert_true(v[0].plain);
    assert_string_equal(v[1].path, b2);
    assert_int_equal(v[1].nfiles, 1);
    assert_false(v[1].plain);

    assert_true(workspace_backup_remove(&v[0], &e));
    assert_false((access(b1, F_OK) == 0));
    assert_false(workspace_backup_remove(&v[1], &e));
    assert_non_null(strstr(e.msg, "left as it is"));
    assert_true((access(b2, F_OK) == 0));
    free(v);
    assert_true(workspace_backups(f->ws, &f->l, NULL, &v, &n, &e));
    assert_int_equal(n, 1);
    free(v);
}

static void test_refuses_bad_labs(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    lab l = f->l;
    lab_exercise x = f->x;
    l.exercises = &x;
    x.kernel = NULL;
    assert_false(workspace_prepare(f->ws, &l, NULL, &wf, &e));
    assert_non_null(strstr(e.msg, "has no exercise"));

    char bad_id[] = "../escape";
    l = f->l;
    l.exercises = &x;
    x = f->x;
    l.id = bad_id;
    assert_false(workspace_prepare(f->ws, &l, NULL, &wf, &e));
    assert_non_null(strstr(e.msg, "cannot name a workspace folder"));

    char missing[] = "no-such-starter.cu";
    l = f->l;
    l.exercises = &x;
    x.kernel = missing;
    assert_false(workspace_prepare(f->ws, &l, NULL, &wf, &e));
    assert_non_null(strstr(e.msg, "no-such-starter.cu"));
}

static void test_default_workspace_from_paths(void **state)
{
    fixture *f = *state;
    char custom[CL_PATH_MAX];
    snprintf(custom, sizeof custom, "%s/elsewhere", f->ws);
    paths_set_workspace(custom);
    workspace_files wf;
    cl_err e = {{0}};
    assert_true(workspace_prepare(NULL, &f->l, NULL, &wf, &e));
    paths_set_workspace(NULL);
    char want[CL_PATH_MAX * 2];
    snprintf(want, sizeof want, "%s/reduction/starter.cu", custom);
    assert_string_equal(wf.kernel, want);
    assert_true(ts_same_file(wf.kernel, wf.starter_kernel));
}

/* A listed exercise keeps its files in a folder of its own inside the lab's,
 * and a lab of listed exercises only has no default one. */
static void test_listed_exercise_folder(void **state)
{
    fixture *f = *state;
    workspace_files wf;
    cl_err e = {{0}};
    char id[] = "second";
    lab_exercise xs[2] = {f->x, f->x};
    xs[1].id = id;
    lab l = f->l;
    l.exercises = xs;
    l.nexercises = 2;
    assert_true(workspace_prepare(f->ws, &l, &xs[1], &wf, &e));
    char want[CL_PATH_MAX];
    snprintf(want, sizeof want, "%s/reduction/second", f->ws);
    assert_string_equal(wf.dir, want);
    snprintf(want, sizeof want, "%s/reduction/second/starter.cu", f->ws);
    assert_string_equal(wf.kernel, want);
    assert_true(wf.kernel_created && ts_same_file(wf.kernel, wf.starter_kernel));
    /* the lab's own exercise stays where it always was */
    assert_true(workspace_files_of(f->ws, &l, NULL, &wf, &e));
    snprintf(want, sizeof want, "%s/reduction/starter.cu", f->ws);
    assert_string_equal(wf.kernel, want);

    l.exercises = &xs[1];
    l.nexercises = 1;
    assert_false(workspace_files_of(f->ws, &l, NULL, &wf, &e));
    assert_non_null(strstr(e.msg, "has no exercise of its own: name one of its exercises (second)"));
    char bad[] = "../up";
    xs[1].id = bad;
    assert_false(workspace_files_of(f->ws, &l, &xs[1], &wf, &e));
    assert_non_null(strstr(e.msg, "exercise id '../up' cannot name a workspace folder"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_files_of_names_the_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prepare_copies_then_never_overwrites, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reset_needs_confirmation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_keeps_a_backup_and_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_with_nothing_to_save, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_of_unchanged_files_makes_no_backup, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_prepare_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backups_listed_and_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_bad_labs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_workspace_from_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listed_exercise_folder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
