/* sanitize_internal.h - reading the fields of compute-sanitizer's report
 * lines (sanitize_read.c), for the parser of its log (sanitize_parse.c).
 * Private to src/supervise/sanitize*.c. */
#ifndef CUDALAB_SUPERVISE_SANITIZE_INTERNAL_H
#define CUDALAB_SUPERVISE_SANITIZE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Where an access happened: the kernel, and its file (base name) and line
 * when the tool knew them ("" and 0 when not). */
typedef struct sanitize_location {
    char kernel[128];
    char file[256];
    int line;
} sanitize_location;

/* Whether s begins with prefix. */
static inline bool sanitize_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* s past its spaces and tabs. */
static inline const char *sanitize_skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "(1,2,3)" or "(1, 2, 3)", the first after s, into xyz; true when read. */
bool sanitize_read_triple(const char *s, int xyz[3]);
/* The first "0x..." in s into value; true when read. */
bool sanitize_read_hex(const char *s, uint64_t *value);
/* The number at s, which may carry thousands separators
 * ("33,036,889,217"); -1 when there is none. */
long long sanitize_read_number(const char *s);
/* "at reduce_sum+0x1b0 in /x/starter.cu:12", "at f(int)+0x40" (no line
 * information), or the older "at 0x1b0 in /x/starter.cu:12:reduce_sum",
 * into loc; true when a kernel or a place was read. */
bool sanitize_read_location(const char *s, sanitize_location *loc);
/* The N of a trailing "[N hazards]" in s; 0 when there is none. */
long long sanitize_read_hazards(const char *s);

#endif
