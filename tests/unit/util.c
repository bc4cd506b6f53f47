/* tests/unit/util.c — helpers several unit-test files share: capturing
 * what code under test writes to stdout/stderr, and reading the `// NAME:`
 * directives of test programs (the same ones tests/run.sh reads). */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Starts sending fd to a fresh temporary file; returns the saved fd. */
int test_redirect(int fd, FILE **tmp)
{
    fflush(fd == 1 ? stdout : stderr);
    *tmp = tmpfile();
    int saved = dup(fd);
    if (*tmp)
        dup2(fileno(*tmp), fd);
    return saved;
}

void test_restore(int fd, int saved, FILE *tmp, char *buf, size_t size)
{
    fflush(fd == 1 ? stdout : stderr);
    dup2(saved, fd);
    close(saved);
    buf[0] = 0;
    if (!tmp)
        return;
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
}

/* The words of every "// NAME: w1 w2" line of text, appended to out[]. */
int test_directive_words(const char *text, const char *name, char **out, int max)
{
    int n = 0;
    char key[64];
    snprintf(key, sizeof key, "// %s:", name);
    for (const char *p = strstr(text, key); p && n < max; p = strstr(p + 1, key)) {
        const char *q = p + strlen(key);
        while (*q && *q != '\n' && n < max) {
            while (*q == ' ')
                q++;
            const char *s = q;
            while (*q && *q != ' ' && *q != '\n')
                q++;
            if (q > s)
                out[n++] = strndup(s, (size_t)(q - s));
        }
    }
    return n;
}
