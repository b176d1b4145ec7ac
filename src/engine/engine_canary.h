/* engine_canary.h - the canary repetition and the inputs' integrity, for
 * a GPU row (engine_gpu.c) and a Python row (engine_python.c).
 *
 * Before timing, fresh inputs are drawn with a seed the row's code cannot
 * predict (rng_secret), each from part of its declared distribution as for
 * the check after timing (problem_data's narrow), their reference computed
 * and a copy staged in device memory of the engine's own, which no
 * launcher is given.  A C row keeps being timed on the inputs of its first
 * check: they trade places with the fresh ones (kernels_swap_bytes), and
 * timing copies the staged inputs over them right before the canary
 * repetition, poisons the outputs (canary_before, a gpu/timing.h hook) and
 * checks the outputs once that repetition has finished (canary_after).  A
 * Python row's child times its own copies of the buffers: the fresh inputs
 * and poisoned outputs wait in the worker's buffers, which the bridge
 * copies in at its canary repetition (python/cudalab_bridge.py).
 *
 * Right after the canary, the inputs must still equal the staged ones: a
 * kernel that writes into its inputs (where it could leave itself a mark
 * that tells inputs it has already seen from fresh ones) is caught there.
 * Between repetitions the inputs' elements change places (canary_shuffle),
 * so that the timed repetitions never see the same inputs twice in a row.
 *
 * The cost: one more reference (the CPU's or the lab's kernel), a device
 * copy of the inputs, one upload, and one checked repetition among the
 * timed ones.  Private to src/engine/. */
#ifndef CUDALAB_ENGINE_ENGINE_CANARY_H
#define CUDALAB_ENGINE_ENGINE_CANARY_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "core/err.h"
#include "core/rng.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "engine/engine_internal.h"
#include "engine/problem.h"
#include "result/record.h"

#define CANARY_MAX_INPUTS (PROBLEM_MAX_ARGS + 2)

typedef struct canary {
    engine_ctx *c;
    problem_data *p;
    const char *variant;          /* the row's id */
    int n;
    problem_input in[CANARY_MAX_INPUTS];
    gpu_buffer stage[CANARY_MAX_INPUTS];   /* the fresh inputs */
    gpu_buffer counter;           /* kernels_count_diff's */
    uint64_t seed;                /* of the fresh inputs */
    uint64_t draw;                /* which timed repetition: timing_opts' canary_draw */
    bool ready;                   /* staged: timing runs a canary */
    bool ran;                     /* it ran, and rep is its check */
    check_report rep;
    int changed;                  /* the input it wrote into (-1: none) */
    unsigned long long changed_bytes;
    rng mix;                      /* canary_shuffle's masks come from it */
    char note[192];               /* why the row has no canary ("" when it has one) */
} canary;

/* Fresh inputs of p from seed, each drawn from a share of its
 * distribution (from 0.5 to 1, from the seed), and their reference, with
 * a hang or a fault meanwhile the lab's (variant: the row's, restored).
 * false with e when the reference failed. */
bool engine_fresh_prepare(engine_ctx *c, problem_data *p, const char *variant, uint64_t seed,
                          cl_err *e);

/* Stages a canary for a row of p whose first check has just run (its
 * inputs on the device).  keep: a C row, timed on the inputs it has (they
 * are kept, the fresh ones staged beside them); else a Python row (the
 * fresh inputs and poisoned outputs left in p's device buffers, a copy
 * staged).  true with cv->ready when staged; true without when the row
 * gets none (no device inputs, or no room for a second copy: cv->note
 * says so); false with e when a CUDA call or the reference failed. */
bool canary_open(engine_ctx *c, problem_data *p, const char *variant, bool keep, canary *cv,
                 cl_err *e);
/* timing_opts hooks (ud: the canary): the staged inputs copied over the
 * row's and the outputs poisoned, on stream; after the repetition, the
 * outputs downloaded and checked. */
bool canary_before(void *ud, cudaStream_t stream, cl_err *e);
bool canary_after(void *ud, cl_err *e);
/* timing_opts' canary_shuffle: the elements of every input drawn element
 * by element (problem_input's elem_bytes) exchanged in pairs by a new
 * random XOR mask, on stream.  Before every repetition but the canary, so
 * that no repetition sees the inputs of the one before: a kernel that
 * recomputes only when its inputs changed (a fingerprint of a few samples,
 * a hash of them all) recomputes every time, and one that keeps an answer
 * for inputs it thinks it has seen (the same values in any order) replays
 * a wrong one at the canary, which comes right after such a shuffle of
 * its own inputs. */
bool canary_shuffle(void *ud, cudaStream_t stream, cl_err *e);
/* After timing: when the canary ran and failed, or the inputs no longer
 * equalled the staged ones right after it, r becomes RS_WRONG saying so
 * and true is returned; else r stays as it is. */
bool canary_judge(const canary *cv, run_result *r);
void canary_close(canary *cv);

#endif
