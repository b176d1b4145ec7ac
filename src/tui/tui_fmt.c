#include "tui/tui_fmt.h"

#include <math.h>
#include <stdio.h>

#include "core/units.h"

char *tui_fmt_time_ms(double ms, bool ascii, char *buf, size_t buf_size)
{
    static const char *const units_utf8[] = {"ns", "\xC2\xB5s", "ms", "s"};
    static const char *const units_ascii[] = {"ns", "us", "ms", "s"};
    const char *const *units = ascii ? units_ascii : units_utf8;
    char num[TUI_FMT_MAX];
    double v = ms * 1e6;
    int u = 0;
    if (!isfinite(ms) || ms < 0) {
        snprintf(buf, buf_size, "-");
        return buf;
    }
    while (u < 3 && v >= 999.5) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, buf_size, "%s %s", units_sig3(v, num, sizeof num), units[u]);
    return buf;
}

char *tui_fmt_spread(double spread, bool ascii, char *buf, size_t buf_size)
{
    double p = spread * 100.0;
    if (!isfinite(spread) || spread < 0) {
        snprintf(buf, buf_size, "-");
        return buf;
    }
    if (p >= 9.95)
        snprintf(buf, buf_size, "%s%.0f%%", ascii ? "+-" : "\xC2\xB1", p);
    else
        snprintf(buf, buf_size, "%s%.1f%%", ascii ? "+-" : "\xC2\xB1", p);
    return buf;
}

char *tui_fmt_speedup(double value, char *buf, size_t buf_size)
{
    char num[TUI_FMT_MAX];
    if (!isfinite(value) || value <= 0) {
        snprintf(buf, buf_size, "-");
        return buf;
    }
    if (value < 0.0095) {
        snprintf(buf, buf_size, "<0.01x");
        return buf;
    }
    if (value < 0.0995) {
        snprintf(buf, buf_size, "%.3fx", value);
        return buf;
    }
    snprintf(buf, buf_size, "%sx", units_sig3(value, num, sizeof num));
    return buf;
}

char *tui_fmt_rate(double gbps, double tflops, char *buf, size_t buf_size)
{
    char num[TUI_FMT_MAX];
    bool have_bw = isfinite(gbps) && gbps >= 0;
    bool have_fl = isfinite(tflops) && tflops >= 0;
    /* Both known: the one that bounds the kernel, judged by its arithmetic
     * intensity (FLOPs per byte moved). */
    if (have_fl && (!have_bw || (gbps > 0 && tflops * 1000.0 / gbps >= TUI_FMT_FLOPS_INTENSITY))) {
        if (tflops >= 0.9995)
            snprintf(buf, buf_size, "%s TFLOP/s", units_sig3(tflops, num, sizeof num));
        else
            snprintf(buf, buf_size, "%s GFLOP/s", units_sig3(tflops * 1000.0, num, sizeof num));
        return buf;
    }
    if (have_bw) {
        snprintf(buf, buf_size, "%s GB/s", units_sig3(gbps, num, sizeof num));
        return buf;
    }
    snprintf(buf, buf_size, "-");
    return buf;
}
