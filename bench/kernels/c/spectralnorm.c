/* bench/kernels/c/spectralnorm.c — C twin of bench/kernels/spectralnorm.tl
 * (CLBG spectral-norm).  Input: N (argv[1], default 100).  Output: the norm,
 * printed like tally prints floats.  Invariant: the same sums in the same
 * order as the tally kernel (no vectorised reassociation: plain -O2). */
#include "tallyfmt.h"

static double eval_a(long i, long j)
{
    return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1);
}

static void multiply_av(long n, const double *v, double *av)
{
    for (long i = 0; i < n; i++) {
        double sum = 0.0;
        for (long j = 0; j < n; j++)
            sum += eval_a(i, j) * v[j];
        av[i] = sum;
    }
}

static void multiply_atv(long n, const double *v, double *atv)
{
    for (long i = 0; i < n; i++) {
        double sum = 0.0;
        for (long j = 0; j < n; j++)
            sum += eval_a(j, i) * v[j];
        atv[i] = sum;
    }
}

static void multiply_atav(long n, const double *v, double *tmp, double *atav)
{
    multiply_av(n, v, tmp);
    multiply_atv(n, tmp, atav);
}

int main(int argc, char **argv)
{
    long n = arg_or(argc, argv, 100);
    if (n < 1)
        n = 1;
    double *u = malloc(n * sizeof *u), *v = calloc(n, sizeof *v), *tmp = calloc(n, sizeof *tmp);
    if (!u || !v || !tmp)
        return 1;
    for (long i = 0; i < n; i++)
        u[i] = 1.0;
    for (int i = 0; i < 10; i++) {
        multiply_atav(n, u, tmp, v);
        multiply_atav(n, v, tmp, u);
    }
    double vbv = 0.0, vv = 0.0;
    for (long i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    print_float(sqrt(vbv / vv));
    putchar('\n');
    free(u);
    free(v);
    free(tmp);
    return 0;
}
