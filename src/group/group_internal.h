/* group_internal.h - what the coordinator's pieces share: the ranks'
 * processes and their lines (group_ranks.c), merging their rows
 * (group_rows.c), and why a group was stopped (group_fault.c).  group.c
 * calls them; group_ranks.c calls group_rows.c and group_fault.c, which
 * call nothing back.  Private to src/group/. */
#ifndef CUDALAB_GROUP_INTERNAL_H
#define CUDALAB_GROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "catalog/collective.h"
#include "core/spawn.h"
#include "group/group.h"
#include "proto/rankmsg.h"

#define GROUP_TAIL 2048               /* what a rank printed, kept for a fault */

/* Rows of the ranks becoming one row a measurement. */
typedef struct group_rows {
    int nranks;
    int nlab;                         /* the lab's all-reduces requested: a size is shown
                                       * once all are in */
    const group_sink *sink;
    /* rows of one measurement still coming from some ranks */
    struct group_pending {
        bool used;
        char variant[RUN_ID_MAX], size[RUN_SIZE_MAX];
        int of, got;
        bool from[RANKMSG_MAX_RANKS];
        run_result rows[RANKMSG_MAX_RANKS];
    } pend[4];
    /* merged all-reduce rows of one size, shown together */
    run_result sized[4];
    int nsized;
    /* NCCL's time at each size shown so far, for the learner's rows,
     * which the ranks measure after all of the lab's */
    struct group_lib {
        char size[RUN_SIZE_MAX];
        double ms;
    } lib[COLL_MAX_SIZES];
    int nlib;
} group_rows;

void group_rows_init(group_rows *g, int nranks, int nlab, const group_sink *sink);
/* Adds rank's row; false + err when it breaks the rules (a rank sending
 * a row twice, more rows in flight than a group has). */
bool group_rows_add(group_rows *g, int rank, const run_result *row, int of, cl_err *err);

/* One rank's process and what it said. */
typedef struct group_rank {
    spawn_child ch;
    int pidfd;
    bool exited;
    int status;                       /* wait status once exited */
    char *line;                       /* protocol bytes not yet a whole line */
    size_t line_len;
    char tail[GROUP_TAIL];            /* the end of what it printed */
    size_t tail_len;
    char variant[RUN_ID_MAX], size[RUN_SIZE_MAX], phase[32];   /* where it was */
    bool waiting;                     /* its part of the current exchange is in */
    char tag[RANKMSG_TAG_MAX];
    rank_blob blob;
    bool failed;                      /* it said it cannot go on */
    char fail[1024];
    bool deaf;                        /* a write to its input failed */
} group_rank;

/* Why the group ended early; the words of the fault. */
typedef struct group_stop {
    bool stopped;
    int rank;                         /* the rank to blame; -1: none known */
    char cause[64];                   /* "signal", "exit", "timeout", "protocol", "rank" */
    char what[768];
} group_stop;

/* The fault from stop and what each rank was doing. */
void group_fault_make(const group_stop *stop, const group_rank *ranks, int nranks,
                      run_fault *fault);
/* Records the first reason to stop (later ones are consequences). */
void group_fault_note(group_stop *stop, int rank, const char *cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Words for a rank that exited with wait status: "was killed by SIGSEGV",
 * "exited with status 1". */
void group_fault_exit_words(int status, char *out, size_t n);

/* Starts nranks ranks for req and serves them until all have ended or the
 * group had to be stopped (stop says why). */
void group_ranks_serve(const run_request *req, int nranks, const group_sink *sink,
                       group_stop *stop, group_rank *ranks);

#endif
