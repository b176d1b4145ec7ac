#include "core/grow.h"
#include "gpu/nvrtc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvrtc_internal.h"

/* ---- PTX entries and ptxas usage ------------------------------------------- */

static char param_letter(const char *p, size_t len)
{
    if (memchr(p, '[', len))
        return 'b';
    static const struct {
        const char *t;
        char c;
    } types[] = {
        {".u64", 'x'}, {".s64", 'x'}, {".b64", 'x'}, {".u32", 'i'}, {".s32", 'i'},
        {".b32", 'i'}, {".f32", 'f'}, {".f64", 'd'}, {".u16", 'h'}, {".s16", 'h'},
        {".b16", 'h'}, {".f16", 'h'}, {".u8", 'c'}, {".s8", 'c'}, {".b8", 'c'},
    };
    for (size_t i = 0; i + 3 <= len; i++) {
        if (p[i] != '.')
            continue;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            size_t tl = strlen(types[t].t);
            if (i + tl <= len && memcmp(p + i, types[t].t, tl) == 0 &&
                (i + tl == len || !isalnum((unsigned char)p[i + tl])))
                return types[t].c;
        }
    }
    return 'b';
}

/* Plain name of a mangled global function "_Z<len><name>...". */
void nvrtc_demangle_base(const char *name, char *base, size_t base_size, bool *mangled)
{
    *mangled = false;
    snprintf(base, base_size, "%s", name);
    if (!starts_with(name, "_Z"))
        return;
    *mangled = true;
    const char *p = name + 2;
    if (!isdigit((unsigned char)*p))
        return;
    char *end;
    long len = strtol(p, &end, 10);
    if (len <= 0 || (size_t)len > strlen(end))
        return;
    strfmt_copy_n(base, base_size, end, (size_t)len);
}

void nvrtc_kernel_init(nvrtc_kernel *kernel)
{
    memset(kernel, 0, sizeof *kernel);
    kernel->registers = kernel->barriers = kernel->shared_bytes = -1;
    kernel->stack_bytes = kernel->spill_stores = kernel->spill_loads = -1;
}

bool nvrtc_parse_ptx(const char *ptx, nvrtc_kernel **kernels, size_t *count)
{
    *kernels = NULL;
    *count = 0;
    size_t cap = 0;
    nvrtc_kernel *v = NULL;
    for (const char *p = ptx ? strstr(ptx, ".entry ") : NULL; p; p = strstr(p, ".entry ")) {
        bool line_start = p == ptx;
        for (const char *q = p; q > ptx; q--) {
            if (q[-1] == '\n') {
                line_start = true;
                break;
            }
            if (q[-1] == '/')
                break;
        }
        p += 7;
        if (!line_start)
            continue;
        while (*p == ' ')
            p++;
        size_t nl = strcspn(p, "( \t\r\n");
        if (nl == 0)
            continue;
        if (!grow_one((void **)&v, &cap, *count, sizeof *v, 4)) {
            free(v);
            return false;
        }
        nvrtc_kernel *k = &v[(*count)++];
        nvrtc_kernel_init(k);
        strfmt_copy_n(k->name, sizeof k->name, p, nl);
        nvrtc_demangle_base(k->name, k->base, sizeof k->base, &k->mangled);
        p += nl;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p != '(')
            continue;
        const char *close = strchr(p, ')');
        if (!close)
            break;
        const char *q = p + 1;
        while (q < close) {
            size_t plen = strcspn(q, ",)");
            const char *param = strstr(q, ".param");
            if (param && param < q + plen && k->nparams < NVRTC_MAX_PARAMS) {
                k->params[k->nparams++] = param_letter(param + 6, (size_t)(q + plen - param - 6));
                k->params[k->nparams] = '\0';
            }
            q += plen + 1;
        }
        p = close;
    }
    *kernels = v;
    return true;
}

static nvrtc_kernel *kernel_named(nvrtc_kernel *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* The number before `word` in s ("10 registers" -> 10), or -1. */
static int number_before(const char *s, const char *word)
{
    const char *w = strstr(s, word);
    if (!w || w == s)
        return -1;
    const char *p = w;
    while (p > s && p[-1] == ' ')
        p--;
    const char *end = p;
    while (p > s && isdigit((unsigned char)p[-1]))
        p--;
    if (p == end)
        return -1;
    return atoi(p);
}

void nvrtc_parse_usage(const char *log, nvrtc_kernel *kernels, size_t nkernels)
{
    if (!log)
        return;
    nvrtc_kernel *cur = NULL;
    char line[1024];
    for (const char *p = log; *p;) {
        size_t len = strcspn(p, "\n");
        strfmt_copy_n(line, sizeof line, p, len);
        p += len;
        if (*p == '\n')
            p++;
        if (!starts_with(line, "ptxas"))
            continue;
        const char *fn = strstr(line, "Compiling entry function '");
        if (!fn)
            fn = strstr(line, "Function properties for ");
        if (fn) {
            const char *name = strchr(fn, '\'');
            char kname[NVRTC_NAME_MAX];
            if (name && starts_with(fn, "Compiling")) {
                name++;
                strfmt_copy_n(kname, sizeof kname, name, strcspn(name, "'"));
            } else {
                name = fn + strlen("Function properties for ");
                strfmt_copy_n(kname, sizeof kname, name, strcspn(name, " \r"));
            }
            cur = kernel_named(kernels, nkernels, kname);
            continue;
        }
        if (!cur)
            continue;
        int v;
        if ((v = number_before(line, "registers")) >= 0)
            cur->registers = v;
        if ((v = number_before(line, "barriers")) >= 0)
            cur->barriers = v;
        if ((v = number_before(line, "bytes smem")) >= 0)
            cur->shared_bytes = v;
        else if (strstr(line, "registers") && cur->shared_bytes < 0)
            cur->shared_bytes = 0;
        if ((v = number_before(line, "bytes stack frame")) >= 0)
            cur->stack_bytes = v;
        if ((v = number_before(line, "bytes spill stores")) >= 0)
            cur->spill_stores = v;
        if ((v = number_before(line, "bytes spill loads")) >= 0)
            cur->spill_loads = v;
    }
}

const nvrtc_kernel *nvrtc_find_kernel(const nvrtc_output *out, const char *name)
{
    for (size_t i = 0; i < out->nkernels; i++)
        if (strcmp(out->kernels[i].name, name) == 0)
            return &out->kernels[i];
    return NULL;
}
