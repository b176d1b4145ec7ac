/* embedding.h - embedding lookup: out[t,:] = table[idx[t],:], table is
 * vocab x dim, out is tokens x dim. */
#ifndef CUDALAB_CPU_EMBEDDING_H
#define CUDALAB_CPU_EMBEDDING_H

#include <stdbool.h>
#include <stdint.h>

/* True when every idx[t] (t < tokens) lies in [0,vocab).  Otherwise false
 * with *bad_t set to the first offending t (bad_t may be NULL). */
bool embedding_validate(const int32_t *idx, int tokens, int vocab, int64_t *bad_t);
/* Row gather on one thread; indices must have been validated. */
void cpu_embedding(const float *table, const int32_t *idx, float *out, int tokens, int dim);
/* Same, rows split over `threads` pthreads (threads <= 0: cpu_thread_count()). */
void cpu_embedding_mt(const float *table, const int32_t *idx, float *out, int tokens, int dim,
                      int threads);

#endif
