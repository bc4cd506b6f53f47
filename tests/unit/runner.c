/* tests/unit/runner.c — runs every registered unit test (or those whose name
 * contains one of the arguments) and prints "unit: N passed, N failed". */
#include "test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_TESTS 1024

static struct { const char *name; void (*fn)(void); } tests[MAX_TESTS];
static int ntests, current_failures;

void test_register(const char *name, void (*fn)(void))
{
    if (ntests < MAX_TESTS)
        tests[ntests++] = (typeof(tests[0])){name, fn};
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    current_failures++;
}

static bool chosen(const char *name, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return true;
    return argc < 2;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (!chosen(tests[i].name, argc, argv))
            continue;
        current_failures = 0;
        tests[i].fn();
        fflush(stdout);
        if (current_failures) {
            fprintf(stderr, "FAIL %s\n", tests[i].name);
            failed++;
        } else {
            passed++;
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    fflush(stdout);   /* a leak report at exit ends the process without stdio's flush */
    return failed ? 1 : 0;
}
