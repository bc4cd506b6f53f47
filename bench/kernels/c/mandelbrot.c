/* bench/kernels/c/mandelbrot.c — C twin of bench/kernels/mandelbrot.tl
 * (CLBG mandelbrot).  Input: N (argv[1], default 200).  Output: the bitmap's
 * size, its number of set pixels and the FNV-1a hash of its bytes, instead
 * of the PBM image.  Invariant: the tally kernel's operations, in order. */
#include "tallyfmt.h"

int main(int argc, char **argv)
{
    long n = arg_or(argc, argv, 200);
    double size = (double)n;
    uint64_t hash = FNV_OFFSET;
    long bytes = 0, pixels = 0;
    for (long y = 0; y < n; y++) {
        double ci = 2.0 * (double)y / size - 1.0;
        unsigned acc = 0;
        int bits = 0;
        for (long x = 0; x < n; x++) {
            double cr = 2.0 * (double)x / size - 1.5;
            double zr = 0.0, zi = 0.0, tr = 0.0, ti = 0.0;
            for (int i = 0; i < 50 && tr + ti <= 4.0; i++) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
            }
            acc <<= 1;
            if (tr + ti <= 4.0) {
                acc |= 1;
                pixels++;
            }
            if (++bits == 8) {
                hash = fnv_byte(hash, acc);
                bytes++;
                acc = 0;
                bits = 0;
            }
        }
        if (bits > 0) {
            hash = fnv_byte(hash, acc << (8 - bits));
            bytes++;
        }
    }
    printf("bitmap %ldx%ld: %ld bytes\n", n, n, bytes);
    printf("pixels set: %ld\n", pixels);
    printf("fnv1a: ");
    print_int((int64_t)hash);
    putchar('\n');
    return 0;
}
