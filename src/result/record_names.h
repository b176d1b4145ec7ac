/* record_names.h - the names of row kinds and statuses, as tables.
 * Private to result/: others call result_kind_name and result_status_name. */
#ifndef CUDALAB_RESULT_RECORD_NAMES_H
#define CUDALAB_RESULT_RECORD_NAMES_H

#include "result/record.h"

#define RESULT_NSTATUS ((size_t)RS_NO_DEVICE + 1)
#define RESULT_NKIND ((size_t)RK_EXERCISE + 1)

static const char *const result_status_names[RESULT_NSTATUS] = {
    [RS_CORRECT] = "correct", [RS_WRONG] = "wrong", [RS_UNWRITTEN] = "unwritten",
    [RS_NAN] = "nan", [RS_ERROR] = "error", [RS_FAULT] = "fault", [RS_NO_DEVICE] = "no_device",
};

static const char *const result_status_texts[RESULT_NSTATUS] = {
    [RS_CORRECT] = "correct", [RS_WRONG] = "wrong answer",
    [RS_UNWRITTEN] = "outputs left unwritten", [RS_NAN] = "NaN or Inf in the output",
    [RS_ERROR] = "could not run", [RS_FAULT] = "the kernel faulted or hung",
    [RS_NO_DEVICE] = "no CUDA device",
};

static const char *const result_kind_names[RESULT_NKIND] = {
    [RK_KERNEL] = "kernel", [RK_LIBRARY] = "library", [RK_CPU] = "cpu",
    [RK_CPU_MT] = "cpu_mt", [RK_EXERCISE] = "exercise",
};

#endif
