/* bench/kernels/c/fannkuch.c — C twin of bench/kernels/fannkuch.tl (CLBG
 * fannkuch-redux).  Input: N (argv[1], default 7, 1..20).  Output: the
 * checksum and "Pfannkuchen(N) = max flips".  Invariant: the permutation
 * order and flip counting of the tally kernel. */
#include "tallyfmt.h"

int main(int argc, char **argv)
{
    long n = arg_or(argc, argv, 7);
    if (n < 1 || n > 20)
        return 2;
    long perm[20], perm1[20], count[20];
    for (long i = 0; i < n; i++)
        perm1[i] = i;
    long r = n, perm_count = 0, max_flips = 0, checksum = 0;
    for (;;) {
        while (r != 1) {
            count[r - 1] = r;
            r--;
        }
        for (long i = 0; i < n; i++)
            perm[i] = perm1[i];
        long flips = 0, k;
        while ((k = perm[0]) != 0) {
            for (long lo = 0, hi = k; lo < hi; lo++, hi--) {
                long t = perm[lo];
                perm[lo] = perm[hi];
                perm[hi] = t;
            }
            flips++;
        }
        if (flips > max_flips)
            max_flips = flips;
        checksum += perm_count % 2 == 0 ? flips : -flips;
        for (;;) {
            if (r == n) {
                printf("%ld\nPfannkuchen(%ld) = %ld\n", checksum, n, max_flips);
                return 0;
            }
            long perm0 = perm1[0];
            for (long i = 0; i < r; i++)
                perm1[i] = perm1[i + 1];
            perm1[r] = perm0;
            if (--count[r] > 0)
                break;
            r++;
        }
        perm_count++;
    }
}
