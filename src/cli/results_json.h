/* results_json.h - a run's rows as one JSON document (run --json, bench). */
#ifndef CUDALAB_CLI_RESULTS_JSON_H
#define CUDALAB_CLI_RESULTS_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "proto/protocol.h"

/* {"lab":..., "device":{...}|null, "results":[...], "fault":{...}|null}.
 * Row and device objects use the protocol's field names. */
cJSON *results_json(const char *lab_id, const device_info *dev, const run_result *rows,
                    size_t n, const run_fault *fault);
/* Prints root on stdout and deletes it; NULL prints nothing. */
void results_json_print(cJSON *root);

#endif
