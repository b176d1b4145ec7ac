/* escape.c - cleaning text, then escaping it for CSV, Markdown, HTML, XML
 * and terminals (core/escape.h). */
#include "core/escape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One character of cleaned text: an ASCII byte the format may escape, or
 * the UTF-8 bytes of anything else (the character, or its replacement). */
typedef struct piece {
    char bytes[4];
    size_t n;
    bool ascii;
} piece;

/* Decodes the UTF-8 character at p into *cp: its length in bytes, or 0
 * when the bytes there are not one (a stray or missing continuation byte,
 * an overlong form, a surrogate, past U+10FFFF). */
static size_t decode(const unsigned char *p, uint32_t *cp)
{
    unsigned c = p[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80)   /* also stops at the terminating NUL */
            return 0;
        v = (v << 6) | (p[k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static void set(piece *pc, const char *bytes, size_t n, bool ascii)
{
    memcpy(pc->bytes, bytes, n);
    pc->n = n;
    pc->ascii = ascii;
}

/* Characters that are shown as U+FFFD although they are valid UTF-8: C1
 * controls, bidirectional embeddings, overrides and isolates (they reorder
 * what a terminal or browser shows around them), U+FFFE and U+FFFF. */
static bool hidden(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFFFE || cp == 0xFFFF;
}

/* The cleaned character at s into *pc; the bytes of s it stands for (0 at
 * the end). */
static size_t next(const char *s, escape_ws ws, piece *pc)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp = 0;
    if (!*p)
        return 0;
    size_t len = decode(p, &cp);
    if (len == 0 || hidden(cp)) {
        set(pc, ESCAPE_REPLACEMENT, 3, false);
        return len ? len : 1;
    }
    bool kept = (cp == '\t' || cp == '\n') ? ws != ESCAPE_WS_VISIBLE
              : cp == '\r'                 ? ws == ESCAPE_WS_KEEP
                                           : cp >= 0x20;
    if (cp < 0x20 && !kept) {   /* its Control Picture, U+2400 + cp */
        char pic[3] = {'\xE2', '\x90', (char)(0x80 + cp)};
        set(pc, pic, 3, false);
    } else if (cp == 0x7F) {    /* U+2421 SYMBOL FOR DELETE */
        set(pc, "\xE2\x90\xA1", 3, false);
    } else {
        set(pc, s, len, cp < 0x80);
    }
    return len;
}

/* How a format writes the ASCII character at at (in the text that begins
 * at start): its replacement, or NULL for the character itself. */
typedef const char *(*ascii_map)(const char *start, const char *at);

/* s cleaned with ws into b, each ASCII character through map (may be NULL). */
static bool put(strbuf *b, const char *s, escape_ws ws, ascii_map map)
{
    piece pc;
    const char *start = s;
    for (size_t k; (k = next(s, ws, &pc)) > 0; s += k) {
        const char *r = pc.ascii && map ? map(start, s) : NULL;
        if (r)
            strbuf_str(b, r);
        else
            strbuf_add(b, pc.bytes, pc.n);
    }
    return !b->failed;
}

bool escape_text(strbuf *buf, const char *text, escape_ws ws)
{
    return put(buf, text, ws, NULL);
}

char *escape_dup(const char *text, escape_ws ws)
{
    strbuf b;
    strbuf_init(&b, 0);
    if (!escape_text(&b, text, ws)) {
        strbuf_free(&b);
        return NULL;
    }
    return strbuf_take(&b);
}

const char *escape_line(char *out, size_t cap, const char *text)
{
    if (cap == 0)
        return out;
    size_t at = 0;
    piece pc;
    for (size_t k; (k = next(text, ESCAPE_WS_VISIBLE, &pc)) > 0 && at + pc.n < cap; text += k) {
        memcpy(out + at, pc.bytes, pc.n);
        at += pc.n;
    }
    out[at] = '\0';
    return out;
}

/* ---- the formats ---------------------------------------------------------------- */

static const char *html_char(const char *start, const char *at)
{
    (void)start;
    switch (*at) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

static const char *md_char(const char *start, const char *at)
{
    switch (*at) {
    case '|': return "\\|";
    case '\\': return "\\\\";
    case '*': return "\\*";
    case '_': return "\\_";
    case '`': return "\\`";
    case '[': return "\\[";
    case ']': return "\\]";
    case '(': return "\\(";
    case ')': return "\\)";
    case '!': return "\\!";
    case '#': return "\\#";
    case '~': return "\\~";
    case '@': return "\\@";   /* "a@b.c": an e-mail autolink to GitHub's Markdown */
    case ':':                  /* "http://e": a URL autolink */
        return strncmp(at + 1, "//", 2) == 0 ? "\\:" : NULL;
    case '.':                  /* "www.e.com": one too */
        return at - start >= 3 && strncasecmp(at - 3, "www", 3) == 0 ? "\\." : NULL;
    default: return html_char(start, at);
    }
}

static const char *xml_text_char(const char *start, const char *at)
{
    switch (*at) {
    case '\r': return "&#13;";
    case '\'': return "&apos;";
    default: return html_char(start, at);
    }
}

static const char *xml_attr_char(const char *start, const char *at)
{
    switch (*at) {
    case '\t': return "&#9;";
    case '\n': return "&#10;";
    default: return xml_text_char(start, at);
    }
}

static const char *csv_char(const char *start, const char *at)
{
    (void)start;
    return *at == '"' ? "\"\"" : NULL;
}

bool escape_csv_cell(strbuf *buf, const char *text)
{
    piece first;
    bool neutral = next(text, ESCAPE_WS_KEEP, &first) > 0 && first.ascii &&
                   strchr("=+-@\t\r", first.bytes[0]) != NULL;
    bool quoted = neutral || strpbrk(text, ",\"\r\n") != NULL;
    if (quoted)
        strbuf_str(buf, neutral ? "\"'" : "\"");
    put(buf, text, ESCAPE_WS_KEEP, quoted ? csv_char : NULL);
    if (quoted)
        strbuf_putc(buf, '"');
    return !buf->failed;
}

bool escape_md_cell(strbuf *buf, const char *text)
{
    return put(buf, text, ESCAPE_WS_VISIBLE, md_char);
}

bool escape_html(strbuf *buf, const char *text)
{
    return put(buf, text, ESCAPE_WS_VISIBLE, html_char);
}

bool escape_xml_text(strbuf *buf, const char *text)
{
    return put(buf, text, ESCAPE_WS_KEEP, xml_text_char);
}

bool escape_xml_attr(strbuf *buf, const char *text)
{
    return put(buf, text, ESCAPE_WS_KEEP, xml_attr_char);
}
