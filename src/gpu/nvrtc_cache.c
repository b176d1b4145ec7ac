#include "gpu/nvrtc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"
#include "core/paths.h"
#include "gpu/nvrtc_internal.h"

#define CACHE_MAGIC "CLNVRTC1"
#define CACHE_MAX_BYTES ((size_t)256 << 20)

void nvrtc_cache_key_add_includes(strbuf *key, const nvrtc_includes *inc)
{
    for (size_t k = 0; k < inc->nfiles; k++) {
        size_t hl = 0;
        char *htext = fsguard_read(inc->files[k], inc->root, NVRTC_SOURCE_MAX, &hl, NULL);
        strbuf_str(key, "\ninclude ");
        strbuf_str(key, inc->files[k]);
        strbuf_str(key, "\n");
        if (htext) {
            nvrtc_add_u64(key, hl);
            strbuf_add(key, htext, hl);
            free(htext);
        } else {
            strbuf_str(key, "(missing)");
        }
    }
}

static uint64_t fnv1a64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

bool nvrtc_cache_file(const nvrtc_opts *opts, const strbuf *key, char *out, size_t out_size,
                      cl_err *err)
{
    char dir[CL_PATH_MAX];
    if (opts->cache_dir) {
        snprintf(dir, sizeof dir, "%s", opts->cache_dir);
    } else {
        char cache[CL_PATH_MAX];
        if (!paths_cache_dir(cache, sizeof cache, err))
            return false;
        if (!paths_join(dir, sizeof dir, cache, "nvrtc-cache"))
            return err_set(err, "cache path too long");
    }
    char name[32];
    snprintf(name, sizeof name, "%016llx.bin", (unsigned long long)fnv1a64(key->p, key->len));
    if (!paths_join(out, out_size, dir, name))
        return err_set(err, "cache path too long");
    return true;
}

static bool read_u64(const char **p, const char *end, uint64_t *v)
{
    if ((size_t)(end - *p) < 8)
        return false;
    uint64_t x = 0;
    for (int i = 0; i < 8; i++)
        x |= (uint64_t)(unsigned char)(*p)[i] << (8 * i);
    *p += 8;
    *v = x;
    return true;
}

/* One length-prefixed blob of [*p, end); false when it does not fit. */
static bool read_blob(const char **p, const char *end, const char **blob, size_t *len)
{
    uint64_t l;
    if (!read_u64(p, end, &l) || l > (uint64_t)(end - *p))
        return false;
    *blob = *p;
    *len = (size_t)l;
    *p += l;
    return true;
}

/* Kernel list as cached: "name params\n" a kernel ('-' for no parameters). */
static void kernels_serialize(const nvrtc_output *out, strbuf *b)
{
    for (size_t i = 0; i < out->nkernels; i++) {
        strbuf_str(b, out->kernels[i].name);
        strbuf_str(b, " ");
        strbuf_str(b, out->kernels[i].nparams ? out->kernels[i].params : "-");
        strbuf_str(b, "\n");
    }
}

static bool kernels_deserialize(const char *text, size_t len, nvrtc_output *out)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += text[i] == '\n';
    out->kernels = count ? calloc(count, sizeof *out->kernels) : NULL;
    if (count && !out->kernels)
        return false;
    const char *p = text, *end = text + len;
    while (p < end && out->nkernels < count) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return false;
        const char *sp = memchr(p, ' ', (size_t)(nl - p));
        if (!sp)
            return false;
        nvrtc_kernel *k = &out->kernels[out->nkernels++];
        nvrtc_kernel_init(k);
        strfmt_copy_n(k->name, sizeof k->name, p, (size_t)(sp - p));
        nvrtc_demangle_base(k->name, k->base, sizeof k->base, &k->mangled);
        if (!(nl - sp == 2 && sp[1] == '-')) {
            strfmt_copy_n(k->params, sizeof k->params, sp + 1, (size_t)(nl - sp - 1));
            k->nparams = (int)strlen(k->params);
        }
        p = nl + 1;
    }
    return true;
}

/* Fills out from a cache entry when its key matches exactly. */
bool nvrtc_cache_load(const char *file, const strbuf *key, nvrtc_output *out)
{
    size_t len = 0;
    char *data = file_read_all(file, CACHE_MAX_BYTES, &len, NULL);
    if (!data)
        return false;
    bool ok = false;
    const char *p = data, *end = data + len;
    const char *k, *cubin, *log, *kern;
    size_t kl, cl, ll, nl;
    if (len < 8 || memcmp(p, CACHE_MAGIC, 8) != 0)
        goto cleanup;
    p += 8;
    if (!read_blob(&p, end, &k, &kl) || kl != key->len || memcmp(k, key->p, kl) != 0)
        goto cleanup;
    if (!read_blob(&p, end, &cubin, &cl) || !read_blob(&p, end, &log, &ll) ||
        !read_blob(&p, end, &kern, &nl) || cl == 0)
        goto cleanup;
    out->cubin = malloc(cl);
    out->log = malloc(ll + 1);
    if (!out->cubin || !out->log)
        goto cleanup;
    memcpy(out->cubin, cubin, cl);
    out->cubin_size = cl;
    memcpy(out->log, log, ll);
    out->log[ll] = '\0';
    ok = kernels_deserialize(kern, nl, out);
cleanup:
    if (!ok) {
        free(out->cubin);
        free(out->log);
        free(out->kernels);
        out->cubin = NULL;
        out->log = NULL;
        out->kernels = NULL;
        out->cubin_size = 0;
        out->nkernels = 0;
    }
    free(data);
    return ok;
}

void nvrtc_cache_store(const char *file, const strbuf *key, const nvrtc_output *out)
{
    strbuf kern = STRBUF_INIT, b = STRBUF_INIT;
    kernels_serialize(out, &kern);
    strbuf_add(&b, CACHE_MAGIC, 8);
    nvrtc_add_u64(&b, key->len);
    strbuf_add(&b, key->p, key->len);
    nvrtc_add_u64(&b, out->cubin_size);
    strbuf_add(&b, out->cubin, out->cubin_size);
    size_t ll = out->log ? strlen(out->log) : 0;
    nvrtc_add_u64(&b, ll);
    strbuf_add(&b, out->log ? out->log : "", ll);
    nvrtc_add_u64(&b, kern.len);
    strbuf_add(&b, strbuf_text(&kern), kern.len);
    if (!b.failed && !kern.failed) {
        char dir[CL_PATH_MAX];
        if (paths_dir_name(file, dir, sizeof dir) && paths_mkdir_p(dir, NULL))
            atomicfile_write(file, b.p, b.len, NULL);
    }
    strbuf_free(&kern);
    strbuf_free(&b);
}
