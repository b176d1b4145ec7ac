#include "lab/labmodel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/grow.h"

void lab_diags_add(lab_diags *diags, const char *file, int line, const char *fmt, ...)
{
    if (!grow_one((void **)&diags->v, &diags->cap, diags->n, sizeof *diags->v, 8))
        return;
    lab_diag *g = &diags->v[diags->n++];
    snprintf(g->file, sizeof g->file, "%s", file ? file : "");
    g->line = line > 0 ? line : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
}

void lab_diags_free(lab_diags *diags)
{
    free(diags->v);
    diags->v = NULL;
    diags->n = diags->cap = 0;
}
