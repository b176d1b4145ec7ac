/* jsoncache.h - measurements cached as one JSON document in the cache folder.
 *
 * A cache file holds {"<list>": [entry, ...]}, each entry an object.  The
 * caller owns what an entry means: which entries match its key, how one is
 * read and how a new one is filled.  Lookups and updates are pure (text in,
 * text out); reading and writing the file are separate, and a cache that
 * cannot be read or written is never an error to the measurement.
 *
 * The cache folder (core/paths.h paths_cache_dir) belongs to whoever runs
 * cudalab, never to the learner being graded (`--data` names only where
 * progress is read), and several processes may share it: jsoncache_update
 * changes a file under an exclusive lock, re-reading it first, so parallel
 * graders neither lose each other's entries nor tear the file. */
#ifndef CUDALAB_CORE_JSONCACHE_H
#define CUDALAB_CORE_JSONCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "core/err.h"

/* Called on one entry; true means "this one" (found, or to be dropped). */
typedef bool (*jsoncache_entry_fn)(const cJSON *entry, void *ud);
/* Fills a new, empty entry object; false when out of memory. */
typedef bool (*jsoncache_fill_fn)(cJSON *entry, void *ud);

/* <cache folder>/<file> into out. */
bool jsoncache_path(const char *file, char *out, size_t cap, cl_err *err);
/* The cache file's text (malloc'd), or NULL when it does not exist, is
 * larger than max_bytes or cannot be read. */
char *jsoncache_read(const char *path, size_t max_bytes);
/* Writes doc to path atomically, creating its folder first. */
bool jsoncache_write(const char *path, const char *doc, cl_err *err);

/* The new text of a cache from its current one (NULL when there is none):
 * malloc'd, or NULL to leave the file as it is. */
typedef char *(*jsoncache_update_fn)(const char *json, void *ud);
/* Under an exclusive lock on <path>.lock: reads path (at most max_bytes),
 * calls update, writes what it returns atomically.  false + err when the
 * folder, the lock or the file cannot be had. */
bool jsoncache_update(const char *path, size_t max_bytes, jsoncache_update_fn update, void *ud,
                      cl_err *err);

/* Pure: calls take on each object of json's array list, in order, until
 * one returns true; whether one did.  json NULL or malformed: false. */
bool jsoncache_find(const char *json, const char *list, jsoncache_entry_fn take, void *ud);
/* Pure: a new document (malloc'd) whose list holds json's objects that
 * drop rejects, then one new entry filled by fill.  json may be NULL or
 * malformed (then the new entry stands alone).  NULL when out of memory. */
char *jsoncache_replace(const char *json, const char *list, jsoncache_entry_fn drop,
                        jsoncache_fill_fn fill, void *ud);

/* Whether obj's field is the string want. */
bool jsoncache_str_is(const cJSON *obj, const char *field, const char *want);
/* obj's field as a number, or dflt when it is missing or not a number. */
double jsoncache_num(const cJSON *obj, const char *field, double dflt);

#endif
