#include "core/which.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool try_dir(const char *dir, size_t dlen, const char *name, char *out, size_t n)
{
    int w = snprintf(out, n, "%.*s/%s", (int)dlen, dir, name);
    return w > 0 && (size_t)w < n && access(out, X_OK) == 0;
}

bool which_tool(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *colon = strchr(p, ':');
            size_t len = colon ? (size_t)(colon - p) : strlen(p);
            if (len > 0 && try_dir(p, len, name, out, cap))
                return true;
            if (!colon)
                break;
            p = colon + 1;
        }
    }
    const char *cuda_home = getenv("CUDA_HOME");
    if (cuda_home && *cuda_home) {
        char bin[4096];
        snprintf(bin, sizeof bin, "%s/bin", cuda_home);
        if (try_dir(bin, strlen(bin), name, out, cap))
            return true;
    }
    static const char *const fixed[] = {"/usr/local/cuda/bin", "/opt/nvidia/nsight-compute"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (try_dir(fixed[i], strlen(fixed[i]), name, out, cap))
            return true;
    /* Versioned installs: /opt/nvidia/nsight-compute/2025.3.1/ncu */
    char pattern[512];
    snprintf(pattern, sizeof pattern, "/opt/nvidia/nsight-compute/*/%s", name);
    glob_t g;
    bool found = false;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = g.gl_pathc; i-- > 0 && !found;) {
            if (access(g.gl_pathv[i], X_OK) == 0) {
                snprintf(out, cap, "%s", g.gl_pathv[i]);
                found = true;
            }
        }
        globfree(&g);
    }
    return found;
}
