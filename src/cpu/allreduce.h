/* allreduce.h - the multigpu lab's all-reduce inputs and their reference.
 *
 * Element i of rank r's input is a function of (seed, r, i) alone: a hash
 * turned into a float in [-1, 1) with 24 random bits.  So every rank fills
 * its own input, and checks its output against the sum of all ranks'
 * inputs, computed here in double precision without any rank sending its
 * input to another.  Multi-threaded over large buffers, and the same
 * whatever the thread count. */
#ifndef CUDALAB_CPU_ALLREDUCE_H
#define CUDALAB_CPU_ALLREDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/check.h"

/* The relative tolerance all-reduce outputs are checked with: a float sum
 * of at most 8 terms in any order is far closer than this. */
#define ALLREDUCE_TOL 1e-5

/* Element i of rank's input for seed. */
float allreduce_input(uint64_t seed, int rank, size_t i);
/* out[0..count) = rank's input for seed. */
void allreduce_fill(float *out, size_t count, uint64_t seed, int rank);
/* got[0..count) against the sum over ranks 0..nranks-1 of their inputs for
 * seed, as cpu/check.h judges: poison found (unwritten) first, then values
 * that are not finite, then elements with |got - ref| > tol x max(|ref|, 1)
 * or a relative error over tol (wrong).  Mismatch indices are indices into
 * got. */
check_report allreduce_check(const float *got, size_t count, uint64_t seed, int nranks,
                             double tol);

#endif
