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

/* Whether text begins with prefix. */
static inline bool sanitize_starts(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* text past its spaces and tabs. */
static inline const char *sanitize_skip_space(const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    return text;
}

/* "(1,2,3)" or "(1, 2, 3)", the first after text, into xyz; true when read. */
bool sanitize_read_triple(const char *text, int xyz[3]);
/* The first "0x..." in text into value; true when read. */
bool sanitize_read_hex(const char *text, uint64_t *value);
/* The number at text, which may carry thousands separators
 * ("33,036,889,217"); -1 when there is none. */
long long sanitize_read_number(const char *text);
/* "at reduce_sum+0x1b0 in /x/starter.cu:12", "at f(int)+0x40" (no line
 * information), or the older "at 0x1b0 in /x/starter.cu:12:reduce_sum",
 * into loc; true when a kernel or a place was read. */
bool sanitize_read_location(const char *text, sanitize_location *loc);
/* The N of a trailing "[N hazards]" in text; 0 when there is none. */
long long sanitize_read_hazards(const char *text);

#endif
