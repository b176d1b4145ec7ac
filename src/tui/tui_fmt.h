/* tui_fmt.h - numbers as a learner reads them: three significant digits
 * and a unit ("1.23 ms", "312x", "845 GB/s", "12.3 TFLOP/s").
 *
 * Each function writes into buf (size n) and returns buf.  Unknown values
 * (negative rates, zero speedups, negative times) give "-".  ascii selects
 * "us" and "+-" instead of "µs" and "±".  Byte counts, percentages and
 * plain three-digit numbers are core/units.h's, shared with the command
 * line. */
#ifndef CUDALAB_TUI_FMT_H
#define CUDALAB_TUI_FMT_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_FMT_MAX 32

/* A duration given in milliseconds: "850 ns", "12.3 µs", "1.23 ms", "4.56 s". */
char *tui_fmt_time_ms(double ms, bool ascii, char *buf, size_t buf_size);
/* Relative spread (0.021) as "±2.1%". */
char *tui_fmt_spread(double spread, bool ascii, char *buf, size_t buf_size);
/* A speedup factor, at most six columns below 100000x: "312x", "3.12x",
 * "0.523x", "<0.01x". */
char *tui_fmt_speedup(double value, char *buf, size_t buf_size);
/* Throughput in the unit that bounds the kernel: when both are known, FLOP
 * rate at an arithmetic intensity of TUI_FMT_FLOPS_INTENSITY FLOPs per byte
 * or more, else bandwidth.  "845 GB/s", "12.3 TFLOP/s", "500 GFLOP/s". */
#define TUI_FMT_FLOPS_INTENSITY 4.0
char *tui_fmt_rate(double gbps, double tflops, char *buf, size_t buf_size);

#endif
