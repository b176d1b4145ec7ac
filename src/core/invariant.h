/* invariant.h - checks of what cannot happen unless cudalab itself is wrong.
 *
 * Bad input is never an invariant: it gets a message and a way on.  An
 * invariant is a fact the code relies on (a table is large enough, a
 * switch covers every case); when one fails the program stops at once,
 * naming the file, line and condition, instead of carrying on with state
 * it no longer understands.  Always on, in every build. */
#ifndef CUDALAB_CORE_INVARIANT_H
#define CUDALAB_CORE_INVARIANT_H

#define CL_ASSERT(cond) \
    ((cond) ? (void)0 : cl_invariant_failed(#cond, __FILE__, __LINE__, __func__))
#define CL_UNREACHABLE() cl_invariant_failed("unreachable code reached", __FILE__, __LINE__, __func__)

/* Prints "cudalab: internal error at file:line (func): what" to stderr and
 * aborts. */
_Noreturn void cl_invariant_failed(const char *what, const char *file, int line, const char *func);

#endif
