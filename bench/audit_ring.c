/* bench/audit_ring.c — what one timed call's sample costs the program
 * thread: cycles per au_sample_record (audit/samples.c) while the
 * analysis thread's drain (every 10 ms) runs on the other core, with
 * WORK cycles of program work between samples that walk 1 MB of data
 * (a timed method's callers evicting the sample path from the caches).
 *
 *   make bench-audit-ring                 (WORK = 2000, 6000, 20000)
 *   build/audit-ring WORK [CONSUMER]      CONSUMER 1: drain (default);
 *                                         -1: no record (the timer's own cost)
 *
 * Output: one line, the mean cycles of the timed region (lfence; rdtsc;
 * record; lfence; rdtsc); subtract the CONSUMER = -1 line for the
 * record alone.  Runs 3 G cycles. */
#include "audit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static volatile int stop;

static void drop(void *ctx, const AuSample *s)
{
    (void)ctx, (void)s;
}

static void *consumer(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (!stop) {
        AuDrainCounts c = {0};
        au_samples_drain(drop, NULL, &c);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int work = argc > 1 ? atoi(argv[1]) : 2000;
    int cons = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t th;
    if (cons > 0 && pthread_create(&th, NULL, consumer, NULL) != 0)
        return 1;
    static uint64_t junk[1 << 17];
    uint64_t tot = 0, n = 0, x = 1;
    uint64_t end = __rdtsc() + 3000000000ull;
    while (__rdtsc() < end) {
        uint64_t w0 = __rdtsc();
        while (__rdtsc() - w0 < (uint64_t)work) {
            x = x * 6364136223846793005ull + 1;
            junk[(x >> 20) & ((1 << 17) - 1)] += x;
        }
        _mm_lfence();
        uint64_t a = __rdtsc();
        _mm_lfence();
        if (cons >= 0)
            au_sample_record(1, (uint32_t)(n & 1), 1234, 1);
        _mm_lfence();
        tot += __rdtsc() - a;
        n++;
    }
    stop = 1;
    if (cons > 0)
        pthread_join(th, NULL);
    printf("work %d consumer %d: %.1f cycles per timed region (%llu samples)\n", work, cons, (double)tot / (double)n,
           (unsigned long long)n);
    return 0;
}
