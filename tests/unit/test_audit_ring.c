/* tests/unit/test_audit_ring.c — per-thread sample buffers (audit/samples.c)
 * and the analysis thread (audit/analysis.c), with real threads.
 *
 * Also built alone under ThreadSanitizer (`make tsan-audit`): nothing here
 * may need the VM.  Each sample carries a pattern derived from its index,
 * so a corrupted, duplicated or reordered sample is caught, and the
 * accounting must be exact: received + dropped = pushed.
 */
#include "audit.h"
#include "auditor_api.h"
#include "test.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

/* The sample producer p pushes as its i-th. */
static AuSample pattern(uint32_t p, uint64_t i)
{
    return (AuSample){.bakeoff = p + 1, .cycles = i, .variant = (uint32_t)(mix(i ^ p) % 8),
                      .weight = (uint32_t)(mix(i * 31 + p) >> 40) | 1};
}

static void ignore(void *ctx, const AuSample *s)
{
    (void)ctx;
    (void)s;
}

/* Drains until a whole pass reads nothing (exited threads' buffers are
 * freed on the way). */
static void drain_all(AuSampleFn fn, void *ctx, AuDrainCounts *c)
{
    uint64_t before;
    do {
        before = c->read;
        au_samples_drain(fn, ctx, c);
    } while (c->read != before);
}

/* ---- one thread ----------------------------------------------------------- */

typedef struct Collected {
    int n;
    AuSample s[64];
} Collected;

static void collect(void *ctx, const AuSample *s)
{
    Collected *c = ctx;
    if (c->n < 64)
        c->s[c->n] = *s;
    c->n++;
}

static void *single_thread(void *arg)
{
    (void)arg;
    AuSampleBuffer *b = au_samples_thread();
    CHECK(b != NULL);
    if (!b)
        return NULL;
    CHECK(b == au_samples_thread());
    CHECK_INT(b->mask, 15);
    for (uint32_t i = 0; i < 10; i++)
        CHECK(au_sample_push(b, 5, i % 3, 100 + i, i + 1));
    Collected got = {0};
    AuDrainCounts c = {0};
    au_samples_drain(collect, &got, &c);
    CHECK_INT(got.n, 10);
    CHECK_INT(c.read, 10);
    for (int i = 0; i < 10 && i < got.n; i++) {
        CHECK_INT(got.s[i].bakeoff, 5);
        CHECK_INT(got.s[i].variant, i % 3);
        CHECK_INT(got.s[i].cycles, 100 + i);
        CHECK_INT(got.s[i].weight, i + 1);
    }
    /* the consumer zeroed what it read */
    for (int i = 0; i < 16; i++) {
        AuSlot *s = &b->slots[i];
        CHECK(s->seq == 0 && s->cycles == 0 && s->tag == 0 && s->weight == 0);
    }
    /* a full buffer drops the newest samples, and counts them */
    int ok = 0;
    for (uint32_t i = 0; i < 20; i++)
        ok += au_sample_push(b, 6, 1, 1000 + i, 1);
    CHECK_INT(ok, 16);
    CHECK_INT(b->dropped, 4);
    got.n = 0;
    c = (AuDrainCounts){0};
    au_samples_drain(collect, &got, &c);
    CHECK_INT(c.read, 16);
    CHECK_INT(c.dropped, 4);
    CHECK_INT(c.torn + c.bad, 0);
    for (int i = 0; i < 16 && i < got.n; i++)
        CHECK_INT(got.s[i].cycles, 1000 + i);
    /* and takes samples again once read */
    CHECK(au_sample_record(7, 0, 42, 1));
    got.n = 0;
    au_samples_drain(collect, &got, &c);
    CHECK(got.n == 1 && got.s[0].bakeoff == 7 && got.s[0].cycles == 42);
    return NULL;
}

TEST(audit_ring_single)
{
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
    int base = au_samples_count();
    au_samples_configure(10);              /* rounded up to 16 */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, single_thread, NULL) == 0);
    pthread_join(th, NULL);
    CHECK_INT(au_samples_count(), base + 1);   /* retired, not yet freed */
    drain_all(ignore, NULL, &c);
    CHECK_INT(au_samples_count(), base);
}

/* A warm-up mark (au_sample_warmup) flags the thread's next sample of its
 * bakeoff only: not another bakeoff's, not the one after; a nested timed
 * call of another bakeoff marks and restores around it. */
static void *warmup_thread(void *arg)
{
    (void)arg;
    CHECK_INT(au_sample_warmup(5), 0);
    CHECK(au_sample_record(7, 1, 10, 1));          /* another bakeoff: not a warm-up */
    CHECK(au_sample_record(5, 1, 11, 1));          /* the warm-up */
    CHECK(au_sample_record(5, 1, 12, 1));          /* the burst goes on */
    CHECK_INT(au_sample_warmup(5), 0);             /* outer: bakeoff 5's warm-up call */
    uint32_t outer = au_sample_warmup(7);          /* a nested warm-up of bakeoff 7 */
    CHECK_INT(outer, 5);
    CHECK(au_sample_record(7, 0, 13, 1));
    CHECK_INT(au_sample_warmup(outer), 0);         /* restored: 7's mark was used */
    CHECK(au_sample_record(5, 0, 14, 2));          /* the outer call's sample */
    CHECK(au_sample_record(5, 0, 15, 1));
    Collected got = {0};
    AuDrainCounts c = {0};
    au_samples_drain(collect, &got, &c);
    CHECK_INT(got.n, 6);
    static const uint32_t want[6][2] = {{7, 1}, {5, 1 | AU_SAMPLE_WARMUP}, {5, 1}, {7, AU_SAMPLE_WARMUP},
                                        {5, AU_SAMPLE_WARMUP}, {5, 0}};
    for (int i = 0; i < 6 && i < got.n; i++) {
        CHECK_INT(got.s[i].bakeoff, want[i][0]);
        CHECK_INT(got.s[i].variant, want[i][1]);
        CHECK_INT(got.s[i].cycles, 10 + i);
    }
    return NULL;
}

TEST(audit_ring_warmup)
{
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, warmup_thread, NULL) == 0);
    pthread_join(th, NULL);
    drain_all(ignore, NULL, &c);
}

/* ---- producers and a consumer --------------------------------------------- */

enum { PRODUCERS = 2, PUSHES = 400000 };

typedef struct Producer {
    pthread_t th;
    uint32_t id;
    uint64_t accepted, dropped;
    int done;
} Producer;

static void *produce(void *arg)
{
    Producer *p = arg;
    AuSampleBuffer *b = au_samples_thread();
    if (b) {
        for (uint64_t i = 0; i < PUSHES; i++) {
            AuSample s = pattern(p->id, i);
            p->accepted += au_sample_push(b, s.bakeoff, s.variant, s.cycles, s.weight);
            if ((i & 127) == 0)        /* let the consumer in, on 2 cores shared */
                sched_yield();
        }
        p->dropped = b->dropped;
    }
    __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

typedef struct Checker {
    uint64_t received[PRODUCERS];
    int64_t last[PRODUCERS];
    uint64_t wrong;
} Checker;

static void check_sample(void *ctx, const AuSample *s)
{
    Checker *k = ctx;
    uint32_t p = s->bakeoff - 1;
    if (p >= PRODUCERS) {
        k->wrong++;
        return;
    }
    AuSample want = pattern(p, s->cycles);
    if (s->cycles >= PUSHES || (int64_t)s->cycles <= k->last[p] || s->variant != want.variant ||
        s->weight != want.weight)
        k->wrong++;
    k->last[p] = (int64_t)s->cycles;
    k->received[p]++;
}

TEST(audit_ring_threads)
{
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
    int base = au_samples_count();
    au_samples_configure(64);              /* small: wraps, fills, drops */
    Producer prod[PRODUCERS];
    Checker k = {.last = {-1, -1}};
    for (int p = 0; p < PRODUCERS; p++) {
        prod[p] = (Producer){.id = (uint32_t)p};
        CHECK(pthread_create(&prod[p].th, NULL, produce, &prod[p]) == 0);
    }
    c = (AuDrainCounts){0};
    for (;;) {
        int done = 0;
        for (int p = 0; p < PRODUCERS; p++)
            done += __atomic_load_n(&prod[p].done, __ATOMIC_ACQUIRE);
        au_samples_drain(check_sample, &k, &c);
        if (done == PRODUCERS)
            break;
        sched_yield();
    }
    for (int p = 0; p < PRODUCERS; p++)
        pthread_join(prod[p].th, NULL);
    drain_all(check_sample, &k, &c);
    CHECK_INT(k.wrong, 0);
    CHECK_INT(c.torn, 0);
    CHECK_INT(c.bad, 0);
    uint64_t received = 0, dropped = 0;
    for (int p = 0; p < PRODUCERS; p++) {
        CHECK_INT(k.received[p], prod[p].accepted);
        CHECK_INT(prod[p].accepted + prod[p].dropped, PUSHES);
        received += k.received[p];
        dropped += prod[p].dropped;
    }
    CHECK_INT(c.read, received);
    CHECK_INT(c.dropped, dropped);
    CHECK(received > 0);
    CHECK_INT(au_samples_count(), base);    /* the exited threads' buffers are freed */
    if (getenv("AUDIT_SIM_VERBOSE"))
        printf("audit ring: %d producers × %d samples into 64 slots: %llu received, %llu dropped\n",
               PRODUCERS, PUSHES, (unsigned long long)received, (unsigned long long)dropped);
    au_samples_configure(8192);
}

/* ---- the analysis thread -------------------------------------------------- */

static AuConfig ring_config(void)
{
    return (AuConfig){.test = AU_TEST_SEQUENTIAL, .alpha = 0.01, .equivalence = 0.01,
                      .mixture = 0.01, .min_samples = 10000, .max_samples = 1000000,
                      .timeout = 30, .trim_window = 100, .trim_drop = 10, .interval = 0.001,
                      .sample_every = 20, .burst = 4, .jitter = 25, .seed = 1,
                      .buffer_slots = 4096};
}

typedef struct Decisions {
    pthread_mutex_t lock;
    int n;
    uint32_t id;
    AuResult r;
} Decisions;

static void decide(void *ctx, uint32_t id, const AuResult *r, double elapsed)
{
    Decisions *d = ctx;
    (void)elapsed;
    pthread_mutex_lock(&d->lock);
    d->n++;
    d->id = id;
    d->r = *r;
    pthread_mutex_unlock(&d->lock);
}

static int decided(Decisions *d)
{
    pthread_mutex_lock(&d->lock);
    int n = d->n;
    pthread_mutex_unlock(&d->lock);
    return n;
}

typedef struct Feeder {
    uint32_t id;
    Decisions *d;
    uint64_t pushed;
} Feeder;

/* A method whose variant 1 is 10% faster; timed calls alternate bursts as
 * the dispatcher would, until the decision arrives (or 20M calls). */
static void *feed(void *arg)
{
    Feeder *f = arg;
    VmAuditSlot st = {0};
    AuRng rng;
    au_rng_seed(&rng, 77);
    au_sample_record(f->id, 5, 1, 1);        /* no such variant */
    for (uint64_t i = 0; i < 20000000; i++) {
        int k = au_policy_next(&st, &(AuPolicyParams){.reset = 0, .burst = 4}, 2);
        uint64_t c = 4000 + au_rng_next(&rng) % 2000;
        au_sample_record(f->id, (uint32_t)k, k ? c * 9 / 10 : c, 1);
        f->pushed++;
        if ((i & 1023) == 0) {
            if (decided(f->d))
                break;
            sched_yield();
        }
    }
    au_sample_record(999, 0, 1, 1);          /* no such bakeoff */
    return NULL;
}

TEST(audit_ring_analysis_thread)
{
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
    int base = au_samples_count();
    AuConfig cfg = ring_config();
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    AuAnalysis *a = au_analysis_new(&cfg, decide, &d);
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK(au_analysis_start(a));
    CHECK(au_analysis_start(a));             /* already running: fine */
    uint32_t id = au_analysis_begin(a, 2, 0, au_now());
    CHECK(id >= 1);
    CHECK_INT(au_analysis_begin(a, 1, 1, au_now()), 0);
    uint32_t other = au_analysis_begin(a, 3, 1, au_now());
    CHECK(other > id);
    AuResult r;
    CHECK(au_analysis_result(a, other, &r) && r.outcome == AU_RUNNING);
    CHECK(au_analysis_cancel(a, other));
    CHECK(!au_analysis_cancel(a, other));
    Feeder f = {.id = id, .d = &d};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, feed, &f) == 0);
    pthread_join(th, NULL);
    /* the feeder stops at the decision; wait for the stray samples too */
    for (int i = 0; i < 5000; i++) {
        AuCounters k;
        au_analysis_counters(a, &k);
        if (decided(&d) && k.unknown && k.invalid)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.id, id);
    CHECK_INT(d.r.outcome, AU_WINNER);
    CHECK_INT(d.r.install, 1);
    CHECK(d.r.rel_lo < -0.1 && d.r.rel_hi > -0.1);
    CHECK(!au_analysis_result(a, id, &r));   /* finished: gone */
    AuCounters k;
    au_analysis_counters(a, &k);
    CHECK(k.rounds > 0);
    CHECK(k.drain.read > 0 && k.drain.read <= f.pushed + 2);
    CHECK(k.unknown >= 1);
    CHECK(k.invalid >= 1);
    CHECK_INT(k.drain.torn + k.drain.bad, 0);
    /* the dispatch parameters are redrawn every round */
    AuPolicyParams *p = au_analysis_policy(a, 0);
    int changes = 0, last = -2;
    for (int i = 0; i < 200 && changes < 3; i++) {
        int reset = __atomic_load_n(&p->reset, __ATOMIC_RELAXED);
        int burst = __atomic_load_n(&p->burst, __ATOMIC_RELAXED);
        CHECK(burst >= 3 && burst <= 5);
        changes += last != -2 && reset != last;
        last = reset;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    CHECK(changes >= 3);
    au_analysis_stop(a);
    au_analysis_stop(a);
    au_analysis_free(a);
    drain_all(ignore, NULL, &c);
    CHECK_INT(au_samples_count(), base);
}

/* An analysis driven by hand (au_analysis_step, no thread), on empty
 * buffers, reporting to d. */
static AuAnalysis *hand_analysis(const AuConfig *cfg, Decisions *d)
{
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
    AuAnalysis *a = au_analysis_new(cfg, decide, d);
    CHECK(a != NULL);
    return a;
}

/* hand_analysis with one bakeoff of two variants begun at t = 100 s. */
static AuAnalysis *hand_begun(const AuConfig *cfg, Decisions *d, uint32_t *id)
{
    AuAnalysis *a = hand_analysis(cfg, d);
    *id = a ? au_analysis_begin(a, 2, 0, 100.0) : 0;
    return a;
}

/* hand_begun with futility on (factor 2) and a rare method's 60 samples
 * a variant, received before the first round: by the bound on their
 * count (stats.c: too_slow), (60 + 3√60 + 9) × 0.9 kept, not futile at
 * 0.3 s (×100 over the 30 s budget, ×2: 16,600 ≥ 10,000), futile from
 * 0.5 s (9,960); on the count itself, futile (at 0.9 s: 3,600). */
static AuAnalysis *rare_begun(AuConfig *cfg, Decisions *d)
{
    cfg->futility = 2;
    uint32_t id;
    AuAnalysis *a = hand_begun(cfg, d, &id);
    for (int i = 0; a && i < 120; i++)
        au_sample_record(id, (uint32_t)(i & 1), 1000, 1);
    return a;
}

/* n samples alternating between two variants of equal cost: 1500 each
 * for n = 3000, of which trimming keeps 1350. */
static void flat_samples(uint32_t id, int n)
{
    for (int i = 0; i < n; i++)
        au_sample_record(id, (uint32_t)(i & 1), 1000 + (uint64_t)(i % 7), 1);
}

/* Rounds driven by hand (no thread): deterministic; a bakeoff reaches its
 * wall-time budget without samples. */
TEST(audit_ring_analysis_step)
{
    AuConfig cfg = ring_config();
    cfg.timeout = 5;
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    uint32_t id;
    AuAnalysis *a = hand_begun(&cfg, &d, &id);
    if (!a)
        return;
    au_analysis_step(a, 101.0);
    CHECK_INT(decided(&d), 0);
    flat_samples(id, 3000);
    au_analysis_step(a, 102.0);
    CHECK_INT(decided(&d), 0);
    AuResult r;
    CHECK(au_analysis_result(a, id, &r));
    CHECK_INT(r.v[0].received, 1500);
    CHECK_INT(r.v[1].samples, 1350);
    au_analysis_step(a, 105.0);
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.r.outcome, AU_TIMEOUT);
    CHECK_INT(d.r.install, 0);
    au_analysis_free(a);
}

/* A paused bakeoff (between turns, audit.quantum_ms) is not tested and
 * its clock stops: an hour's pause spends none of a 5 s budget.  Its
 * samples, stragglers included, count when it resumes. */
TEST(audit_ring_analysis_pause)
{
    AuConfig cfg = ring_config();
    cfg.timeout = 5;
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    uint32_t id;
    AuAnalysis *a = hand_begun(&cfg, &d, &id);
    if (!a)
        return;
    CHECK(au_analysis_pause(a, id, 102.0));
    flat_samples(id, 3000);
    au_analysis_step(a, 3700.0);
    CHECK_INT(decided(&d), 0);
    AuResult r;
    CHECK(au_analysis_result(a, id, &r));
    CHECK_INT(r.v[0].received, 1500);
    CHECK(au_analysis_resume(a, id, 3700.0));
    au_analysis_step(a, 3702.5);             /* 4.5 s of sampling */
    CHECK_INT(decided(&d), 0);
    au_analysis_step(a, 3703.1);             /* 5.1 s */
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.r.outcome, AU_TIMEOUT);
    CHECK(!au_analysis_pause(a, id, 3704.0));   /* decided: unknown */
    CHECK(!au_analysis_resume(a, id, 3704.0));
    au_analysis_free(a);
}

/* A bakeoff whose samples stop after a few (its method's phase is over)
 * is tested again without new samples (every 10 rounds), so futility by
 * rate ends it as soon as the bound on its count is futile instead of
 * holding its slot until the budget is spent. */
TEST(audit_ring_analysis_stale)
{
    AuConfig cfg = ring_config();
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    AuAnalysis *a = rare_begun(&cfg, &d);
    if (!a)
        return;
    au_analysis_step(a, 100.1);
    au_analysis_step(a, 100.3);              /* the bound not yet futile */
    CHECK_INT(decided(&d), 0);
    au_analysis_step(a, 100.6);              /* nothing new since 100.1 */
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.r.outcome, AU_TIMEOUT);
    CHECK(d.r.futile);
    CHECK_INT(d.r.install, 0);
    au_analysis_free(a);
}

/* With turns (audit.quantum_ms), futility by rate judges from 90% of a
 * turn, and the analysis tests a bakeoff once past that point even when
 * no sample came in that round (a rare method's may not), so that it ends
 * within its first turn instead of taking one in every round of turns. */
TEST(audit_ring_analysis_judged_in_turn)
{
    AuConfig cfg = ring_config();
    cfg.quantum = 1;
    cfg.interval = 1;   /* stale only after 10 s: not what ends it here */
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    AuAnalysis *a = rare_begun(&cfg, &d);
    if (!a)
        return;
    au_analysis_step(a, 100.3);              /* the bound at 0.3 s: not futile */
    CHECK_INT(decided(&d), 0);
    au_analysis_step(a, 100.95);             /* nothing new; past 0.9 s */
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.r.outcome, AU_TIMEOUT);
    CHECK(d.r.futile);
    au_analysis_free(a);
}

/* n samples alternating between two variants, 4,000-6,000 cycles, variant
 * `fast` 10% faster than the other. */
static void split_samples(AuRng *rng, uint32_t id, int n, uint32_t fast)
{
    for (int i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(i & 1);
        uint64_t c = 4000 + au_rng_next(rng) % 2000;
        au_sample_record(id, k, k == fast ? c * 9 / 10 : c, 1);
    }
}

/* ring_config deciding within 2,700 samples a variant: 30 windows of 90
 * kept (MIN_WINDOWS), the sample budget. */
static AuConfig quick_config(void)
{
    AuConfig cfg = ring_config();
    cfg.min_samples = 1000;
    cfg.max_samples = 2700;
    return cfg;
}

/* audit.verify: the online decision is not reported; the bakeoff samples
 * on from fresh sums to max_samples, and its final result is the oracle's
 * look at those later samples alone (here they say the opposite), with
 * the decision riding along in AuResult.online. */
TEST(audit_ring_analysis_verify)
{
    AuConfig cfg = quick_config();
    cfg.verify = true;
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    uint32_t id;
    AuAnalysis *a = hand_begun(&cfg, &d, &id);
    if (!a)
        return;
    AuRng rng;
    au_rng_seed(&rng, 5);
    for (int i = 0; i < 3; i++) {   /* within a ring buffer a round */
        split_samples(&rng, id, 2000, 1);
        au_analysis_step(a, 101.0 + i);   /* decided at the third: 30 windows */
    }
    CHECK_INT(decided(&d), 0);
    AuResult r;
    CHECK(au_analysis_result(a, id, &r));
    CHECK_INT(r.online.outcome, AU_WINNER);
    CHECK_INT(r.online.install, 1);
    CHECK_INT(r.online.samples, 2700);
    CHECK(fabs(r.online.elapsed - 3) < 1e-9);
    CHECK(r.online.rel < -0.05);
    CHECK_INT(r.v[0].samples, 0);   /* fresh sums */
    for (int i = 0; i < 4 && !decided(&d); i++) {
        split_samples(&rng, id, 2000, 0);
        au_analysis_step(a, 110.0 + i);
    }
    CHECK_INT(decided(&d), 1);
    CHECK_INT(d.r.outcome, AU_WINNER);
    CHECK_INT(d.r.install, 0);
    CHECK_INT(d.r.online.outcome, AU_WINNER);
    CHECK_INT(d.r.online.install, 1);
    au_analysis_free(a);
}

/* research.restart: a callee's JIT install (au_analysis_code_changed) before the
 * decision starts the bakeoff over, sums, count and clock, so that its
 * decision rests on the samples after the install alone: here those say
 * the opposite of the ones before.  The oracle starts over too.  Off, the
 * samples stay; while audit.verify samples on after a decision, they stay
 * too. */
TEST(audit_ring_analysis_restart)
{
    for (int mode = 0; mode < 4; mode++) {   /* on, off, oracle, verifying */
        AuConfig cfg = quick_config();
        cfg.restart = mode != 1;
        cfg.oracle = mode == 2;
        cfg.verify = mode == 3;
        if (mode == 0)
            cfg.timeout = 5;   /* spent by 105 s, were the clock not begun anew */
        Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
        uint32_t id;
        AuAnalysis *a = hand_begun(&cfg, &d, &id);
        if (!a)
            return;
        AuRng rng;
        au_rng_seed(&rng, 7);
        for (int i = 0; i < (mode == 3 ? 3 : 1); i++) {   /* verifying: decided at the third */
            split_samples(&rng, id, 2000, 1);
            au_analysis_step(a, 101.0 + i);
        }
        AuResult r;
        CHECK(au_analysis_result(a, id, &r));
        CHECK_INT(r.online.outcome, mode == 3 ? AU_WINNER : AU_RUNNING);
        uint64_t before = r.v[1].samples;
        CHECK(mode == 3 ? before == 0 : before == 900);   /* verifying: its fresh sums */
        if (mode == 3) {   /* some samples after the decision, which a restart would drop */
            split_samples(&rng, id, 2000, 1);
            au_analysis_step(a, 104.0);
            au_analysis_result(a, id, &r);
            before = r.v[1].samples;
        }
        bool restarts = mode == 0 || mode == 2;
        CHECK_INT(au_analysis_code_changed(a, id), restarts);
        au_analysis_step(a, 105.0);
        CHECK(au_analysis_result(a, id, &r));
        CHECK_INT(r.restarted, restarts);
        CHECK_INT(r.timed_before, restarts ? 2000 : 0);   /* what drop_idle still counts */
        CHECK_INT(r.v[1].samples, restarts ? 0 : before);
        if (mode == 0) {
            CHECK_INT(r.v[1].received, 0);
            for (int i = 0; i < 3; i++) {
                split_samples(&rng, id, 2000, 0);
                au_analysis_step(a, 106.0 + i);
            }
            CHECK_INT(decided(&d), 1);
            CHECK_INT(d.r.outcome, AU_WINNER);
            CHECK_INT(d.r.install, 0);
            CHECK_INT(d.r.restarted, 1);
            CHECK_INT(d.r.v[0].samples, 2700);
        }
        au_analysis_free(a);
    }
}

/* research.wait_jit: while a callee waits in the JIT's queue
 * (au_analysis_jit_queued) a decision is held, the bakeoff foreseeing
 * nothing while it holds one (before, it foresees as any), and taken once the callee is out of the queue; at the
 * wall-time budget a held decision ends as a timeout with the default.
 * Off, or for the oracle, it is taken at once. */
TEST(audit_ring_analysis_wait_jit)
{
    for (int mode = 0; mode < 4; mode++) {   /* held, off, oracle, held at the budget */
        AuConfig cfg = quick_config();
        cfg.wait_jit = mode != 1;
        cfg.oracle = mode == 2;
        cfg.timeout = mode == 3 ? 2.5 : 0;   /* spent at the third round */
        Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
        uint32_t id;
        AuAnalysis *a = hand_begun(&cfg, &d, &id);
        if (!a)
            return;
        CHECK(au_analysis_jit_queued(a, id, true));
        AuRng rng;
        au_rng_seed(&rng, 9);
        AuResult r;
        split_samples(&rng, id, 400, 1);   /* short of min_samples: nothing to hold */
        au_analysis_step(a, 100.1);
        CHECK(au_analysis_result(a, id, &r));   /* its elapsed by the clock: past a budget */
        CHECK_INT(r.outcome, cfg.timeout > 0 ? AU_TIMEOUT : AU_RUNNING);
        CHECK(!r.foresight.withheld);   /* queued alone, it still foresees */
        for (int i = 0; i < 3; i++) {
            split_samples(&rng, id, 2000, 1);
            au_analysis_step(a, 101.0 + i);
        }
        if (mode == 1 || mode == 2 || mode == 3) {   /* decided, or out of time */
            CHECK_INT(decided(&d), 1);
            CHECK_INT(d.r.outcome, mode == 3 ? AU_TIMEOUT : AU_WINNER);
            CHECK_INT(d.r.install, mode == 3 ? 0 : 1);
            CHECK(mode == 3 ? d.r.held >= 1 : d.r.held == 0);
            au_analysis_free(a);
            continue;
        }
        CHECK_INT(decided(&d), 0);
        CHECK(au_analysis_result(a, id, &r));
        CHECK_INT(r.outcome, AU_WINNER);   /* what the look says */
        CHECK(r.held >= 1);
        CHECK(r.foresight.withheld);
        CHECK(au_analysis_jit_queued(a, id, false));   /* the callee is compiled */
        split_samples(&rng, id, 200, 1);
        au_analysis_step(a, 104.0);
        CHECK_INT(decided(&d), 1);
        CHECK_INT(d.r.outcome, AU_WINNER);
        CHECK_INT(d.r.install, 1);
        CHECK(d.r.held >= 1);
        au_analysis_free(a);
    }
}

/* audit.max_overhead: the timed calls may cost at most max_overhead of a
 * core's cycles.  With calls through the dispatcher at R a second (each
 * timed call stands for `every` calls, the rate it came at), a bakeoff is
 * timed 1 call in max(sample_every, ⌈R × timed_cost / (max_overhead ×
 * cycles_hz)⌉), through its own policy slot; the other slots keep the
 * base rate.  A slow counter (10⁷ a second) keeps the sample counts
 * within a ring buffer: 0.01 × 10⁷ / 100 = 1,000 timed calls a second,
 * so the base rate, 1 in 20, up to R = 20,000. */
TEST(audit_ring_rate_follows_calls)
{
    AuConfig cfg = ring_config();
    cfg.jitter = 0;
    cfg.max_overhead = 0.01;
    cfg.timed_cost = 100;
    cfg.cycles_hz = 1e7;
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    AuAnalysis *a = hand_analysis(&cfg, &d);
    if (!a)
        return;
    CHECK(au_analysis_policy(a, VM_AUDIT_SLOTS) == NULL);
    uint32_t busy = au_analysis_begin(a, 2, 3, 100.0);
    uint32_t calm = au_analysis_begin(a, 2, 5, 100.0);
    /* 100 timed calls in 0.1 s at 1 in 20: R = 20,000, the base rate */
    for (int i = 0; i < 100; i++)
        au_sample_record(busy, (uint32_t)(i & 1), 280, 1);
    au_analysis_step(a, 100.1);
    CHECK_INT(au_analysis_policy(a, 3)->reset, 4 * 19);
    /* 3,000 more by 0.2 s: R = (2,000 + 60,000) / 0.2 = 310,000, so 1 in
     * ⌈310,000 × 100 / 10⁵⌉ = 310 */
    for (int i = 0; i < 3000; i++)
        au_sample_record(busy, (uint32_t)(i & 1), 280, 1);
    au_analysis_step(a, 100.2);
    CHECK_INT(au_analysis_policy(a, 3)->reset, 4 * 309);
    AuResult r;
    CHECK(au_analysis_result(a, busy, &r));
    CHECK_INT(r.sample_every, 310);
    /* the cost per call does not matter: 30 calls of 2,000 cycles keep 1 in 20 */
    for (int i = 0; i < 30; i++)
        au_sample_record(calm, (uint32_t)(i & 1), 2000, 1);
    au_analysis_step(a, 100.3);
    CHECK_INT(au_analysis_policy(a, 5)->reset, 4 * 19);
    CHECK_INT(au_analysis_policy(a, 0)->reset, 4 * 19);
    CHECK(au_analysis_result(a, calm, &r));
    CHECK_INT(r.sample_every, 20);
    /* at 0.3 s busy had nothing new, a stale look (10 rounds):
     * R = 62,000 / 0.3, 1 in 207; later calls count at the rate they came
     * at: 20 more by 0.4 s are 4,140 calls, R = 66,140 / 0.4 = 165,350:
     * 1 in 166 */
    for (int i = 0; i < 20; i++)
        au_sample_record(busy, (uint32_t)(i & 1), 280, 1);
    au_analysis_step(a, 100.4);
    CHECK_INT(au_analysis_policy(a, 3)->reset, 4 * 165);
    /* the slot goes back to the base rate when its bakeoff leaves */
    CHECK(au_analysis_cancel(a, busy));
    au_analysis_step(a, 100.5);
    CHECK_INT(au_analysis_policy(a, 3)->reset, 4 * 19);
    CHECK_INT(decided(&d), 0);
    au_analysis_free(a);

    /* max_overhead 0: the base rate whatever the cost */
    cfg.max_overhead = 0;
    a = hand_analysis(&cfg, &d);
    if (!a)
        return;
    busy = au_analysis_begin(a, 2, 3, 100.0);
    for (int i = 0; i < 3000; i++)
        au_sample_record(busy, (uint32_t)(i & 1), 280, 1);
    au_analysis_step(a, 100.1);
    CHECK_INT(au_analysis_policy(a, 3)->reset, 4 * 19);
    au_analysis_free(a);
    AuDrainCounts c = {0};
    drain_all(ignore, NULL, &c);
}

/* The decision's trajectory (AuResult.trajectory, analysis.c): a look a
 * round once both variants have a window; thinned evenly when full, the
 * latest look kept apart; written as "looks" and "trajectory". */
TEST(audit_ring_trajectory)
{
    AuConfig cfg = ring_config();
    cfg.timeout = 0;
    cfg.min_samples = cfg.max_samples = 100000000;   /* never decides */
    Decisions d = {.lock = PTHREAD_MUTEX_INITIALIZER};
    uint32_t id;
    AuAnalysis *a = hand_begun(&cfg, &d, &id);
    if (!a)
        return;
    for (int i = 0; i < 451; i++) {   /* a window of 100 a variant a round; the first look has no estimate */
        for (int k = 0; k < 200; k++)
            au_sample_record(id, (uint32_t)(k & 1), (k & 1 ? 900 : 1000) + (uint64_t)(k % 7), 1);
        au_analysis_step(a, 101.0 + i * 0.01);
    }
    CHECK_INT(decided(&d), 0);
    AuResult r;
    CHECK(au_analysis_result(a, id, &r));
    const AuTrajectory *t = &r.trajectory;
    /* kept 0..199, thinned to every 2nd at 200 and every 4th at 400: the
     * looks 0, 4, …, 448 */
    CHECK_INT(t->looks, 450);
    CHECK_INT(t->every, 4);
    CHECK_INT(t->n, 113);
    CHECK_INT(t->look[1].n, t->look[0].n + 4 * 90);   /* 90 kept of a window of 100 */
    for (uint32_t i = 1; i < t->n && i < AU_TRAJECTORY_MAX; i++)
        CHECK(t->look[i].n > t->look[i - 1].n && t->look[i].t > t->look[i - 1].t);
    CHECK_INT(t->last.n, r.v[0].samples < r.v[1].samples ? r.v[0].samples : r.v[1].samples);
    CHECK_INT(t->last.best, 1);
    CHECK(t->last.rel < -0.05 && t->last.lo <= t->last.rel && t->last.hi >= t->last.rel);
    /* the JSON: the kept looks, then the latest (449: thinned out) */
    AuBakeoffRecord rec = {.id = 1, .nvariants = 2, .installed = -1, .result = r};
    snprintf(rec.method, sizeof rec.method, "f");
    snprintf(rec.variants[0].name, sizeof rec.variants[0].name, "a");
    snprintf(rec.variants[1].name, sizeof rec.variants[1].name, "b");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    au_report_json(f, &rec, 1, "");
    fclose(f);
    const char *p = text ? strstr(text, "\"looks\":450,\"trajectory\":[[") : NULL;
    CHECK(p != NULL);
    int looks = 0;   /* the trajectory's elements: [..] between its brackets */
    for (const char *q = p ? strchr(p, '[') + 1 : ""; *q && *q != ']'; q++) {
        if (*q != '[')
            continue;
        looks++;
        while (q[1] && q[1] != ']')
            q++;
        q++;   /* at the element's ']' */
    }
    CHECK_INT(looks, 114);
    free(text);
    au_analysis_free(a);
}
