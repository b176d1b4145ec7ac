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
/* Appends to diag's explanation. */
void diag_explain(diagnosis *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets diag's next step. */
void diag_suggest(diagnosis *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets diag's cause and title. */
void diag_set(diagnosis *diag, diag_cause cause, const char *title);
/* text is NULL or "". */
bool diag_empty(const char *text);
/* The integer right after needle in text ("block of 2048" -> 2048), or -1. */
long long diag_number_after(const char *text, const char *needle);
/* "path/starter.lua:12: message" -> where "starter.lua:12", *msg ->
 * "message"; where "" and *msg err when err names no place. */
void diag_lua_location(const char *err, char *where, size_t where_size, const char **msg);

/* ---- one paragraph a cause (text: the message that named it; what: the
 * CUDA error's short name, or NULL) --------------------------------------- */

void diag_compile(const diag_input *in, diagnosis *diag);
void diag_missing(const char *text, diagnosis *diag);
void diag_not_own(const diag_input *in, const char *text, diagnosis *diag);
/* A refused launch configuration (diagnose_launch.c). */
void diag_launch(const diag_input *in, const char *text, const char *what, diagnosis *diag);
void diag_memory(const diag_input *in, const char *what, diagnosis *diag);
void diag_kernel_fault(const diag_input *in, const char *what, const char *text, diagnosis *diag);
void diag_timeout(const diag_input *in, diagnosis *diag);
void diag_wrong(const diag_input *in, diagnosis *diag);
void diag_unwritten(const diag_input *in, diagnosis *diag);
void diag_nan(const diag_input *in, diagnosis *diag);
void diag_oom(const char *text, diagnosis *diag);
void diag_launcher(const char *err, diagnosis *diag);
void diag_no_device(const char *text, diagnosis *diag);
void diag_crash(const diag_input *in, diagnosis *diag);
/* The lab's own reference failed: the lab, not the learner, is to blame. */
void diag_lab(const diag_input *in, diagnosis *diag);
void diag_other(const char *text, diagnosis *diag);

#endif
