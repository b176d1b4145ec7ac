/* workspace.h - the learner's own copies of a lab's exercise files.
 *
 * The workspace folder (core/paths.h paths_workspace: --workspace DIR, else
 * $CUDALAB_WORKSPACE, else ~/cudalab-workspace) holds one folder a lab,
 * <ws>/<lab id>/, with the learner's kernel and launcher of the lab's own
 * exercise under the starters' names (starter.cu, starter.lua), and one
 * folder inside it for each listed exercise: <ws>/<lab id>/<exercise id>/.
 * The engine compiles and runs those.
 *
 * A file the learner has is never overwritten: workspace_prepare copies only
 * what is missing, and workspace_reset first moves the files that differ
 * from the starters into <exercise folder>/backup-<YYYYmmdd-HHMMSS>/, then
 * copies fresh starters.  workspace_backups lists those folders and
 * workspace_backup_remove deletes one (lab/workspace_backups.c).
 *
 * Each function takes the exercise x of lab l (lab/labmodel.h); NULL means
 * the lab's own exercise, which a lab of listed exercises only lacks. */
#ifndef CUDALAB_LAB_WORKSPACE_H
#define CUDALAB_LAB_WORKSPACE_H

#include <stdbool.h>

#include "core/err.h"
#include "core/paths.h"
#include "lab/labmodel.h"

typedef struct workspace_files {
    char dir[CL_PATH_MAX];        /* <ws>/<lab id>, or <ws>/<lab id>/<exercise id> */
    char kernel[CL_PATH_MAX];     /* <dir>/starter.cu: the learner's kernel */
    char launcher[CL_PATH_MAX];   /* <dir>/starter.lua: the learner's launcher */
    char starter_kernel[CL_PATH_MAX];    /* the lab's pristine copies */
    char starter_launcher[CL_PATH_MAX];
    bool kernel_created;          /* set by prepare/reset when it copied the file */
    bool launcher_created;
} workspace_files;

/* Fills files with the paths of exercise's files in workspace ws (NULL:
 * paths_workspace()).  Touches nothing on disk.  false + err when the lab has
 * no such exercise, an id cannot name a folder, or a path does not fit. */
bool workspace_files_of(const char *ws, const lab *model, const lab_exercise *exercise,
                        workspace_files *files, cl_err *err);

/* Makes the exercise's folder and copies each starter that is not there yet.  An
 * existing file is left exactly as it is, even when it differs from the
 * starter.  false + err when a folder cannot be made or a starter cannot be
 * copied; then what this call copied or made is removed again. */
bool workspace_prepare(const char *ws, const lab *model, const lab_exercise *exercise,
                       workspace_files *files, cl_err *err);

/* With confirmed == false, changes nothing and fails ("reset needs
 * confirmation").  With confirmed == true, moves the learner's kernel and
 * launcher (those present and different from their starters) into a new
 * <exercise folder>/backup-<timestamp>/ folder, whose path goes to backup
 * (may be NULL; "" when nothing needed saving: no folder is made), then
 * copies fresh starters where files are missing.  No file is ever lost: when copying
 * fails after the move, the files stay in the backup folder. */
bool workspace_reset(const char *ws, const lab *model, const lab_exercise *exercise, bool confirmed,
                     workspace_files *files, char *backup, size_t nbackup, cl_err *err);

typedef struct workspace_backup {
    char path[CL_PATH_MAX];       /* <exercise folder>/backup-<timestamp> */
    int nfiles;                   /* plain files inside */
    long long bytes;              /* their size */
    bool plain;                   /* holds nothing but plain files: removable */
} workspace_backup;

/* The backup folders of exercise of lab model in workspace ws (NULL:
 * paths_workspace()), by name, i.e. oldest first, into *out (caller frees;
 * NULL when none).  A folder not made yet has none.  false + err when the
 * folder cannot be read. */
bool workspace_backups(const char *ws, const lab *model, const lab_exercise *exercise,
                       workspace_backup **out, size_t *count, cl_err *err);
/* Deletes the backup folder: its files, then the folder.  Refuses (false +
 * err, nothing deleted) a folder holding anything but plain files. */
bool workspace_backup_remove(const workspace_backup *backup, cl_err *err);

#endif
