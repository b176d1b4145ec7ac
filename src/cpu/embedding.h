/* embedding.h - embedding lookup: out[t,:] = W[idx[t],:], W is V x D, out is T x D. */
#ifndef CUDALAB_CPU_EMBEDDING_H
#define CUDALAB_CPU_EMBEDDING_H

#include <stdbool.h>
#include <stdint.h>

/* True when every idx[t] (t < T) lies in [0,V).  Otherwise false with
 * *bad_t set to the first offending t (bad_t may be NULL). */
bool embedding_validate(const int32_t *idx, int T, int V, int64_t *bad_t);
/* Row gather on one thread; indices must have been validated. */
void cpu_embedding(const float *W, const int32_t *idx, float *out, int T, int D);
/* Same, rows split over `threads` pthreads (threads <= 0: cpu_thread_count()). */
void cpu_embedding_mt(const float *W, const int32_t *idx, float *out, int T, int D, int threads);

#endif
