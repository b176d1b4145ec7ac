/* report_files.c - the report formats' names, and writing each of them. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/jsondoc.h"
#include "core/paths.h"
#include "grade/sign.h"

static const struct {
    const char *name, *file;
} kinds[REPORT_NKINDS] = {
    [REPORT_JSON] = {"json", "report.json"},
    [REPORT_GRADESCOPE] = {"gradescope", "results.json"},
    [REPORT_JUNIT] = {"junit", "junit.xml"},
    [REPORT_CSV] = {"csv", "grades.csv"},
};

const char *report_kind_name(report_kind kind)
{
    return (unsigned)kind < REPORT_NKINDS ? kinds[kind].name : "unknown";
}

const char *report_file_name(report_kind kind)
{
    return (unsigned)kind < REPORT_NKINDS ? kinds[kind].file : "unknown";
}

bool report_kind_from_name(const char *name, report_kind *kind)
{
    for (int i = 0; i < REPORT_NKINDS; i++) {
        if (strcmp(name, kinds[i].name) == 0) {
            *kind = (report_kind)i;
            return true;
        }
    }
    return false;
}

/* The text of one format, signed when keylen > 0; *sidecar receives a CSV
 * signature file's content (malloc'd) or NULL. */
static char *render(const grade_report *r, report_kind k, const void *key, size_t keylen,
                    char **sidecar, cl_err *e)
{
    char *text = NULL;
    *sidecar = NULL;
    if (k == REPORT_JSON || k == REPORT_GRADESCOPE) {
        cJSON *doc = k == REPORT_JSON ? report_json(r) : report_gradescope(r);
        if (doc && (keylen == 0 || sign_json(doc, k == REPORT_GRADESCOPE, key, keylen, e)))
            text = jsondoc_file_text(doc);
        cJSON_Delete(doc);
    } else if (k == REPORT_JUNIT) {
        char *xml = report_junit(r);
        text = xml && keylen ? sign_xml(xml, key, keylen, e) : xml;
        if (text != xml)
            free(xml);
    } else {
        text = report_csv(r);
        if (text && keylen && !(*sidecar = sign_sidecar(text, strlen(text), key, keylen, e))) {
            free(text);
            text = NULL;
        }
    }
    if (!text && !e->msg[0])
        err_set(e, "out of memory writing the %s report", report_kind_name(k));
    return text;
}

bool report_write(const grade_report *report, const char *dir, const report_kind *which,
                  size_t nkinds, const void *key, size_t keylen, cl_err *err)
{
    if (!paths_mkdir_p(dir, err))
        return err_prefix(err, "cannot make the report folder");
    for (size_t i = 0; i < nkinds; i++) {
        char path[CL_PATH_MAX], side[CL_PATH_MAX + 8];
        if (!paths_join(path, sizeof path, dir, report_file_name(which[i])))
            return err_set(err, "the report folder's path is too long");
        char *sidecar = NULL;
        char *text = render(report, which[i], key, keylen, &sidecar, err);
        if (!text)
            return false;
        bool ok = atomicfile_write(path, text, strlen(text), err);
        free(text);
        snprintf(side, sizeof side, "%s%s", path, SIGN_SIDECAR);
        if (ok && sidecar)
            ok = atomicfile_write(side, sidecar, strlen(sidecar), err);
        else if (ok && which[i] == REPORT_CSV)
            remove(side);   /* an unsigned CSV must not keep an older signature */
        free(sidecar);
        if (!ok)
            return err_prefix(err, "cannot write %s", path);
    }
    return true;
}
