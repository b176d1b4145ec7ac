/* milestone_probe.h - a lab's milestone checks tried without a GPU.
 *
 * `cudalab check` cannot measure anything, but it can call each check
 * milestone's function once on a made-up set of rows: every row the check
 * may read (the learner's kernel, the rungs, the library, the CPU
 * baselines) at the size the milestone is judged at, each correct and with
 * every figure filled.  A check that fails on such rows (a misspelt field
 * such as r.exercise.pct_peek, a nil called, an error it raises) would fail
 * on real ones too: its error becomes a diagnostic at the milestone's line.
 * What it returns is not judged: the figures are invented. */
#ifndef CUDALAB_LAB_MILESTONE_PROBE_H
#define CUDALAB_LAB_MILESTONE_PROBE_H

#include "lab/labmodel.h"

/* Adds a diagnostic for each check milestone of model whose function
 * fails on the made-up rows. */
void lab_probe_milestones(lab *model, lab_diags *diags);

#endif
