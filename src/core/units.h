/* units.h - figures as people read them, the same on the command line, in
 * the terminal UI and in reports.
 *
 * Each function writes into buf (cap bytes) and returns buf.  A value that is
 * unknown (negative, NaN, infinite) reads "-". */
#ifndef CUDALAB_CORE_UNITS_H
#define CUDALAB_CORE_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#define UNITS_MAX 32    /* room for any figure below */

/* value with three significant digits, no unit: "312", "31.2", "3.12",
 * "0.0312"; "NaN", "inf", "-inf" for what is not a number. */
char *units_sig3(double value, char *buf, size_t cap);
/* A byte count in binary units, at most three significant digits and no
 * trailing zeros, as sizes are written in prose: "512 B", "1.5 KiB",
 * "256 MiB", "79.7 GiB", "4 TiB". */
char *units_bytes(double bytes, char *buf, size_t cap);
/* Reads back what units_bytes writes ("512 B", "1.5 KiB", "256 MiB", the
 * space optional) into *bytes; false for anything else ("2^20", "1 GB"). */
bool units_parse_bytes(const char *text, double *bytes);
/* A percentage: "87%", "5.2%", "<0.1%", "0%". */
char *units_pct(double pct, char *buf, size_t cap);

#endif
