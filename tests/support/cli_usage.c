/* main.c's cli_usage_error, for tests that call a subcommand in-process
 * (main.c is not part of the library the tests link). */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

int cli_usage_error(const cli_ctx *c, const char *fmt, ...)
{
    (void)c;
    va_list ap;
    fputs("cudalab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    return EXIT_USAGE;
}
