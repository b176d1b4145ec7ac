/* grade_fixture.h - what the grade tests share: reports built by hand as
 * grade_run would fill them, written in every format, read back, and
 * changed on disk as someone tampering with them would. */
#ifndef CUDALAB_TESTS_GRADE_FIXTURE_H
#define CUDALAB_TESTS_GRADE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "grade/grade.h"
#include "grade/sign.h"

extern const char gf_key[];           /* the instructor's key of the tests */
#define GF_ASSIGNMENT "hw1"
#define GF_HOST "gpu-node-7"

/* Fills one milestone. */
void gf_milestone(grade_milestone *g, const char *id, const char *text, bool quiz, double pts,
                  bool passed, const char *value, const char *why);
/* A report of learner for GF_ASSIGNMENT on GF_HOST: two labs (the first's
 * kernel hashed as kernel_sha, its best time best_ms), a pass, a failure
 * whose explanation holds characters XML and CSV must escape, a quiz. */
void gf_report(grade_report *r, const char *learner, double best_ms, const char *kernel_sha);
/* Writes the four formats of r into out (signed with gf_key when signed_). */
void gf_write_all(const grade_report *r, const char *out, bool signed_);
/* dir/file's text (the caller frees); fails the test when unreadable. */
char *gf_read(const char *dir, const char *file);
/* The JSON document at dir/file (the caller deletes it). */
cJSON *gf_read_json(const char *dir, const char *file);
/* The keys of object o, sorted, space-separated, into out. */
void gf_keys_of(const cJSON *o, char *out, size_t n);
/* Replaces the first occurrence of from in dir/file with to. */
void gf_tamper(const char *dir, const char *file, const char *from, const char *to);
/* Writes before + the file's text + after into dir/file. */
void gf_wrap(const char *dir, const char *file, const char *before, const char *after);
/* The verdict on dir/file under key k. */
sign_verdict gf_verdict(const char *dir, const char *file, const char *k);

#endif
