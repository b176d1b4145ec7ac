/* main.c - command-line entry: parses arguments and dispatches. */
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    puts("cudalab " CUDALAB_VERSION);
    return 0;
}
