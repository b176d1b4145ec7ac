/* labcheck.h - a loaded lab checked against what cudalab can run.
 *
 * The lab language (lua/lab.lua) checks a lab's shape; this checks its
 * content against the catalog and the shipped kernels: a known problem and
 * library, sizes the problem reads, a shipped kernel of the lab's problem
 * for each variant, a known experiment for each profiling variant.
 * lab_load() calls it, so no caller sees a lab that cannot run. */
#ifndef CUDALAB_LAB_LABCHECK_H
#define CUDALAB_LAB_LABCHECK_H

#include "lab/labmodel.h"

/* Adds one diagnostic, at the line it belongs to, for each problem. */
void lab_check_engine(lab *model, lab_diags *diags);

#endif
