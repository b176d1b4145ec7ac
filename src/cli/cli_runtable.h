/* cli_runtable.h - the table `cudalab run` prints, a row at a time as the
 * worker sends them. */
#ifndef CUDALAB_CLI_CLI_RUNTABLE_H
#define CUDALAB_CLI_CLI_RUNTABLE_H

#include <stdbool.h>

#include "result/record.h"

/* The table's header line. */
void cli_runtable_header(void);
/* One row's line (and its message under it when it failed and the
 * diagnosis does not explain it); "±" before the spread when unicode,
 * else "+-". */
void cli_runtable_row(const run_result *result, bool unicode);

#endif
