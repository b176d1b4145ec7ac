#include "lab/labmodel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/grow.h"

void lab_diags_add(lab_diags *d, const char *file, int line, const char *fmt, ...)
{
    if (!grow_one((void **)&d->v, &d->cap, d->n, sizeof *d->v, 8))
        return;
    lab_diag *g = &d->v[d->n++];
    snprintf(g->file, sizeof g->file, "%s", file ? file : "");
    g->line = line > 0 ? line : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
}

void lab_diags_free(lab_diags *d)
{
    free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
}
