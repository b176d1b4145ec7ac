/* probprobe.h - the problems a lab declares tried without a GPU, for
 * `cudalab check`.
 *
 * A run calls a declared problem's Lua reference and its judge functions
 * only on measured outputs; check calls them before any run.  For each
 * problem of the lab folder with a Lua reference (or a reference kernel's
 * Lua `check`), at the smallest of the sizes it runs at whose buffers a
 * Lua reference may take (PROBDECL_LUA_REF_MAX), the inputs are made by
 * the fill code a run uses, from a fixed seed, the reference is called
 * with its time limit (lab/probcall.h), and each function judge is handed
 * the reference's own answer rounded to the output's type, which it must
 * accept.  Then once more on the inputs of the check after timing, each
 * fill drawn from the low half of its range, and once at the largest of
 * its sizes of at most 2^18 elements in all, when that is another.  A
 * reference that fails, runs too long, leaves an output element unwritten
 * or sets one to NaN, and a judge that fails or rejects the exact answer,
 * are diagnostics at the line Lua names (or the function's own); so is an
 * output rule no kernel writing its type could meet ("exact" against a
 * value the type cannot hold, a rel or abs tighter than its rounding).
 *
 * It also gives advice that stops nothing (lab_diags_warn): a `library =
 * "copy"` bar for a problem whose outputs are too small for a copy of them
 * to say anything of the problem's speed. */
#ifndef CUDALAB_LAB_PROBPROBE_H
#define CUDALAB_LAB_PROBPROBE_H

#include "lab/labmodel.h"

/* Adds a diagnostic for each problem of model's folder whose reference or
 * judge fails as above, and a warning for each pointless copy bar. */
void lab_probe_problems(lab *model, lab_diags *diags);

#endif
