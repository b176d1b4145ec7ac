/* group.c - the coordinator's face to the worker loop: its hello from a
 * probing process, a run's rows from a group of ranks, or rows that say
 * why the machine cannot run them (group/group.h). */
#include "group/group.h"

#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/collective.h"
#include "catalog/experiments_list.h"
#include "core/clock.h"
#include "core/paths.h"
#include "core/rng.h"
#include "core/spawn.h"
#include "core/strfmt.h"
#include "core/units.h"
#include "group/group_internal.h"
#include "proto/protocol.h"

#define PROBE_LIMIT_S 90.0

static rank_probe probed;
static bool have_probe;

/* Reads the probing process's one line, waiting up to PROBE_LIMIT_S. */
static bool read_probe(spawn_child *ch, rankmsg *m, cl_err *e)
{
    static char line[PROTO_LINE_MAX + 1];
    size_t len = 0;
    double until = clock_now_s() + PROBE_LIMIT_S;
    while (clock_now_s() < until) {
        struct pollfd p = {.fd = ch->extra, .events = POLLIN};
        (void)poll(&p, 1, 100);
        ssize_t got = spawn_read(ch->extra, line + len, PROTO_LINE_MAX - len);
        if (got > 0)
            len += (size_t)got;
        char *nl = memchr(line, '\n', len);
        if (nl) {
            *nl = '\0';
            if (!rankmsg_decode(line, m, e))
                return false;
            return m->type == RMSG_PROBE || err_set(e, "the probe answered something else");
        }
        if (got < 0 || len == PROTO_LINE_MAX)
            return err_set(e, "the probe ended without an answer");
    }
    return err_set(e, "the probe did not answer within %.0f s", PROBE_LIMIT_S);
}

static void probe_once(void)
{
    static rankmsg m;
    cl_err e = {{0}};
    char self[PATH_MAX];
    spawn_child ch = {0};
    have_probe = true;
    memset(&probed, 0, sizeof probed);
    const char *env[] = {"NCCL_NVLS_ENABLE=0", NULL};
    const char *argv[] = {self, "worker", "--probe", NULL};
    spawn_opts o = {.argv = argv, .what = "the multigpu probe", .in = SPAWN_NULL,
                    .out = SPAWN_NULL, .err = SPAWN_NULL, .extra_fd = PROTO_FD, .env = env};
    bool ok = paths_self_exe(self, sizeof self, &e) && spawn_start(&o, &ch, &e)
              && read_probe(&ch, &m, &e);
    if (ch.pid > 0) {
        spawn_kill(ch.pid, false);
        spawn_wait(ch.pid, true, NULL);
    }
    spawn_close(&ch);
    if (ok) {
        probed = m.u.probe;
        return;
    }
    probed.dev.present = false;
    snprintf(probed.dev.reason, sizeof probed.dev.reason, "no CUDA device found: %s", e.msg);
}

void group_probe(device_info *out)
{
    if (!have_probe)
        probe_once();
    *out = probed.dev;
}

void group_shutdown(void)
{
}

/* A row for experiment id saying why it cannot run; for a row that needs
 * NCCL, also why NCCL is missing. */
static void cannot_run(run_result *r, const run_request *req, const rank_probe *probe,
                       const char *id, const char *why)
{
    run_result_init(r);
    r->run = req->run;
    strfmt_copy(r->variant, sizeof r->variant, id);
    strfmt_copy(r->label, sizeof r->label, coll_row_label(id));
    bool nccl = coll_row_needs_nccl(id);
    r->kind = strcmp(id, "ar_nccl") == 0    ? RK_LIBRARY
              : strcmp(id, "exercise") == 0 ? RK_EXERCISE
                                            : RK_KERNEL;
    strfmt_copy(r->exercise, sizeof r->exercise, req->exercise);
    r->status = RS_NO_DEVICE;
    size_t len = strfmt_append(r->message, sizeof r->message, 0, "%s", why);
    if (nccl && !probe->nccl)
        (void)strfmt_append(r->message, sizeof r->message, len, "; and %s", probe->nccl_why);
    if (r->kind == RK_EXERCISE)
        (void)strfmt_append(r->message, sizeof r->message, len,
                            "; your ring all-reduce runs on two or more GPUs, and its milestones "
                            "against NCCL need the ar_nccl row of such a run");
}

bool group_runnable(const rank_probe *probe, const run_request *req, run_result *out, size_t max,
                    size_t *nout)
{
    *nout = 0;
    char why[sizeof out->message];
    if (!probe->dev.present)
        strfmt_copy(why, sizeof why, probe->dev.reason);
    else if (probe->ndevices < 2)
        snprintf(why, sizeof why,
                 "one GPU found (%s%s%s): " COLL_TOO_FEW_GPUS,
                 probe->dev.name, probe->devices_note[0] ? "; " : "", probe->devices_note);
    else
        return true;
    size_t nids = 0;
    const char *const *all = experiments_ids_of(EXPERIMENTS_MULTIGPU, &nids);
    for (size_t i = 0; i < nids && *nout < max; i++) {
        bool asked = req->nvariants == 0;
        for (int v = 0; v < req->nvariants && !asked; v++)
            asked = strcmp(req->variants[v].id, all[i]) == 0;
        if (asked)
            cannot_run(&out[(*nout)++], req, probe, all[i], why);
    }
    /* the learner's row at each size its milestones are judged at, so
     * that each says why it is missing */
    size_t sizes[COLL_MAX_SIZES];
    size_t nsizes = req->exercise_kernel[0] ? coll_sizes(sizes, COLL_MAX_SIZES) : 0;
    for (size_t i = 0; i < nsizes && *nout < max; i++) {
        run_result *r = &out[(*nout)++];
        cannot_run(r, req, probe, "exercise", why);
        units_bytes((double)sizes[i], r->size, sizeof r->size);
    }
    return false;
}

bool group_run(const run_request *req, const group_sink *sink, run_fault *fault)
{
    if (!have_probe)
        probe_once();
    static run_result rows[RUN_MAX_VARIANTS];
    size_t n = 0;
    if (!group_runnable(&probed, req, rows, RUN_MAX_VARIANTS, &n)) {
        for (size_t i = 0; i < n; i++)
            if (sink->result)
                sink->result(sink->ud, &rows[i]);
        return true;
    }
    static run_request with_seed;
    with_seed = *req;
    if (with_seed.seed == 0)
        with_seed.seed = rng_fresh_seed();
    int nranks = probed.ndevices;
    static group_rank ranks[RANKMSG_MAX_RANKS];
    memset(ranks, 0, sizeof ranks);
    group_stop stop = {.rank = -1};
    group_ranks_serve(&with_seed, nranks, sink, &stop, ranks);
    if (!stop.stopped)
        return true;
    group_fault_make(&stop, ranks, nranks, fault);
    return false;
}
