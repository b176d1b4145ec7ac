#include "core/jsoncache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/paths.h"

bool jsoncache_path(const char *file, char *out, size_t cap, cl_err *err)
{
    char dir[CL_PATH_MAX];
    if (!paths_cache_dir(dir, sizeof dir, err))
        return false;
    if (!paths_join(out, cap, dir, file))
        return err_set(err, "cache folder path is too long");
    return true;
}

char *jsoncache_read(const char *path, size_t max_bytes)
{
    if (!paths_is_file(path))
        return NULL;
    return file_read_all(path, max_bytes, NULL, NULL);
}

bool jsoncache_write(const char *path, const char *doc, cl_err *err)
{
    char dir[CL_PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash && slash > path) {
        size_t len = (size_t)(slash - path);
        if (len >= sizeof dir)
            return err_set(err, "the path %s is too long", path);
        memcpy(dir, path, len);
        dir[len] = '\0';
        if (!paths_mkdir_p(dir, err))
            return false;
    }
    return atomicfile_write(path, doc, strlen(doc), err);
}

bool jsoncache_update(const char *path, size_t max_bytes, jsoncache_update_fn update, void *ud,
                      cl_err *err)
{
    char lock[CL_PATH_MAX + 8], dir[CL_PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock ||
        !paths_dir_name(path, dir, sizeof dir))
        return err_set(err, "the path %s is too long", path);
    if (!paths_mkdir_p(dir, err))
        return false;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(err, "cannot open %s: %s", lock, strerror(errno));
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        err_set(err, "cannot lock %s: %s", lock, strerror(errno));
        close(fd);
        return false;
    }
    char *json = jsoncache_read(path, max_bytes);
    char *doc = update(json, ud);
    bool ok = !doc || jsoncache_write(path, doc, err);
    free(doc);
    free(json);
    flock(fd, LOCK_UN);
    close(fd);
    return ok;
}

bool jsoncache_find(const char *json, const char *list, jsoncache_entry_fn take, void *ud)
{
    cJSON *doc = json ? cJSON_Parse(json) : NULL;
    if (!doc)
        return false;
    bool found = false;
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, list);
    const cJSON *it;
    cJSON_ArrayForEach(it, entries)
    {
        if (cJSON_IsObject(it) && take(it, ud)) {
            found = true;
            break;
        }
    }
    cJSON_Delete(doc);
    return found;
}

char *jsoncache_replace(const char *json, const char *list, jsoncache_entry_fn drop,
                        jsoncache_fill_fn fill, void *ud)
{
    char *out = NULL;
    cJSON *old = json ? cJSON_Parse(json) : NULL;
    cJSON *doc = cJSON_CreateObject();
    cJSON *entries = doc ? cJSON_AddArrayToObject(doc, list) : NULL;
    if (!entries)
        goto cleanup;
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive(old, list);
    const cJSON *it;
    cJSON_ArrayForEach(it, kept)
    {
        if (!cJSON_IsObject(it) || drop(it, ud))
            continue;
        cJSON *dup = cJSON_Duplicate(it, 1);
        if (!dup)
            goto cleanup;
        cJSON_AddItemToArray(entries, dup);
    }
    cJSON *ent = cJSON_CreateObject();
    if (!ent)
        goto cleanup;
    cJSON_AddItemToArray(entries, ent);
    if (fill(ent, ud))
        out = cJSON_Print(doc);
cleanup:
    cJSON_Delete(old);
    cJSON_Delete(doc);
    return out;
}

bool jsoncache_str_is(const cJSON *obj, const char *field, const char *want)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);
    return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

double jsoncache_num(const cJSON *obj, const char *field, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}
