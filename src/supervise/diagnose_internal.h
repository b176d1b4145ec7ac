/* diagnose_internal.h - what the parts of diagnose share: the helpers
 * that write a diagnosis, and one paragraph a cause (diagnose_causes.c,
 * the launch configuration's in diagnose_launch.c) for the classification
 * (diagnose.c) to pick.
 * Private to src/supervise/diagnose*.c. */
#ifndef CUDALAB_SUPERVISE_DIAGNOSE_INTERNAL_H
#define CUDALAB_SUPERVISE_DIAGNOSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "supervise/diagnose.h"

/* The limits of current NVIDIA GPUs, when the device's are unknown. */
#define DEFAULT_MAX_THREADS 1024
#define DEFAULT_MAX_SHARED (48LL * 1024)
#define DEFAULT_REGS_PER_SM 65536

/* ---- writing a diagnosis ----------------------------------------------- */

/* needle in hay, ignoring case; NULL when absent or either is NULL. */
const char *diag_find(const char *hay, const char *needle);
/* Appends to d's explanation. */
void diag_explain(diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets d's next step. */
void diag_suggest(diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets d's cause and title. */
void diag_set(diagnosis *d, diag_cause c, const char *title);
/* s is NULL or "". */
bool diag_empty(const char *s);
/* The integer right after needle in text ("block of 2048" -> 2048), or -1. */
long long diag_number_after(const char *text, const char *needle);
/* "path/starter.lua:12: message" -> where "starter.lua:12", *msg ->
 * "message"; where "" and *msg err when err names no place. */
void diag_lua_location(const char *err, char *where, size_t n, const char **msg);

/* ---- one paragraph a cause (text: the message that named it; what: the
 * CUDA error's short name, or NULL) --------------------------------------- */

void diag_compile(const diag_input *in, diagnosis *d);
void diag_missing(const char *text, diagnosis *d);
void diag_not_own(const diag_input *in, const char *text, diagnosis *d);
/* A refused launch configuration (diagnose_launch.c). */
void diag_launch(const diag_input *in, const char *text, const char *what, diagnosis *d);
void diag_memory(const diag_input *in, const char *what, diagnosis *d);
void diag_kernel_fault(const diag_input *in, const char *what, const char *text, diagnosis *d);
void diag_timeout(const diag_input *in, diagnosis *d);
void diag_wrong(const diag_input *in, diagnosis *d);
void diag_unwritten(const diag_input *in, diagnosis *d);
void diag_nan(const diag_input *in, diagnosis *d);
void diag_oom(const char *text, diagnosis *d);
void diag_launcher(const char *err, diagnosis *d);
void diag_no_device(const char *text, diagnosis *d);
void diag_crash(const diag_input *in, diagnosis *d);
/* The lab's own reference failed: the lab, not the learner, is to blame. */
void diag_lab(const diag_input *in, diagnosis *d);
void diag_other(const char *text, diagnosis *d);

#endif
