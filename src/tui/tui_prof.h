/* tui_prof.h - the rows of the profiling and basics labs.
 *
 * A lab whose problem is "profiling" or "basics" runs experiments (experiments/experiments.h)
 * whose ids are its variants, and each experiment answers with several
 * measurement rows of their own ids and sizes ("stride" gives "stride_1" at
 * "64 MiB out", ...; lua/profiling.md lists them).  Without a device an
 * experiment answers with one row under its own id.  Its exercise, the
 * pipeline, gives the usual rows at the lab's sizes: the CPU, the lab's
 * starter and the learner's launcher. */
#ifndef CUDALAB_TUI_PROF_H
#define CUDALAB_TUI_PROF_H

#include <stdbool.h>

#include "lab/labmodel.h"

/* True when the_lab runs experiments (the profiling or the basics lab's). */
bool tui_prof_lab(const lab *the_lab);
/* The experiment a row belongs to: the id itself for an experiment's own
 * row ("stride"), the experiment of a measurement ("stride" for
 * "stride_8"), NULL for any other row (cpu, starter, exercise). */
const char *tui_prof_experiment(const char *variant);
/* The kernel (kernels/profiling.cu, basics_experiments.cu, or
 * labs/basics/occupancy.cu) a measurement row times, or the
 * main one of an experiment's own row, for Nsight Compute; NULL when the
 * row times copies only or belongs to no experiment. */
const char *tui_prof_kernel(const char *variant);

#endif
