/* grade.h - grading a learner's workspace, headless.
 *
 * grade_run trusts nothing in the workspace but the learner's source: for
 * each lab with an exercise it recompiles starter.cu and starter.lua and
 * measures the learner's kernel afresh in the GPU worker (a new seed unless
 * one is given, poisoned outputs, the re-check), with only what the
 * milestones need beside it (the CPU baseline and the vendor library, at
 * the sizes the milestones are judged at; no shipped rungs), then judges
 * every milestone.  Quizzes come from the progress store, opened as
 * untrusted input (store_open_untrusted), each answer judged again by the
 * lab's quiz; their points are the learner's own report (self-reported),
 * counted or not as the instructor chooses (grade_quizzes).  A lab whose
 * files are missing, or whose kernel does not compile, faults or is wrong,
 * is graded as failing with the reason in plain words; nothing the learner
 * wrote can stop the grading.
 *
 * The report (grade_report) is what every report format is written from
 * (grade/report_*.h) and what the class view reads back. */
#ifndef CUDALAB_GRADE_GRADE_H
#define CUDALAB_GRADE_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "core/paths.h"
#include "lab/labmodel.h"
#include "result/record.h"
#include "store/store.h"

#define GRADE_ID_MAX 64
#define GRADE_TEXT_MAX 256
#define GRADE_WHY_MAX 1024
#define GRADE_ASSIGNMENT_MAX 64      /* an assignment id's characters, at most */
#define GRADE_HOST_MAX 256

/* How quiz milestones are taken.  Their points come from the learner's own
 * answers in the progress store, which the learner controls: every report
 * marks them self-reported, whatever the choice. */
typedef enum grade_quizzes {
    GRADE_QUIZZES_COUNT,         /* their points count, marked self-reported (the default) */
    GRADE_QUIZZES_IGNORE,        /* listed, worth 0 points, not counted */
} grade_quizzes;

#define GRADE_QUIZZES_NAMES "count, ignore"
/* "count", "ignore". */
const char *grade_quizzes_name(grade_quizzes q);
bool grade_quizzes_from_name(const char *name, grade_quizzes *out);

typedef struct grade_milestone {
    char id[GRADE_ID_MAX];
    char text[GRADE_TEXT_MAX];
    bool quiz;
    double points;               /* what it is worth */
    double earned;               /* points when passed, else 0 */
    bool passed;
    char value[160];             /* "223x >= 100x", "answered right after 2 attempts" */
    char size[RUN_SIZE_MAX];     /* the size it was judged at ("" for a quiz) */
    char cause[32];              /* a failure's diagnosis cause ("compile", "wrong", ...) */
    char why[GRADE_WHY_MAX];     /* a failure in plain words, with a next step */
    int attempts;                /* a quiz: answers recorded */
    double answered_at;          /* a quiz: when it was first answered right (Unix time) */
    bool not_counted;            /* a quiz under GRADE_QUIZZES_IGNORE: listed, worth 0 */
} grade_milestone;

typedef struct grade_lab {
    char id[GRADE_ID_MAX];
    char title[GRADE_TEXT_MAX];
    bool measured;               /* the learner's kernel was run */
    char note[GRADE_WHY_MAX];    /* why it was not, or what went wrong with the run */
    char cause[32];              /* the diagnosis cause of what went wrong ("" none) */
    char kernel_path[CL_PATH_MAX], launcher_path[CL_PATH_MAX];
    char kernel_sha[65], launcher_sha[65];
    bool kernel_starter;         /* the kernel is the lab's starter, unchanged */
    char *kernel_text, *launcher_text;  /* as graded; NULL when missing */
    run_result *rows;
    size_t nrows;
    grade_milestone *ms;
    size_t nms;
    double score, max_score;
    double seconds;              /* grading this lab took */
    double best_ms;              /* the learner's kernel at its largest judged size; 0: none */
    char best_size[RUN_SIZE_MAX];
} grade_lab;

/* A report is bound to one submission: the learner, the assignment, the
 * graded sources' SHA-256 (in each lab), when and on which machine. */
typedef struct grade_report {
    char learner[128];
    char assignment[GRADE_ASSIGNMENT_MAX + 1];   /* the instructor's id; "" when none given */
    char hostname[GRADE_HOST_MAX];               /* the machine that graded */
    char workspace[CL_PATH_MAX];
    char version[32];            /* cudalab's */
    char created[32];            /* ISO 8601, UTC */
    grade_quizzes quizzes;       /* how quiz milestones were taken (self-reported points) */
    char error[GRADE_WHY_MAX];   /* why grading could not happen ("" when it did) */
    char sandbox[16];            /* grade_sandbox_name of the level it was graded under */
    device_info dev;
    uint64_t seed;
    double seconds;
    grade_lab *labs;
    size_t nlabs;
    double score, max_score;
} grade_report;

/* Where the learner's code runs while it is graded (grade_sandbox.c).
 * Every level but none keeps the key out of the worker's environment and
 * the shared caches out of its reach for writing. */
typedef enum grade_sandbox {
    GRADE_SANDBOX_NAMESPACES,   /* bubblewrap: every namespace unshared, a root of read-only
                                 * binds, no terminal, a private scratch; Landlock and
                                 * seccomp inside (the default; grading refuses to start
                                 * where it cannot be made) */
    GRADE_SANDBOX_LANDLOCK,     /* the fallback, asked for by name: Landlock (files, abstract
                                 * sockets, signals), seccomp (network, TIOCSTI), no
                                 * controlling terminal; it shares the grader's PID space */
    GRADE_SANDBOX_NONE,         /* not confined: for debugging a lab, never for grades that
                                 * must be trusted */
} grade_sandbox;

#define GRADE_SANDBOX_NAMES "namespaces, landlock, none"
const char *grade_sandbox_name(grade_sandbox s);
bool grade_sandbox_from_name(const char *name, grade_sandbox *out);

typedef struct grade_opts {
    const char *workspace;            /* NULL: paths_workspace() */
    const char *learner;              /* NULL: the workspace's owner */
    const char *assignment;           /* the assignment id (grade_assignment_check); NULL: none */
    const char *quiz_note;            /* without a store: why ("" or NULL: none recorded) */
    grade_quizzes quizzes;            /* count (the default) or ignore the quiz milestones */
    uint64_t seed;                    /* 0: a fresh one */
    double budget_s;                  /* GPU time a row; 0: GRADE_BUDGET_S */
    double time_limit_s;              /* a lab's run; 0: the lab's own */
    const char *const *only;          /* lab ids to grade; none: every lab with an exercise */
    size_t nonly;
    const char *const *worker_argv;   /* NULL: worker_exe's worker (tests plant others) */
    const char *worker_exe;           /* NULL: this program */
    const char *key_path;             /* the key's file, never shown to the worker; NULL: none */
    const char *out_dir;              /* the reports' folder, never shown to the worker */
    grade_sandbox sandbox;            /* where the learner's code runs (the default:
                                       * namespaces) */
    void (*progress)(void *ud, const char *line);   /* one line of what is happening */
    void *ud;
} grade_opts;

#define GRADE_BUDGET_S 0.25

typedef enum grade_status {
    GRADE_OK,            /* graded, whatever the score */
    GRADE_NO_DEVICE,     /* nothing can be measured here: e says why */
    GRADE_UNKNOWN_LAB,   /* a lab asked for does not exist: e says which */
    GRADE_FAILED,        /* grading itself could not proceed (no lab has an exercise, the
                          * worker would not start, out of memory): e says why */
} grade_status;

/* Judges quiz milestone m of lab l into g (its id, text and points already
 * set) from the learner's answers in st (NULL: none recorded; opts->quiz_note
 * says why): each recorded choice judged again by the lab's own quiz (what
 * the store says was right is not taken), passed when one was right.  Under
 * GRADE_QUIZZES_IGNORE g is worth 0 and marked not counted. */
void grade_judge_quiz(const lab *l, const lab_milestone *m, store *st, const grade_opts *opts,
                      grade_milestone *g);

/* Grades the labs of set (only those in opts->only when given) into out; the
 * quizzes' answers come from st (NULL: none recorded; opts->quiz_note says
 * why).  out's binding (grade_report_start) is filled whatever the status;
 * free it with grade_report_free. */
grade_status grade_run(lab_set *set, const grade_opts *opts, store *st, grade_report *out,
                       cl_err *err);
void grade_report_free(grade_report *report);

/* ---- binding a report to its submission (grade_bind.c) ---------------------- */

/* Whether id can name an assignment: 1 to GRADE_ASSIGNMENT_MAX letters,
 * digits, '.', '_' or '-'.  false + err saying what is wrong. */
bool grade_assignment_check(const char *id, cl_err *err);
/* Starts out (zeroed first): the learner (opts->learner, else the owner of the
 * workspace, else $USER; cleaned for display, core/escape.h), the
 * assignment, this machine's name, the time, cudalab's version, the
 * workspace, the seed and how quizzes are taken.  false + err when the
 * workspace is not known (the rest is filled). */
bool grade_report_start(grade_report *out, const grade_opts *opts, cl_err *err);
/* Marks report as not graded, for the reason why (its labs are dropped): the
 * reports written from it score 0 and say why. */
void grade_report_not_graded(grade_report *report, const char *why);

#endif
