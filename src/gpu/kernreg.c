#include "gpu/kernreg.h"

#include <string.h>

static const shipped_kernel *g_extra[KERNREG_MAX];
static size_t g_nextra;
static const raw_kernel *g_extra_raw[KERNREG_MAX];
static size_t g_nextra_raw;

bool kernreg_add(const shipped_kernel *kernels, size_t count)
{
    if (count > KERNREG_MAX - g_nextra)
        return false;
    for (size_t i = 0; i < count; i++)
        g_extra[g_nextra++] = &kernels[i];
    return true;
}

bool kernreg_add_raw(const raw_kernel *kernels, size_t count)
{
    if (count > KERNREG_MAX - g_nextra_raw)
        return false;
    for (size_t i = 0; i < count; i++)
        g_extra_raw[g_nextra_raw++] = &kernels[i];
    return true;
}

void kernreg_clear(void)
{
    g_nextra = 0;
    g_nextra_raw = 0;
}

const shipped_kernel *kernreg_find(const char *name)
{
    if (!name)
        return NULL;
    const shipped_kernel *k = kernels_find(name);
    for (size_t i = 0; !k && i < g_nextra; i++)
        if (strcmp(g_extra[i]->name, name) == 0)
            k = g_extra[i];
    return k;
}

const raw_kernel *kernreg_find_raw(const char *name)
{
    if (!name)
        return NULL;
    const raw_kernel *k = kernels_raw_find(name);
    for (size_t i = 0; !k && i < g_nextra_raw; i++)
        if (strcmp(g_extra_raw[i]->name, name) == 0)
            k = g_extra_raw[i];
    return k;
}
