#include "tui/tui_text.h"

#include <stdbool.h>
#include <string.h>
#include <wchar.h>

static size_t utf8_decode(const unsigned char *s, size_t len, size_t i, unsigned *cp)
{
    unsigned c = s[i];
    size_t need;
    unsigned v;
    if (c < 0x80) {
        *cp = c;
        return i + 1;
    }
    if ((c & 0xE0) == 0xC0) {
        need = 1;
        v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2;
        v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3;
        v = c & 0x07;
    } else {
        *cp = 0xFFFD;
        return i + 1;
    }
    if (i + need >= len) {
        *cp = 0xFFFD;
        return i + 1;
    }
    for (size_t k = 1; k <= need; k++) {
        unsigned b = s[i + k];
        if ((b & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return i + 1;
        }
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return i + need + 1;
}

size_t tui_text_next(const char *text, size_t len, size_t index, int *width)
{
    unsigned cp;
    size_t j = utf8_decode((const unsigned char *)text, len, index, &cp);
    int cw;
    if (cp < 0x80) {
        cw = (cp >= 0x20 && cp != 0x7F) ? 1 : 0;
        if (cp == '\t')
            cw = 1;
    } else {
        cw = wcwidth((wchar_t)cp);
        if (cw < 0)
            cw = 1;
    }
    if (width)
        *width = cw;
    return j;
}

int tui_text_width(const char *text, size_t len)
{
    int total = 0;
    size_t i = 0;
    while (i < len) {
        int w;
        i = tui_text_next(text, len, i, &w);
        total += w;
    }
    return total;
}

int tui_text_swidth(const char *text)
{
    return text ? tui_text_width(text, strlen(text)) : 0;
}

size_t tui_text_fit(const char *text, size_t len, int cols, int *used)
{
    int total = 0;
    size_t i = 0;
    while (i < len) {
        int w;
        size_t j = tui_text_next(text, len, i, &w);
        if (total + w > cols)
            break;
        total += w;
        i = j;
    }
    if (used)
        *used = total;
    return i;
}

char *tui_text_clip(const char *text, int cols, const char *ellipsis, char *out, size_t out_size)
{
    size_t len = text ? strlen(text) : 0;
    size_t take;
    if (out_size == 0)
        return out;
    out[0] = '\0';
    if (!text || cols <= 0)
        return out;
    if (tui_text_width(text, len) <= cols) {
        take = len < out_size - 1 ? len : out_size - 1;
        while (take > 0 && take < len && ((unsigned char)text[take] & 0xC0) == 0x80)
            take--;
        memcpy(out, text, take);
        out[take] = '\0';
        return out;
    }
    int ew = ellipsis ? tui_text_swidth(ellipsis) : 0;
    size_t elen = ellipsis ? strlen(ellipsis) : 0;
    if (ew > cols) {
        ew = 0;
        elen = 0;
    }
    take = tui_text_fit(text, len, cols - ew, NULL);
    if (take + elen > out_size - 1)
        take = tui_text_fit(text, out_size - 1 > elen ? out_size - 1 - elen : 0, cols - ew, NULL);
    while (take > 0 && ((unsigned char)text[take] & 0xC0) == 0x80)
        take--;
    memcpy(out, text, take);
    if (elen)
        memcpy(out + take, ellipsis, elen);
    out[take + elen] = '\0';
    return out;
}

size_t tui_text_wrap(const char *text, int width, size_t *start, size_t *len, size_t max)
{
    size_t n = strlen(text), i = 0, lines = 0;
    if (width < 1)
        width = 1;
    while (i < n) {
        size_t ls, le, last_break = 0;
        int col = 0;
        bool have_break = false;
        while (i < n && text[i] == ' ')
            i++;
        if (i >= n)
            break;
        ls = i;
        le = i;
        while (le < n) {
            int w;
            size_t j = tui_text_next(text, n, le, &w);
            if (text[le] == ' ') {
                last_break = le;
                have_break = true;
            }
            if (col + w > width)
                break;
            col += w;
            le = j;
        }
        if (le < n && text[le] != ' ' && have_break)
            le = last_break;
        if (le == ls)
            le = tui_text_next(text, n, ls, NULL);
        if (lines < max) {
            size_t e = le;
            while (e > ls && text[e - 1] == ' ')
                e--;
            start[lines] = ls;
            len[lines] = e - ls;
        }
        lines++;
        i = le;
    }
    return lines;
}

char *tui_text_math(const char *text, char *out, size_t out_size)
{
    size_t o = 0;
    if (out_size == 0)
        return out;
    for (size_t i = 0; text && text[i] && o + 1 < out_size; i++) {
        const char *rep = NULL;
        if (text[i + 1] == '=' && (text[i] == '>' || text[i] == '<'))
            rep = text[i] == '>' ? "\xE2\x89\xA5" : "\xE2\x89\xA4";
        if (rep) {
            if (o + 3 >= out_size)
                break;
            memcpy(out + o, rep, 3);
            o += 3;
            i++;
        } else {
            out[o++] = text[i];
        }
    }
    out[o] = '\0';
    return out;
}
