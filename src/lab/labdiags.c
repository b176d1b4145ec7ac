#include "lab/labmodel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/grow.h"

static void add(lab_diags *diags, bool warning, const char *file, int line, const char *fmt,
                va_list ap)
{
    if (!grow_one((void **)&diags->v, &diags->cap, diags->n, sizeof *diags->v, 8))
        return;
    lab_diag *g = &diags->v[diags->n++];
    snprintf(g->file, sizeof g->file, "%s", file ? file : "");
    g->line = line > 0 ? line : 0;
    g->warning = warning;
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
}

void lab_diags_add(lab_diags *diags, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(diags, false, file, line, fmt, ap);
    va_end(ap);
}

void lab_diags_warn(lab_diags *diags, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(diags, true, file, line, fmt, ap);
    va_end(ap);
}

size_t lab_diags_errors(const lab_diags *diags)
{
    size_t n = 0;
    for (size_t i = 0; i < diags->n; i++)
        n += !diags->v[i].warning;
    return n;
}

void lab_diags_free(lab_diags *diags)
{
    free(diags->v);
    diags->v = NULL;
    diags->n = diags->cap = 0;
}
