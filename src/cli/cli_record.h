/* cli_record.h - what the commands need to record their runs. */
#ifndef CUDALAB_CLI_CLI_RECORD_H
#define CUDALAB_CLI_CLI_RECORD_H

#include "result/record.h"
#include "store/recorder.h"
#include "store/store.h"

/* Opens the progress store, printing its notice (a damaged file moved
 * aside, a migration) or why progress is not saved on stderr; NULL when it
 * cannot be used (the command carries on without it). */
store *cli_store_open(void);
/* The cause name ("compile", "memory_access", ...) of a learner row that
 * is not correct, "" for a correct one. */
const char *cli_diag_cause(const run_result *result);

#endif
