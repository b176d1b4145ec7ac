/* cmd_doctor.c - `cudalab doctor [--json]`: what this machine offers.
 *
 * The device part comes from the worker's hello: the parent itself never
 * initialises CUDA.  Doctor reports all it can also when the install is
 * broken: what stops cudalab from working here (no device, labs not found,
 * a data folder or workspace that cannot be made or written) is listed
 * last, as findings, in the words the rest of cudalab uses.  Exit 0 when
 * there is no finding, 3 otherwise. */
#include <cjson/cJSON.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_rows.h"
#include "cli/cli_opts.h"
#include "cli/doctor_mgpu.h"
#include "core/bwrap.h"
#include "core/landlock.h"
#include "core/which.h"
#include "lab/pyenv.h"
#include "store/store.h"
#include "supervise/sanitize.h"
#include "supervise/supervisor.h"

#define MAX_FINDINGS 8

typedef struct folder_state {
    char path[CL_PATH_MAX];
    const char *state;              /* "writable", "missing", "not_writable"; home:
                                       "found", "not_found" */
    bool exists, writable;
    char note[CL_ERR_MAX];          /* why, when not usable */
} folder_state;

typedef struct doctor_report {
    int toolkit_version;            /* the CUDA runtime this binary was built with */
    device_info dev;
    bool worker_ok;
    char worker_error[CL_ERR_MAX];
    char sanitizer[CL_PATH_MAX], ncu[CL_PATH_MAX];
    const char *term;
    int colors;                     /* -1 unknown */
    const char *colour_off;         /* why colour is off though the terminal has it
                                     * ("NO_COLOR", "--no-color"), or NULL */
    bool utf8;
    char codeset[64];
    folder_state home, data, workspace;
    pyenv py;                       /* python3, CuPy and Numba for the labs' Python rows */
    doctor_mgpu mgpu;               /* GPUs and NCCL for the multigpu lab */
    bool bwrap;                     /* the namespace sandbox can be made here */
    char bwrap_why[512];
    int landlock_abi;               /* 0: none */
    char findings[MAX_FINDINGS][CL_ERR_MAX + 128];
    int nfindings;
} doctor_report;

static void finding(doctor_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding(doctor_report *r, const char *fmt, ...)
{
    if (r->nfindings == MAX_FINDINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->findings[r->nfindings++], sizeof r->findings[0], fmt, ap);
    va_end(ap);
}

/* Fills f for a folder cudalab writes into; ok false: its path is unknown
 * (e says why). */
static void folder_probe(folder_state *f, bool ok, const cl_err *e)
{
    if (!ok) {
        f->state = "not_writable";
        snprintf(f->note, sizeof f->note, "%s", e->msg);
        return;
    }
    f->exists = paths_is_dir(f->path);
    char why[CL_ERR_MAX];
    switch (paths_dir_probe(f->path, why, sizeof why)) {
    case PATHS_DIR_WRITABLE:
        f->state = "writable";
        f->writable = true;
        break;
    case PATHS_DIR_MISSING:
        f->state = "missing";
        snprintf(f->note, sizeof f->note, "missing: it will be created");
        break;
    case PATHS_DIR_NOT_WRITABLE:
        f->state = "not_writable";
        snprintf(f->note, sizeof f->note, "%s", why);
        break;
    }
}

static void home_probe(const cli_ctx *c, folder_state *f)
{
    snprintf(f->path, sizeof f->path, "%s", c->home);
    f->exists = c->home[0] && paths_is_dir(c->home);
    f->writable = f->exists && access(c->home, W_OK) == 0;
    f->state = c->home_error[0] ? "not_found" : "found";
    if (c->home_error[0])
        snprintf(f->note, sizeof f->note, "%s", c->home_error);
}

static void terminal_probe(doctor_report *r)
{
    r->term = getenv("TERM");
    r->colors = -1;
    int err = 0;
    if (r->term && *r->term && setupterm(r->term, STDOUT_FILENO, &err) == OK) {
        r->colors = tigetnum("colors");
        del_curterm(cur_term);
    }
    const char *nc = getenv("NO_COLOR");
    if (nc && nc[0])
        r->colour_off = "NO_COLOR is set";
    setlocale(LC_ALL, "");
    snprintf(r->codeset, sizeof r->codeset, "%s", nl_langinfo(CODESET));
    r->utf8 = strcmp(r->codeset, "UTF-8") == 0;
}

/* The progress database itself, when there is one: opened only to read
 * (nothing on disk changes), so that another program's file at its path
 * or a damaged one is a finding here, not a surprise at the next run. */
static void store_probe(doctor_report *r)
{
    char db[CL_PATH_MAX];
    if (!paths_join(db, sizeof db, r->data.path, STORE_FILE) || access(db, F_OK) != 0)
        return;
    store *s = NULL;
    cl_err e = {{0}};
    if (!store_open_readonly(r->data.path, &s, &e))
        finding(r, "the progress database cannot be read: %s", e.msg);
    store_close(s);
}

static void gather(const cli_ctx *c, doctor_report *r)
{
    cl_err e = {{0}};
    r->toolkit_version = CUDALAB_CUDART_VERSION;

    supervisor_opts so = {.time_limit_s = 60};
    supervisor *s = supervisor_new(&so, &e);
    if (s && supervisor_hello(s, 60000, &r->dev, &e)) {
        r->worker_ok = true;
    } else {
        snprintf(r->worker_error, sizeof r->worker_error, "%s", e.msg);
        snprintf(r->dev.reason, sizeof r->dev.reason, "could not start the GPU worker: %s", e.msg);
    }
    supervisor_free(s);

    if (!which_tool("compute-sanitizer", r->sanitizer, sizeof r->sanitizer))
        r->sanitizer[0] = '\0';
    if (!which_tool("ncu", r->ncu, sizeof r->ncu))
        r->ncu[0] = '\0';
    terminal_probe(r);
    if (c->no_color && !r->colour_off)
        r->colour_off = "--no-color";
    pyenv_probe_into(&r->py);
    doctor_mgpu_probe(&r->mgpu);
    r->bwrap = bwrap_works(r->bwrap_why, sizeof r->bwrap_why);
    r->landlock_abi = landlock_abi();

    home_probe(c, &r->home);
    folder_probe(&r->data, paths_data_dir(r->data.path, sizeof r->data.path, &e), &e);
    folder_probe(&r->workspace, paths_workspace(r->workspace.path, sizeof r->workspace.path, &e), &e);

    if (!r->dev.present)
        finding(r, "no CUDA device: kernels cannot run here (lessons, CPU baselines and "
                   "compiling your kernel still work)");
    if (c->home_error[0])
        finding(r, "the labs and Lua library were not found: %s", c->home_error);
    char why[CL_ERR_MAX];
    if (!r->data.path[0])
        finding(r, "progress is not saved: %s", r->data.note);
    else if (!store_dir_usable(r->data.path, NULL, why, sizeof why))
        finding(r, "%s", why);
    else
        store_probe(r);
    if (strcmp(r->workspace.state, "not_writable") == 0)
        finding(r, "your copies of the exercises cannot be made: %s%s%s%s",
                r->workspace.path[0] ? "the workspace " : "", r->workspace.path,
                r->workspace.path[0] ? ": " : "", r->workspace.note);
}

static void version_text(int v, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

static cJSON *folder_json(const folder_state *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddStringToObject(o, "state", f->state);
    cJSON_AddBoolToObject(o, "exists", f->exists);
    cJSON_AddBoolToObject(o, "writable", f->writable);
    if (f->note[0])
        cJSON_AddStringToObject(o, "note", f->note);
    return o;
}

/* One package of the Python rows: its version, or null and why. */
static void package_json(cJSON *o, const char *name, bool ok, const char *version,
                         const char *error)
{
    cJSON *p = cJSON_AddObjectToObject(o, name);
    if (!p)
        return;
    cJSON_AddBoolToObject(p, "imports", ok);
    if (ok)
        cJSON_AddStringToObject(p, "version", version);
    else
        cJSON_AddStringToObject(p, "error", error[0] ? error : "not probed");
}

static void python_json(cJSON *o, const pyenv *py)
{
    if (!o)
        return;
    cJSON_AddBoolToObject(o, "found", py->found);
    if (!py->found) {
        cJSON_AddStringToObject(o, "reason", py->why);
    } else {
        cJSON_AddStringToObject(o, "path", py->python);
        cJSON_AddStringToObject(o, "version", py->version);
    }
    package_json(o, "cupy", py->cupy, py->cupy_version, py->cupy_error);
    package_json(o, "numba_cuda", py->numba, py->numba_version, py->numba_error);
    char msg[CL_ERR_MAX];
    cJSON_AddBoolToObject(o, "rows_can_run", !pyenv_unavailable(py, true, msg, sizeof msg));
    if (msg[0])
        cJSON_AddStringToObject(o, "install", PYENV_INSTALL);
}

/* The Python line: python3, CuPy and Numba, or what is missing and what to
 * install (the labs' Python rows need them; nothing else does). */
static void print_python(const pyenv *py)
{
    char msg[CL_ERR_MAX];
    if (!py->found) {
        printf("Python            %s: the labs' Python rows cannot run\n", py->why);
        return;
    }
    printf("Python            %s (%s)", py->python, py->version);
    if (py->cupy)
        printf(", CuPy %s", py->cupy_version);
    if (py->numba)
        printf(", Numba %s", py->numba_version);
    if (pyenv_unavailable(py, true, msg, sizeof msg))
        printf("\n                  cannot import %s%s%s: the labs' Python rows need %s\n",
               py->cupy ? "" : "cupy", !py->cupy && !py->numba ? " nor " : "",
               py->numba ? "" : "numba.cuda", PYENV_INSTALL);
    else
        printf(": the labs' Python rows can run\n");
}

/* The multigpu lab's line: GPUs and NCCL, or what is missing. */
static void print_mgpu(const doctor_mgpu *m)
{
    if (!m->asked) {
        printf("Multi-GPU         not known: %s\n", m->why);
        return;
    }
    printf("Multi-GPU         %d GPU%s; ", m->gpus, m->gpus == 1 ? "" : "s");
    if (m->nccl)
        printf("NCCL %s", m->nccl_version);
    else
        printf("%s", m->nccl_why[0] ? m->nccl_why : "NCCL not found");
    printf("%s\n", m->gpus >= 2 && m->nccl ? ": the multigpu lab can run"
                    : m->gpus >= 2          ? ": the multigpu lab runs all but its NCCL rows"
                                            : " (the multigpu lab needs two GPUs)");
}

static void mgpu_json(cJSON *o, const doctor_mgpu *m)
{
    if (!o)
        return;
    cJSON_AddBoolToObject(o, "probed", m->asked);
    if (!m->asked) {
        cJSON_AddStringToObject(o, "reason", m->why);
        return;
    }
    cJSON_AddNumberToObject(o, "gpus", m->gpus);
    cJSON_AddBoolToObject(o, "nccl", m->nccl);
    if (m->nccl)
        cJSON_AddStringToObject(o, "nccl_version", m->nccl_version);
    else
        cJSON_AddStringToObject(o, "nccl_reason", m->nccl_why);
}

static void print_json(const doctor_report *r)
{
    char v[32];
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", CUDALAB_VERSION);
    cJSON *tk = cJSON_AddObjectToObject(root, "toolkit");
    version_text(r->toolkit_version, v, sizeof v);
    cJSON_AddStringToObject(tk, "cuda_runtime", v);
    if (r->dev.nvrtc_version[0]) {
        cJSON_AddStringToObject(tk, "nvrtc", r->dev.nvrtc_version);
    } else {
        cJSON_AddNullToObject(tk, "nvrtc");
    }
    cJSON_AddStringToObject(tk, "architectures", CUDALAB_CUDA_ARCHS);

    cJSON *dv = cJSON_AddObjectToObject(root, "device");
    const device_info *d = &r->dev;
    cJSON_AddBoolToObject(dv, "present", d->present);
    if (!d->present) {
        cJSON_AddStringToObject(dv, "reason", d->reason);
    } else {
        cJSON_AddStringToObject(dv, "name", d->name);
        snprintf(v, sizeof v, "%d.%d", d->cc_major, d->cc_minor);
        cJSON_AddStringToObject(dv, "compute_capability", v);
        cJSON_AddNumberToObject(dv, "sm_count", d->sm_count);
        cJSON_AddNumberToObject(dv, "memory_gib", d->mem_total_gib);
        cJSON_AddNumberToObject(dv, "l2_mib", d->l2_mib);
        cJSON_AddNumberToObject(dv, "sm_clock_mhz", d->sm_clock_mhz);
        cJSON_AddNumberToObject(dv, "memory_clock_mhz", d->mem_clock_mhz);
        cJSON_AddNumberToObject(dv, "bus_width_bits", d->bus_width_bits);
        cJSON_AddNumberToObject(dv, "peak_bandwidth_theory_gbs", d->peak_bw_theory_gbs);
        cJSON_AddNumberToObject(dv, "peak_bandwidth_measured_gbs", d->peak_bw_measured_gbs);
        cJSON_AddNumberToObject(dv, "peak_bandwidth_read_gbs", d->peak_bw_read_gbs);
        cJSON_AddNumberToObject(dv, "peak_fp32_tflops", d->peak_fp32_tflops);
        version_text(d->driver_version, v, sizeof v);
        cJSON_AddStringToObject(dv, "driver_cuda_version", v);
    }
    cJSON *tools = cJSON_AddObjectToObject(root, "tools");
    if (r->sanitizer[0])
        cJSON_AddStringToObject(tools, "compute_sanitizer", r->sanitizer);
    else
        cJSON_AddNullToObject(tools, "compute_sanitizer");
    cJSON *san = cJSON_AddArrayToObject(tools, "sanitizer_tools");
    for (int i = 0; san && r->sanitizer[0] && i < SANITIZE_TOOLS; i++)
        cJSON_AddItemToArray(san, cJSON_CreateString(sanitize_tool_name((sanitize_tool)i)));
    if (r->ncu[0])
        cJSON_AddStringToObject(tools, "ncu", r->ncu);
    else
        cJSON_AddNullToObject(tools, "ncu");
    cJSON *py = cJSON_AddObjectToObject(root, "python");
    python_json(py, &r->py);
    mgpu_json(cJSON_AddObjectToObject(root, "multigpu"), &r->mgpu);
    cJSON *sb = cJSON_AddObjectToObject(root, "grading_sandbox");
    cJSON_AddStringToObject(sb, "level", r->bwrap ? "namespaces" : "none available");
    if (!r->bwrap)
        cJSON_AddStringToObject(sb, "why", r->bwrap_why);
    cJSON_AddNumberToObject(sb, "landlock_abi", r->landlock_abi);
    cJSON *t = cJSON_AddObjectToObject(root, "terminal");
    cJSON_AddStringToObject(t, "term", r->term ? r->term : "");
    cJSON_AddNumberToObject(t, "colors", r->colors);
    cJSON_AddBoolToObject(t, "colour", r->colour_off == NULL);
    cJSON_AddStringToObject(t, "codeset", r->codeset);
    cJSON_AddBoolToObject(t, "utf8", r->utf8);
    cJSON *f = cJSON_AddObjectToObject(root, "folders");
    cJSON_AddItemToObject(f, "home", folder_json(&r->home));
    cJSON_AddItemToObject(f, "data", folder_json(&r->data));
    cJSON_AddItemToObject(f, "workspace", folder_json(&r->workspace));
    cJSON *fs = cJSON_AddArrayToObject(root, "findings");
    for (int i = 0; i < r->nfindings; i++)
        cJSON_AddItemToArray(fs, cJSON_CreateString(r->findings[i]));
    cli_print_json(root);
}

/* Which sandbox `cudalab grade` would run the learner's code in here. */
static void print_sandbox(const doctor_report *r)
{
    if (r->bwrap)
        printf("Grading sandbox   namespaces (bubblewrap); Landlock ABI %d inside\n",
               r->landlock_abi);
    else
        printf("Grading sandbox   none: %s; `grade` refuses to run learner code unless given "
               "--sandbox=landlock (Landlock ABI %d)\n",
               r->bwrap_why, r->landlock_abi);
}

static void print_folder(const char *what, const folder_state *f)
{
    if (!f->path[0])
        printf("%-17s %s\n", what, f->note);
    else if (f->note[0])
        printf("%-17s %s: %s\n", what, f->path, f->note);
    else
        printf("%-17s %s%s\n", what, f->path, strcmp(f->state, "writable") == 0 ? " (writable)" : "");
}

static void print_text(const doctor_report *r)
{
    char v[32];
    const device_info *d = &r->dev;
    printf("cudalab %s\n\n", CUDALAB_VERSION);
    version_text(r->toolkit_version, v, sizeof v);
    printf("CUDA toolkit      %s (built for sm %s)\n", v, CUDALAB_CUDA_ARCHS);
    if (r->dev.nvrtc_version[0])
        printf("NVRTC             %s\n", r->dev.nvrtc_version);
    else if (r->worker_ok)
        printf("NVRTC             not usable\n");
    else
        printf("NVRTC             unknown (the GPU worker did not start)\n");
    if (d->present) {
        version_text(d->driver_version, v, sizeof v);
        printf("Driver            supports CUDA %s\n", v);
        printf("Device %d          %s (compute capability %d.%d)\n", d->ordinal, d->name,
               d->cc_major, d->cc_minor);
        printf("                  %d SMs, %.1f GiB memory, %.0f MiB L2\n", d->sm_count,
               d->mem_total_gib, d->l2_mib);
        printf("                  SM clock %.0f MHz, memory clock %.0f MHz, %d-bit bus\n",
               d->sm_clock_mhz, d->mem_clock_mhz, d->bus_width_bits);
        printf("Bandwidth         %.0f GB/s measured (device copy), %.0f GB/s reading only, "
               "%.0f GB/s theoretical\n",
               d->peak_bw_measured_gbs, d->peak_bw_read_gbs, d->peak_bw_theory_gbs);
        printf("FP32 peak         %.1f TFLOP/s\n", d->peak_fp32_tflops);
    } else {
        printf("Device            %s\n", d->reason[0] ? d->reason : "no CUDA device found");
    }
    if (r->sanitizer[0])
        printf("compute-sanitizer %s (cudalab run --sanitize: " SANITIZE_TOOL_LIST ")\n",
               r->sanitizer);
    else
        printf("compute-sanitizer not found (memcheck, racecheck, synccheck and initcheck are "
               "unavailable)\n");
    print_python(&r->py);
    print_mgpu(&r->mgpu);
    print_sandbox(r);
    printf("ncu               %s\n", r->ncu[0] ? r->ncu : "not found (install Nsight Compute for kernel metrics)");
    char colours[64];
    if (r->colour_off)
        snprintf(colours, sizeof colours, "colour off (%s)", r->colour_off);
    else if (r->colors < 0)
        snprintf(colours, sizeof colours, "colours unknown");
    else
        snprintf(colours, sizeof colours, "%d colours", r->colors);
    printf("Terminal          TERM=%s, %s, %s\n", r->term ? r->term : "(unset)", colours,
           r->utf8 ? "UTF-8" : r->codeset);
    print_folder("Labs and library", &r->home);
    print_folder("Data folder", &r->data);
    print_folder("Workspace", &r->workspace);
    if (r->nfindings == 0) {
        printf("\nNo problems found.\n");
        return;
    }
    printf("\nFindings\n");
    for (int i = 0; i < r->nfindings; i++)
        printf("  - %s\n", r->findings[i]);
}

static const cli_opt doctor_opts[] = {
    {.name = "json", .key = 'j', .help = "print one JSON document instead of text"},
    {.name = NULL},
};

const cli_command cmd_doctor_spec = {
    .name = "doctor",
    .operands = "",
    .summary = "what this machine offers: CUDA toolkit, NVRTC, driver and devices, tools, terminal, "
               "folders",
    .details = "Reports all it can also when something is broken, and lists last what stops cudalab\n"
               "from working here: no CUDA device, labs not found, a data folder or workspace that\n"
               "cannot be made or written.  Exits 0 when nothing does, 3 otherwise.",
    .opts = doctor_opts,
    .run = cmd_doctor,
};

int cmd_doctor(cli_ctx *ctx, int argc, char **argv)
{
    bool json = false;
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_doctor_spec, argc, argv, cli_opts_set_flag, &json, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(ctx, "doctor: unexpected argument '%s'", argv[first]);
    static doctor_report r;
    memset(&r, 0, sizeof r);
    gather(ctx, &r);
    if (json)
        print_json(&r);
    else
        print_text(&r);
    return r.nfindings == 0 ? EXIT_OK : EXIT_ENV;
}
