/* escape.h - text made safe for the program that will show it.
 *
 * Text a learner controls (a name, a kernel's output, a compile error)
 * ends up in terminals, spreadsheets, browsers, Markdown renderers and XML
 * parsers.  Every writer of such text goes through these helpers, and each
 * helper first cleans the text the same way:
 *   - bytes that are not UTF-8 (a stray byte, an overlong form, a
 *     surrogate, past U+10FFFF) become U+FFFD, one for each bad byte: a
 *     name is replaced visibly, never dropped;
 *   - control characters become visible: a C0 control as its Control
 *     Picture (ESC as U+241B, BEL as U+2407, NUL cannot occur), DEL as
 *     U+2421; C1 controls, the bidirectional embeddings, overrides and
 *     isolates, and U+FFFE and U+FFFF (which XML forbids) as U+FFFD;
 *   - tab, line feed and carriage return are kept or made visible as the
 *     caller asks (escape_ws).
 * Then each format escapes what is markup to it.  Cleaning twice changes
 * nothing more: the replacements are ordinary printable characters.
 * Appends return false once the buffer has failed (core/strbuf.h). */
#ifndef CUDALAB_CORE_ESCAPE_H
#define CUDALAB_CORE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define ESCAPE_REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD, in UTF-8 */

/* What becomes of tab, line feed and carriage return. */
typedef enum escape_ws {
    ESCAPE_WS_VISIBLE,   /* all three shown as Control Pictures: the text stays one line */
    ESCAPE_WS_LINES,     /* tab and line feed kept, carriage return shown */
    ESCAPE_WS_KEEP,      /* all three kept (the format quotes or escapes them itself) */
} escape_ws;

/* text cleaned, and nothing else (JSON strings: cJSON escapes the rest). */
bool escape_text(strbuf *buf, const char *text, escape_ws ws);
/* text cleaned into a new string (malloc'd), or NULL when out of memory. */
char *escape_dup(const char *text, escape_ws ws);
/* text cleaned for a terminal, on one line, into out (cap bytes, cut at a
 * character boundary when it does not fit); returns out, for printf. */
const char *escape_line(char *out, size_t cap, const char *text);

/* One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line
 * break, quotes doubled.  A cell that would begin with '=', '+', '-', '@',
 * tab or carriage return (a formula to a spreadsheet) is neutralised the
 * OWASP way: a single quote put before it, and the cell quoted. */
bool escape_csv_cell(strbuf *buf, const char *text);
/* One Markdown table cell: one line; '&', '<', '>', '"' and '\'' as HTML
 * character references, and every other character that could start markup
 * or a link behind a backslash: | \ * _ ` [ ] ( ) ! # ~ @, and the ':' of
 * "://" and the '.' of "www." (GitHub's autolinks). */
bool escape_md_cell(strbuf *buf, const char *text);
/* HTML text or a quoted attribute value: one line; & < > " ' as
 * character references. */
bool escape_html(strbuf *buf, const char *text);
/* XML character data: & < > " ' as references, tab and line feed kept,
 * carriage return as &#13; (which a parser would otherwise fold). */
bool escape_xml_text(strbuf *buf, const char *text);
/* An XML attribute value (in double quotes): as escape_xml_text, with tab,
 * line feed and carriage return as &#9; &#10; &#13;, so that they survive
 * the parser's attribute-value normalisation. */
bool escape_xml_attr(strbuf *buf, const char *text);

#endif
