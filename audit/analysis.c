/* audit/analysis.c — the analysis thread: samples in, decisions out.
 *
 * Input: the per-thread sample buffers (samples.c) and the bakeoffs begun
 * with au_analysis_begin.  Output: one AuDecideFn call per finished
 * bakeoff, and fresh randomized dispatch parameters every round.
 *
 * Every cfg.interval seconds one round (au_analysis_step): drain every
 * buffer, route each sample by bakeoff id into that bakeoff's AuStats
 * (trimming and running sums), test every bakeoff that received samples
 * this round (or whose wall-time budget may have run out, or that was
 * not tested for STALE_ROUNDS), and retire
 * those with an outcome or too cheap to time (AU_CHEAP_SAMPLES).  Tests
 * run on a fixed schedule, not on demand, so the number of looks grows
 * with time only — the sequential test's
 * guarantee does not depend on it anyway.
 *
 * With audit.verify (research), a bakeoff that decides is not retired:
 * the decision is kept (AuResult.online) and it samples on from fresh
 * sums as the oracle would (verify()), so that its final result is the
 * same code's truth in the same process, on samples the decision did not
 * see.
 *
 * With research.restart, a bakeoff whose samples began before the JIT
 * installed code for one of its callees (au_analysis_code_changed)
 * starts over before its decision (restart()); with research.wait_jit, its
 * decision waits while one of its callees is queued in the JIT
 * (au_analysis_jit_queued, held()).
 *
 * A paused bakeoff (au_analysis_pause: the auditor gave its slot to
 * another for a turn, audit.quantum_ms) is neither tested nor counted as
 * elapsed until it resumes; the sequential test's guarantee holds at any
 * look, so where the looks fall in time does not matter.
 *
 * Invariants:
 * - The program's threads never take a lock here: they only push samples
 *   and read the policy parameters.
 * - `lock` guards the bakeoff table; it is held for a round and by
 *   begin/cancel/result (compile or main thread).  Decisions are reported
 *   after it is released, so a callback may call back into the auditor.
 * - One AuAnalysis drains the process's buffers: at most one per process.
 */
#include "audit.h"
#include "loops.h"
#include "record.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct Bakeoff {
    uint32_t id;
    int slot;                  /* policy slot, or −1 */
    int32_t every;             /* its rate: 1 timed call in this many */
    uint64_t timed;            /* timed calls (kept, trimmed, warm-up) at its last test */
    double calls;              /* calls through its dispatcher: Σ new timed calls × the rate then */
    double start;
    double tested;             /* when it was last tested */
    bool fresh;                /* received samples since its last test */
    bool judged;               /* tested past au_rate_judged_from() */
    double paused;             /* when its turn ended (au_analysis_pause), 0 = sampling */
    AuStats st;
    AuConfirm confirm;         /* a decision waiting for audit.confirm */
    AuOnline online;           /* audit.verify: its decision; outcome ≠ RUNNING once verifying */
    bool code_changed;         /* au_analysis_code_changed since its samples began */
    int restarted;             /* times its samples started over (research.restart) */
    uint64_t timed_before;     /* timed calls (au_result_timed_calls) before its last restart */
    bool jit_queued;           /* au_analysis_jit_queued: a callee waits in the JIT's queue */
    int held;                  /* looks whose decision waited for it (research.wait_jit) */
    bool loops;                /* loop timings (au_analysis_loops): decided on `regions` */
    AuLoops regions;
    AuScore score[AU_SCORES];  /* timing quality of its samples, per mode */
    AuTrajectory traj;         /* its looks so far (trajectory_add) */
} Bakeoff;

/* Rounds after which a bakeoff that received nothing is tested anyway.
 * Its samples may have stopped for good (the phase that called its
 * method is over, after a few timed calls): only a test can find its
 * budget futile (au_stats_test: too_slow, from 0.3 s of sampling on)
 * before audit.timeout_ms has passed, and meanwhile it holds its slot
 * and the queue waits. */
enum { STALE_ROUNDS = 10 };

struct AuAnalysis {
    AuConfig cfg;
    AuDecideFn decide;
    void *ctx;
    AuPolicyParams policy[VM_AUDIT_SLOTS];
    AuRng rng;
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* stop requests */
    pthread_t thread;
    bool running, stopping;
    uint32_t next_id;
    int nbakeoffs, capbakeoffs;
    Bakeoff **bakeoffs;        /* sampling and paused ones */
    Bakeoff *last;             /* routing cache: the previous sample's bakeoff */
    AuCounters counters;
    uint64_t cycles0;          /* au_cycles() and au_now() at creation: the */
    double now0;               /* cycle counter's rate (cycles_hz) */
    double min_timing;         /* two back-to-back counter reads, fewest cycles (AuScore) */
    AuRecorder *rec;           /* audit.record: every drained sample goes there too; NULL = none */
    pthread_mutex_t stop_mu;   /* one au_analysis_stop at a time (the end, or a signal's) */
};

void au_score_add(AuScore *s, double cycles, double min_timing)
{
    s->n++;
    s->sum += cycles;
    s->sumsq += cycles * cycles;
    double d = cycles - (min_timing - 0.1);
    s->inv += 100 / (d > 0.1 ? d : 0.1);
}

double au_score_converge(const AuScore *s)
{
    if (s->n < 2)
        return NAN;
    double n = (double)s->n, mean = s->sum / n, var = (s->sumsq - n * mean * mean) / (n - 1);
    return var > 0 ? n / var : INFINITY;
}

double au_score_perturb(const AuScore *s)
{
    return s->n ? s->inv / (double)s->n : NAN;
}

/* MIN_TIMING: the fewest cycles between two back-to-back counter reads. */
static double min_timing(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = au_cycles(), b = au_cycles();
        if (b - a < best)
            best = b - a;
    }
    return (double)best;
}

double au_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

AuAnalysis *au_analysis_new(const AuConfig *cfg, AuDecideFn decide, void *ctx)
{
    AuAnalysis *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->cfg = *cfg;
    a->decide = decide;
    a->ctx = ctx;
    a->next_id = 1;
    a->cycles0 = au_cycles();
    a->now0 = au_now();
    a->min_timing = min_timing();
    uint64_t seed = cfg->seed;
    if (!seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 48;
    }
    au_rng_seed(&a->rng, seed);
    for (int s = 0; s < VM_AUDIT_SLOTS; s++) {
        /* the threads' gaps follow audit.seed too */
        a->policy[s].seed = (uint32_t)au_rng_next(&a->rng);
        au_policy_perturb(&a->policy[s], cfg->sample_every, cfg->burst, cfg->jitter, &a->rng);
    }
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->stop_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->wake, &ca);
    pthread_condattr_destroy(&ca);
    au_samples_configure(cfg->buffer_slots);
    return a;
}

static void *thread_main(void *arg)
{
    AuAnalysis *a = arg;
    struct timespec next;
    pthread_setname_np(pthread_self(), "tally-analysis");
    clock_gettime(CLOCK_MONOTONIC, &next);
    long step_ns = (long)(a->cfg.interval * 1e9);
    if (step_ns < 100000)
        step_ns = 100000;
    for (;;) {
        next.tv_nsec += step_ns % 1000000000L;
        next.tv_sec += step_ns / 1000000000L + next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&a->lock);
        while (!a->stopping &&
               pthread_cond_timedwait(&a->wake, &a->lock, &next) != ETIMEDOUT)
            ;
        bool stop = a->stopping;
        pthread_mutex_unlock(&a->lock);
        if (stop)
            break;
        au_analysis_step(a, au_now());
        /* a late round does not trigger a burst of catch-up rounds */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now;
    }
    return NULL;
}

bool au_analysis_start(AuAnalysis *a)
{
    pthread_mutex_lock(&a->lock);
    bool ok = a->running;
    if (!ok) {
        a->stopping = false;
        ok = a->running = !vm_fault(VM_FAULT_THREAD) && pthread_create(&a->thread, NULL, thread_main, a) == 0;
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

void au_analysis_stop(AuAnalysis *a)
{
    /* the stats writer's thread may stop it at a signal while the main
     * thread stops it at the end: the thread is joined once */
    pthread_mutex_lock(&a->stop_mu);
    pthread_mutex_lock(&a->lock);
    bool running = a->running;
    a->stopping = true;
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->lock);
    if (running)
        pthread_join(a->thread, NULL);
    pthread_mutex_lock(&a->lock);
    a->running = false;
    pthread_mutex_unlock(&a->lock);
    pthread_mutex_unlock(&a->stop_mu);
}

static void bakeoff_free(Bakeoff *b)
{
    au_stats_free(&b->st);
    au_loops_free(&b->regions);
    free(b);
}

void au_analysis_free(AuAnalysis *a)
{
    if (!a)
        return;
    au_analysis_stop(a);
    for (int i = 0; i < a->nbakeoffs; i++)
        bakeoff_free(a->bakeoffs[i]);
    free(a->bakeoffs);
    pthread_cond_destroy(&a->wake);
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->stop_mu);
    free(a);
}

uint32_t au_analysis_begin(AuAnalysis *a, int nvariants, int slot, double now)
{
    Bakeoff *b = calloc(1, sizeof *b);
    if (!b)
        return 0;
    b->slot = slot >= 0 && slot < VM_AUDIT_SLOTS ? slot : -1;
    b->every = a->cfg.sample_every;
    if (!au_stats_init(&b->st, nvariants, &a->cfg)) {
        free(b);
        return 0;
    }
    b->start = b->tested = now;
    pthread_mutex_lock(&a->lock);
    if (a->nbakeoffs == a->capbakeoffs) {
        int cap = a->capbakeoffs ? 2 * a->capbakeoffs : 16;
        Bakeoff **v = realloc(a->bakeoffs, (size_t)cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&a->lock);
            bakeoff_free(b);
            return 0;
        }
        a->bakeoffs = v;
        a->capbakeoffs = cap;
    }
    b->id = a->next_id++;
    if (!a->next_id)
        a->next_id = 1;
    a->bakeoffs[a->nbakeoffs++] = b;
    uint32_t id = b->id;
    pthread_mutex_unlock(&a->lock);
    return id;
}

/* Index of bakeoff id, or −1; lock held. */
static int find(AuAnalysis *a, uint32_t id)
{
    for (int i = 0; i < a->nbakeoffs; i++)
        if (a->bakeoffs[i]->id == id)
            return i;
    return -1;
}

bool au_analysis_loops(AuAnalysis *a, uint32_t id, const AuLoopCode *code)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    Bakeoff *b = i >= 0 ? a->bakeoffs[i] : NULL;
    bool ok = b && !b->loops && code->nvariants == b->st.nvariants &&
              au_loops_init(&b->regions, b->st.nvariants, code->nparts / code->nvariants, code->npoints, code);
    if (ok) {
        b->loops = true;
        b->every = 1;   /* a rarely called method: every call timed */
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

/* Removes entry i; lock held. */
static Bakeoff *take(AuAnalysis *a, int i)
{
    Bakeoff *b = a->bakeoffs[i];
    a->bakeoffs[i] = a->bakeoffs[--a->nbakeoffs];
    if (a->last == b)
        a->last = NULL;
    return b;
}

bool au_analysis_cancel(AuAnalysis *a, uint32_t id)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    Bakeoff *b = i >= 0 ? take(a, i) : NULL;
    pthread_mutex_unlock(&a->lock);
    if (b)
        bakeoff_free(b);
    return b != NULL;
}

bool au_analysis_pause(AuAnalysis *a, uint32_t id, double now)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    if (i >= 0 && !(a->bakeoffs[i]->paused > 0))
        a->bakeoffs[i]->paused = now > 0 ? now : 1e-9;
    pthread_mutex_unlock(&a->lock);
    return i >= 0;
}

bool au_analysis_resume(AuAnalysis *a, uint32_t id, double now)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    if (i >= 0) {
        Bakeoff *b = a->bakeoffs[i];
        if (b->paused > 0) {
            b->start += now - b->paused;   /* elapsed counts turns only */
            b->paused = 0;
        }
        b->tested = now;
    }
    pthread_mutex_unlock(&a->lock);
    return i >= 0;
}

/* research.wait_jit: whether b's decision waits, a method its variants call
 * being queued or compiling in the JIT.  Why: a restart (research.restart)
 * sees a callee's install only before the decision, and a bakeoff can
 * reach its decision while callees its variants reach still wait in the
 * JIT's queue, measuring a program the winner will not run in.  Its
 * install then starts the samples over, and the decision is taken on
 * the program the winner will run in.  Only withholds a decision, so the
 * test's error rate is unchanged; at the wall-time budget the bakeoff
 * ends as a timeout.  Not the oracle (no early decision to hold), nor
 * audit.verify's samples after a decision. */
static bool held(const AuAnalysis *a, const Bakeoff *b)
{
    return a->cfg.wait_jit && !a->cfg.oracle && b->jit_queued && b->online.outcome == AU_RUNNING;
}

/* Lock held: the look r (at `elapsed` seconds of sampling) joins b's
 * trajectory, when it has an estimate and b is not verifying (the
 * trajectory is the decision's).  Thinning keeps the kept looks evenly
 * spread over the whole run however long it samples. */
static void trajectory_add(Bakeoff *b, const AuResult *r, double elapsed)
{
    if (b->online.outcome != AU_RUNNING || r->best < 0 || r->best >= r->nvariants || !isfinite(r->rel))
        return;
    uint64_t n = UINT64_MAX;
    for (int k = 0; k < r->nvariants && k < JIT_MAX_VARIANTS; k++)
        if (r->v[k].samples < n)
            n = r->v[k].samples;
    AuTrajectory *t = &b->traj;
    AuLook l = {(float)elapsed, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, (int8_t)r->best, (int8_t)r->runner_up,
                (float)r->rel, (float)r->rel_lo, (float)r->rel_hi};
    if (t->every == 0)
        t->every = 1;
    if (t->looks % t->every == 0) {
        if (t->n == AU_TRAJECTORY_MAX) {   /* full: every other one goes */
            for (uint32_t i = 0; i < AU_TRAJECTORY_MAX / 2; i++)
                t->look[i] = t->look[2 * i];
            t->n = AU_TRAJECTORY_MAX / 2;
            t->every *= 2;
        }
        if (t->looks % t->every == 0)
            t->look[t->n++] = l;
    }
    t->last = l;
    t->looks++;
}

/* Lock held: one look at b — the test, then its confirmation on c (the
 * bakeoff's own, or a copy for a look that must not step it); verifying,
 * the oracle's look at the samples after the decision, which rides along. */
static AuOutcome look(const AuAnalysis *a, const Bakeoff *b, AuConfirm *c, double elapsed, AuResult *out)
{
    AuOutcome o;
    if (b->loops) {   /* on the per-invocation estimate; no confirmation */
        o = au_loops_test(&b->regions, &a->cfg, a->cfg.test, elapsed, out);
        out->loops = true;
        out->sample_every = b->every;
        memcpy(out->score, b->score, sizeof out->score);
        out->min_timing = a->min_timing;
        out->trajectory = b->traj;
        return o;
    }
    o = au_stats_test(&b->st, a->cfg.test, elapsed, out);
    memcpy(out->score, b->score, sizeof out->score);
    out->min_timing = a->min_timing;
    if (b->online.outcome != AU_RUNNING) {   /* verifying: the decision's counts stay */
        out->online = b->online;
        out->unconfirmed = c->unconfirmed;
        out->fresh_disagreed = c->fresh_disagreed;
    } else
        o = au_stats_confirm(c, &b->st, &a->cfg, a->cfg.test, elapsed, out);
    out->sample_every = b->every;
    out->restarted = b->restarted;
    out->timed_before = b->timed_before;
    out->held = b->held;
    /* holding a decision, its turn ends on time: the JIT decides when.
     * Only then: one merely with a queued callee still foresees its
     * decision (at first every bakeoff has one queued) */
    if (held(a, b) && (o == AU_WINNER || o == AU_NO_DIFFERENCE))
        out->foresight.withheld = true;
    out->trajectory = b->traj;
    return o;
}

/* Lock held: audit.verify.  b's online test decided r; instead of ending,
 * b samples on from fresh sums as the oracle does (one look at
 * audit.max_samples a variant, no wall-time budget), so that its final
 * estimate is independent of the samples that decided and measures the
 * same code in the same process.  False (no memory): b ends as decided. */
static bool verify(const AuAnalysis *a, Bakeoff *b, const AuResult *r, double elapsed)
{
    AuConfig cfg = a->cfg;
    cfg.oracle = true;
    cfg.verify = false;
    cfg.timeout = 0;
    AuStats fresh;
    if (!au_stats_init(&fresh, b->st.nvariants, &cfg))
        return false;
    uint64_t n = UINT64_MAX;
    for (int k = 0; k < r->nvariants; k++)
        if (r->v[k].samples < n)
            n = r->v[k].samples;
    b->online = (AuOnline){r->outcome, r->install, r->rel, r->rel_lo, r->rel_hi, elapsed, n};
    au_stats_free(&b->st);
    b->st = fresh;
    return true;
}

bool au_analysis_jit_queued(AuAnalysis *a, uint32_t id, bool queued)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    if (i >= 0)
        a->bakeoffs[i]->jit_queued = queued;
    pthread_mutex_unlock(&a->lock);
    return i >= 0;
}

bool au_analysis_code_changed(AuAnalysis *a, uint32_t id)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    bool restarts = false;
    if (i >= 0) {
        Bakeoff *b = a->bakeoffs[i];
        b->code_changed = true;
        restarts = a->cfg.restart && b->online.outcome == AU_RUNNING;
    }
    pthread_mutex_unlock(&a->lock);
    return restarts;
}

/* Lock held: research.restart.  Why: a variant's timed call includes its
 * callees', and while the JIT still compiles the program's hot methods a
 * callee leaves the interpreter in the middle of a bakeoff.  It then
 * costs one variant more than the other where one inlines it, or calls a
 * callee of it that nothing called directly before, enough to turn a
 * difference's sign.  The samples before
 * a callee's install measure another program, so b begins again: fresh
 * sums and confirmation, its clock and rate anew (elapsed is sampling
 * time since the restart, so that futility's rate and the wall-time
 * budget match its samples).  A restart depends on no sample, so each
 * run of samples is a test of its own at the test's level (over k runs,
 * k·α by the union bound; a run cut short seldom reaches a decision and
 * its confirmation).  The JIT installs each method's entry once, so
 * restarts end.  Callees only (the auditor asks, jit_bakeoff_calls):
 * restarted at every install in the program, a bakeoff would begin again
 * many times while the JIT compiles on for seconds, and seldom decide.
 * The oracle too, so that its truth is of the code a decision lives with,
 * not of a sample taken while the JIT compiled on.  Before the decision only: audit.verify's
 * samples after it measure what the program runs, installs and all.
 * False (no memory): b goes on. */
static bool restart(const AuAnalysis *a, Bakeoff *b, double now)
{
    b->code_changed = false;
    AuStats fresh;
    if (!au_stats_init(&fresh, b->st.nvariants, &a->cfg))
        return false;
    for (int k = 0; k < b->st.nvariants; k++)
        b->timed_before += b->st.v[k].received + b->st.v[k].warmups;
    au_stats_free(&b->st);
    b->st = fresh;
    b->confirm = (AuConfirm){.unconfirmed = b->confirm.unconfirmed,
                             .fresh_disagreed = b->confirm.fresh_disagreed};
    b->start = b->tested = now;
    b->timed = 0;
    b->calls = 0;
    b->fresh = false;
    b->restarted++;
    b->traj = (AuTrajectory){0};   /* its looks are of the samples since */
    return true;
}

bool au_analysis_result(AuAnalysis *a, uint32_t id, AuResult *out)
{
    pthread_mutex_lock(&a->lock);
    int i = find(a, id);
    if (i >= 0) {
        Bakeoff *b = a->bakeoffs[i];
        double elapsed = (b->paused > 0 ? b->paused : au_now()) - b->start;
        AuConfirm c = b->confirm;   /* a look, not a step: the state stays */
        look(a, b, &c, elapsed, out);
    }
    pthread_mutex_unlock(&a->lock);
    return i >= 0;
}

/* Files s into its bakeoff; returns what became of it (record.h:
 * AU_REC_RECEIVED, _UNKNOWN, _INVALID) and, for audit.record, the variant,
 * copy and region it was filed under. */
static int file_sample(AuAnalysis *a, const AuSample *s, uint32_t *variant, uint32_t *copy, uint32_t *part_region)
{
    Bakeoff *b = a->last;
    uint32_t region = AU_SAMPLE_REGION(s->variant);
    *variant = AU_SAMPLE_PART(s->variant), *copy = 255;
    *part_region = region;
    if (!b || b->id != s->bakeoff) {
        int i = find(a, s->bakeoff);
        if (i < 0) {
            a->counters.unknown++;
            return AU_REC_UNKNOWN;
        }
        b = a->last = a->bakeoffs[i];
    }
    /* timed code reports c·N + k for copy c of variant k (audit.copies),
     * and a loop timing's region above it */
    uint32_t n = (uint32_t)b->st.nvariants, arm = AU_SAMPLE_PART(s->variant);
    *variant = arm % n, *copy = arm / n;
    if (region) {
        if (!b->loops || arm >= n * (uint32_t)b->regions.ncopies ||
            !au_loops_add(&b->regions, (int)arm, (int)region, s->cycles, s->weight)) {
            a->counters.invalid++;
            return AU_REC_INVALID;
        }
        au_score_add(&b->score[AU_SCORE_MARKERS], (double)s->cycles, a->min_timing);
        b->fresh = true;
        return AU_REC_RECEIVED;
    }
    if (s->variant & AU_SAMPLE_WARMUP) {
        if (arm >= n * JIT_MAX_COPIES || !au_stats_add_warmup(&b->st, (int)(arm % n), s->cycles)) {
            a->counters.invalid++;
            return AU_REC_INVALID;
        }
        return AU_REC_RECEIVED;   /* not fresh: nothing to test anew */
    }
    if (arm >= n * JIT_MAX_COPIES || !au_stats_add_copy(&b->st, (int)(arm % n), (int)(arm / n), s->cycles, s->weight)) {
        a->counters.invalid++;
        return AU_REC_INVALID;
    }
    au_score_add(&b->score[AU_SCORE_METHOD], (double)s->cycles, a->min_timing);
    b->fresh = true;
    return AU_REC_RECEIVED;
}

static void route(void *ctx, const AuSample *s)
{
    AuAnalysis *a = ctx;
    uint32_t variant, copy, region;
    int status = file_sample(a, s, &variant, &copy, &region);
    if (a->rec)
        au_record_sample(a->rec, s, variant, copy, region, (s->variant & AU_SAMPLE_WARMUP) != 0, status);
}

/* The method's cost per call is known: every variant has AU_CHEAP_SAMPLES. */
static bool cost_known(const AuResult *r)
{
    if (r->best < 0)
        return false;
    for (int k = 0; k < r->nvariants; k++)
        if (r->v[k].samples < AU_CHEAP_SAMPLES)
            return false;
    return true;
}

/* Too cheap to time (AU_CHEAP_SAMPLES): reported at once, on this thread,
 * rather than left to the bakeoff thread, which may be busy compiling
 * other bakeoffs for seconds while a getter pays for 1 timed call in 20. */
static bool too_cheap(const AuConfig *cfg, const AuResult *r)
{
    return cfg->min_cycles > 0 && cost_known(r) && r->v[r->best].cycles < cfg->min_cycles;
}

/* Cycles a second of the cycle counter: cfg->cycles_hz, else measured
 * against the clock since the analysis began (real time, whatever `now`
 * a test passes); 0 while that is too short to tell. */
static double cycles_hz(const AuAnalysis *a)
{
    if (a->cfg.cycles_hz > 0)
        return a->cfg.cycles_hz;
    double dt = au_now() - a->now0;
    return dt >= 0.02 ? (double)(au_cycles() - a->cycles0) / dt : 0;
}

/* The bakeoff's sampling rate: 1 timed call in cfg->sample_every, or
 * fewer where the timed calls' own cost (cfg->timed_cost cycles each:
 * slow path, two fenced cycle-counter reads, the sample) would exceed
 * cfg->max_overhead of a core's cycles, at the method's rate of calls
 * through its dispatcher (calls_per_s, estimated from the timed calls
 * and the rate each came at).  At 200 cycles and 1%, that allows 120,000
 * timed calls a second on a 2.4 GHz counter: 1 in 20 up to 2.4 million
 * calls a second.
 *
 * Why the program's cycles and not the method's: the budget is the
 * overhead the program pays, and one bakeoff samples at a time.  A budget
 * of max_overhead of the *method's* time (1 call in
 * timed_cost / (max_overhead × c) for c cycles a call) would time a
 * 110-cycle method called 900,000 times a second 1 call in 110, at a cost
 * of 0.04% of the program: too few samples to decide in a run.  Under a
 * method-time budget the program-time cost is that times the method's
 * share, so this rule never allows less than the program-level goal. */
static int32_t sample_rate(const AuConfig *cfg, double calls_per_s, double hz)
{
    int32_t every = cfg->sample_every;
    if (every <= 0 || !(cfg->max_overhead > 0) || !(cfg->timed_cost > 0) || !(calls_per_s > 0) || !(hz > 0))
        return every;
    double need = ceil(calls_per_s * cfg->timed_cost / (cfg->max_overhead * hz) - 1e-9);   /* 20.000…01 is 20 */
    if (need > AU_MAX_EVERY)
        need = AU_MAX_EVERY;
    return need > every ? (int32_t)need : every;
}

typedef struct Done {
    uint32_t id;
    double elapsed;
    AuResult r;
} Done;

void au_analysis_step(AuAnalysis *a, double now)
{
    Done *done = NULL;
    int ndone = 0;
    pthread_mutex_lock(&a->lock);
    a->counters.rounds++;
    if (a->rec)
        au_record_round(a->rec, now - a->now0);
    au_samples_drain(route, a, &a->counters.drain);
    if (a->rec)
        au_record_round_end(a->rec);
    double hz = cycles_hz(a);
    for (int i = 0; i < a->nbakeoffs;) {
        Bakeoff *b = a->bakeoffs[i];
        if (b->paused > 0) {   /* between turns: its samples wait for the next */
            i++;
            continue;
        }
        if (b->code_changed && a->cfg.restart && b->online.outcome == AU_RUNNING &&
            restart(a, b, now)) {   /* after the drain: the samples up to now go */
            i++;   /* nothing to test yet */
            continue;
        }
        double elapsed = now - b->start;
        bool late = a->cfg.timeout > 0 && elapsed >= a->cfg.timeout;
        bool stale = now - b->tested >= STALE_ROUNDS * a->cfg.interval;
        /* a rare method's samples may not come in the round its rate is
         * first judged: it would take another turn before being ended */
        bool judge = !b->judged && elapsed >= au_rate_judged_from(&a->cfg);
        if (!b->fresh && !late && !stale && !judge) {
            i++;
            continue;
        }
        if (!done && !(done = malloc((size_t)a->nbakeoffs * sizeof *done))) {
            i++;   /* no memory this round: tested again at the next */
            continue;
        }
        b->fresh = false;
        b->tested = now;
        b->judged |= judge;
        Done *d = &done[ndone];
        bool verifying = b->online.outcome != AU_RUNNING;
        AuOutcome o = look(a, b, &b->confirm, elapsed, &d->r);
        trajectory_add(b, &d->r, elapsed);
        d->r.trajectory = b->traj;
        uint64_t timed = au_result_timed_calls(&d->r);
        if (timed < b->timed)   /* verify() began fresh sums */
            b->timed = 0;
        b->calls += (double)(timed - b->timed) * b->every;
        b->timed = timed;
        b->every = b->loops ? 1 : sample_rate(&a->cfg, elapsed > 0 ? b->calls / elapsed : 0, hz);
        d->r.sample_every = b->every;
        bool decided = o == AU_WINNER || o == AU_NO_DIFFERENCE;
        if (decided && held(a, b)) {   /* at the wall-time budget: a timeout, the default */
            d->r.held = ++b->held;
            o = late ? AU_TIMEOUT : AU_RUNNING;
            d->r.outcome = o;
            d->r.install = 0;
            decided = false;
        }
        bool cheap = !verifying && too_cheap(&a->cfg, &d->r);   /* judged before the decision only */
        /* one too cheap to time ends at its decision as it would (lifecycle.c) */
        if (a->cfg.verify && !verifying && decided && !cheap && verify(a, b, &d->r, elapsed))
            o = AU_RUNNING;
        if (o == AU_RUNNING && !cheap) {
            i++;
            continue;
        }
        d->id = b->id;
        d->elapsed = elapsed;
        ndone++;
        bakeoff_free(take(a, i));
    }
    /* a slot without a bakeoff keeps the base rate for the next one */
    int32_t every[VM_AUDIT_SLOTS];
    for (int s = 0; s < VM_AUDIT_SLOTS; s++)
        every[s] = a->cfg.sample_every;
    for (int i = 0; i < a->nbakeoffs; i++)
        if (a->bakeoffs[i]->slot >= 0 && !(a->bakeoffs[i]->paused > 0))
            every[a->bakeoffs[i]->slot] = a->bakeoffs[i]->every;
    for (int s = 0; s < VM_AUDIT_SLOTS; s++)
        au_policy_perturb(&a->policy[s], every[s], a->cfg.burst, a->cfg.jitter, &a->rng);
    pthread_mutex_unlock(&a->lock);
    for (int i = 0; i < ndone; i++)
        if (a->decide)
            a->decide(a->ctx, done[i].id, &done[i].r, done[i].elapsed);
    free(done);
}

AuPolicyParams *au_analysis_policy(AuAnalysis *a, int slot)
{
    return slot >= 0 && slot < VM_AUDIT_SLOTS ? &a->policy[slot] : NULL;
}

void au_analysis_record(AuAnalysis *a, AuRecorder *rec)
{
    pthread_mutex_lock(&a->lock);
    a->rec = rec;
    pthread_mutex_unlock(&a->lock);
}

double au_analysis_min_timing(const AuAnalysis *a)
{
    return a->min_timing;
}

double au_analysis_cycles_hz(const AuAnalysis *a)
{
    return cycles_hz(a);
}

void au_analysis_counters(AuAnalysis *a, AuCounters *out)
{
    pthread_mutex_lock(&a->lock);
    *out = a->counters;
    pthread_mutex_unlock(&a->lock);
}
