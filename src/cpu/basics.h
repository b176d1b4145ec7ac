/* basics.h - the basics lab's problems on the CPU: SAXPY (z = a x + y) and a
 * 256-bin histogram of bytes, each as a fast baseline (one thread, and
 * several) and as the reference the GPU's answer is checked against. */
#ifndef CUDALAB_CPU_BASICS_H
#define CUDALAB_CPU_BASICS_H

#include <stddef.h>
#include <stdint.h>

#define BASICS_BINS 256

/* z_out[i] = alpha * x_in[i] + y_in[i] for i < count, in float, vectorised
 * on one thread. */
void cpu_saxpy(size_t count, float alpha, const float *x_in, const float *y_in, float *z_out);
/* Same, split over `threads` pthreads (threads <= 0: cpu_thread_count()). */
void cpu_saxpy_mt(size_t count, float alpha, const float *x_in, const float *y_in, float *z_out,
                  int threads);
/* The reference: out[i] = (double)alpha * x_in[i] + y_in[i], exact in
 * double. */
void ref_saxpy(size_t count, float alpha, const float *x_in, const float *y_in, double *out);

/* bins[b] = how many of data[0..count) equal b, on one thread. */
void cpu_histogram(const uint8_t *data, size_t count, uint32_t bins[BASICS_BINS]);
/* Same, each thread counting its share into bins of its own, then summed. */
void cpu_histogram_mt(const uint8_t *data, size_t count, uint32_t bins[BASICS_BINS], int threads);

/* Fills data with count random bytes from seed, every value equally likely
 * (deterministic). */
void basics_fill_bytes(uint8_t *data, size_t count, uint64_t seed);

#endif
