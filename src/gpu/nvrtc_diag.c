#include "gpu/nvrtc.h"

#include <stdio.h>
#include <string.h>

#include "core/paths.h"
#include "gpu/nvrtc_internal.h"

const char *nvrtc_severity_name(nvrtc_severity s)
{
    switch (s) {
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

int nvrtc_diag_headline(const nvrtc_diag *d, char *buf, size_t n)
{
    const char *sev = nvrtc_severity_name(d->severity);
    const char *file = d->file[0] ? paths_base_name(d->file) : "";
    if (!file[0])
        return snprintf(buf, n, "%s: %s", sev, d->message);
    if (d->line < 1)
        return snprintf(buf, n, "%s: %s: %s", file, sev, d->message);
    if (d->col < 1)
        return snprintf(buf, n, "%s:%d: %s: %s", file, d->line, sev, d->message);
    return snprintf(buf, n, "%s:%d:%d: %s: %s", file, d->line, d->col, sev, d->message);
}

int nvrtc_diag_format(const nvrtc_diag *d, char *buf, size_t n)
{
    strbuf b = STRBUF_INIT;
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(d, head, sizeof head);
    strbuf_str(&b, head);
    strbuf_str(&b, "\n");
    if (d->source[0]) {
        strbuf_str(&b, d->source);
        strbuf_str(&b, "\n");
        if (d->col > 0) {
            size_t src_len = strlen(d->source);
            for (int i = 0; i < d->col - 1; i++)
                strbuf_add(&b, (size_t)i < src_len && d->source[i] == '\t' ? "\t" : " ", 1);
            strbuf_str(&b, "^\n");
        }
    }
    int len;
    if (b.failed) {
        len = snprintf(buf, n, "%s\n", head);
    } else {
        len = (int)b.len;
        if (n > 0)
            strfmt_copy_n(buf, n, b.p, b.len);
    }
    strbuf_free(&b);
    return len;
}

void nvrtc_kernel_missing(const nvrtc_output *out, const char *name, char *buf, size_t n)
{
    const char *file = out->path[0] ? paths_base_name(out->path) : "your file";
    for (size_t i = 0; i < out->nkernels; i++) {
        const nvrtc_kernel *k = &out->kernels[i];
        if (k->mangled && strcmp(k->base, name) == 0) {
            snprintf(buf, n,
                     "%s defines %s, but C++ renamed it to %s: declare it "
                     "extern \"C\" __global__ so it keeps its name",
                     file, name, k->name);
            return;
        }
    }
    if (out->nkernels == 0) {
        snprintf(buf, n, "%s defines no __global__ kernel; the launcher asked for %s", file,
                 name);
        return;
    }
    strbuf b = STRBUF_INIT;
    for (size_t i = 0; i < out->nkernels; i++) {
        if (i)
            strbuf_str(&b, ", ");
        strbuf_str(&b, out->kernels[i].base);
    }
    snprintf(buf, n, "%s has no kernel named %s; it defines: %s", file, name,
             b.failed ? "(out of memory)" : strbuf_text(&b));
    strbuf_free(&b);
}
