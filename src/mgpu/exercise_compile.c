/* exercise_compile.c - the learner's ring kernel compiled and looked at
 * before any GPU sees it (mgpu/exercise.h, mgpu/ringcheck.h). */
#include "mgpu/exercise.h"
#include "mgpu/ring_args.h"
#include "mgpu/ringcheck.h"

#include <stdio.h>
#include <string.h>

#include "core/paths.h"
#include "core/strfmt.h"

/* The first compile error as a compiler prints its first line, the file
 * named from root (its base name when outside), and how many more. */
static void first_error(const nvrtc_output *out, const char *root, const char *fallback, char *msg,
                        size_t cap)
{
    const nvrtc_diag *d = nvrtc_first_error(out);
    if (!d) {
        strfmt_copy(msg, cap, fallback);
        return;
    }
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(d, head, sizeof head);
    const char *base = paths_base_name(d->file), *rel = d->file;
    size_t rl = root ? strlen(root) : 0;
    if (rl && strncmp(rel, root, rl) == 0 && rel[rl] == '/')
        rel += rl + 1;
    size_t len;
    if (rel != d->file && strncmp(head, base, strlen(base)) == 0)
        len = strfmt_append(msg, cap, 0, "%s%s", rel, head + strlen(base));
    else
        len = strfmt_append(msg, cap, 0, "%s", head);
    int errors = 0;
    for (size_t i = 0; i < out->ndiags; i++)
        errors += out->diags[i].severity == NVRTC_SEV_ERROR;
    if (errors > 1)
        (void)strfmt_append(msg, cap, len, " (and %d more error%s)", errors - 1,
                            errors > 2 ? "s" : "");
}

bool mg_ex_compile(const char *path, const char *root, const char *arch, nvrtc_output *out,
                   char *msg, size_t cap)
{
    nvrtc_opts o = {.arch = arch, .root = root};
    cl_err e = {{0}};
    msg[0] = '\0';
    if (!nvrtc_compile_opts(path, &o, out, &e)) {
        if (out->compile_error)
            first_error(out, root, e.msg, msg, cap);
        else
            strfmt_copy(msg, cap, e.msg);
        return false;
    }
    const nvrtc_kernel *k = nvrtc_find_kernel(out, RING_KERNEL);
    if (!k) {
        char why[512];
        nvrtc_kernel_missing(out, RING_KERNEL, why, sizeof why);
        snprintf(msg, cap, "%s: no kernel " RING_KERNEL " (extern \"C\" __global__ void "
                 RING_KERNEL "(const ring_args a)): %s", paths_base_name(path), why);
        return false;
    }
    if (k->nparams != 1 || k->params[0] != 'b') {
        snprintf(msg, cap, "%s: " RING_KERNEL " takes %d parameter%s; it must take one, "
                 "const ring_args a (<cudalab_ring.h>)", paths_base_name(path), k->nparams,
                 k->nparams == 1 ? "" : "s");
        return false;
    }
    return true;
}

bool mgpu_ring_check(const char *kernel, const char *root, char *msg, size_t cap)
{
    nvrtc_output out;
    bool ok = mg_ex_compile(kernel, root, NULL, &out, msg, cap);
    nvrtc_output_free(&out);
    return ok;
}
