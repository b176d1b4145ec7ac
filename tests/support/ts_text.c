#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <string.h>

bool ts_contains(const char *hay, const char *needle)
{
    if (hay && strstr(hay, needle))
        return true;
    print_error("the text\n----\n%s\n----\ndoes not contain \"%s\"\n", hay ? hay : "(null)",
                needle);
    return false;
}

bool ts_starts_with(const char *s, const char *prefix)
{
    if (s && strncmp(s, prefix, strlen(prefix)) == 0)
        return true;
    print_error("\"%s\"\n  does not start with \"%s\"\n", s ? s : "(null)", prefix);
    return false;
}
