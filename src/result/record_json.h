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

bool record_put_device(cJSON *o, const device_info *d);
bool record_put_request(cJSON *o, const run_request *r);
bool record_put_progress(cJSON *o, const run_progress *p);
bool record_put_result(cJSON *o, const run_result *r);
bool record_put_fault(cJSON *o, const run_fault *f);

bool record_get_device(const cJSON *o, device_info *d, cl_err *e);
bool record_get_request(const cJSON *o, run_request *r, cl_err *e);
bool record_get_progress(const cJSON *o, run_progress *p, cl_err *e);
bool record_get_result(const cJSON *o, run_result *r, cl_err *e);
bool record_get_fault(const cJSON *o, run_fault *f, cl_err *e);

/* A run's rows as one document:
 *   {"lab":..., "device":{...}|null, "results":[...], "fault":{...}|null}.
 * NULL when out of memory. */
cJSON *record_doc(const char *lab_id, const device_info *dev, const run_result *rows, size_t n,
                  const run_fault *fault);

#endif
