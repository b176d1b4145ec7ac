/* exercise.h - the learner's ring all-reduce in a rank: compiled and
 * judged fit to run (exercise_compile.c), set up and launched
 * (exercise.c), and a time limit on every wait for it (watch.c).  Private
 * to src/mgpu/; measure.c and allreduce.c call it. */
#ifndef CUDALAB_MGPU_EXERCISE_H
#define CUDALAB_MGPU_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "gpu/nvrtc.h"

typedef struct mg_rank mg_rank;

/* ---- compiling (exercise_compile.c) ------------------------------------------- */

/* Compiles the kernel file at path for arch (NULL: NVRTC_DEFAULT_ARCH),
 * includes confined to root (NULL: the file's folder), into out (free it
 * with nvrtc_output_free whatever the result), and checks that it defines
 * RING_KERNEL as extern "C" with one parameter, the ring_args.  false with
 * msg: the first compile error as "starter.cu:12:5: error: ..." (the path
 * from root, "(and N more errors)"), or what is missing. */
bool mg_ex_compile(const char *path, const char *root, const char *arch, nvrtc_output *out,
                   char *msg, size_t cap);

/* ---- running (exercise.c) ------------------------------------------------------ */

/* Whether the learner's kernel can run in this group (*can), or why not
 * (msg): the first call compiles and loads it on every rank, agrees on
 * the launch and maps every rank's flags (every rank calls it at the
 * same point, after mg_bufs_open); later calls answer the same.  false +
 * err when this rank cannot go on. */
bool mg_ex_ready(mg_rank *r, bool *can, char *msg, size_t n, cl_err *err);
/* Enqueues one collective of the learner's kernel over count floats. */
bool mg_ex_allreduce(mg_rank *r, size_t count, cl_err *err);
/* A note for the learner's correct row: its launch, and that NCCL could
 * not run when so ("; 1 block of 512 threads a GPU"). */
const char *mg_ex_note(const mg_rank *r);
/* Unloads the kernel, unmaps and frees the flags. */
void mg_ex_close(mg_rank *r);

/* ---- the time limit (watch.c) ---------------------------------------------------- */

/* From now, the learner's kernel has seconds to let this rank go on: past
 * them, a thread of the rank tells the coordinator that it hung (naming
 * what) and ends the process, and the coordinator ends the group.  Its
 * message names what the rank was doing ("the check at 256 MiB"). */
void mg_watch_arm(mg_rank *r, double seconds, const char *what);
/* The rank went on in time. */
void mg_watch_disarm(void);
/* The limit for collectives of bytes each: time for the slowest kernel
 * that still makes progress, never less than MG_WATCH_BASE_S. */
double mg_watch_limit_s(size_t bytes, int collectives);

#define MG_WATCH_BASE_S 10.0
/* The slowest progress the limit allows: bytes of message a second. */
#define MG_WATCH_FLOOR_BPS 0.25e9

#endif
