#include "support.h"

#include "gpu/nvrtc.h"
#include "supervise/diagnose.h"

void ts_diag_from_compile(diag_input *in, const struct nvrtc_output *out)
{
    in->compile_errors = 0;
    const nvrtc_diag *first = NULL;
    for (size_t i = 0; i < out->ndiags; i++) {
        if (out->diags[i].severity != NVRTC_SEV_ERROR)
            continue;
        if (!first)
            first = &out->diags[i];
        in->compile_errors++;
    }
    if (first) {
        in->compile_file = first->file;
        in->compile_line = first->line;
        in->compile_col = first->col;
        in->compile_message = first->message;
    } else if (out->compile_error) {
        in->compile_errors = 1;
        in->compile_file = out->path;
        in->compile_message = out->log && out->log[0] ? out->log : "the file did not compile";
    }
}

