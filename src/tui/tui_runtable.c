#include "tui/tui_runtable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "core/grow.h"
#include "core/units.h"
#include "tui/tui_fmt.h"
#include "tui/tui_text.h"

void tui_runtable_free(tui_runtable *table)
{
    free(table->v);
    memset(table, 0, sizeof *table);
}

result_kind tui_runtable_kind_of(const char *variant, const char *library)
{
    if (strcmp(variant, "cpu") == 0)
        return RK_CPU;
    if (strcmp(variant, "cpu_mt") == 0)
        return RK_CPU_MT;
    if (strcmp(variant, "exercise") == 0)
        return RK_EXERCISE;
    if ((library && library[0] && strcmp(variant, library) == 0) || strcmp(variant, "cub") == 0 ||
        strcmp(variant, "cublas") == 0 || strncmp(variant, "cublas_", 7) == 0 ||
        strcmp(variant, "copy") == 0)
        return RK_LIBRARY;
    return RK_KERNEL;
}

/* The lab's shipped-kernel rows show with every exercise. */
static bool in_scope(const tui_row *r, const char *scope)
{
    return strcmp(r->exercise, scope) == 0 || (!r->exercise[0] && r->kind == RK_KERNEL);
}

tui_row *tui_runtable_find_in(tui_runtable *table, const char *ex, const char *variant,
                              const char *size)
{
    for (size_t i = 0; i < table->n; i++)
        if (strcmp(table->v[i].exercise, ex) == 0 && strcmp(table->v[i].variant, variant) == 0 &&
            strcmp(table->v[i].size, size) == 0)
            return &table->v[i];
    return NULL;
}

tui_row *tui_runtable_find(tui_runtable *table, const char *variant, const char *size)
{
    tui_row *r = tui_runtable_find_in(table, table->scope, variant, size);
    if (!r && table->scope[0] && (r = tui_runtable_find_in(table, "", variant, size)) != NULL &&
        r->kind != RK_KERNEL)
        r = NULL;
    return r;
}

static tui_row *add_row(tui_runtable *t, const char *ex, const char *variant, const char *label,
                        result_kind kind, const char *size, cl_err *e)
{
    tui_row *r;
    if (!grow_one((void **)&t->v, &t->cap, t->n, sizeof *t->v, 16)) {
        err_set(e, "out of memory for the run table");
        return NULL;
    }
    r = &t->v[t->n++];
    memset(r, 0, sizeof *r);
    strfmt_copy(r->exercise, sizeof r->exercise, ex);
    strfmt_copy(r->variant, sizeof r->variant, variant);
    strfmt_copy(r->label, sizeof r->label, label && label[0] ? label : result_row_label(variant, kind));
    strfmt_copy(r->size, sizeof r->size, size);
    r->kind = kind;
    r->state = ROW_IDLE;
    r->seq = t->next_seq++;
    return r;
}

bool tui_runtable_expect(tui_runtable *table, const char *variant, const char *label,
                         result_kind kind, const char *size, cl_err *err)
{
    tui_row *r = tui_runtable_find_in(table, table->scope, variant, size);
    if (!r && !(r = add_row(table, table->scope, variant, label, kind, size, err)))
        return false;
    if (label && label[0])
        strfmt_copy(r->label, sizeof r->label, label);
    r->kind = kind;
    r->state = ROW_QUEUED;
    r->has_result = false;
    r->rep = r->of = 0;
    r->phase[0] = '\0';
    r->note[0] = '\0';
    r->fault_cause[0] = '\0';
    r->recorded_at = 0;
    return true;
}

bool tui_runtable_progress(tui_runtable *table, const run_progress *progress, const char *library,
                           cl_err *err)
{
    tui_row *r = tui_runtable_find_in(table, progress->exercise, progress->variant, progress->size);
    if (!r && !(r = add_row(table, progress->exercise, progress->variant, NULL,
                            tui_runtable_kind_of(progress->variant, library), progress->size, err)))
        return false;
    for (size_t i = 0; i < table->n; i++)
        if (&table->v[i] != r && table->v[i].state == ROW_RUNNING)
            table->v[i].state = table->v[i].has_result ? ROW_DONE : ROW_QUEUED;
    r->state = ROW_RUNNING;
    r->rep = progress->rep;
    r->of = progress->of;
    strfmt_copy(r->phase, sizeof r->phase, progress->phase);
    return true;
}

bool tui_runtable_result(tui_runtable *table, const run_result *result, cl_err *err)
{
    tui_row *r = tui_runtable_find_in(table, result->exercise, result->variant, result->size);
    if (!r && !(r = add_row(table, result->exercise, result->variant, result->label, result->kind,
                            result->size, err)))
        return false;
    if (result->label[0])
        strfmt_copy(r->label, sizeof r->label, result->label);
    r->kind = result->kind;
    r->r = *result;
    r->has_result = true;
    r->recorded_at = 0;
    r->state = result->status == RS_FAULT ? ROW_FAULT : ROW_DONE;
    if (result->status == RS_FAULT || result->status == RS_ERROR)
        strfmt_copy(r->note, sizeof r->note, result->message);
    else
        r->note[0] = '\0';
    return true;
}

void tui_runtable_fault(tui_runtable *table, const run_fault *fault, const char *size)
{
    tui_row *hit = NULL;
    for (size_t i = 0; i < table->n; i++)
        if (table->v[i].state == ROW_RUNNING)
            hit = &table->v[i];
    if (!hit && fault->variant[0] && size)
        hit = tui_runtable_find(table, fault->variant, size);
    if (!hit)
        return;
    hit->state = ROW_FAULT;
    hit->has_result = false;
    strfmt_copy(hit->fault_cause, sizeof hit->fault_cause, fault->cause);
    strfmt_copy(hit->note, sizeof hit->note, fault->message[0] ? fault->message : fault->cause);
}

void tui_runtable_finish(tui_runtable *table, const char *why)
{
    for (size_t i = 0; i < table->n; i++) {
        tui_row *r = &table->v[i];
        if (r->state == ROW_QUEUED || r->state == ROW_RUNNING) {
            r->state = ROW_SKIPPED;
            strfmt_copy(r->note, sizeof r->note, why ? why : "not run");
        }
    }
}

void tui_runtable_forget_skipped(tui_runtable *table, const char *size)
{
    for (size_t i = 0; i < table->n; i++) {
        tui_row *r = &table->v[i];
        if (r->state == ROW_SKIPPED && strcmp(r->size, size) == 0 &&
            strcmp(r->exercise, table->scope) == 0) {
            r->state = ROW_IDLE;
            r->note[0] = '\0';
        }
    }
}

void tui_runtable_forget_exercise(tui_runtable *table, const char *ex)
{
    for (size_t i = 0; i < table->n; i++) {
        tui_row *r = &table->v[i];
        if (r->kind != RK_EXERCISE || strcmp(r->exercise, ex) != 0)
            continue;
        r->state = ROW_IDLE;
        r->has_result = false;
        r->rep = r->of = 0;
        r->phase[0] = '\0';
        r->note[0] = '\0';
        r->fault_cause[0] = '\0';
        r->recorded_at = 0;
    }
}

static int kind_rank(result_kind k)
{
    switch (k) {
    case RK_CPU: return 0;
    case RK_CPU_MT: return 1;
    case RK_LIBRARY: return 2;
    case RK_KERNEL: return 3;
    case RK_EXERCISE: return 4;
    }
    return 5;
}

static bool row_before(const tui_row *a, const tui_row *b)
{
    int ka = kind_rank(a->kind), kb = kind_rank(b->kind);
    if (ka != kb)
        return ka < kb;
    return a->seq < b->seq;
}

size_t tui_runtable_view(const tui_runtable *table, const char *size, size_t *idx, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < table->n && n < max; i++) {
        size_t k;
        if ((size && strcmp(table->v[i].size, size) != 0) || !in_scope(&table->v[i], table->scope))
            continue;
        k = n;
        while (k > 0 && row_before(&table->v[i], &table->v[idx[k - 1]])) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = i;
        n++;
    }
    return n;
}

static bool size_in(const char *size, const char *const *own, size_t nown)
{
    for (size_t k = 0; k < nown; k++)
        if (own[k] && strcmp(own[k], size) == 0)
            return true;
    return false;
}

size_t tui_runtable_view_own(const tui_runtable *table, const char *size, const char *const *own,
                             size_t nown, size_t *idx, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < table->n && n < max; i++)
        if (!size_in(table->v[i].size, own, nown) && in_scope(&table->v[i], table->scope))
            idx[n++] = i;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && table->v[idx[b]].seq < table->v[idx[b - 1]].seq; b--) {
            size_t tmp = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = tmp;
        }
    if (size && size_in(size, own, nown))
        n += tui_runtable_view(table, size, idx + n, max - n);
    return n;
}

bool tui_runtable_remove(tui_runtable *table, const char *variant, const char *size)
{
    tui_row *r = tui_runtable_find(table, variant, size);
    size_t i;
    if (!r)
        return false;
    i = (size_t)(r - table->v);
    memmove(&table->v[i], &table->v[i + 1], (table->n - i - 1) * sizeof *table->v);
    table->n--;
    return true;
}

size_t tui_runtable_results(const tui_runtable *table, run_result *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < table->n && n < max; i++)
        if (table->v[i].has_result)
            out[n++] = table->v[i].r;
    return n;
}

bool tui_runtable_swept(const tui_runtable *table)
{
    for (size_t i = 0; i < table->n; i++) {
        const tui_row *a = &table->v[i];
        if (!a->has_result || !a->size[0] || !in_scope(a, table->scope))
            continue;
        for (size_t j = 0; j < i; j++) {
            const tui_row *b = &table->v[j];
            if (b->has_result && b->size[0] && strcmp(a->variant, b->variant) == 0 &&
                strcmp(a->exercise, b->exercise) == 0 && strcmp(a->size, b->size) != 0)
                return true;
        }
    }
    return false;
}

/* ---- columns and cells ------------------------------------------------- */

typedef struct colinfo {
    int min, ideal;
    bool right;
    const char *name;
} colinfo;

static const colinfo cols[RC_COUNT] = {
    [RC_VARIANT] = {.min = 14, .ideal = 18, .right = false, .name = "variant"},
    /* "50.7 us +-3.2%": 14 in ASCII */
    [RC_TIME] = {.min = 13, .ideal = 14, .right = true, .name = "median"},
    [RC_RATE] = {.min = 12, .ideal = 12, .right = true, .name = "rate"},
    [RC_PEAK] = {.min = 6, .ideal = 6, .right = true, .name = "%peak"},
    [RC_XCPU] = {.min = 7, .ideal = 7, .right = true, .name = "x CPU"},
    [RC_XLIB] = {.min = 6, .ideal = 6, .right = true, .name = "x lib"},
    [RC_CHECK] = {.min = 3, .ideal = 11, .right = false, .name = "check"},
};

const char *tui_runtable_colname(tui_runcol col, int width)
{
    if ((int)col < 0 || col >= RC_COUNT)
        return "";
    if (col == RC_CHECK && width < (int)strlen(cols[col].name))
        return "ok";
    return cols[col].name;
}

int tui_runtable_columns(int width, tui_colspec *out)
{
    static const tui_runcol priority[RC_COUNT] = {
        RC_VARIANT, RC_TIME, RC_XCPU, RC_CHECK, RC_RATE, RC_PEAK, RC_XLIB,
    };
    bool on[RC_COUNT] = {false};
    int w[RC_COUNT] = {0}, used = -1, n = 0, x = 0, extra;
    for (int k = 0; k < RC_COUNT; k++) {
        tui_runcol c = priority[k];
        if (used + 1 + cols[c].min > width)
            continue;
        on[c] = true;
        w[c] = cols[c].min;
        used += 1 + cols[c].min;
    }
    if (!on[RC_VARIANT]) {
        if (width <= 0)
            return 0;
        out[0] = (tui_colspec){.id = RC_VARIANT, .x = 0, .w = width, .right = false};
        return 1;
    }
    extra = width - used;
    {
        static const tui_runcol grow[] = {RC_TIME, RC_CHECK, RC_VARIANT};
        for (size_t g = 0; g < sizeof grow / sizeof grow[0]; g++) {
            tui_runcol c = grow[g];
            int add;
            if (!on[c])
                continue;
            add = cols[c].ideal - w[c];
            if (add > extra)
                add = extra;
            w[c] += add;
            extra -= add;
        }
    }
    if (extra > 0)
        w[RC_VARIANT] += extra > 6 ? 6 : extra;
    for (int c = 0; c < RC_COUNT; c++) {
        if (!on[c])
            continue;
        out[n++] = (tui_colspec){.id = (tui_runcol)c, .x = x, .w = w[c], .right = cols[c].right};
        x += w[c] + 1;
    }
    return n;
}

static bool row_failed(const tui_row *row)
{
    return row->state == ROW_FAULT ||
           (row->has_result && (row->r.status == RS_ERROR || row->r.status == RS_FAULT));
}

static void progress_text(const tui_row *row, int w, const tui_glyphs *g, char *buf, size_t n)
{
    char count[24];
    int cl, bw, fill;
    size_t at = 0;
    if (strcmp(row->phase, "check") == 0 || row->of <= 0) {
        const char *what = strcmp(row->phase, "check") == 0 ? "checking" :
                           strcmp(row->phase, "warmup") == 0 ? "warming up" :
                           strcmp(row->phase, "compile") == 0 ? "compiling" : "running";
        snprintf(buf, n, "%s", what);
        return;
    }
    snprintf(count, sizeof count, " %d/%d", row->rep, row->of);
    cl = (int)strlen(count);
    bw = w - cl;
    if (bw < 3) {
        snprintf(buf, n, "%s", count + 1);
        return;
    }
    fill = row->rep >= row->of ? bw : (int)((long)row->rep * bw / row->of);
    buf[0] = '\0';
    for (int i = 0; i < bw; i++) {
        const char *cell = i < fill ? g->bar_full : g->bar_empty;
        size_t cl2 = strlen(cell);
        if (at + cl2 + 1 >= n)
            break;
        memcpy(buf + at, cell, cl2);
        at += cl2;
    }
    buf[at] = '\0';
    if (at + (size_t)cl + 1 < n)
        memcpy(buf + at, count, (size_t)cl + 1);
}

static void check_text(const tui_row *row, int w, const tui_glyphs *g, char *buf, size_t n, tui_role *role)
{
    const char *mark, *word;
    *role = ROLE_BAD;
    if (row->state == ROW_FAULT) {
        mark = g->error;
        word = "fault";
    } else if (!row->has_result) {
        snprintf(buf, n, "%s", row->state == ROW_IDLE ? "" : g->pending);
        *role = ROLE_DIM;
        return;
    } else {
        switch (row->r.status) {
        case RS_CORRECT:
            /* An error a reduced precision brings (TF32, BF16) is shown. */
            if (row->r.rel_err >= RUN_SHOWN_ERROR &&
                tui_text_swidth(g->ok) + 6 <= w)
                snprintf(buf, n, "%s %.0e", g->ok, row->r.rel_err);
            else
                snprintf(buf, n, "%s", g->ok);
            *role = ROLE_OK;
            return;
        case RS_WRONG: mark = g->bad; word = "wrong"; break;
        case RS_UNWRITTEN: mark = g->unwritten; word = "unwritten"; break;
        case RS_NAN: mark = "NaN"; word = NULL; break;
        case RS_ERROR: mark = g->error; word = "error"; break;
        case RS_FAULT: mark = g->error; word = "fault"; break;
        case RS_NO_DEVICE:
            snprintf(buf, n, "%s", g->pending);
            *role = ROLE_DIM;
            return;
        default: mark = "?"; word = NULL; break;
        }
    }
    if (word && tui_text_swidth(mark) + 1 + (int)strlen(word) <= w)
        snprintf(buf, n, "%s %s", mark, word);
    else
        snprintf(buf, n, "%s", mark);
}

void tui_runtable_cell(const tui_row *row, tui_runcol col, int width, bool ascii, unsigned spin,
                       char *buf, size_t buf_size, tui_role *role)
{
    const tui_glyphs *g = tui_glyphs_get(ascii);
    const run_result *r = &row->r;
    char tmp[256], a[TUI_FMT_MAX], b[TUI_FMT_MAX];
    bool measured = row->has_result && !row_failed(row) && r->median_ms > 0;
    *role = ROLE_NORMAL;
    tmp[0] = '\0';
    switch (col) {
    case RC_VARIANT:
        snprintf(tmp, sizeof tmp, "%s %s",
                 row->state == ROW_RUNNING ? g->spinner[spin % (unsigned)g->nspinner] : " ",
                 row->label);
        if (row->state == ROW_QUEUED || row->state == ROW_SKIPPED || row->state == ROW_IDLE)
            *role = ROLE_DIM;
        break;
    case RC_TIME:
        if (row->state == ROW_RUNNING) {
            progress_text(row, width, g, tmp, sizeof tmp);
            *role = ROLE_BAR;
        } else if (row->state == ROW_QUEUED) {
            snprintf(tmp, sizeof tmp, "queued");
            *role = ROLE_DIM;
        } else if (row->state == ROW_SKIPPED) {
            snprintf(tmp, sizeof tmp, "not run");
            *role = ROLE_DIM;
        } else if (row->has_result && row->r.status == RS_NO_DEVICE) {
            snprintf(tmp, sizeof tmp, "no device");
            *role = ROLE_DIM;
        } else if (row_failed(row)) {
            snprintf(tmp, sizeof tmp, "%s", row->note[0] ? row->note : "error");
            *role = ROLE_BAD;
        } else if (measured) {
            /* the spread only when it fits whole: a median is never cut */
            tui_fmt_time_ms(r->median_ms, ascii, a, sizeof a);
            tui_fmt_spread(r->spread, ascii, b, sizeof b);
            if (r->spread > 0 && tui_text_swidth(a) + 1 + tui_text_swidth(b) <= width)
                snprintf(tmp, sizeof tmp, "%s %s", a, b);
            else
                snprintf(tmp, sizeof tmp, "%s", a);
        }
        break;
    case RC_RATE:
        if (measured)
            tui_fmt_rate(r->gbps, r->tflops, tmp, sizeof tmp);
        break;
    case RC_PEAK:
        if (measured)
            units_pct(r->pct_peak_measured >= 0 ? r->pct_peak_measured : r->pct_peak_theory,
                      tmp, sizeof tmp);
        break;
    case RC_XCPU:
        if (measured) {
            tui_fmt_speedup(r->speedup_cpu, tmp, sizeof tmp);
            if (r->speedup_cpu > 0 && r->speedup_cpu < 1.0)
                *role = ROLE_SLOW;
        }
        break;
    case RC_XLIB:
        if (measured) {
            tui_fmt_speedup(r->speedup_lib, tmp, sizeof tmp);
            if (r->speedup_lib > 0 && r->speedup_lib < 0.5)
                *role = ROLE_SLOW;
        }
        break;
    case RC_CHECK:
        check_text(row, width, g, tmp, sizeof tmp, role);
        break;
    case RC_COUNT:
        break;
    }
    tui_text_clip(tmp, width, g->ellipsis, buf, buf_size);
}
