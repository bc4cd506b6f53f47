/* tests/jsoncheck.c — `jsoncheck FILE...`: exit 0 if every file is exactly
 * one valid JSON document, else print "FILE: invalid JSON (why) at offset
 * N" for each bad one and exit 1 (2 when a file cannot be read).
 * tests/cli.sh compiles it on the fly to check --stats files; the checker
 * is tests/unit/json_check.h, which the unit tests check too.
 */
#include "unit/json_check.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        char *buf = NULL;
        size_t len = 0, cap = 0, k;
        if (!f) {
            perror(argv[i]);
            status = 2;
            continue;
        }
        for (;;) {
            if (len == cap) {
                char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
                if (!nb) {
                    fprintf(stderr, "%s: out of memory\n", argv[i]);
                    return 2;
                }
                buf = nb;
            }
            if ((k = fread(buf + len, 1, cap - len, f)) == 0)
                break;
            len += k;
        }
        fclose(f);
        size_t at;
        const char *why = json_check(buf ? buf : "", len, &at);
        if (why) {
            printf("%s: invalid JSON (%s) at offset %zu\n", argv[i], why, at);
            if (status == 0)
                status = 1;
        }
        free(buf);
    }
    return status;
}
