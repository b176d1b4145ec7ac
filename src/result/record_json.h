/* record_json.h - the JSON form of the run's record.
 *
 * One form for every place a record leaves memory: the wire protocol
 * between the parent and the worker, `--json` output, the progress store and
 * grade reports.  Field names follow the struct members (result/record.h);
 * rates below zero ("not applicable") are null; seeds are decimal strings
 * (core/jsonf.h has the conventions).  Each encoder adds the fields to an
 * existing object and returns false only when out of memory; each decoder
 * starts from the struct's defaults and fails naming the first bad field. */
#ifndef CUDALAB_RESULT_RECORD_JSON_H
#define CUDALAB_RESULT_RECORD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "result/record.h"

bool record_put_device(cJSON *obj, const device_info *dev);
bool record_put_request(cJSON *obj, const run_request *req);
bool record_put_progress(cJSON *obj, const run_progress *progress);
bool record_put_result(cJSON *obj, const run_result *result);
bool record_put_fault(cJSON *obj, const run_fault *fault);

bool record_get_device(const cJSON *obj, device_info *dev, cl_err *err);
bool record_get_request(const cJSON *obj, run_request *req, cl_err *err);
bool record_get_progress(const cJSON *obj, run_progress *progress, cl_err *err);
bool record_get_result(const cJSON *obj, run_result *result, cl_err *err);
bool record_get_fault(const cJSON *obj, run_fault *fault, cl_err *err);

/* A run's rows as one document:
 *   {"lab":..., "device":{...}|null, "results":[...], "fault":{...}|null}.
 * NULL when out of memory. */
cJSON *record_doc(const char *lab_id, const device_info *dev, const run_result *rows, size_t nrows,
                  const run_fault *fault);

#endif
