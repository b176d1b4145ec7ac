/* labsource.h - a lab file's text read again, to say on which line a
 * value was written when only the value is known (Lua keeps no line for
 * a string inside a table). */
#ifndef CUDALAB_LAB_LABSOURCE_H
#define CUDALAB_LAB_LABSOURCE_H

/* The line of lab file path on which size entry label is written: looked
 * for as "label", 'label' or (for a plain count) a bare number, first from
 * the line of the `sizes` field at or after line from, then from the top;
 * 0 when it is not found. */
int lab_source_size_line(const char *path, int from, const char *label);

/* The first line of lab file path, at or after line from, that holds text
 * as a quoted string ("text" or 'text'); 0 when there is none. */
int lab_source_quoted_line(const char *path, int from, const char *text);
/* The line at or after from holding `key = "text"` (the field of a table),
 * else the first holding "text" quoted; 0 when none. */
int lab_source_field_line(const char *path, int from, const char *key, const char *text);

#endif
