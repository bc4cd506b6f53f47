/* bench/kernels/c/tallyfmt.h — prints numbers exactly as tally's print/str do,
 * so a C twin's output can be compared byte for byte with the tally kernel's.
 *
 * Input: a double (or int64).  Output: its text on stdout.
 * Invariant: the float layout is the one of vm_format_float (vm/builtins.c):
 * the fewest significant digits P (1..17) whose "%.{P-1}e" text reads back
 * exactly; positional ("%.{P-1-exp}f") when the decimal exponent is in
 * [-4, 16), else the scientific text itself ("1e+16"); ".0" appended when
 * the text has no '.' or 'e'; "nan", "inf", "-inf" for the specials.
 * Kept as a header of static functions so each twin is one .c file.
 */
#ifndef TALLYFMT_H
#define TALLYFMT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void tally_format_float(double d, char out[48])
{
    if (isnan(d)) {
        strcpy(out, "nan");
        return;
    }
    if (isinf(d)) {
        strcpy(out, d < 0 ? "-inf" : "inf");
        return;
    }
    int p = 1;
    for (; p < 17; p++) {   /* reading back is monotone in P; 17 always works */
        snprintf(out, 48, "%.*e", p - 1, d);
        if (strtod(out, NULL) == d)
            break;
    }
    snprintf(out, 48, "%.*e", p - 1, d);
    int exp10 = atoi(strchr(out, 'e') + 1);
    if (exp10 >= -4 && exp10 < 16)
        snprintf(out, 48, "%.*f", p - 1 - exp10 > 0 ? p - 1 - exp10 : 0, d);
    if (!strpbrk(out, ".e"))
        strcat(out, ".0");
}

static inline void print_float(double d)
{
    char buf[48];
    tally_format_float(d, buf);
    fputs(buf, stdout);
}

static inline void print_int(int64_t v)
{
    printf("%lld", (long long)v);
}

/* FNV-1a, 64 bits, one byte at a time: the output checksum the kernels
 * print instead of their bulk output (tally prints it as a signed int). */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
static inline uint64_t fnv_byte(uint64_t h, unsigned c)
{
    return (h ^ (c & 255u)) * FNV_PRIME;
}

static inline long arg_or(int argc, char **argv, long dflt)
{
    return argc > 1 ? strtol(argv[1], NULL, 10) : dflt;
}

#endif
