#include "catalog/pipeline_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/paths.h"
#include "cpu/prep_state.h"

#define REPORT_MAX_BYTES (4u << 20)

const char *pipeline_step_name(int k)
{
    return prep_step_id((prep_step)k);
}

bool pipeline_step_own(int k)
{
    return k >= PREP_FIRST_OWN && k <= PREP_LAST_OWN;
}

bool pipeline_variant_known(const char *id)
{
    return id && (strcmp(id, PIPELINE_VARIANT_E2E) == 0 || prep_step_find(id) >= 0);
}

bool pipeline_starter_files(char *kernel, size_t kn, char *launcher, size_t ln, cl_err *e)
{
    char home[CL_PATH_MAX], dir[CL_PATH_MAX];
    if (!paths_home(home, sizeof home, e))
        return false;
    if (!paths_join(dir, sizeof dir, home, "labs/" PIPELINE_LAB) ||
        !paths_join(kernel, kn, dir, "starter.cu") || !paths_join(launcher, ln, dir, "starter.lua"))
        return err_set(e, "the path of the lab's starter is too long");
    if (!paths_is_file(kernel) || !paths_is_file(launcher))
        return err_set(e, "the lab's starter (%s/starter.cu and starter.lua) was not found", dir);
    return true;
}

bool pipeline_report_path(const char *kernel_path, char *out, size_t n)
{
    const char *slash = strrchr(kernel_path, '/');
    int w = slash ? snprintf(out, n, "%.*s/%s", (int)(slash - kernel_path), kernel_path,
                             PIPELINE_REPORT_FILE)
                  : snprintf(out, n, "%s", PIPELINE_REPORT_FILE);
    return w > 0 && (size_t)w < n;
}

bool pipeline_report_exists(const char *kernel_path)
{
    char path[CL_PATH_MAX];
    if (!kernel_path || !kernel_path[0] || !pipeline_report_path(kernel_path, path, sizeof path))
        return false;
    size_t len = 0;
    cl_err e;
    char *txt = file_read_all(path, REPORT_MAX_BYTES, &len, &e);
    bool ok = txt && strstr(txt, PIPELINE_REPORT_MARK) != NULL;
    free(txt);
    return ok;
}

bool pipeline_timeline_file(const char *which, char *out, size_t n, cl_err *e)
{
    char data[CL_PATH_MAX];
    if (!paths_data_dir(data, sizeof data, e))
        return false;
    int w = snprintf(out, n, "%s/timelines/pipeline-%s.json", data, which);
    if (w < 0 || (size_t)w >= n)
        return err_set(e, "the timeline path is too long");
    return true;
}

bool pipeline_timeline_path(const char *msg, char *which, size_t wn, char *path, size_t pn)
{
    size_t plen = strlen(PIPELINE_TIMELINE_LOG);
    if (!msg || strncmp(msg, PIPELINE_TIMELINE_LOG, plen) != 0)
        return false;
    const char *w = msg + plen;
    const char *colon = strstr(w, ": ");
    if (!colon || colon == w || (size_t)(colon - w) >= wn)
        return false;
    const char *p = colon + 2;
    const char *end = strstr(p, " (");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= pn)
        return false;
    memcpy(which, w, (size_t)(colon - w));
    which[colon - w] = '\0';
    memcpy(path, p, len);
    path[len] = '\0';
    return true;
}
