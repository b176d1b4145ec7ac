/* probdecl.h - a problem a lab declares in Lua (lua/problems.md), as C sees
 * it.
 *
 * lua/lab.lua checks a `problem { }` and hands labload a normalised table;
 * probdecl_copy turns it into a problem_decl, whose Lua functions (lengths,
 * fills, judges, references, bytes, flops) stay in the lab's Lua state as
 * registry references.  Everything here is CUDA-free: the parent reads a
 * declared problem's sizes, bytes and FLOPs through decl->spec (a
 * problem_spec like the shipped ones), and the worker's engine
 * (engine/problem_decl.c) makes inputs, references and judgements from the
 * same declaration.  Every call into Lua runs in the lab's sandbox with its
 * time and memory limits, and a failure comes back as "file:line: message". */
#ifndef CUDALAB_LAB_PROBDECL_H
#define CUDALAB_LAB_PROBDECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/problem_spec.h"
#include "core/err.h"
#include "core/paths.h"

struct lua_State;
struct lab;

#define DECL_MAX_ARGS 8
#define DECL_NAME_MAX 32
#define DECL_MAX_ELEMS ((int64_t)1 << 40)

typedef enum decl_type { DT_F32, DT_F64, DT_I32, DT_U32, DT_U8, DT_BF16, DT_I64 } decl_type;

/* Bytes of one element; "f32", ...; true when name is a type. */
size_t decl_type_size(decl_type type);
const char *decl_type_name(decl_type type);
bool decl_type_from_name(const char *name, decl_type *type);
/* Whether type holds whole numbers (i32, u32, u8, i64). */
bool decl_type_integral(decl_type type);

typedef enum decl_expr_kind { DX_NONE, DX_NUM, DX_DIM, DX_FN } decl_expr_kind;

/* A number, a dim (by index) or a Lua function of the size. */
typedef struct decl_expr {
    decl_expr_kind kind;
    double num;
    int dim;
    int ref;
} decl_expr;

typedef enum decl_fill_kind {
    FILL_UNIFORM, FILL_NORMAL, FILL_INTEGERS, FILL_ZIPF, FILL_CONSTANT, FILL_FN,
} decl_fill_kind;

typedef struct decl_fill {
    decl_fill_kind kind;
    decl_expr p[3];
    int np;
    int ref;              /* FILL_FN */
} decl_fill;

typedef enum decl_judge_kind { JUDGE_EXACT, JUDGE_REL, JUDGE_ABS, JUDGE_BOTH, JUDGE_FN } decl_judge_kind;

typedef struct decl_judge {
    decl_judge_kind kind;
    double rel, abs;
    int ref;              /* JUDGE_FN */
} decl_judge;

/* Whether one element is off by j's rule (probrule.c): it differs from its
 * reference ref by diff, and rms is the root mean square of the output's
 * references (a relative rule's floor, so that zeros are not judged by
 * their own size).  Exact: any difference; rel: more than rel x the
 * larger of |ref| and rms; abs: more than abs; both: more than
 * abs + rel |ref|.  A function rule is the lab's, never off here.  A
 * relative rule also bounds the whole output's error norm (the engine's
 * judge and probprobe.c check that). */
bool decl_judge_off(const decl_judge *j, double diff, double ref, double rms);

typedef struct decl_arg {
    char name[DECL_NAME_MAX];
    decl_type type;
    bool buffer;          /* else a scalar */
    bool output;          /* a buffer the run writes and the judge checks */
    decl_expr length;     /* buffers */
    decl_expr value;      /* scalars */
    decl_fill fill;       /* input buffers */
    decl_judge judge;     /* outputs */
    int line;
} decl_arg;

typedef enum decl_ref_kind { REF_BUILTIN, REF_LUA, REF_KERNEL } decl_ref_kind;

typedef struct decl_role {
    char role[DECL_NAME_MAX];
    int arg;              /* index into args */
} decl_role;

typedef struct problem_decl {
    char name[64];
    char file[CL_PATH_MAX];     /* the lab file */
    char dir[CL_PATH_MAX];      /* the lab folder */
    int line;
    char dims[PROBLEM_MAX_DIMS][DECL_NAME_MAX];
    int ndims;
    int64_t min[PROBLEM_MAX_DIMS], max[PROBLEM_MAX_DIMS];
    int valid;                  /* function(size) -> ok, why: sizes it refuses, or LUA_NOREF */
    decl_arg args[DECL_MAX_ARGS];
    int nargs;
    decl_ref_kind ref;
    int ref_fn;                 /* REF_LUA */
    char ref_file[256], ref_launcher[256];   /* REF_KERNEL, relative to dir */
    bool ref_f64;
    int ref_check;              /* REF_KERNEL: a Lua reference to compare with, or LUA_NOREF */
    char builtin[DECL_NAME_MAX];             /* "" when none */
    decl_role roles[DECL_MAX_ARGS];
    int nroles;
    bool cpu;                   /* the builtin's CPU baselines */
    char library[64];           /* "builtin", "copy", a rung's id, or "" */
    decl_expr bytes, flops;
    bool compute_bound, reads_only;
    char size_help[160];        /* "n such as 1048576 or 2^20" */
    char buffers_hint[256];     /* for the diagnosis: the declared hints, or what the args hold */
    char wrong_hint[512], nan_hint[512];
    problem_spec spec;          /* what every layer reads; spec.ctx is this */
    struct lab *lab;            /* whose Lua state runs the functions */
} problem_decl;

/* Fills decl from the normalised declaration at idx of the lab's state (see
 * lua/lab.lua, check_problem), taking references to its functions.  false
 * + err when a field is missing (the DSL checked it: a bug, not a lab's
 * mistake). */
bool probdecl_copy(struct lua_State *L, int idx, struct lab *model, problem_decl *decl,
                   cl_err *err);
/* Drops decl's function references. */
void probdecl_release(struct lua_State *L, problem_decl *decl);

/* The dims of a size label, within the limits. */
bool probdecl_parse(const problem_decl *decl, const char *label, problem_dims *out, cl_err *err);
/* The value of expr at dims (calling Lua for a function); false + err with
 * the lab's file:line when the function fails or gives no finite number. */
bool probdecl_eval(const problem_decl *decl, const decl_expr *expr, const problem_dims *dims,
                   double *out, cl_err *err);
/* The element count of the arg at index arg (a buffer) at dims: a whole
 * number from 1 to DECL_MAX_ELEMS, or false + err naming the arg and the
 * size. */
bool probdecl_length(const problem_decl *decl, int arg, const problem_dims *dims, size_t *count,
                     cl_err *err);
/* The element count of every buffer of decl at dims, in all (lengths
 * evaluated as probdecl_length does) (probcap.c). */
bool probdecl_elements(const problem_decl *decl, const problem_dims *dims, size_t *elems,
                       cl_err *err);
/* The bytes of every buffer of decl at dims, in all; -1 when a length
 * fails (probcap.c). */
double probdecl_buffer_bytes(const problem_decl *decl, const problem_dims *dims);
/* A Lua reference runs where the buffers hold at most this many elements
 * in all (lua/lab.lua refuses a larger size of the lab's sizes: keep the
 * two equal). */
#define PROBDECL_LUA_REF_MAX ((size_t)1 << 22)
#define PROBDECL_LUA_REF_MAX_TEXT "2^22"
/* true when decl's reference may run at dims; false + err ("problem p
 * has a Lua reference, which runs only where ...; the largest size that
 * fits is 2^21") when it is a Lua function and dims's buffers hold more
 * than PROBDECL_LUA_REF_MAX elements in all, the largest size found by
 * probdecl_largest_ref_size over the n labels of sizes (probcap.c). */
bool probdecl_ref_cap_check(const problem_decl *decl, const problem_dims *dims,
                            char *const *sizes, size_t n, cl_err *err);
/* The largest size of decl whose buffers a Lua reference may take, as a
 * label: for a problem of one dim, the largest within its limits (its
 * lengths taken to grow with the dim, the label read back through
 * probdecl_parse); else, or when that one is refused, the largest of the n
 * labels of sizes that fits.  false when there is none (probcap.c). */
bool probdecl_largest_ref_size(const problem_decl *decl, char *const *sizes, size_t n, char *label,
                               size_t label_size);
/* The most elements a fill function may make (a Lua list). */
#define PROBDECL_FILL_FN_MAX ((size_t)1 << 20)
/* The fill of input arg at dims, its parameters evaluated into p (as many
 * as the form has; the rest 0) and checked: a uniform's lo < hi, whole
 * ordered integer and Zipf bounds, a Zipf exponent > 0, a normal's sd >= 0,
 * a fill function's length at most PROBDECL_FILL_FN_MAX.  false + err with
 * the lab's file:line (probdecl_fill.c). */
bool probdecl_fill_params(const problem_decl *decl, int arg, const problem_dims *dims,
                          double p[3], cl_err *err);
/* One size of a declared problem in host memory, as the lab's Lua
 * functions see it: each buffer's elements (inputs as made, outputs as a
 * run wrote them) and each scalar's value.  Whoever fills it owns the
 * memory. */
typedef struct probdecl_host {
    const problem_dims *dims;
    void *host[DECL_MAX_ARGS];       /* buffers: count elements of the arg's type */
    size_t count[DECL_MAX_ARGS];
    double value[DECL_MAX_ARGS];     /* scalars */
} probdecl_host;

/* Makes input arg's values (count elements of its type at host) from seed,
 * by its declared fill (probdecl_fill.c); false + err when the fill cannot
 * be drawn, a Lua fill fails or gives values the type cannot hold.  narrow
 * in (0, 1) draws from part of the declared distribution (the check after
 * timing): the low share of a uniform or integer range, a Zipf range cut
 * the same way, a normal's mean moved up by up to one deviation; constants
 * stay as declared, and a Lua fill function gets the seed (below 2^31) to
 * draw its own values from.  0 or 1: as declared. */
bool probdecl_make_input(const problem_decl *decl, int arg, const problem_dims *dims, void *host,
                         size_t count, uint64_t seed, double narrow, cl_err *err);
/* Every input buffer of h made from seed as a check makes them (each arg
 * its own stream of seed), with probdecl_make_input. */
bool probdecl_make_inputs(const problem_decl *decl, const probdecl_host *h, uint64_t seed,
                          double narrow, cl_err *err);

/* Pushes the size table the lab's functions receive: each dim by name,
 * and label. */
void probdecl_push_size(struct lua_State *L, const problem_decl *decl, const problem_dims *dims);

/* The index of the arg playing role of the builtin, or -1. */
int probdecl_role(const problem_decl *decl, const char *role);
/* The index of the arg called name, or -1. */
int probdecl_arg(const problem_decl *decl, const char *name);

#endif
