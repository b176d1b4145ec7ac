#include "catalog/pipeline_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/paths.h"
#include "cpu/prep_state.h"

#define REPORT_MAX_BYTES (4u << 20)

const char *pipeline_step_name(int step)
{
    return prep_step_id((prep_step)step);
}

bool pipeline_step_own(int step)
{
    return step >= PREP_FIRST_OWN && step <= PREP_LAST_OWN;
}

bool pipeline_variant_known(const char *id)
{
    return id && (strcmp(id, PIPELINE_VARIANT_E2E) == 0 || prep_step_find(id) >= 0);
}

bool pipeline_starter_files(char *kernel, size_t kn, char *launcher, size_t ln, cl_err *err)
{
    char home[CL_PATH_MAX], dir[CL_PATH_MAX];
    if (!paths_home(home, sizeof home, err))
        return false;
    if (!paths_join(dir, sizeof dir, home, "labs/" PIPELINE_LAB) ||
        !paths_join(kernel, kn, dir, "starter.cu") || !paths_join(launcher, ln, dir, "starter.lua"))
        return err_set(err, "the path of the lab's starter is too long");
    if (!paths_is_file(kernel) || !paths_is_file(launcher))
        return err_set(err, "the lab's starter (%s/starter.cu and starter.lua) was not found", dir);
    return true;
}

bool pipeline_report_path(const char *kernel_path, char *out, size_t out_size)
{
    const char *slash = strrchr(kernel_path, '/');
    int w = slash ? snprintf(out, out_size, "%.*s/%s", (int)(slash - kernel_path), kernel_path,
                             PIPELINE_REPORT_FILE)
                  : snprintf(out, out_size, "%s", PIPELINE_REPORT_FILE);
    return w > 0 && (size_t)w < out_size;
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

bool pipeline_timeline_file(const char *which, char *out, size_t out_size, cl_err *err)
{
    char data[CL_PATH_MAX];
    if (!paths_data_dir(data, sizeof data, err))
        return false;
    int w = snprintf(out, out_size, "%s/timelines/pipeline-%s.json", data, which);
    if (w < 0 || (size_t)w >= out_size)
        return err_set(err, "the timeline path is too long");
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
