/* prep_cpu.h - the data pipeline on the CPU: the baselines of its steps.
 *
 * Each step reads its inputs from a prep_state and writes its outputs
 * there, as prep_state.h defines them, on `threads` threads: 1 is the
 * single-thread baseline (what NumPy would do on one core, in C, with the
 * loops that matter vectorised), more split the rows between threads.
 * The algorithms are the fast ones a careful CPU programmer would pick:
 * quickselect for a median (a parallel histogram selection with threads),
 * one pass to compact the rows, a vectorised log1p, a radix sort for the
 * quantiles, histograms and per-zone sums in arrays indexed by zone, and a
 * matrix product eight rows at a time in vector registers. */
#ifndef CUDALAB_CPU_PREP_CPU_H
#define CUDALAB_CPU_PREP_CPU_H

#include <stdbool.h>

#include "core/err.h"
#include "cpu/prep_state.h"

/* The table from path (prep_file.h) into st->raw_block. */
bool prep_cpu_load(prep_state *st, const char *path, int threads, cl_err *err);
void prep_cpu_fill(prep_state *st, int threads);
void prep_cpu_filter(prep_state *st, int threads);
void prep_cpu_transform(prep_state *st, int threads);
void prep_cpu_standardize(prep_state *st, int threads);
void prep_cpu_binning(prep_state *st, int threads);
void prep_cpu_encode(prep_state *st, int threads);
void prep_cpu_groupby(prep_state *st, int threads);
void prep_cpu_gemm(prep_state *st, int threads);

/* Runs step (path: the table's file, for load).  false + err only when load
 * cannot read the file. */
bool prep_cpu_step(prep_state *st, prep_step step, const char *path, int threads, cl_err *err);

#endif
