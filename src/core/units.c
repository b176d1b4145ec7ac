#include "core/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
#define NBYTE_UNITS (sizeof byte_units / sizeof byte_units[0])

static int sig3_decimals(double a)
{
    if (a >= 99.95)
        return 0;
    if (a >= 9.995)
        return 1;
    if (a >= 0.9995)
        return 2;
    if (a >= 0.09995)
        return 3;
    if (a >= 0.009995)
        return 4;
    return 5;
}

char *units_sig3(double value, char *buf, size_t cap)
{
    if (!isfinite(value))
        snprintf(buf, cap, "%s", isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf"));
    else if (value == 0.0)
        snprintf(buf, cap, "0");
    else
        snprintf(buf, cap, "%.*f", sig3_decimals(fabs(value)), value);
    return buf;
}

char *units_bytes(double bytes, char *buf, size_t cap)
{
    const size_t last = NBYTE_UNITS - 1;
    char num[UNITS_MAX];
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    double v = bytes;
    size_t u = 0;
    while (v >= 1023.5 && u < last) {   /* never "1024 KiB" */
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(buf, cap, "%.0f B", v);
        return buf;
    }
    units_sig3(v, num, sizeof num);
    if (strchr(num, '.')) {
        size_t len = strlen(num);
        while (num[len - 1] == '0')
            num[--len] = '\0';
        if (num[len - 1] == '.')
            num[--len] = '\0';
    }
    snprintf(buf, cap, "%s %s", num, byte_units[u]);
    return buf;
}

bool units_parse_bytes(const char *text, double *bytes)
{
    char *end;
    double v;
    if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
        return false;
    v = strtod(text, &end);
    if (end == text || !isfinite(v))
        return false;
    while (*end == ' ')
        end++;
    for (size_t u = 0; u < NBYTE_UNITS; u++)
        if (strcmp(end, byte_units[u]) == 0) {
            *bytes = ldexp(v, 10 * (int)u);
            return true;
        }
    return false;
}

char *units_pct(double pct, char *buf, size_t cap)
{
    if (!isfinite(pct) || pct < 0)
        snprintf(buf, cap, "-");
    else if (pct == 0)
        snprintf(buf, cap, "0%%");
    else if (pct < 0.05)
        snprintf(buf, cap, "<0.1%%");
    else if (pct >= 9.95)
        snprintf(buf, cap, "%.0f%%", pct);
    else
        snprintf(buf, cap, "%.1f%%", pct);
    return buf;
}
