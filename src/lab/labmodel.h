/* labmodel.h - a lab as the rest of the program sees it.
 *
 * lab_load() runs labs/<id>/lab.lua in a sandboxed Lua state (lab/sandbox.c)
 * through the DSL in lua/lab.lua, validates it, and copies what C needs into
 * this struct.  The Lua state stays alive inside the lab (it owns the
 * milestone check functions and quizzes) and is closed by lab_free().
 *
 * Every problem found while loading is reported as a diagnostic with the
 * file and line it belongs to, e.g.
 *   labs/matmul/lab.lua:42: milestone 'within2x' has no check function
 * A lab is also checked against what cudalab can run (lab/labcheck.h: its
 * problem, library, sizes, kernels and experiments), so every caller --
 * `cudalab check`, the commands, the terminal lab -- refuses the same labs
 * with the same messages. */
#ifndef CUDALAB_LAB_LABMODEL_H
#define CUDALAB_LAB_LABMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

typedef struct lab_diag {
    char file[512];
    int line;             /* 0 when unknown */
    char msg[512];
    bool warning;         /* advice that stops nothing (only `cudalab check` gives any) */
} lab_diag;

typedef struct lab_diags {
    lab_diag *v;
    size_t n, cap;
} lab_diags;

void lab_diags_add(lab_diags *diags, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A warning: printed by `cudalab check` as advice, never a reason to
 * refuse a lab. */
void lab_diags_warn(lab_diags *diags, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The diagnostics of diags that are not warnings. */
size_t lab_diags_errors(const lab_diags *diags);
void lab_diags_free(lab_diags *diags);

typedef struct lab_step {
    char *title;
    char *body;           /* Markdown subset */
    int line;
} lab_step;

typedef struct lab_variant {
    char *id;             /* "sequential" */
    char *title;          /* "Sequential addressing" */
    char *kernel;         /* shipped kernel name, e.g. "reduce_sequential"; NULL for a rung
                           * of the lab folder */
    char *file;           /* a rung of the lab folder: its kernels and its launcher, */
    char *launcher;       /* relative to the lab folder (NULL for a shipped kernel) */
    char *python;         /* a Python rung: its .py file, relative to the lab folder (NULL for
                           * the others); run by python3 on the problem's buffers */
    char *why;            /* one line: what changed and why */
    int line;
} lab_variant;

typedef struct lab_milestone {
    char *id;
    char *text;           /* "Your reduction is over 100x faster than the CPU" */
    char *quiz;           /* quiz id when this milestone is a quiz, else NULL */
    char *target;         /* display of the threshold, e.g. ">= 100x"; may be NULL */
    int check_ref;        /* Lua registry ref of the check function, or LUA_NOREF */
    int line;
    double points;        /* what it is worth in a grade (default 1) */
    char *size;           /* the size it is judged at; NULL: the largest of its exercise's */
    char *exercise;       /* the exercise whose rows it judges; NULL: the lab's own rows */
    char **needs;         /* ids of the rows its check compares with (a rung, "cpu", a
                           * library): measured beside the learner's kernel when graded */
    size_t nneeds;
} lab_milestone;

typedef struct lab_quiz_choice {
    char *text;
    bool correct;
    char *feedback;       /* shown when this choice is picked */
} lab_quiz_choice;

typedef struct lab_quiz {
    char *id;
    char *question;
    lab_quiz_choice *choices;
    size_t nchoices;
    int line;
} lab_quiz;

/* One exercise: a starter kernel and launcher the learner makes their own.
 * A lab's own exercise (lab field `exercise`) has the id "" and solves the
 * lab's problem at the lab's sizes beside the lab's variants; each exercise
 * of the list `exercises` has an id, may solve a problem of its own at sizes
 * of its own, and may bring shipped rungs (variants) and a library row of
 * its own.  Rows measured for an exercise carry its id (run_result.exercise),
 * and a milestone that names the exercise is judged on those rows only. */
typedef struct lab_exercise {
    char *id;             /* "" for the lab's own exercise, else unique in the lab */
    char *title;          /* shown where the learner picks an exercise; "" for none */
    char *kernel;         /* starter .cu, relative to the lab folder */
    char *launcher;       /* starter .lua, relative to the lab folder; NULL for a Python
                           * exercise, whose kernel is its starter .py (python set), and
                           * for the multigpu lab's, whose ranks launch the kernel file
                           * themselves (lua/multigpu.md) */
    bool python;          /* the learner writes Python (lua/exercise.md): kernel is a .py */
    char *problem;        /* what the learner's kernel computes: the lab's problem,
                           * "pipeline" for a "profiling" lab, or the exercise's own */
    char *library;        /* its library row ("copy"), or NULL */
    char **sizes;         /* the sizes it runs at (for the lab's own one: the lab's) */
    size_t nsizes;
    lab_variant *variants;  /* shipped rungs measured beside it (listed exercises only) */
    size_t nvariants;
    char **hints;
    size_t nhints;
    int line;
} lab_exercise;

typedef struct lab {
    char *id, *title, *summary;
    int order;
    int line;             /* of `lab {` in the file */
    char *path;           /* .../labs/<id>/lab.lua */
    char *dir;            /* .../labs/<id> */
    char *problem;        /* engine problem: "reduce_sum", "sgemm", "embedding", or NULL */
    char *library;        /* "cub", "cublas", "copy", or NULL */
    char **sizes;         /* size labels understood by the problem: "2^28", "4096x4096x4096";
                           * for a "profiling" lab, its exercise's sizes ("1048576x16") */
    size_t nsizes;
    double time_limit_s;  /* per-run limit for the worker */
    lab_step *steps;        size_t nsteps;
    lab_variant *variants;  size_t nvariants;
    lab_milestone *milestones; size_t nmilestones;
    lab_quiz *quizzes;      size_t nquizzes;
    lab_exercise *exercises;  /* the lab's own exercise first (id ""), then the listed ones */
    size_t nexercises;
    struct problem_decl *decls;   /* problems the lab declares (lab/probdecl.h), in file order */
    size_t ndecls;
    struct lab_state *ls;   /* owning Lua state (opaque) */
} lab;

/* The problem name as the lab knows it: one the lab declares (its spec)
 * or a shipped one (problem_spec_find); NULL when neither.  name NULL: NULL. */
const struct problem_spec *lab_problem_spec(const lab *model, const char *name);
/* The declaration of problem name when the lab declares it, else NULL. */
const struct problem_decl *lab_problem_decl(const lab *model, const char *name);
/* The spec of what exercise computes (NULL: the lab's own exercise, or
 * the lab's problem when it has none): the pipeline for a profiling lab. */
const struct problem_spec *lab_exercise_spec(const lab *model, const lab_exercise *exercise);
/* The variant called id among the lab's and its exercises' variants. */
const lab_variant *lab_variant_find(const lab *model, const char *id);

/* The exercise called id ("" or NULL: the lab's own), or NULL. */
const lab_exercise *lab_exercise_find(const lab *model, const char *id);
/* The lab's own exercise (id ""), or NULL when it has none. */
const lab_exercise *lab_own_exercise(const lab *model);
/* "the exercise" for the lab's own, "exercise 'id'" otherwise. */
const char *lab_exercise_name(const lab_exercise *exercise, char *buf, size_t buf_size);

/* Loads and validates one lab file.  Returns NULL on any problem, each one
 * added to diags.  home is the folder holding lua/ (see core/paths.h). */
lab *lab_load(const char *path, const char *home, lab_diags *diags);
void lab_free(lab *model);

typedef struct lab_set {
    lab **v;
    size_t n;
} lab_set;

/* Finds every <dir>/<id>/lab.lua in the given folders (the shipped labs
 * folder first, then each --labs folder), loads each, sorts by order then
 * id.  Labs that fail to load are left out and reported in diags; a
 * duplicate lab id across folders is a diagnostic too.  Returns false only
 * when a folder cannot be read. */
bool lab_set_load(lab_set *set, const char *const *dirs, size_t ndirs,
                  const char *home, lab_diags *diags, cl_err *err);
void lab_set_free(lab_set *set);
const lab *lab_set_find(const lab_set *set, const char *id);

#endif
