#include "gpu/nvrtc.h"

#include <stdio.h>
#include <string.h>

#include "core/paths.h"
#include "gpu/nvrtc_internal.h"

const char *nvrtc_severity_name(nvrtc_severity severity)
{
    switch (severity) {
    case NVRTC_SEV_ERROR:
        return "error";
    case NVRTC_SEV_WARNING:
        return "warning";
    case NVRTC_SEV_REMARK:
        return "remark";
    }
    return "error";
}

const nvrtc_diag *nvrtc_first_error(const nvrtc_output *out)
{
    for (size_t i = 0; i < out->ndiags; i++)
        if (out->diags[i].severity == NVRTC_SEV_ERROR)
            return &out->diags[i];
    return NULL;
}

int nvrtc_diag_headline(const nvrtc_diag *diag, char *buf, size_t buf_size)
{
    const char *sev = nvrtc_severity_name(diag->severity);
    const char *file = diag->file[0] ? paths_base_name(diag->file) : "";
    if (!file[0])
        return snprintf(buf, buf_size, "%s: %s", sev, diag->message);
    if (diag->line < 1)
        return snprintf(buf, buf_size, "%s: %s: %s", file, sev, diag->message);
    if (diag->col < 1)
        return snprintf(buf, buf_size, "%s:%d: %s: %s", file, diag->line, sev, diag->message);
    return snprintf(buf, buf_size, "%s:%d:%d: %s: %s", file, diag->line, diag->col, sev,
                    diag->message);
}

int nvrtc_diag_format(const nvrtc_diag *diag, char *buf, size_t buf_size)
{
    strbuf b = STRBUF_INIT;
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(diag, head, sizeof head);
    strbuf_str(&b, head);
    strbuf_str(&b, "\n");
    if (diag->source[0]) {
        strbuf_str(&b, diag->source);
        strbuf_str(&b, "\n");
        if (diag->col > 0) {
            size_t src_len = strlen(diag->source);
            for (int i = 0; i < diag->col - 1; i++)
                strbuf_add(&b, (size_t)i < src_len && diag->source[i] == '\t' ? "\t" : " ", 1);
            strbuf_str(&b, "^\n");
        }
    }
    int len;
    if (b.failed) {
        len = snprintf(buf, buf_size, "%s\n", head);
    } else {
        len = (int)b.len;
        if (buf_size > 0)
            strfmt_copy_n(buf, buf_size, b.p, b.len);
    }
    strbuf_free(&b);
    return len;
}

void nvrtc_kernel_missing(const nvrtc_output *out, const char *name, char *buf, size_t buf_size)
{
    const char *file = out->path[0] ? paths_base_name(out->path) : "your file";
    for (size_t i = 0; i < out->nkernels; i++) {
        const nvrtc_kernel *k = &out->kernels[i];
        if (k->mangled && strcmp(k->base, name) == 0) {
            snprintf(buf, buf_size,
                     "%s defines %s, but C++ renamed it to %s: declare it "
                     "extern \"C\" __global__ so it keeps its name",
                     file, name, k->name);
            return;
        }
    }
    if (out->nkernels == 0) {
        snprintf(buf, buf_size, "%s defines no __global__ kernel; the launcher asked for %s", file,
                 name);
        return;
    }
    strbuf b = STRBUF_INIT;
    for (size_t i = 0; i < out->nkernels; i++) {
        if (i)
            strbuf_str(&b, ", ");
        strbuf_str(&b, out->kernels[i].base);
    }
    snprintf(buf, buf_size, "%s has no kernel named %s; it defines: %s", file, name,
             b.failed ? "(out of memory)" : strbuf_text(&b));
    strbuf_free(&b);
}
