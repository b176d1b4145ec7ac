/* doctor_mgpu.c - the multigpu lab's probe for `cudalab doctor`
 * (cli/doctor_mgpu.h). */
#include "cli/doctor_mgpu.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/paths.h"
#include "core/spawn.h"

#define DOCTOR_MGPU_PROBE_S 30.0

void doctor_mgpu_probe(doctor_mgpu *out)
{
    memset(out, 0, sizeof *out);
    char self[PATH_MAX];
    if (!paths_self_exe(self, sizeof self, NULL))
        snprintf(self, sizeof self, "/proc/self/exe");
    const char *argv[] = {self, "worker", "--probe", NULL};
    static const char *const env[] = {"NCCL_NVLS_ENABLE=0", NULL};
    spawn_opts o = {.argv = argv, .what = "the multigpu probe", .env = env};
    char buf[8192];
    int status = 0;
    cl_err e = {{0}};
    if (!spawn_capture(&o, DOCTOR_MGPU_PROBE_S, buf, sizeof buf, &status, &e)) {
        snprintf(out->why, sizeof out->why, "%s", e.msg);
        return;
    }
    cJSON *j = cJSON_Parse(buf);
    if (!cJSON_IsObject(j)) {
        snprintf(out->why, sizeof out->why, "the multigpu probe gave no answer (wait status %d)",
                 status);
        cJSON_Delete(j);
        return;
    }
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "ndevices");
    out->gpus = cJSON_IsNumber(n) ? (int)n->valuedouble : 0;
    out->nccl = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "nccl"));
    const char *version = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "nccl_version"));
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "nccl_why"));
    snprintf(out->nccl_version, sizeof out->nccl_version, "%s", version ? version : "");
    snprintf(out->nccl_why, sizeof out->nccl_why, "%s", why ? why : "");
    out->asked = true;
    cJSON_Delete(j);
}
