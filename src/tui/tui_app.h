/* tui_app.h - everything the screen shows, and what input does to it.
 *
 * The app is the model behind the views: the labs and, for each, the lesson
 * step, the chosen size, the run table, milestone states and quiz answers;
 * the focused pane and any open overlay; the message log; the device.
 * Input handlers change the model and return TUI_F_* flags; they never draw
 * and never talk to the worker: a run or a cancel is left in `req` for the
 * main loop.  Worker events arrive through the tui_app_on_* functions.
 * No curses here, so all of it is unit-tested. */
#ifndef CUDALAB_TUI_APP_H
#define CUDALAB_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "lab/labmodel.h"
#include "tui/tui_keys.h"
#include "tui/tui_layout.h"
#include "tui/tui_log.h"
#include "tui/tui_md.h"
#include "tui/tui_runtable.h"
#include "tui/tui_timeline.h"
#include "result/record.h"
#include "store/recorder.h"

enum {
    TUI_F_REDRAW = 1 << 0,
    TUI_F_QUIT = 1 << 1,
    TUI_F_REQUEST = 1 << 2,    /* app->req holds a run or a cancel */
    TUI_F_REPAINT = 1 << 3,    /* clear the terminal and draw everything */
};

/* A timeline recorded on a real GPU, shipped for machines without one;
 * every timeline read from TUI_SAMPLE_DIR is marked as such (a note in its
 * window title, in an exported trace and in the exported file's name). */
#define TUI_SAMPLE_DIR "assets/timelines/"
#define TUI_SAMPLE_TIMELINE TUI_SAMPLE_DIR "h200-overlap.json"

typedef enum tui_overlay {
    TUI_OV_NONE, TUI_OV_HELP, TUI_OV_QUIZ, TUI_OV_DETAILS, TUI_OV_CONFIRM_QUIT,
    TUI_OV_CONFIRM_RESET,
    TUI_OV_TIMELINE,           /* full screen: the recorded timeline */
    TUI_OV_ROOFLINE,           /* full screen: the roofline of the measured rows */
    TUI_OV_SWEEP,              /* full screen: GB/s against size of the rows of several sizes */
    TUI_OV_MESSAGES,           /* full screen: every message, wrapped */
} tui_overlay;

typedef enum tui_req_kind {
    TUI_REQ_NONE,
    TUI_REQ_RUN,
    TUI_REQ_CANCEL,
    TUI_REQ_EDIT,              /* open the learner's kernel of lab `lab` in an editor */
    TUI_REQ_RESET,             /* reset lab `lab`'s exercise to the starters */
    TUI_REQ_NCU,               /* profile one kernel of lab `lab` with Nsight Compute */
    TUI_REQ_SANITIZE,          /* check lab `lab`'s exercise under compute-sanitizer */
    TUI_REQ_CANCEL_JOB,        /* stop the Nsight Compute or sanitizer job */
} tui_req_kind;

typedef enum tui_job_kind { TUI_JOB_NONE, TUI_JOB_NCU, TUI_JOB_SANITIZE } tui_job_kind;

#define TUI_REQ_ARGS 12
#define TUI_COMPILE_LOG 4096
#define TUI_NCU_TEXT 4096

typedef enum tui_ms_state {
    TUI_MS_PENDING, TUI_MS_REACHED, TUI_MS_MISSED, TUI_MS_ERROR
} tui_ms_state;

typedef struct tui_ms {
    tui_ms_state state;
    char shown[160];           /* measured value against target: "312x >= 100x" */
    char error[256];
    bool earned;               /* reached before (the progress store remembers) */
    double earned_at;          /* when, Unix time */
    char earned_shown[160];    /* the value that earned it */
} tui_ms;

typedef struct tui_labstate {
    size_t step;
    int lesson_scroll;
    size_t size_idx;
    size_t run_cursor;         /* row in the table at the chosen size */
    int run_scroll;
    size_t ms_cursor;
    int ms_scroll;
    size_t ex_idx;             /* the exercise picked (index into the lab's exercises) */
    size_t hints_shown;        /* hints of the picked exercise revealed so far */
    int *quiz_pick;            /* per quiz: last choice picked, -1 none */
    bool *quiz_ok;             /* per quiz: answered correctly */
    tui_ms *ms;                /* per milestone */
    tui_runtable table;
    char compile_log[TUI_COMPILE_LOG];  /* the compiler's diagnostics of the last run */
    char ncu_variant[RUN_ID_MAX];     /* the row Nsight Compute profiled last */
    char ncu_size[RUN_SIZE_MAX];
    char ncu_text[TUI_NCU_TEXT];        /* its metrics, as lines */
} tui_labstate;

/* Evaluates milestone number milestone of the_lab against the results
 * rs[0..count); fills out. */
typedef void (*tui_ms_eval_fn)(lab *the_lab, size_t milestone, const run_result *rs, size_t count,
                               tui_ms *out);

typedef struct tui_request {
    tui_req_kind kind;
    size_t lab;                /* for TUI_REQ_EDIT, TUI_REQ_RESET and TUI_REQ_SANITIZE */
    size_t ex;                 /* and the lab's exercise (an index into its exercises) */
    run_request run;           /* for TUI_REQ_RUN */
    double time_limit_s;       /* for TUI_REQ_RUN: 0 the supervisor's default */
    /* TUI_REQ_NCU: the kernel's name as a regular expression, the row, and
     * the cudalab arguments (after the program name and global options)
     * that run it. */
    char kernel[128];
    char variant[RUN_ID_MAX];
    char size[RUN_SIZE_MAX];
    char args[TUI_REQ_ARGS][RUN_ID_MAX];
    int nargs;
    bool racecheck;            /* TUI_REQ_SANITIZE: racecheck, else memcheck */
} tui_request;

typedef struct tui_app {
    lab_set *labs;             /* not owned */
    tui_labstate *ls;          /* one per lab */
    size_t sel;
    int labs_scroll;
    tui_pane_id focus;
    tui_overlay overlay;
    int help_scroll;
    tui_overlay help_back;     /* the view help returns to when it closes */
    size_t quiz_ms, quiz_q, quiz_cursor;
    int quiz_answered;         /* choice answered in the open quiz, -1 none */
    bool quiz_correct;
    char quiz_feedback[512];
    char details_title[128];   /* the details overlay: a row explained */
    char details[8192];
    bool details_md;           /* details is Markdown (hints), else plain lines */
    int details_scroll;
    bool chart_swap;           /* the chart takes the table's place */
    bool ascii;
    double time_limit_s;       /* 0: the lab's */
    const char *workspace;     /* where learners keep their kernels; may be NULL */
    tui_ms_eval_fn ms_eval;    /* NULL: milestones other than quizzes stay pending */

    bool running;
    int run_id;
    size_t run_lab;
    char run_size[RUN_SIZE_MAX];
    char run_ex[RUN_ID_MAX];   /* the exercise the run measures; "" the lab's own rows */
    int run_rows, run_rows_done;
    int compiler_shown, compiler_hidden;   /* the run's compiler lines in the messages pane, and not */
    size_t rerun_lab;          /* 1 + lab whose exercise was saved during a run; 0 none */
    tui_request req;

    tui_log log;
    int msg_scroll;            /* first wrapped line the messages view shows */
    bool dev_known;
    bool dev_lost;             /* the worker could not report the device */
    device_info dev;
    unsigned spin;

    tui_timeline tl;           /* the timeline view */
    char tl_path[TUI_TL_PATH_MAX];      /* the newest timeline a run announced */
    char tl_fallback[TUI_TL_PATH_MAX];  /* read when no run announced one; may be "" */
    bool tl_stale;             /* a newer timeline was announced since tl was read */
    unsigned tl_serial;        /* the log's serial when the view opened: newer messages show in it */
    int plot_scroll;           /* first legend line of the roofline or the by-size view */

    tui_job_kind job;          /* what runs in the background */
    size_t job_lab;
    char job_variant[RUN_ID_MAX], job_size[RUN_SIZE_MAX];
    char job_what[128];        /* "memcheck on your kernel" */

    struct store *store;       /* the progress store; NULL: progress is not saved */
    bool store_failed;         /* a write failed: nothing more is saved */
    recorder rec;              /* the run being recorded */
    run_result *prog_rows;     /* the rows of the run being recorded */
    size_t prog_n, prog_cap;
    bool placed;               /* the lab and step last recorded */
    size_t placed_lab, placed_step;

    md_doc lesson;             /* cache of the rendered step */
    bool lesson_valid;
    size_t lesson_lab, lesson_step;
    int lesson_width;
} tui_app;

bool tui_app_init(tui_app *app, lab_set *labs, bool ascii, cl_err *err);
void tui_app_free(tui_app *app);

const lab *tui_app_lab(const tui_app *app);           /* selected lab or NULL */
tui_labstate *tui_app_state(tui_app *app);            /* its state or NULL */
/* The selected lab's size label, or "" when it has none. */
const char *tui_app_size(const tui_app *app);
/* The picked exercise of the selected lab, or NULL when it has none. */
const lab_exercise *tui_app_exercise(const tui_app *app);
/* The sizes lab lab_index shows: its picked exercise's, else the lab's. */
char *const *tui_app_sizes(const tui_app *app, size_t lab_index, size_t *count);

/* Handles one action under layout lay; returns TUI_F_* flags. */
unsigned tui_app_key(tui_app *app, const tui_layout *lay, tui_action act);
/* The terminal's size changed to lay: every list of the selected lab
 * scrolls so that its selection and as many rows as fit are shown. */
void tui_app_relayout(tui_app *app, const tui_layout *lay);
/* Text width and lines of the messages view at lay. */
int tui_app_messages_width(const tui_layout *lay);
int tui_app_messages_visible(const tui_layout *lay);

typedef enum tui_mouse { TUI_MOUSE_CLICK, TUI_MOUSE_WHEEL_UP, TUI_MOUSE_WHEEL_DOWN } tui_mouse;
unsigned tui_app_mouse(tui_app *app, const tui_layout *lay, int row, int col, tui_mouse mouse);
/* A digit typed while a quiz is open: the choice of that number (1 the
 * first) under the cursor, for Enter to answer; 0 (nothing done) when no
 * quiz is open or it has no such choice. */
unsigned tui_app_digit(tui_app *app, int digit);

/* Indices into the selected lab's table of the rows shown at its chosen
 * size, in display order (the profiling lab's experiment rows first). */
size_t tui_app_rows(const tui_app *app, size_t *idx, size_t max);

/* The lesson of the selected step laid out for width columns (cached). */
const md_doc *tui_app_lesson(tui_app *app, int width);
/* Text width of the lesson inside its pane. */
int tui_app_lesson_width(const tui_layout *lay);

/* The main loop reports what it did with a request. */
void tui_app_run_started(tui_app *app, const run_request *req);
void tui_app_run_failed(tui_app *app, const char *why);

/* Worker events; each returns TUI_F_* flags. */
unsigned tui_app_on_hello(tui_app *app, const device_info *dev);
/* The worker could not start or died before its hello; why says how. */
unsigned tui_app_on_worker_lost(tui_app *app, const char *why);
unsigned tui_app_on_progress(tui_app *app, const run_progress *progress);
unsigned tui_app_on_result(tui_app *app, const run_result *result);
unsigned tui_app_on_log(tui_app *app, int level, const char *msg);
unsigned tui_app_on_fault(tui_app *app, const run_fault *fault);
unsigned tui_app_on_done(tui_app *app, int run);

/* The main loop started the job a TUI_REQ_NCU or TUI_REQ_SANITIZE asked
 * for, or could not (why says why, e.g. ncu is not installed). */
void tui_app_job_started(tui_app *app);
unsigned tui_app_job_failed(tui_app *app, const char *why);
/* The job ended: out is what it wrote ("OK\n" or "ERR\n", then text),
 * status its exit status.  Shows the findings or the metrics. */
unsigned tui_app_on_job(tui_app *app, const char *out, int status);

/* The learner saved a file of exercise of lab lab_index: runs it at the
 * chosen size, now or when the current run ends (when it is the one picked). */
unsigned tui_app_exercise_saved(tui_app *app, size_t lab_index, const lab_exercise *exercise,
                                const char *file);
/* Lab lab_index's exercise went back to its starter: its rows and compile
 * errors are forgotten. */
void tui_app_exercise_reset(tui_app *app, size_t lab_index, const lab_exercise *exercise);
/* Paths of the files of exercise of lab the_lab (NULL: the lab's own)
 * that a run uses: the workspace copies when they exist, else the lab's
 * starters.  false when there is no such exercise. */
bool tui_app_exercise_paths(const tui_app *app, const lab *the_lab, const lab_exercise *exercise,
                            char *kernel, char *launcher, size_t path_size);

/* Re-evaluates the milestones of lab lab_index from its results and quiz answers. */
void tui_app_eval(tui_app *app, size_t lab_index);
/* Milestones reached out of the total, for lab lab_index. */
void tui_app_progress(const tui_app *app, size_t lab_index, int *reached, int *total);

#endif
