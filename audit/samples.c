/* audit/samples.c — per-thread sample ring buffers and their registry.
 *
 * Input: samples pushed by timed code on the program's threads
 * (au_sample_push, audit.h).  Output: the same samples, in each thread's
 * order, handed to the one consumer (the analysis thread) by
 * au_samples_drain.
 *
 * Protocol (one producer, one consumer per buffer; slot i holds positions
 * p ≡ i mod size):
 * - producer, at position p: load seq (acquire); if non-zero the slot is
 *   not yet read: drop the sample (count it) and stay at p.  Otherwise
 *   store the payload (relaxed), then seq = p + 1 (release).
 * - consumer, at position t: load seq (acquire); 0 means nothing new.
 *   seq ≠ t + 1 cannot happen in this protocol: it is counted as bad and
 *   skipped.  Read the payload (acquire loads), load seq again:
 *   a change means the slot was rewritten while read (torn; counted,
 *   skipped — again impossible unless the protocol is broken).  Then zero
 *   the payload and store seq = 0 (release): the slot is free again.
 * So the producer never writes a slot the consumer may be reading, a
 * sample is either read whole or not at all, and the only loss is a full
 * buffer (counted).  Every access to a slot is atomic, so the protocol is
 * data-race free in the C11 model and under ThreadSanitizer.
 *
 * Registry: a list owned by this module.  Its mutex is taken by a program
 * thread only to register its buffer (first sample) and by the consumer
 * while draining; a thread's exit marks its buffer retired, and the
 * consumer frees it once it has read everything in it.
 */
#include "audit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static AuSampleBuffer *registry;
static int registered;
static uint32_t registrations;             /* buffers ever registered: their index */
static uint32_t slots_per_buffer = 8192;   /* written under registry_lock */

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static __thread AuSampleBuffer *thread_buffer;

static void retire(void *p)
{
    AuSampleBuffer *b = p;
    __atomic_store_n(&b->retired, 1, __ATOMIC_RELEASE);
}

static void make_key(void)
{
    pthread_key_create(&exit_key, retire);
}

void au_samples_configure(uint32_t slots)
{
    uint32_t n = 16;
    while (n < slots && n < (1u << 24))
        n <<= 1;
    pthread_mutex_lock(&registry_lock);
    slots_per_buffer = n;
    pthread_mutex_unlock(&registry_lock);
}

AuSampleBuffer *au_samples_thread(void)
{
    if (thread_buffer)
        return thread_buffer;
    pthread_once(&key_once, make_key);
    AuSampleBuffer *b = aligned_alloc(64, (sizeof *b + 63) / 64 * 64);
    if (!b)
        return NULL;
    memset(b, 0, sizeof *b);
    pthread_mutex_lock(&registry_lock);
    uint32_t n = slots_per_buffer;
    b->slots = calloc(n, sizeof(AuSlot));
    if (!b->slots) {
        pthread_mutex_unlock(&registry_lock);
        free(b);
        return NULL;
    }
    b->mask = n - 1;
    b->index = ++registrations;
    b->next = registry;
    registry = b;
    registered++;
    pthread_mutex_unlock(&registry_lock);
    pthread_setspecific(exit_key, b);
    thread_buffer = b;
    return b;
}

bool au_sample_record(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight)
{
    AuSampleBuffer *b = au_samples_thread();
    if (!b)
        return false;
    if (b->warmup && b->warmup == bakeoff) {
        b->warmup = 0;
        variant |= AU_SAMPLE_WARMUP;
    }
    return au_sample_push(b, bakeoff, variant, cycles, weight);
}

uint32_t au_sample_warmup(uint32_t bakeoff)
{
    AuSampleBuffer *b = au_samples_thread();
    if (!b)
        return 0;   /* no buffer: no sample will be pushed either */
    uint32_t prev = b->warmup;
    b->warmup = bakeoff;
    return prev;
}

int au_samples_count(void)
{
    pthread_mutex_lock(&registry_lock);
    int n = registered;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

/* Reads up to one buffer length from b; true when it stopped at a free slot. */
static bool drain_one(AuSampleBuffer *b, AuSampleFn fn, void *ctx, AuDrainCounts *counts)
{
    uint64_t dropped = __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
    counts->dropped += dropped - b->dropped_seen;
    b->dropped_seen = dropped;
    for (uint64_t i = 0; i <= b->mask; i++) {
        AuSlot *s = &b->slots[b->tail & b->mask];
        uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (seq == 0)
            return true;
        /* acquire loads keep the second read of seq after the payload's
         * (a fence would do, but ThreadSanitizer does not model fences) */
        AuSample smp;
        uint64_t tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
        smp.cycles = __atomic_load_n(&s->cycles, __ATOMIC_ACQUIRE);
        smp.weight = (uint32_t)__atomic_load_n(&s->weight, __ATOMIC_ACQUIRE);
        uint64_t again = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
        bool ok = true;
        if (again != seq) {
            counts->torn++;
            ok = false;
        } else if (seq != b->tail + 1) {
            counts->bad++;
            ok = false;
        }
        __atomic_store_n(&s->cycles, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->tag, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->weight, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->seq, 0, __ATOMIC_RELEASE);
        b->tail++;
        if (!ok)
            continue;
        smp.bakeoff = (uint32_t)(tag >> 32);
        smp.variant = (uint32_t)tag;
        smp.thread = b->index;
        smp.seq = b->tail - 1;
        counts->read++;
        fn(ctx, &smp);
    }
    return false;
}

void au_samples_drain(AuSampleFn fn, void *ctx, AuDrainCounts *counts)
{
    pthread_mutex_lock(&registry_lock);
    for (AuSampleBuffer **link = &registry; *link;) {
        AuSampleBuffer *b = *link;
        /* retired before the drain: every sample of the thread is visible */
        bool gone = __atomic_load_n(&b->retired, __ATOMIC_ACQUIRE);
        bool empty = drain_one(b, fn, ctx, counts);
        if (gone && empty) {
            uint64_t dropped = __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
            counts->dropped += dropped - b->dropped_seen;
            *link = b->next;
            registered--;
            free(b->slots);
            free(b);
            continue;
        }
        link = &b->next;
    }
    pthread_mutex_unlock(&registry_lock);
}
