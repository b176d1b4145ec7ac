/* probprobe.c - each declared problem's Lua reference and judges called
 * without a GPU, and advice on its copy bar (lab/probprobe.h). */
#include "lab/probprobe.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "lab/labsource.h"
#include "lab/probcall.h"
#include "lab/probdecl.h"
#include "lab/probview.h"

/* The seed of check's inputs: fixed, so that check says the same every
 * time; the second pass draws from another. */
#define PROBE_SEED 0x636865636b00ull

/* One problem at one size, in host memory. */
typedef struct probe {
    const problem_decl *d;
    lab_diags *diags;
    const char *size;               /* the size's label, as the lab writes it */
    problem_dims dims;
    probdecl_host h;
    double *ref[DECL_MAX_ARGS];     /* outputs: the reference's answer */
    const char *when;               /* which inputs, for the messages */
} probe;

/* msg without its leading "<file>:LINE: ", LINE into *line; msg itself
 * when it does not start so. */
static const char *split_where(const char *file, const char *msg, int *line)
{
    size_t n = strlen(file);
    if (strncmp(msg, file, n) != 0 || msg[n] != ':')
        return msg;
    char *end = NULL;
    long v = strtol(msg + n + 1, &end, 10);
    if (!end || end == msg + n + 1 || end[0] != ':' || end[1] != ' ' || v <= 0 || v > 1 << 30)
        return msg;
    *line = (int)v;
    return end + 2;
}

/* A diagnostic "problem 'p': <what>: <why> (<size and inputs>)" at the line
 * why names in the lab file, else at line. */
static void report(const probe *p, int line, const char *what, const char *why)
{
    const char *rest = split_where(p->d->file, why, &line);
    lab_diags_add(p->diags, p->d->file, line ? line : p->d->line,
                  "problem '%s': %s: %s (size %s, %s)", p->d->name, what, rest, p->size, p->when);
}

/* Whether every input of d can be drawn at dims and its lengths evaluate
 * (their count into *elems): what the lab loader and labcheck.c report
 * otherwise. */
static bool size_usable(const problem_decl *d, const problem_dims *dims, size_t *elems)
{
    cl_err e;
    double p[3];
    for (int a = 0; a < d->nargs; a++)
        if (d->args[a].buffer && !d->args[a].output && !probdecl_fill_params(d, a, dims, p, &e))
            return false;
    return probdecl_elements(d, dims, elems, &e);
}

/* Which size pick_size looks for: the one of fewest elements, or of most
 * up to a bound (the second size probed: larger, so that a reference or a
 * judge that fails only past the smallest size shows, yet quick in Lua). */
typedef struct size_goal {
    bool largest;
    size_t cap;       /* elements in all, at most */
    size_t above;     /* largest: more elements than this */
} size_goal;

/* The most elements of the second size probed, in all buffers. */
#define PROBE_SECOND_MAX ((size_t)1 << 18)

/* Considers each label of sizes for p, as goal asks. */
static void consider(probe *p, char *const *sizes, size_t n, const size_goal *goal, size_t *best)
{
    for (size_t i = 0; i < n; i++) {
        problem_dims dims;
        size_t elems = 0;
        if (!probdecl_parse(p->d, sizes[i], &dims, NULL) || !size_usable(p->d, &dims, &elems) ||
            elems > goal->cap)
            continue;
        if (goal->largest ? elems <= goal->above || (p->size && elems <= *best)
                          : p->size && elems >= *best)
            continue;
        p->size = sizes[i];
        p->dims = dims;
        *best = elems;
    }
}

/* The size problem d runs at in model (the lab's sizes when it is the
 * lab's problem, an exercise's when it is the exercise's) that goal asks
 * for, into p (*elems: its elements); false when there is none. */
static bool pick_size(const lab *model, probe *p, const size_goal *goal, size_t *elems)
{
    size_t best = 0;
    p->size = NULL;
    if (model->problem && strcmp(model->problem, p->d->name) == 0)
        consider(p, model->sizes, model->nsizes, goal, &best);
    for (size_t k = 0; k < model->nexercises; k++) {
        const lab_exercise *x = &model->exercises[k];
        if (x->id[0] && x->problem && strcmp(x->problem, p->d->name) == 0)
            consider(p, x->sizes, x->nsizes, goal, &best);
    }
    *elems = best;
    return p->size != NULL;
}

static void free_buffers(probe *p)
{
    for (int i = 0; i < DECL_MAX_ARGS; i++) {
        free(p->h.host[i]);
        free(p->ref[i]);
        p->h.host[i] = NULL;
        p->ref[i] = NULL;
    }
}

/* Each buffer at p's size (inputs and the outputs' rounded answers in
 * their types, the reference's answers in doubles) and each scalar's
 * value; false when out of memory or a value fails (reported at load). */
static bool alloc_buffers(probe *p)
{
    const problem_decl *d = p->d;
    p->h.dims = &p->dims;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->buffer) {
            if (!probdecl_eval(d, &a->value, &p->dims, &p->h.value[i], NULL))
                return false;
            continue;
        }
        if (!probdecl_length(d, i, &p->dims, &p->h.count[i], NULL))
            return false;
        p->h.host[i] = calloc(p->h.count[i], decl_type_size(a->type));
        if (!p->h.host[i] || (a->output && !(p->ref[i] = calloc(p->h.count[i], sizeof(double)))))
            return false;
    }
    return true;
}

/* Each output's buffer holds the reference's answer rounded to its type:
 * what a kernel that computed it exactly would write. */
static void round_answers(probe *p)
{
    const problem_decl *d = p->d;
    for (int i = 0; i < d->nargs; i++)
        if (d->args[i].output)
            for (size_t k = 0; k < p->h.count[i]; k++)
                probview_set(p->h.host[i], d->args[i].type, k, p->ref[i][k]);
}

/* Each function judge handed the rounded answers (round_answers); false
 * after the first that fails or refuses them. */
static bool probe_judges(probe *p)
{
    const problem_decl *d = p->d;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->output || a->judge.kind != JUDGE_FN)
            continue;
        char note[CL_ERR_MAX], what[96];
        snprintf(what, sizeof what, "judge of '%s'", a->name);
        switch (probcall_judge(d, i, &p->dims, p->h.host[i], p->ref[i], p->h.count[i], note,
                               sizeof note)) {
        case PROBCALL_OK:
            continue;
        case PROBCALL_FAILED:
            report(p, a->line, what, note);
            return false;
        case PROBCALL_WRONG: {
            char why[CL_ERR_MAX + 160];
            snprintf(why, sizeof why,
                     "it rejects the reference's own answer, rounded to %s (a judge must accept "
                     "the exact answer): %s",
                     decl_type_name(a->type), note[0] ? note : "it returned false");
            report(p, probcall_function_line(d, a->judge.ref), what, why);
            return false;
        }
        }
    }
    return true;
}

/* Each output judged "exact" whose reference answer its type cannot hold
 * (0.1 in an f32, 2.5 in an i32; the rounded answers differ): no kernel
 * writing that type could match it.  false after the first, reported. */
static bool probe_exact(probe *p)
{
    const problem_decl *d = p->d;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->output || a->judge.kind != JUDGE_EXACT)
            continue;
        for (size_t k = 0; k < p->h.count[i]; k++) {
            double want = p->ref[i][k];
            if (!isfinite(want))
                continue;   /* NaN and unwritten are the reference's own report */
            double held = probview_get(p->h.host[i], a->type, k);
            if (held == want)
                continue;
            char what[96], why[400];
            snprintf(what, sizeof what, "output '%s'", a->name);
            snprintf(why, sizeof why,
                     "it is judged \"exact\", but the reference's %s[%zu] = %.17g is not a value "
                     "of %s (it would hold %.17g), so no kernel can match it: compute the "
                     "reference in %s's values, or judge with { rel = ... } or { abs = ... }",
                     a->name, k, want, decl_type_name(a->type), held, decl_type_name(a->type));
            report(p, a->line, what, why);
            return false;
        }
    }
    return true;
}

/* j's rule as a lab writes it. */
static void rule_text(const decl_judge *j, char *out, size_t n)
{
    if (j->kind == JUDGE_REL)
        snprintf(out, n, "{ rel = %g }", j->rel);
    else if (j->kind == JUDGE_ABS)
        snprintf(out, n, "{ abs = %g }", j->abs);
    else
        snprintf(out, n, "{ rel = %g, abs = %g }", j->rel, j->abs);
}

/* Each output judged by a tolerance (rel, abs or both) that the reference's
 * own answer, rounded to the output's type (round_answers), does not meet:
 * the rule is tighter than that type's rounding (rel = 1e-9 for an f32,
 * abs = 0.1 for an i32 of halves), so no kernel writing the type could
 * pass it.  The rule is decl_judge_off, the engine's, with its norm bound
 * for rel.  false after the first, reported. */
static bool probe_tolerance(probe *p)
{
    const problem_decl *d = p->d;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        const decl_judge *j = &a->judge;
        if (!a->output || (j->kind != JUDGE_REL && j->kind != JUDGE_ABS && j->kind != JUDGE_BOTH))
            continue;
        const size_t n = p->h.count[i];
        double ref2 = 0.0, diff2 = 0.0;
        for (size_t k = 0; k < n; k++)
            if (isfinite(p->ref[i][k]))
                ref2 += p->ref[i][k] * p->ref[i][k];
        const double rms = n ? sqrt(ref2 / (double)n) : 0.0;
        char what[96], rule[96], why[512];
        snprintf(what, sizeof what, "output '%s'", a->name);
        rule_text(j, rule, sizeof rule);
        for (size_t k = 0; k < n; k++) {
            double want = p->ref[i][k];
            if (!isfinite(want))
                continue;   /* NaN and unwritten are the reference's own report */
            double held = probview_get(p->h.host[i], a->type, k), diff = held - want;
            diff2 += diff * diff;
            if (!decl_judge_off(j, diff, want, rms))
                continue;
            snprintf(why, sizeof why,
                     "its rule %s rejects the reference's own answer rounded to %s: %s[%zu] = "
                     "%.17g holds as %.17g, off by %.3g, so no kernel writing %s can pass: loosen "
                     "the rule past %s's rounding (see \"Choosing rel and abs\" in "
                     "lua/problems.md)",
                     rule, decl_type_name(a->type), a->name, k, want, held, fabs(diff),
                     decl_type_name(a->type), decl_type_name(a->type));
            report(p, a->line, what, why);
            return false;
        }
        const double rel_err = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
        if (j->kind == JUDGE_REL && rel_err > j->rel) {
            snprintf(why, sizeof why,
                     "its rule %s also bounds the error's norm, and the reference's own answer "
                     "rounded to %s is off by %.3g of its norm, so no kernel writing %s can pass: "
                     "loosen the rule past %s's rounding (see \"Choosing rel and abs\" in "
                     "lua/problems.md)",
                     rule, decl_type_name(a->type), rel_err, decl_type_name(a->type),
                     decl_type_name(a->type));
            report(p, a->line, what, why);
            return false;
        }
    }
    return true;
}

/* One pass: inputs from seed (narrowed by narrow), the reference, the
 * judges; false after the first failure, reported. */
static bool probe_pass(probe *p, int fn, uint64_t seed, double narrow)
{
    cl_err e = {{0}};
    if (!probdecl_make_inputs(p->d, &p->h, seed, narrow, &e)) {
        report(p, 0, "making its inputs", e.msg);
        return false;
    }
    if (!probcall_reference(p->d, fn, &p->h, p->ref, &e)) {
        report(p, probcall_function_line(p->d, fn),
               p->d->ref == REF_KERNEL ? "reference kernel's Lua check" : "reference", e.msg);
        return false;
    }
    /* a reference kernel's Lua check is compared with the kernel, not
     * with the outputs: "exact" then holds against the kernel's values */
    round_answers(p);
    return (p->d->ref != REF_LUA || (probe_exact(p) && probe_tolerance(p))) && probe_judges(p);
}

/* d's Lua reference and judges at its smallest size (both kinds of inputs),
 * then at its largest of at most PROBE_SECOND_MAX elements in all. */
static void probe_decl(const lab *model, const problem_decl *d, lab_diags *diags)
{
    int fn = d->ref == REF_LUA ? d->ref_fn : d->ref == REF_KERNEL ? d->ref_check : LUA_NOREF;
    probe p = {.d = d, .diags = diags};
    const size_goal smallest = {.largest = false, .cap = PROBDECL_LUA_REF_MAX};
    size_t elems = 0;
    if (fn == LUA_NOREF || fn == LUA_REFNIL || !model->ls || !pick_size(model, &p, &smallest, &elems))
        return;   /* a builtin's reference is C the engine runs; a kernel needs the GPU */
    bool ok = false;
    if (alloc_buffers(&p)) {
        p.when = "inputs as a run makes them";
        if (probe_pass(&p, fn, PROBE_SEED, 0.0)) {
            p.when = "inputs of the check after timing: each fill drawn from the low half of "
                     "its range";
            ok = probe_pass(&p, fn, PROBE_SEED + 1, 0.5);
        }
    }
    free_buffers(&p);
    /* then a larger size, once, when the lab has one small enough */
    const size_goal second = {.largest = true, .cap = PROBE_SECOND_MAX, .above = elems};
    if (!ok || !pick_size(model, &p, &second, &elems))
        return;
    if (alloc_buffers(&p)) {
        p.when = "inputs as a run makes them";
        probe_pass(&p, fn, PROBE_SEED + 2, 0.0);
    }
    free_buffers(&p);
}

/* ---- the copy bar ---------------------------------------------------------------------- */

/* Bytes of d's inputs and outputs at the largest of sizes; false when
 * none reads. */
static bool largest_bytes(const problem_decl *d, char *const *sizes, size_t n, double *in,
                          double *out, const char **label)
{
    bool any = false;
    for (size_t k = 0; k < n; k++) {
        problem_dims dims;
        double bi = 0.0, bo = 0.0;
        bool ok = probdecl_parse(d, sizes[k], &dims, NULL);
        for (int i = 0; ok && i < d->nargs; i++) {
            size_t count = 0;
            if (!d->args[i].buffer)
                continue;
            ok = probdecl_length(d, i, &dims, &count, NULL);
            *(d->args[i].output ? &bo : &bi) += (double)count * (double)decl_type_size(d->args[i].type);
        }
        if (ok && (!any || bi + bo > *in + *out)) {
            *in = bi;
            *out = bo;
            *label = sizes[k];
            any = true;
        }
    }
    return any;
}

/* Warns when library, the bar of rows of problem d at sizes, is "copy"
 * and d's outputs are too small for a copy of them to compare with: at the
 * largest size, the copy (the outputs read and written) moves less than a
 * quarter of the bytes of d's buffers. */
static void advise_copy(const problem_decl *d, const char *library, char *const *sizes, size_t n,
                        int line, lab_diags *diags)
{
    double in = 0.0, out = 0.0;
    const char *label = NULL;
    if (!library || strcmp(library, "copy") != 0 || !largest_bytes(d, sizes, n, &in, &out, &label))
        return;
    if (4.0 * 2.0 * out >= in + out)
        return;
    char ob[UNITS_MAX], ib[UNITS_MAX];
    units_bytes(out, ob, sizeof ob);
    units_bytes(in, ib, sizeof ib);
    int at = lab_source_field_line(d->file, line, "library", "copy");
    lab_diags_warn(diags, d->file, at > 0 ? at : line,
                   "problem '%s': library \"copy\": the copy row times a device-to-device copy of "
                   "the outputs (%s at size %s) where a run reads %s of inputs, so \"x lib\" "
                   "against it will mean little; make one of the lab's rungs the bar (library = "
                   "\"<rung id>\") or leave library out",
                   d->name, ob, label, ib);
}

void lab_probe_problems(lab *model, lab_diags *diags)
{
    for (size_t i = 0; model && i < model->ndecls; i++) {
        const problem_decl *d = &model->decls[i];
        if (strcmp(d->dir, model->dir) != 0)
            continue;   /* a shipped problem the lab names: cudalab's own tests check it */
        probe_decl(model, d, diags);
        if (model->problem && strcmp(model->problem, d->name) == 0)
            advise_copy(d, model->library ? model->library : d->library, model->sizes,
                        model->nsizes, model->line, diags);
        for (size_t k = 0; k < model->nexercises; k++) {
            const lab_exercise *x = &model->exercises[k];
            if (x->id[0] && x->problem && strcmp(x->problem, d->name) == 0)
                advise_copy(d, x->library ? x->library : d->library, x->sizes, x->nsizes,
                            x->line, diags);
        }
    }
}
