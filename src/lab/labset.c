#include "lab/labmodel.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/grow.h"

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_lab(const void *a, const void *b)
{
    const lab *x = *(lab *const *)a, *y = *(lab *const *)b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* The sub-folder names of dir, sorted (caller frees).  false when dir cannot
 * be read. */
static bool list_folders(const char *dir, char ***out, size_t *n, cl_err *e)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return err_set(e, "cannot read lab folder %s: %s", dir, strerror(errno));
    char **v = NULL;
    size_t len = 0, cap = 0;
    struct dirent *de;
    bool ok = true;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (!grow_one((void **)&v, &cap, len, sizeof *v, 16)) {
            ok = false;
            break;
        }
        if (!(v[len] = strdup(de->d_name))) {
            ok = false;
            break;
        }
        len++;
    }
    closedir(dp);
    if (!ok) {
        for (size_t i = 0; i < len; i++)
            free(v[i]);
        free(v);
        return err_set(e, "out of memory reading %s", dir);
    }
    if (len)
        qsort(v, len, sizeof *v, cmp_name);
    *out = v;
    *n = len;
    return true;
}

static bool set_add(lab_set *set, lab *l)
{
    lab **v = realloc(set->v, (set->n + 1) * sizeof *v);
    if (!v)
        return false;
    set->v = v;
    set->v[set->n++] = l;
    return true;
}

bool lab_set_load(lab_set *set, const char *const *dirs, size_t ndirs,
                  const char *home, lab_diags *diags, cl_err *err)
{
    bool ok = true;
    for (size_t d = 0; d < ndirs; d++) {
        char **names = NULL;
        size_t nn = 0;
        cl_err le;
        if (!list_folders(dirs[d], &names, &nn, &le)) {
            if (ok)
                err_set(err, "%s", le.msg);
            ok = false;
            continue;
        }
        for (size_t i = 0; i < nn; i++) {
            char sub[CL_PATH_MAX], path[CL_PATH_MAX];
            if (!paths_join(sub, sizeof sub, dirs[d], names[i])
                || !paths_join(path, sizeof path, sub, "lab.lua") || !paths_is_file(path))
                continue;
            lab *l = lab_load(path, home, diags);
            if (!l)
                continue;
            const lab *other = lab_set_find(set, l->id);
            if (other) {
                lab_diags_add(diags, path, 0,
                              "lab '%s' is already defined in %s; this one is left out",
                              l->id, other->path);
                lab_free(l);
            } else if (!set_add(set, l)) {
                lab_diags_add(diags, path, 0, "out of memory");
                lab_free(l);
            }
        }
        for (size_t i = 0; i < nn; i++)
            free(names[i]);
        free(names);
    }
    if (set->n > 1)
        qsort(set->v, set->n, sizeof *set->v, cmp_lab);
    return ok;
}

void lab_set_free(lab_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        lab_free(set->v[i]);
    free(set->v);
    set->v = NULL;
    set->n = 0;
}

const lab *lab_set_find(const lab_set *set, const char *id)
{
    for (size_t i = 0; id && i < set->n; i++)
        if (strcmp(set->v[i]->id, id) == 0)
            return set->v[i];
    return NULL;
}
