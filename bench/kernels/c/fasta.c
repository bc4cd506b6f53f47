/* bench/kernels/c/fasta.c — C twin of bench/kernels/fasta.tl (CLBG fasta).
 * Input: N (argv[1], default 1000).  Output: the length and FNV-1a hash of
 * the FASTA text the benchmark would write (with FASTA_TEXT=1 in the
 * environment it writes the text itself instead, to check it against the
 * Benchmarks Game's reference output).  Invariant: the tally kernel's
 * generator, sums and comparisons, in order. */
#include "tallyfmt.h"

#define LINE 60
#define IM 139968
#define IA 3877
#define IC 29573

static const char ALU[] =
    "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGG"
    "GAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGA"
    "CCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAAT"
    "ACAAAAATTAGCCGGGCGTGGTGGCGCGCGCCTGTAATCCCA"
    "GCTACTCGGGAGGCTGAGGCAGGAGAATCGCTTGAACCCGGG"
    "AGGCGGAGGTTGCAGTGAGCCGAGATCGCGCCACTGCACTCC"
    "AGCCTGGGCGACAGAGCGAGACTCCGTCTCAAAAA";

static const char IUB_CHARS[] = "acgtBDHKMNRSVWY";
static const double IUB_PROBS[] = {0.27, 0.12, 0.12, 0.27, 0.02, 0.02, 0.02, 0.02,
                                   0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02};
static const char HOMO_CHARS[] = "acgt";
static const double HOMO_PROBS[] = {0.3029549426680, 0.1979883004921, 0.1975473066391,
                                    0.3015094502008};

static long seed = 42;
static uint64_t hash = FNV_OFFSET;
static long written = 0;
static int text_mode;

static void emit(int c)
{
    if (text_mode)
        putchar(c);
    hash = fnv_byte(hash, (unsigned)c);
    written++;
}

static void emit_text(const char *s)
{
    for (; *s; s++)
        emit((unsigned char)*s);
}

static double random_num(double max)
{
    seed = (seed * IA + IC) % IM;
    return max * (double)seed / (double)IM;
}

static void repeat_fasta(const char *header, const char *s, long n)
{
    long len = (long)strlen(s), k = 0;
    emit_text(header);
    for (long left = n; left > 0;) {
        long line = left < LINE ? left : LINE;
        for (long i = 0; i < line; i++) {
            emit((unsigned char)s[k]);
            if (++k == len)
                k = 0;
        }
        emit('\n');
        left -= line;
    }
}

static void random_fasta(const char *header, const char *chars, const double *probs,
                         int nprobs, long n)
{
    double cumulative[16], sum = 0.0;
    emit_text(header);
    for (int i = 0; i < nprobs; i++) {
        sum += probs[i];
        cumulative[i] = sum;
    }
    int last = nprobs - 1;
    for (long left = n; left > 0;) {
        long line = left < LINE ? left : LINE;
        for (long i = 0; i < line; i++) {
            double r = random_num(1.0);
            int j = 0;
            while (j < last && r >= cumulative[j])
                j++;
            emit((unsigned char)chars[j]);
        }
        emit('\n');
        left -= line;
    }
}

int main(int argc, char **argv)
{
    long n = arg_or(argc, argv, 1000);
    const char *t = getenv("FASTA_TEXT");
    text_mode = t && *t == '1';
    repeat_fasta(">ONE Homo sapiens alu\n", ALU, 2 * n);
    random_fasta(">TWO IUB ambiguity codes\n", IUB_CHARS, IUB_PROBS, 15, 3 * n);
    random_fasta(">THREE Homo sapiens frequency\n", HOMO_CHARS, HOMO_PROBS, 4, 5 * n);
    if (!text_mode) {
        printf("fasta %ld: %ld bytes\n", n, written);
        printf("fnv1a: ");
        print_int((int64_t)hash);
        putchar('\n');
    }
    return 0;
}
