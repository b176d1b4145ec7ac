/* roofline.h - the fastest a row can honestly run on this device.
 *
 * A row whose median time implies more bytes a second than the device's
 * memory can move, more operations a second than its arithmetic can do,
 * or that takes less time than launching one kernel does, did not do the
 * work it claims in the time it was given (a replayed answer, work left
 * running past the timer, a timer that was tampered with): it is refused,
 * never celebrated.  Each ceiling carries a margin, and more where the L2
 * cache may honestly serve the data; pure, so tests run it without a
 * device. */
#ifndef CUDALAB_ENGINE_ROOFLINE_H
#define CUDALAB_ENGINE_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>

/* Above the best of the datasheet's, the measured copy's and the measured
 * read-only stream's bandwidth, and above the FP32 peak. */
#define ROOFLINE_MARGIN 1.3
/* When the data may sit in the L2 (a working set no larger than it, or
 * repetitions not flushed): its bandwidth is a few times the memory's. */
#define ROOFLINE_L2_FACTOR 4.0
/* Tensor cores (compute capability 7.0 and later) reach about 16x the FP32
 * peak at dense BF16 (an H100: 989 against 67 TFLOP/s), which a row that
 * counts FP32 FLOPs may use. */
#define ROOFLINE_TENSOR_FACTOR 16.0
/* Shorter than any kernel launch: on an H200, an empty kernel between two
 * events measured 6.0 us (median; 4.3 us at least), the two events with
 * nothing between them 1.8 us. */
#define ROOFLINE_MIN_MS 0.0025

typedef struct roofline_in {
    double median_ms;
    double bytes;              /* moved by one run (the problem's); <= 0: unknown */
    double flops;              /* one run's; <= 0: none */
    double bw_theory_gbs;      /* the datasheet's (memory clock x bus); 0: unknown */
    double bw_copy_gbs;        /* measured device copy; 0: unknown */
    double bw_read_gbs;        /* measured read-only stream; 0: unknown */
    double fp32_tflops;        /* 0: unknown */
    int cc_major;
    double l2_bytes;
    bool cold;                 /* every repetition started with the data out of the L2 */
} roofline_in;

/* true with why (n bytes) when the row must be refused:
 * "faster than this GPU can move the data: X GB/s against a peak of Y GB/s ..." */
bool roofline_refuse(const roofline_in *in, char *why, size_t n);

#endif
