/* exutil.h - small file helpers shared by the exercise tests. */
#ifndef CUDALAB_TESTS_EXUTIL_H
#define CUDALAB_TESTS_EXUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* $CUDALAB_HOME/rel (the source tree) into out; aborts the test when unset. */
void ex_home_path(char *out, size_t n, const char *rel);
/* $CUDALAB_TEST_DATA/exercises/rel into out. */
void ex_data_path(char *out, size_t n, const char *rel);
/* A fresh folder under $TMPDIR (or /tmp) into out. */
void ex_tmpdir(char *out, size_t n);
/* Removes dir and everything below it. */
void ex_rm_rf(const char *dir);
/* The whole file (malloc'd, NUL-terminated), or NULL. */
char *ex_read(const char *path);
/* Writes text to path in place (open, write, close); false on error. */
bool ex_write(const char *path, const char *text);
/* True when a and b hold the same bytes. */
bool ex_same_file(const char *a, const char *b);

#endif
