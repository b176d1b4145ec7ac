/* group_rows.c - the ranks' rows merged into one row a measurement.
 *
 * A collective's row comes from every rank: each checked its own output
 * and timed its own collectives.  The merged row is correct only when
 * every rank's is (otherwise it is the first failing rank's, naming its
 * GPU), and its time is the slowest rank's: a collective is over when its
 * last rank is.  An all-reduce size is shown once every requested
 * algorithm of the lab's has its row, the library's (NCCL) time beside
 * the others'.  The learner's kernel ("exercise") is measured after all
 * of them (mgpu/rank.c says why); each of its rows is shown as it comes,
 * against NCCL's time at its size, kept from then. */
#include "group/group_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/strfmt.h"

void group_rows_init(group_rows *g, int nranks, int nlab, const group_sink *sink)
{
    memset(g, 0, sizeof *g);
    g->nranks = nranks;
    g->nlab = nlab;
    g->sink = sink;
}

static void merge(const struct group_pending *p, run_result *out)
{
    int pick = -1;
    for (int k = 0; k < RANKMSG_MAX_RANKS && pick < 0; k++)
        if (p->from[k] && p->rows[k].status != RS_CORRECT)
            pick = k;
    if (pick >= 0) {
        *out = p->rows[pick];
        /* the GPU is named unless every rank said the same (NCCL not found) */
        bool same = true;
        for (int k = 0; k < RANKMSG_MAX_RANKS; k++)
            same &= !p->from[k] || (p->rows[k].status == out->status
                                    && strcmp(p->rows[k].message, out->message) == 0);
        if (p->of > 1 && !same) {
            char msg[sizeof out->message];
            snprintf(msg, sizeof msg, "GPU %d: %s", pick, p->rows[pick].message);
            strfmt_copy(out->message, sizeof out->message, msg);
        }
        return;
    }
    for (int k = 0; k < RANKMSG_MAX_RANKS; k++)
        if (p->from[k] && (pick < 0 || p->rows[k].median_ms > p->rows[pick].median_ms))
            pick = k;
    *out = p->rows[pick];
    double worst = 0.0;
    for (int k = 0; k < RANKMSG_MAX_RANKS; k++)
        if (p->from[k] && p->rows[k].rel_err > worst)
            worst = p->rows[k].rel_err;
    out->rel_err = worst;
    if (p->of > 1)
        (void)strfmt_append(out->message, sizeof out->message, strlen(out->message),
                            " (time of the slowest GPU, %d)", pick);
}

/* Hands a merged row to the sink. */
static void show(const group_rows *g, const run_result *r)
{
    if (g->sink && g->sink->result)
        g->sink->result(g->sink->ud, r);
}

/* Shows the lab's all-reduce rows of one size in teaching order, each
 * against NCCL's at that size, and keeps NCCL's time. */
static void flush_size(group_rows *g)
{
    static const char *const order[] = {"ar_naive", "ar_ring", "ar_nccl"};
    const run_result *lib = NULL;
    for (int i = 0; i < g->nsized; i++)
        if (strcmp(g->sized[i].variant, "ar_nccl") == 0 && g->sized[i].status == RS_CORRECT
            && g->sized[i].median_ms > 0.0)
            lib = &g->sized[i];
    if (lib && g->nlib < COLL_MAX_SIZES) {
        strfmt_copy(g->lib[g->nlib].size, sizeof g->lib[g->nlib].size, lib->size);
        g->lib[g->nlib++].ms = lib->median_ms;
    }
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
        for (int i = 0; i < g->nsized; i++) {
            run_result *r = &g->sized[i];
            if (strcmp(r->variant, order[o]) != 0)
                continue;
            if (lib && r != lib && r->status == RS_CORRECT && r->median_ms > 0.0)
                r->speedup_lib = lib->median_ms / r->median_ms;
            show(g, r);
        }
    g->nsized = 0;
}

/* The learner's row, against NCCL's time at its size when that was shown. */
static void learner_row(group_rows *g, const run_result *row)
{
    if (g->nsized > 0)
        flush_size(g);
    run_result r = *row;
    for (int i = 0; i < g->nlib; i++)
        if (strcmp(g->lib[i].size, r.size) == 0 && r.status == RS_CORRECT && r.median_ms > 0.0)
            r.speedup_lib = g->lib[i].ms / r.median_ms;
    show(g, &r);
}

static void done(group_rows *g, const run_result *row)
{
    if (strcmp(row->variant, "exercise") == 0) {
        learner_row(g, row);
        return;
    }
    if (strncmp(row->variant, "ar_", 3) != 0) {
        show(g, row);
        return;
    }
    if (g->nsized > 0 && strcmp(g->sized[0].size, row->size) != 0)
        flush_size(g);
    if (g->nsized < (int)(sizeof g->sized / sizeof g->sized[0]))
        g->sized[g->nsized++] = *row;
    if (g->nsized >= g->nlab)
        flush_size(g);
}

bool group_rows_add(group_rows *g, int rank, const run_result *row, int of, cl_err *err)
{
    if (rank < 0 || rank >= g->nranks || of < 1 || of > g->nranks)
        return err_set(err, "GPU %d sent a row for %d ranks of %d", rank, of, g->nranks);
    struct group_pending *p = NULL, *free_slot = NULL;
    const size_t n = sizeof g->pend / sizeof g->pend[0];
    for (size_t i = 0; i < n && !p; i++) {
        if (!g->pend[i].used) {
            if (!free_slot)
                free_slot = &g->pend[i];
            continue;
        }
        if (strcmp(g->pend[i].variant, row->variant) == 0 && strcmp(g->pend[i].size, row->size) == 0)
            p = &g->pend[i];
    }
    if (!p) {
        if (!free_slot)
            return err_set(err, "GPU %d ran ahead: too many rows in flight", rank);
        p = free_slot;
        memset(p, 0, sizeof *p);
        p->used = true;
        p->of = of;
        strfmt_copy(p->variant, sizeof p->variant, row->variant);
        strfmt_copy(p->size, sizeof p->size, row->size);
    }
    if (p->from[rank] || p->of != of)
        return err_set(err, "GPU %d sent row %s at %s twice", rank, row->variant, row->size);
    p->from[rank] = true;
    p->rows[rank] = *row;
    if (++p->got < p->of)
        return true;
    run_result merged;
    merge(p, &merged);
    p->used = false;
    done(g, &merged);
    return true;
}
