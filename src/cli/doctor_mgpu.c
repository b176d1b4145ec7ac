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

static void copy_string(const cJSON *j, const char *key, char *out, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    snprintf(out, n, "%s", cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

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
    copy_string(j, "nccl_version", out->nccl_version, sizeof out->nccl_version);
    copy_string(j, "nccl_why", out->nccl_why, sizeof out->nccl_why);
    out->asked = true;
    cJSON_Delete(j);
}
