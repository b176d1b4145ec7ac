/* probrule.c - a declared output's rule on one element (lab/probdecl.h),
 * the same for the engine's judge and for `cudalab check`'s probe. */
#include "lab/probdecl.h"

#include <math.h>

bool decl_judge_off(const decl_judge *j, double diff, double ref, double rms)
{
    switch (j->kind) {
    case JUDGE_EXACT:
        return diff != 0.0;
    case JUDGE_REL:
        return fabs(diff) > j->rel * (fabs(ref) > rms ? fabs(ref) : rms);
    case JUDGE_ABS:
        return fabs(diff) > j->abs;
    case JUDGE_BOTH:
        return fabs(diff) > j->abs + j->rel * fabs(ref);
    default:
        return false;
    }
}
