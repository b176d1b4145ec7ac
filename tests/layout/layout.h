/* layout.h - what the layer test reads from the source tree.
 *
 * layout_tree.c reads src/DEPS and every source file's includes and length
 * under src/ and kernels/; layout_code.c reads each file's code: the
 * functions it defines (name, static or not, where its body starts and
 * ends, the comment above it) and the identifiers it names.  The checks in
 * test_layers.c work on these tables. */
#ifndef CUDALAB_TESTS_LAYOUT_H
#define CUDALAB_TESTS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#define LAYOUT_MAX_FOLDERS 32
#define LAYOUT_MAX_FILES 1024
#define LAYOUT_MAX_INCLUDES 64
#define LAYOUT_NAME_LEN 64

typedef struct folder {
    char name[LAYOUT_NAME_LEN];
    bool cuda;
    bool listed;                      /* named in DEPS */
    int deps_line;                    /* its line in DEPS */
    bool may[LAYOUT_MAX_FOLDERS];     /* may include from folder k */
    bool uses[LAYOUT_MAX_FOLDERS];    /* does include from folder k */
    long lines;
} folder;

typedef struct include {
    char target[256];                 /* as written between the quotes */
    int line;
} include;

/* A definition at file scope: a function (its name, whether it is static,
 * the line its declaration starts on and the lines of its body's braces)
 * or a variable (is_data; no body). */
typedef struct func_def {
    char name[128];
    int id;                           /* the name, interned */
    bool is_static;
    bool is_data;
    int decl_line;                    /* where the declaration starts */
    int name_line;
    int open_line, close_line;
    bool mix_note;                    /* the comment above names its "instruction mix" */
} func_def;

/* An identifier a file names: its interned id and the first line it is on. */
typedef struct ident_ref {
    int id;
    int line;
} ident_ref;

typedef struct source {
    char rel[256];                    /* "src/lab/labload.c", "kernels/kernels.h" */
    int folder;
    bool in_src;                      /* under src/ (not kernels/) */
    long lines;
    int ninc;
    include inc[LAYOUT_MAX_INCLUDES];
    char cuda_header[128];            /* the first CUDA system header it includes */
    int cuda_line;
    func_def *funcs;                  /* layout_code.c: functions and variables */
    int nfuncs;
    ident_ref *refs;                  /* each identifier once, in order of first use */
    int nrefs;
} source;

extern folder layout_folders[LAYOUT_MAX_FOLDERS];
extern int layout_nfolders;
extern source *layout_files;
extern int layout_nfiles;
extern char layout_home[1024];
/* Problems found so far; each check resets it and expects 0. */
extern int layout_problems;

/* Prints one problem (a line, "file:line: what") and counts it. */
void layout_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int layout_folder_find(const char *name);
/* Reads src/DEPS into layout_folders; problems in the table are counted. */
void layout_read_deps(void);
/* Reads every source file of src/ and kernels/ (includes and lengths). */
void layout_read_tree(void);
/* The file an include names, or -1 (a system header, or missing). */
int layout_resolve(const char *target);

/* Reads the code of every file read by layout_read_tree. */
void layout_read_code(void);
/* The name of an interned identifier. */
const char *layout_ident(int id);
/* How many identifiers were interned (ids run from 0 to this - 1). */
int layout_nidents(void);
/* Frees what layout_read_tree and layout_read_code allocated. */
void layout_free(void);

#endif
