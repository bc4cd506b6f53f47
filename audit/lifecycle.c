/* audit/lifecycle.c — the bakeoff lifecycle: trigger, queue, compile,
 * dispatcher, decision, install.
 *
 * Input: a running VM whose hot methods the JIT compiles, the enabled
 * clients (audit.clients) and the audit.* tunables.  Output: for each
 * (compiled method, client) that gets hot, one bakeoff record (auditor_api.h)
 * and, when it is decided, the chosen variant's clean code installed.
 *
 * Life of a bakeoff (one record; --log=audit prints each step):
 *   trigger  the bakeoff thread scans the module every audit.interval_ms:
 *            a method whose compiled code has run audit.hot_threshold
 *            calls since the auditor first saw it compiled (compiled code
 *            counts m->prof.calls at entry) gets one record per enabled
 *            client that has not audited it: QUEUED, in a FIFO (with
 *            audit.methods, only the methods it names).  With
 *            audit.hot_threshold 0 the JIT's install hook queues and
 *            starts them as soon as the method's code is installed, on
 *            the compiling thread (with --jit=sync/eager the program's).
 *   start    at most audit.concurrent bakeoffs compile or sample at once;
 *            of the waiting ones whose method is not busy (one bakeoff
 *            per method at a time), those whose method is called now
 *            before the idle ones (au_queue_idle()), those not deferred before
 *            the deferred ones (defer()), then the one with the fewest
 *            turns starts next (never run: one READY first, then the most
 *            called through its entry lately; paused: the one foreseeing
 *            its decision soonest, then the least recently run), with a
 *            free policy slot (audit/queue.c: before()).
 *   ahead    while every slot samples, the next one that never ran is
 *            probed and compiled now, for a spare policy slot it holds,
 *            and waits READY; it starts in the first slot that frees,
 *            with nothing left to compile (research.ahead, start_ahead).
 *            Passed over (its method idle, or one that goes before it
 *            queued), it gives the slot back and waits READY as a
 *            paused one, and the one now next is compiled ahead.
 *   cheap?   before compiling: a variant whose every call is bounded below
 *            audit.min_cost IR cost units (judge_ir), or, on the bakeoff
 *            thread, a method whose probe (audit/probe.c) counts too few
 *            calls through its entry to decide or reads its timed call
 *            below PROBE_SCALE × audit.min_cycles (probed_useless), ends
 *            FAILED with nothing compiled.  One whose probe reads below
 *            audit.min_cycles goes back into the queue once, behind the
 *            others (research.defer, defer()): DEFERRED, then QUEUED.
 *   same IR  variants of equal option sets whose IR is the same code
 *            (research.same_ir; judge_ir, jit_bakeoff_same_ir) would compile
 *            to the same machine code: not probed, and only variant 0
 *            compiles, to end as "same" below.
 *   compile  on the bakeoff thread: jit_compile_bakeoff builds every
 *            variant with its own options (one gccjit context each) plus
 *            its timed wrapper and the dispatcher, as one unit.  Failure:
 *            FAILED with the reason; the method keeps its code.
 *   same     variants that all compiled to the same machine code
 *            (research.same_code; jit/same.c) end there, DONE, no-difference,
 *            variant 0's clean code installed, nothing timed and no
 *            dispatcher compiled (end_same) — but for variants asked for
 *            alike (aa), whose identical code is timed on purpose.
 *   sample   au_analysis_begin gives the id timed code reports under;
 *            then one entry store (a compare-and-swap against the code
 *            the auditor found) installs the dispatcher: SAMPLING.
 *   turns    a bakeoff still sampling after audit.quantum_ms of its turn,
 *            while a waiting one has had no more turns (yields()), is PAUSED: the
 *            old code back, its samples kept, its clock stopped
 *            (au_analysis_pause).  Its next turn reinstalls the same
 *            dispatcher, nothing recompiled, on the same policy slot (the
 *            slot is compiled into the dispatcher).  Why: one bakeoff
 *            that cannot decide (a difference between the equivalence
 *            margin and min_effect, a heavy-tailed recursion) held the
 *            only slot for the whole 30 s budget, and the ones queued
 *            behind it, with differences of 5-10%, never started.
 *   restart  the JIT installs compiled code for a method the variants
 *            call (JitBakeoffTable.callees) while it samples or is
 *            paused: its samples start over (on_install,
 *            au_analysis_code_changed; research.restart).  While one of
 *            them is queued or compiling in the JIT, its decision waits
 *            (mark_jit_queued every round; research.wait_jit).
 *   extend   unless it foresees its decision within the extra turns it
 *            has left (audit.extend a turn; AuResult.to_decide): then it
 *            keeps the slot one turn more (extend()).
 *   cut      a quarter into a turn (audit.cut), one that can end only
 *            undecided by then, even extended, is paused at once
 *            (cut_short()).
 *   decide   the analysis thread's AuDecideFn: the record gets the final
 *            result, one store installs the chosen variant's clean code
 *            (winner, or variant 0 on no-difference and timeout): DONE.
 *            The method is never audited again by that client.
 *            (audit.verify: the analysis keeps the online decision and
 *            samples on as the oracle; what it reports here is that look.)
 *   cheap    a bakeoff whose fastest variant's timed call is below
 *            audit.min_cycles (the timer would dominate) ends FAILED with
 *            the old code back, after AU_CHEAP_SAMPLES samples a variant
 *            or at its decision, whichever comes first (both reported by
 *            the analysis thread, so a busy bakeoff thread cannot delay it).
 *   idle     a dispatcher without a timed call in 100 analysis intervals
 *            of sampling (turns summed), or one that futility ends
 *            before that without a timed call, ends FAILED with the old
 *            code back (the method is no longer called through its
 *            entry): it would hold its slot for nothing.  With turns,
 *            one whose turn got none (futility's verdict) while under
 *            those 100 intervals is PAUSED instead until its method is
 *            called again, its analysis begun afresh at its next turn
 *            (pause_idle: a phase of the program that comes back).  Not
 *            with audit.sample_every=0, where no call is timed.
 *
 * Dispatch (thesis Fig. III.9): the dispatcher is variant 0's clean code
 * behind `if (--t->audit[slot].countdown >= 0) → clean`; below zero it
 * calls slow_path (here), which undoes that decrement and asks
 * au_policy_next — the same decrement once, so the generated fast path
 * plus slow_path is exactly au_policy_next — then calls variant 0's clean
 * code or timed variant k.  The state is per thread (VmThread.audit),
 * reached from the dispatcher's own t argument: no thread-local lookup,
 * correct on any thread that runs compiled code.
 *
 * Invariants:
 * - mu guards the records, the method states, the slots and the counts;
 *   compiles run without it.  Lock order: mu, then the analysis lock
 *   (au_analysis_begin/result/cancel under mu); the analysis thread calls
 *   decide without its own lock, so the order never inverts.
 * - The dispatch data (AuDispatch) of loaded code is never freed while
 *   the program may run: a dispatcher frame can outlive its bakeoff.
 * - The program's threads run the dispatcher, the slow path and
 *   au_sample_record, none of which takes a lock; they take mu only when
 *   they compile for the JIT themselves (sync/eager) and the install
 *   hook starts a bakeoff (audit.hot_threshold 0).
 */
#include "auditor.h"
#include "loops.h"
#include "record.h"
#include "remember.h"

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds a probe waits for its timed calls (it stands in front of the
 * method meanwhile; the bakeoff thread waits, as it would for a compile). */
#define PROBE_WAIT 0.1
/* ... and up to this when its calls so far look too few to decide. */
#define PROBE_RARE_WAIT 0.5
/* A probe's verdict "too cheap" needs a reading below this share of
 * audit.min_cycles.  A bakeoff's timed call read 0.9-1.9 times the probe
 * of the same method (73 methods of 7 AWFY benchmarks, --audit=inline,
 * variant 0 against the probe; docs/auditing.md): the probe times the
 * installed code, warm, every call the same code, a bakeoff a variant in
 * bursts among others.  At 0.45 a reading of up to 2.2 times the probe
 * would still be below audit.min_cycles. */
#define PROBE_SCALE 0.45

/* Seconds over which scan measures a method's call rate. */
#define RATE_PERIOD 0.5

static void event(AuAuditor *au, AuBakeoff *b, AuEvent ev)
{
    if (au->log)
        au_log_event(au->log, au_since(au), &b->rec, ev);
}

/* ---- the slow path (program thread) ---------------------------------------- */

/* The dispatcher's countdown went below zero.  Undo its decrement and let
 * au_policy_next decide (it decrements again): clean variant 0 or timed k.
 *
 * Calls of the method nested in a timed call that reach the dispatcher
 * run clean variant 0 and leave the policy alone: with nesting, the rest
 * of a burst and the next variant's burst fell inside the outer timed
 * call, at positions of the recursion that depended on the variant, and
 * A/A bakeoffs of recursive methods declared 3-11% "winners", the same
 * variant in every run.  (A variant's own calls of the method do not
 * come here: they call the variant directly, jit/variants.c; what does is
 * a recursion through another method, a → b → a.)  So a timed call is
 * one call, its recursion included, untimed.  A run-time error unwinds
 * past the restore, but it ends the program.
 *
 * The first d->warmup calls of a burst are warm-up calls: timed like the
 * others, through the same wrapper, but their samples are only counted.
 * A variant's code runs only in its bursts, so its first call after a
 * gap finds it cold in the caches and branch predictors: a burst's first
 * call can take more than twice as long as the others, and two copies
 * differ far more there than at the burst's other calls (docs/auditing.md).  How cold a copy gets depends
 * on where its code falls among the program's, not on its options, and
 * the installed winner runs every call, warm. */
static VmValue slow_path(VmThread *t, VmMethod *m, VmValue *args, void *ctx)
{
    AuDispatch *d = ctx;
    /* d was filled in before its dispatcher went into m->entry (a
     * release); compiled callers load the entry with a plain move, which
     * C cannot see as the acquire it is on x86-64: this load is it */
    (void)__atomic_load_n(&m->entry, __ATOMIC_ACQUIRE);
    VmAuditSlot *st = &t->audit[d->slot];
    st->countdown++;
    int32_t place = -st->countdown;   /* if timed: its place in the burst, 0 first */
    int k = au_policy_next(st, d->params, d->arms);
    if (k == AU_CLEAN)
        return d->tab.clean[0](t, m, args);
    st->timing = k;
    int32_t saved = st->countdown;
    st->countdown = INT32_MAX;
    bool warmup = place < d->warmup;
    uint32_t outer = warmup ? au_sample_warmup(__atomic_load_n(&d->tab.bakeoff, __ATOMIC_RELAXED)) : 0;
    VmValue r = d->tab.timed(t, m, args);
    if (warmup)
        au_sample_warmup(outer);
    st->countdown = saved;
    return r;
}

/* ---- records ------------------------------------------------------------- */

static bool auditable(const AuAuditor *au, const VmMethod *m)
{
    return m->module == au->vm->module && !(m->flags & VM_M_ABSTRACT) && m->code && m->ncode > 0 &&
           !au->ms[m->index].excluded;
}

/* Under mu: a new QUEUED record for (m, c). */
static void enqueue(AuAuditor *au, VmMethod *m, AuClient c)
{
    if (au->nbakes == au->capbakes) {
        size_t cap = au->capbakes ? 2 * au->capbakes : 64;
        AuBakeoff **v = realloc(au->bakes, cap * sizeof *v);
        if (!v)
            return;   /* no memory: this bakeoff never happens */
        au->bakes = v;
        au->capbakes = cap;
    }
    AuBakeoff *b = calloc(1, sizeof *b);
    if (!b)
        return;
    b->m = m;
    b->client = c;
    b->slot = -1;
    AuBakeoffRecord *r = &b->rec;
    r->id = (uint32_t)au->nbakes + 1;
    snprintf(r->method, sizeof r->method, "%s", m->name ? m->name : "?");
    snprintf(r->client, sizeof r->client, "%s", au_client_name(c));
    r->phase = AU_PHASE_QUEUED;
    r->nvariants = au->nvariants[c];
    memcpy(r->variants, au->variants[c], sizeof r->variants);
    r->result.outcome = AU_RUNNING;
    r->result.test = au->cfg.test;
    r->result.nvariants = r->nvariants;
    r->result.best = r->result.runner_up = -1;
    r->installed = -1;
    r->oracle = au->cfg.oracle;
    r->copies = au->cfg.copies > 1 ? au->cfg.copies : 1;
    r->t_queued = au_since(au);
    au->bakes[au->nbakes++] = b;
    event(au, b, AU_EV_QUEUED);
}

/* The work n calls of m's compiled code stand for: with loop timings
 * possible (audit.timing not method), each call with the back edges a
 * call took in the interpreter's profile, so that a method called a few
 * times whose loops run long is hot too; otherwise the calls. */
static double work(const AuAuditor *au, const VmMethod *m, uint64_t n)
{
    if (au->cfg.timing_mode == AU_TIMING_METHOD)
        return (double)n;
    double calls = (double)__atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED);
    double back = (double)__atomic_load_n(&m->prof.backedges, __ATOMIC_RELAXED);
    return (double)n * (1 + (calls > 0 ? back / calls : 0));
}

/* Under mu: compiled methods that got hot get their clients' records;
 * every method's call rate is measured (the queue's order, au_queue_next). */
static void scan(AuAuditor *au)
{
    VmModule *mod = au->vm->module;
    double now = au_since(au);
    for (uint32_t i = 0; i < au->nmethods; i++) {
        AuMethodState *s = &au->ms[i];
        VmMethod *m = &mod->methods[i];
        if (!auditable(au, m) || (!s->seen && __atomic_load_n(&m->entry, __ATOMIC_ACQUIRE) == vm_interp_entry))
            continue;
        /* the program thread counts without atomics: a snapshot will do */
        uint64_t calls = __atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED);
        if (!s->seen) {
            s->seen = true;
            s->base = s->mark = s->last = calls;
            s->mark_t = now;
            continue;
        }
        s->called = calls != s->last;
        s->last = calls;
        if (now - s->mark_t >= RATE_PERIOD) {
            s->rate = (double)(calls - s->mark) / (now - s->mark_t);
            s->rated = true;
            s->mark = calls;
            s->mark_t = now;
        }
        if (s->asked == au->clients)
            continue;
        if (work(au, m, calls - s->base) < au->hot_threshold)
            continue;
        for (int c = 0; c < AU_NCLIENTS; c++)
            if ((au->clients & 1u << c) && !(s->asked & 1u << c)) {
                enqueue(au, m, (AuClient)c);
                s->asked |= 1u << c;
            }
    }
}

/* Timed calls the bakeoff's analysis received; a verifying one's
 * (audit.verify) count from its decision on, and the decision had some. */
static uint64_t received(const AuBakeoffRecord *r)
{
    uint64_t got = r->result.timed_before;   /* research.restart: the ones before */
    got += r->result.online.outcome != AU_RUNNING ? r->result.online.samples : 0;
    for (int k = 0; k < r->result.nvariants && k < JIT_MAX_VARIANTS; k++)
        got += r->result.v[k].received;
    return got;
}

/* Under mu: the latest look of every sampling or paused bakeoff into its
 * record. */
static void refresh(AuAuditor *au)
{
    double now = au_since(au);
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        if ((b->rec.phase == AU_PHASE_SAMPLING || b->rec.phase == AU_PHASE_PAUSED) && b->aid)
            au_analysis_result(au->an, b->aid, &b->rec.result);
        if (b->rec.phase == AU_PHASE_SAMPLING)
            b->rec.sampled = b->sampled + (now - b->turn_start);
    }
}

/* Under mu: b's current turn is over (paused, decided, failed or the
 * program ended): its sampling time adds up. */
static void end_turn(AuAuditor *au, AuBakeoff *b)
{
    double now = au_since(au);
    b->sampled += now - b->turn_start;
    b->rec.sampled = b->sampled;
    b->last_ran = now;
}

/* Under mu: b, sampling, has its samples start over (research.restart): its
 * turn begins again, unextended, the time so far counted as sampled.
 * Why: the turn's samples are gone, and judged on what is left of it,
 * the turn would end undecided or be cut (rotate()), and the bakeoff
 * wait seconds for its next.  Callees install once each, so a turn begins again at most
 * once a callee. */
static void turn_again(AuAuditor *au, AuBakeoff *b)
{
    double now = au_since(au);
    b->sampled += now - b->turn_start;
    b->turn_start = now;
    b->extra = 0;
}

/* Under mu: b no longer compiles or samples. */
static void release(AuAuditor *au, AuBakeoff *b)
{
    if (b->slot >= 0) {
        au->slots &= ~(1u << b->slot);
        b->slot = -1;
        if (!b->ahead && !b->beside)
            au->running--;
    }
    b->beside = false;
    if (au->ahead == b)
        au->ahead = NULL;
    b->ahead = false;
    au->ms[b->m->index].busy = false;
    pthread_cond_broadcast(&au->wake);
}

static void fail(AuAuditor *au, AuBakeoff *b, const char *why)
{
    b->rec.phase = AU_PHASE_FAILED;
    snprintf(b->rec.failure, sizeof b->rec.failure, "%s", why && *why ? why : "unknown error");
    b->rec.t_decided = au_since(au);
    release(au, b);
    event(au, b, AU_EV_FAILED);
}

/* Builds each variant's IR and judges it before anything is probed or
 * compiled.  True, with why, when a variant's every call is bounded below
 * audit.min_cost IR cost units: it would only time the timer (the
 * min_cycles rule would end it after its samples), so its compiles are
 * skipped (each bakeoff's variants and dispatcher cost the bakeoff thread
 * 0.1-1.4 s), and dispatchers stay off the smallest, most-called methods,
 * where their fast path costs the most.  Otherwise *same when same is
 * asked for and the variants are the same code already as IR
 * (jit_bakeoff_same_ir): the inline client's two variants of a method
 * whose call sites inline alike under both thresholds, most of its
 * bakeoffs, which probed, compiled and compared cost 0.1-0.4 s each
 * (now: no probe, and only variant 0 compiles).  Mu not held. */
static bool judge_ir(AuAuditor *au, VmMethod *m, const JitBakeoffRequest *rq, bool *same, char *why, size_t size)
{
    int64_t min = au->cfg.min_cost;
    bool check = *same;
    *same = false;
    if (min <= 0 && !check)
        return false;
    IrFunc *ir[JIT_MAX_VARIANTS] = {0};
    bool cheap = false;
    for (int k = 0; k < rq->nvariants && !cheap; k++) {
        VmError err = {{0}};
        ir[k] = ir_compile(m, &rq->ir[k], NULL, &err);
        uint64_t bound = 0;
        if (min > 0 && ir[k] && ir_cost_bound(ir[k], &bound) && bound < (uint64_t)min) {
            snprintf(why, size,
                     "too cheap to time: a call costs at most %llu IR cost units (no loop, no call) < "
                     "audit.min_cost %lld; not compiled",
                     (unsigned long long)bound, (long long)min);
            cheap = true;
        }
    }
    *same = !cheap && check && jit_bakeoff_same_ir(rq, ir);
    for (int k = 0; k < rq->nvariants; k++)
        ir_free(ir[k]);
    return cheap;
}

static bool is_stopping(AuAuditor *au)
{
    pthread_mutex_lock(&au->mu);
    bool stopping = au->stopping;
    pthread_mutex_unlock(&au->mu);
    return stopping;
}

/* audit.probe: stands a probe (probe.h) in front of b's method's
 * installed code until it has audit.probe timed calls or PROBE_WAIT has
 * passed; when by then the calls through the entry look too few to
 * decide (au_rate_futile), it goes on to PROBE_RARE_WAIT, so that a
 * verdict of "rarely called" rests on half a second of calls.  The
 * reading (cycles, rate) goes into s; a method is probed once, its other
 * clients' bakeoffs reuse the reading.  Mu not held; b's method is busy,
 * so no dispatcher comes or goes meanwhile. */
static void probe(AuAuditor *au, AuBakeoff *b, AuMethodState *s, int64_t want)
{
    AuProbe *p = calloc(1, sizeof *p);
    if (!p || !au_probe_install(p, b->m)) {
        free(p);
        return;
    }
    s->probe = p;
    double t0 = au_now(), t;
    struct timespec ms = {0, 1000000};
    for (;;) {
        nanosleep(&ms, NULL);
        t = au_now() - t0;
        if (au_probe_count(p) >= (uint64_t)want || t >= PROBE_RARE_WAIT || is_stopping(au))
            break;
        if (t >= PROBE_WAIT && !au_rate_futile(&au->cfg, au_probe_calls(p) / t, b->rec.nvariants, AU_RARE_MARGIN, NULL))
            break;
    }
    bool stood = au_probe_remove(p, b->m);
    t = au_now() - t0;
    s->probe_rate = au_probe_calls(p) / t;
    /* a rate verdict needs the whole window: not cut short by the end of
     * the program, nor by new code that pushed the probe out */
    s->rate_known = stood && t >= PROBE_WAIT && !is_stopping(au);
    uint32_t n = au_probe_count(p);
    if (n >= AU_PROBE_MIN || n >= (uint64_t)want) {
        s->probe_samples = n;
        s->probe_cycles = au_probe_mean(p, n, (double)au->cfg.trim_drop / au->cfg.trim_window);
    }
}

/* Before compiling, on the bakeoff thread, which may wait (`wait`: with
 * audit.hot_threshold 0 a bakeoff starts on the thread that compiled the
 * method, possibly the program's): probes b's method (probe) and is true,
 * with why, when the bakeoff cannot be of use:
 * - too cheap: the installed code's timed call reads below PROBE_SCALE ×
 *   audit.min_cycles.  The bakeoff would end "too cheap to time" after
 *   its compiles (0.1-0.3 s of this thread each; in some programs most
 *   hot methods are such) and 1,000 samples a variant.  The installed code stands for the default variant: the
 *   clients' variant 0 is the JIT's own options.
 * - rarely called: the calls through its entry, at AU_RARE_MARGIN times
 *   their rate, would end it as futile by rate (au_rate_futile).  It
 *   would compile, hold the slot for 0.3-0.9 s (stats.c: too_slow) and
 *   end as a timeout without samples; that time goes to the paused
 *   bakeoffs' next turns.  The probe counts every call through the
 *   entry, nested ones too: what a dispatcher would see. */
static bool probed_useless(AuAuditor *au, AuBakeoff *b, bool wait, char *why, size_t size)
{
    int64_t want = au->cfg.probe;
    if (!wait || want <= 0 || au->cfg.sample_every <= 0)
        return false;
    AuMethodState *s = &au->ms[b->m->index];
    if (!s->probe)
        probe(au, b, s, want);
    pthread_mutex_lock(&au->mu);   /* records are read under mu (au_bakeoffs_snapshot) */
    b->rec.probe_cycles = s->probe_cycles;
    b->rec.probe_samples = s->probe_samples;
    b->rec.probe_rate = s->probe_rate;
    pthread_mutex_unlock(&au->mu);
    double kept = 0;
    if (s->rate_known && au_rate_futile(&au->cfg, s->probe_rate, b->rec.nvariants, AU_RARE_MARGIN, &kept)) {
        snprintf(why, size,
                 "not called through its entry often enough: %.0f calls/s (probe), at %dx that %.0f samples "
                 "a variant in the time budget; not compiled",
                 s->probe_rate, AU_RARE_MARGIN, kept);
        return true;
    }
    double limit = PROBE_SCALE * au->cfg.min_cycles;
    if (!(au->cfg.min_cycles > 0) || !(s->probe_cycles > 0) || s->probe_cycles >= limit)
        return false;
    snprintf(why, size,
             "too cheap to time: the installed code's timed call reads %.0f cycles (probe, %u calls) < "
             "%.0f (%.2f × audit.min_cycles); not compiled",
             s->probe_cycles, s->probe_samples, limit, PROBE_SCALE);
    return true;
}

/* research.defer: b, probed (probed_useless) and not found useless, reads
 * its timed call below audit.min_cycles.  Such a bakeoff most often ends
 * "too cheap to time" after its compile and 1,000 samples a variant,
 * 0.1-1 s of the slot each while the slot waits for the compile, and
 * the waiting bakeoffs behind it may never start.  But the probe times
 * the installed code, and a variant's own compile can read 1.6 times
 * more, enough to decide, so the probe alone cannot end it.  So it goes
 * back into the queue, once, behind every waiting record not deferred
 * (before()); it starts when they have, or when nothing else can.  True
 * when b was put back (QUEUED again, its slot and method released);
 * nothing was compiled.  Mu not held. */
static bool defer(AuAuditor *au, AuBakeoff *b)
{
    if (!au->cfg.defer || !(au->cfg.min_cycles > 0) || !(b->rec.probe_cycles > 0) ||
        b->rec.probe_cycles >= au->cfg.min_cycles || b->rec.deferred)
        return false;
    pthread_mutex_lock(&au->mu);
    size_t at = au->nbakes;
    bool others = false;   /* a waiting record that would go before b */
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *c = au->bakes[i];
        if (c == b)
            at = i;
        else if (i >= au->first_waiting && au_queue_waiting(c) && !c->rec.deferred)
            others = true;
    }
    bool put_back = others && !au->stopping;
    if (put_back) {
        b->rec.deferred = true;
        release(au, b);
        b->rec.phase = AU_PHASE_QUEUED;
        b->rec.t_started = 0;
        if (at < au->first_waiting)
            au->first_waiting = at;
        event(au, b, AU_EV_DEFERRED);
    }
    pthread_mutex_unlock(&au->mu);
    return put_back;
}

/* Under mu: a new analysis for b, compiled for policy slot `slot`, its
 * id where b's timed code reports it; false (b FAILED) when the analysis
 * has no room. */
static bool begin_analysis(AuAuditor *au, AuBakeoff *b, int slot)
{
    uint32_t aid = au_analysis_begin(au->an, b->rec.nvariants, slot, au_now());
    if (!aid) {
        fail(au, b, "the analysis cannot take another bakeoff");
        return false;
    }
    if (b->d->loops && !au_analysis_loops(au->an, aid, b->d->loops)) {
        au_analysis_cancel(au->an, aid);
        fail(au, b, "the analysis cannot take the bakeoff's loop timings");
        return false;
    }
    if (au->rec) {   /* audit.record: the names its records go under */
        const char *names[JIT_MAX_VARIANTS];
        for (int k = 0; k < b->rec.nvariants && k < JIT_MAX_VARIANTS; k++)
            names[k] = b->rec.variants[k].name;
        au_record_bakeoff(au->rec, aid, b->rec.id, b->rec.method, b->rec.client, b->rec.nvariants, names,
                          b->rec.copies, b->d->loops ? b->rec.npoints : 0);
    }
    __atomic_store_n(&b->d->tab.bakeoff, aid, __ATOMIC_RELAXED);
    b->aid = aid;
    b->jit_queued = false;   /* as the analysis's new bakeoff (mark_jit_queued) */
    return true;
}

/* Under mu: b, now sampling, with loop timings (research.beside) leaves
 * audit.concurrent's count and the turns: it keeps its policy slot until
 * it ends, while the slot it took in the count starts the next waiting
 * bakeoff.  Why: such a method is called a few times in the whole run
 * (that is why it has loop timings), its calls are spread over the run,
 * and each one it misses while paused is lost for good; turns share
 * frequently called methods' samples, which come back every turn.  Its
 * sampling costs the program its markers' stubs, a call every
 * markers.every events of its loops. */
static void set_beside(AuAuditor *au, AuBakeoff *b)
{
    if (!au->cfg.beside || !b->d->loops || b->beside)
        return;
    b->beside = true;
    au->running--;
    pthread_cond_broadcast(&au->wake);
}

/* b's next turn (au_queue_take gave it its slot back): the same dispatcher
 * in place of the code it replaced, the analysis's clock running.  Mu not
 * held. */
static void resume(AuAuditor *au, AuBakeoff *b)
{
    pthread_mutex_lock(&au->mu);
    VmEntry expect = b->prev;
    /* paused idle (pause_idle): its analysis begins afresh */
    if (!b->aid && !begin_analysis(au, b, (int)b->d->slot)) {
        /* FAILED */
    } else if (!au_analysis_resume(au->an, b->aid, au_now())) {
        b->aid = 0;
        fail(au, b, "the analysis lost the bakeoff while it was paused");
    } else if (!__atomic_compare_exchange_n(&b->m->entry, &expect, b->d->tab.dispatcher, false, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED)) {
        au_analysis_cancel(au->an, b->aid);
        b->aid = 0;
        fail(au, b, "the method's code changed while the bakeoff was paused");
    } else {
        b->rec.phase = AU_PHASE_SAMPLING;
        b->rec.turns++;
        b->turn_start = au_since(au);
        b->extra = 0;
        event(au, b, AU_EV_RESUMED);
        set_beside(au, b);
    }
    pthread_mutex_unlock(&au->mu);
}

/* Whether rq's variants are asked for alike (the aa client, custom with
 * equal strings): identical code timed on purpose. */
static bool alike(const JitBakeoffRequest *rq)
{
    for (int k = 1; k < rq->nvariants; k++)
        if (strcmp(rq->optset[k], rq->optset[0]) || !ir_options_same(&rq->ir[k], &rq->ir[0]))
            return false;
    return true;
}

/* Under mu: b, just compiled, whose variants all compiled to the same
 * machine code (JitBakeoffTable.same_code; research.same_code), or would
 * have, as their IR showed (alone: variant 0 alone compiled): timing
 * them could show only where each copy landed, and would hold a slot for
 * a turn or more.  Variant 0's clean code replaces the code found, as a
 * no-difference would install it: DONE, nothing sampled.  Installed even
 * where the IR was the same: compiled from the current profile, it can
 * be faster than the JIT's first compile (docs/auditing.md, "Same code
 * and same IR"); its self-calls go through the entry as the JIT's do,
 * compiled alone or, found the same only after every variant compiled,
 * compiled again (jit/variants.c: direct self-calls cost a compare and
 * branch each). */
static void end_same(AuAuditor *au, AuBakeoff *b, bool alone)
{
    VmEntry found = __atomic_load_n(&b->m->entry, __ATOMIC_ACQUIRE);
    if (found == vm_interp_entry ||
        !__atomic_compare_exchange_n(&b->m->entry, &found, b->d->tab.clean[0], false, __ATOMIC_RELEASE,
                                     __ATOMIC_RELAXED)) {
        fail(au, b, "the method's code changed while its variants compiled");
        return;
    }
    b->rec.result.outcome = AU_NO_DIFFERENCE;
    b->rec.result.install = 0;
    b->rec.same_code = true;
    b->rec.same_ir = alone;
    b->rec.installed = 0;
    b->rec.phase = AU_PHASE_DONE;
    b->rec.t_decided = au_since(au);
    release(au, b);
    event(au, b, AU_EV_DECIDED);
    au_remember_note(au->verdicts, au, b);
}

/* Compiles b's variants and dispatcher for its slot (mu not held): true
 * with b->d set, or b FAILED (nothing compiled when a probe or the cost
 * bound shows it useless) or DONE (its variants the same code:
 * end_same).  wait: on the bakeoff thread, which may probe. */
static bool prepare(AuAuditor *au, AuBakeoff *b, bool wait)
{
    const AuBakeoffRecord *r = &b->rec;   /* its variants do not change any more */
    AuDispatch *d = calloc(1, sizeof *d);
    JitBakeoffRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.m = b->m;
    rq.id = r->id;
    rq.nvariants = r->nvariants;
    for (int k = 0; k < r->nvariants; k++) {
        IrOptions def;
        rq.ir[k] = *jit_ir_options(au->jit, &def);
        rq.ir[k].max_callee_size = r->variants[k].inline_max_callee_size;
        rq.ir[k].max_depth = r->variants[k].inline_max_depth;
        rq.ir[k].max_growth = r->variants[k].inline_max_growth;
        rq.optset[k] = r->variants[k].optset;
    }
    char why[sizeof b->rec.failure];
    bool end_if_same = au->cfg.same_code && !alike(&rq);
    bool same_ir = end_if_same && au->cfg.same_ir;
    AuLoopPlan lp;
    au_loops_plan(&au->cfg, b->m, &rq.ir[0], &lp);
    /* marker events less the stub's own cycles (none for naive timers,
     * the strawman); a stub that cannot be calibrated: method timings */
    double overhead = 0;
    VmError cal = {{0}};
    if (lp.n && au->cfg.timing_mode != AU_TIMING_NAIVE && !au_loops_calibrate(&overhead, &cal)) {
        snprintf(lp.reason, sizeof lp.reason, "%.120s", cal.msg);
        lp.n = 0;
    }
    pthread_mutex_lock(&au->mu);
    b->rec.npoints = lp.n;
    memcpy(b->rec.point_pc, lp.pc, sizeof lp.pc);
    for (uint32_t k = 0; k < lp.n && k < JIT_MAX_POINTS; k++)   /* the report's marker map */
        b->rec.point_line[k] = lp.pc[k] < b->m->ncode ? (uint32_t)vm_line_of(b->m, b->m->code + lp.pc[k]) : 0;
    b->rec.entry_freq = lp.entry_freq;
    snprintf(b->rec.timing_reason, sizeof b->rec.timing_reason, "%s", lp.reason);
    pthread_mutex_unlock(&au->mu);
    /* loop timings: a method called rarely is what they are for, so the
     * probe's rate is no reason to give up */
    if (judge_ir(au, b->m, &rq, &same_ir, why, sizeof why) ||
        (!same_ir && !lp.n && probed_useless(au, b, wait, why, sizeof why))) {
        pthread_mutex_lock(&au->mu);
        fail(au, b, why);
        pthread_mutex_unlock(&au->mu);
        free(d);
        return false;
    }
    /* the same IR: no probe, no deferral, the compile of variant 0 alone
     * (jit_compile_bakeoff tells the same from its own IR) */
    if (!same_ir && wait && defer(au, b)) {
        free(d);
        return false;
    }
    rq.slot = (uint32_t)b->slot;
    rq.slow = slow_path;
    rq.slow_ctx = d;
    rq.sample = au_sample_record;
    if (d && lp.n) {
        d->loops = au_loops_code_new(&d->tab.bakeoff, r->nvariants, r->copies, lp.n,
                                     jit_dump_has(jit_tunables(au->jit, &(JitTunables){0})->dump, "markers"));
        if (d->loops) {
            d->loops->overhead = overhead;
            d->loops->every = (uint32_t)au->cfg.markers.every;
            rq.npoints = lp.n;
            memcpy(rq.point_pc, lp.pc, sizeof rq.point_pc);
            rq.pinned = mk_pinned(&au->cfg.markers);
            rq.rewrite = au_loops_rewrite;
            rq.rewrite_ctx = d->loops;
            rq.enter = au_loops_enter;
            rq.enter_ctx = d->loops;
            rq.sample = au_loops_exit;
            rq.naive = au->cfg.timing_mode == AU_TIMING_NAIVE ? au_loops_naive : NULL;
        }
    }
    VmError err = {{0}};
    bool ok = d != NULL;
    if (d) {
        d->params = au_analysis_policy(au->an, b->slot);
        d->slot = (uint32_t)b->slot;
        d->nvariants = r->nvariants;
        d->arms = r->nvariants * r->copies;
        d->warmup = rq.npoints ? 0 : au->cfg.warmup;   /* loop timings: every call counts */
        rq.copies = r->copies;
        rq.no_prologue = !au->cfg.prologue;
        rq.end_if_same = end_if_same;
        rq.end_if_same_ir = end_if_same && au->cfg.same_ir;
        ok = au->compile(au->jit, &rq, &d->tab, &err);
    } else {
        vm_fail(&err, "out of memory");
    }

    pthread_mutex_lock(&au->mu);
    if (!ok) {
        free(d);   /* nothing loaded refers to it */
        fail(au, b, err.msg);
        pthread_mutex_unlock(&au->mu);
        return false;
    }
    b->d = d;      /* loaded code refers to it from now on: kept */
    if (d->loops) {
        b->rec.marker_sites = d->loops->sites;
        b->rec.markers_refused = d->loops->refused;
        b->rec.marker_map = d->loops->map;
        b->rec.marker_overhead = d->loops->overhead;
    }
    if (b->ahead)
        b->rec.phase = AU_PHASE_READY;
    event(au, b, AU_EV_COMPILED);
    bool same = d->tab.same_code && rq.end_if_same;
    if (same)
        end_same(au, b, d->tab.same_ir && rq.end_if_same_ir);
    pthread_mutex_unlock(&au->mu);
    return !same;
}

/* Under mu: b, compiled, in its slot: its dispatcher replaces the code
 * found, and the analysis's clock starts. */
static void install(AuAuditor *au, AuBakeoff *b)
{
    AuDispatch *d = b->d;
    /* under mu, so that a decision cannot arrive before b->aid is set */
    if (!begin_analysis(au, b, b->slot))
        return;
    /* the dispatcher replaces the code found; if something else installed
     * code meanwhile, that code stays and the bakeoff is void */
    VmEntry found = __atomic_load_n(&b->m->entry, __ATOMIC_ACQUIRE);
    if (found == vm_interp_entry ||
        !__atomic_compare_exchange_n(&b->m->entry, &found, d->tab.dispatcher, false, __ATOMIC_RELEASE,
                                     __ATOMIC_RELAXED)) {
        au_analysis_cancel(au->an, b->aid);
        b->aid = 0;
        fail(au, b, "the method's code changed while its variants compiled");
        return;
    }
    b->prev = found;
    b->rec.phase = AU_PHASE_SAMPLING;
    b->rec.t_sampling = b->turn_start = au_since(au);
    b->rec.turns = 1;
    event(au, b, AU_EV_SAMPLING);
    set_beside(au, b);
}

/* b, given a slot by au_queue_take: compiled (unless READY) and installed; a
 * paused b resumes instead.  Mu not held.  wait: as for prepare. */
static void start(AuAuditor *au, AuBakeoff *b, bool wait)
{
    if (b->rec.phase == AU_PHASE_PAUSED) {
        resume(au, b);
        return;
    }
    if (!b->d && !prepare(au, b, wait))
        return;
    pthread_mutex_lock(&au->mu);
    if (b->rec.phase == AU_PHASE_READY || b->rec.phase == AU_PHASE_COMPILING)
        install(au, b);
    pthread_mutex_unlock(&au->mu);
}

/* Under mu: b, sampling, got no timed call at all: its method is not
 * called through its entry (its callers inlined it, or the phase that
 * called it is over).  Ends FAILED with the old code back. */
static void fail_idle(AuAuditor *au, AuBakeoff *b)
{
    b->aid = 0;
    __atomic_store_n(&b->m->entry, b->prev, __ATOMIC_RELEASE);
    end_turn(au, b);
    char why[160];
    snprintf(why, sizeof why, "not called through its entry in %.1f s (inlined into its callers?); old code back",
             b->sampled);
    fail(au, b, why);
}

/* Under mu: b, sampling, au->bakes[i], gives up its slot: the old code
 * back, PAUSED, waiting again (event ev). */
static void to_paused(AuAuditor *au, AuBakeoff *b, size_t i, AuEvent ev)
{
    __atomic_store_n(&b->m->entry, b->prev, __ATOMIC_RELEASE);
    end_turn(au, b);
    b->rec.phase = AU_PHASE_PAUSED;
    release(au, b);
    if (i < au->first_waiting)
        au->first_waiting = i;
    event(au, b, ev);
}

/* Under mu: b, sampling, got no timed call in its turn (futility's
 * verdict, analysis.c, 0.3 s in; the analysis has dropped it): with
 * turns (audit.quantum_ms), and less than AU_IDLE_ROUNDS intervals sampled
 * so far, turns summed, it is PAUSED instead of failed: the old code
 * back, out of the queue (startable()) until its method is called
 * again; its next turn begins a fresh analysis (resume), as this one
 * measured nothing.  Why: a program's phases recur (Havlak's every
 * 0.8 s), and a method called only in one phase gets no call in a turn
 * that begins as its phase ends.  drop_idle fails one that stays idle
 * past the IDLE_ROUNDS intervals.  False: b is left to fail_idle. */
static bool pause_idle(AuAuditor *au, AuBakeoff *b)
{
    double sampled = b->sampled + (au_since(au) - b->turn_start);
    if (!(au->cfg.quantum > 0) || au->stopping || au->cfg.sample_every <= 0 ||
        sampled >= AU_IDLE_ROUNDS * au->cfg.interval)
        return false;
    b->aid = 0;
    b->foreseen = b->rec.result.to_decide = INFINITY;
    b->hopeless = false;
    b->rec.idled++;
    size_t i = 0;
    while (au->bakes[i] != b)
        i++;
    to_paused(au, b, i, AU_EV_IDLE);
    return true;
}

/* The analysis thread's decision on bakeoff aid. */
static void decide(void *ctx, uint32_t aid, const AuResult *res, double elapsed)
{
    (void)elapsed;
    AuAuditor *au = ctx;
    pthread_mutex_lock(&au->mu);
    AuBakeoff *b = NULL;
    for (size_t i = 0; i < au->nbakes && !b; i++)
        if (au->bakes[i]->aid == aid && au->bakes[i]->rec.phase == AU_PHASE_SAMPLING)
            b = au->bakes[i];
    /* too cheap to time: the analysis thread reports such a bakeoff as soon
     * as every variant has AU_CHEAP_SAMPLES (still running), and a decision
     * that comes first measured the timer too.  A timed call costs some
     * 50-60 cycles of its own (two lfence; rdtsc, the call through the
     * table, the frame): when a method's whole timed call is not much more,
     * tiny systematic differences of the timer (a fraction of a cycle
     * between variants, measured) become "winners", and sampling costs
     * more than the method */
    if (b && au->cfg.min_cycles > 0 && res->best >= 0 && res->best < b->rec.nvariants &&
        res->v[res->best].samples > 0 && res->v[res->best].cycles < au->cfg.min_cycles) {
        __atomic_store_n(&b->m->entry, b->prev, __ATOMIC_RELEASE);
        b->aid = 0;
        b->rec.result = *res;
        b->rec.result.outcome = AU_RUNNING;   /* not the auditor's decision */
        end_turn(au, b);
        char why[160];
        snprintf(why, sizeof why, "too cheap to time: %.0f cycles per timed call < audit.min_cycles %.0f; old code back",
                 res->v[res->best].cycles, (double)au->cfg.min_cycles);
        fail(au, b, why);
        b = NULL;
    }
    /* futile by rate without a single timed call: drop_idle's case,
     * which futility (judging from 0.3 s of sampling) reaches before
     * drop_idle (1 s).  Reported as what it is: a timeout would count as
     * an outcome of a bakeoff that measured nothing (e.g. its caller
     * compiled with it inlined just before the dispatcher went in) */
    if (b && res->outcome == AU_TIMEOUT && res->futile && !au_result_timed_calls(res)) {
        b->rec.result = *res;
        b->rec.result.outcome = AU_RUNNING;   /* not the auditor's decision */
        if (!pause_idle(au, b))
            fail_idle(au, b);
        b = NULL;
    }
    if (b) {
        int k = res->install >= 0 && res->install < b->rec.nvariants ? res->install : 0;
        __atomic_store_n(&b->m->entry, b->d->tab.clean[k], __ATOMIC_RELEASE);
        b->rec.result = *res;
        b->rec.installed = k;
        b->rec.phase = AU_PHASE_DONE;
        b->rec.t_decided = au_since(au);
        end_turn(au, b);
        release(au, b);
        event(au, b, AU_EV_DECIDED);
        au_remember_note(au->verdicts, au, b);
    }
    pthread_mutex_unlock(&au->mu);
}

/* Under mu: bakeoffs whose dispatcher got no timed call in AU_IDLE_ROUNDS
 * analysis intervals of sampling (turns summed: a turn may be shorter;
 * one that got samples and then none is futility's, analysis.c) end FAILED with the old code back.  Their method stopped being called
 * through its entry (its callers inlined it, or the phase that called it
 * is over); waiting for audit.timeout_ms would only hold the queue (one
 * slot by default), or take a turn in every round, for nothing. */
static void drop_idle(AuAuditor *au)
{
    /* with sampling off (audit.sample_every=0) no dispatcher makes a timed
     * call: silence says nothing, and that configuration exists to measure
     * the dispatchers' own cost, so they must stay */
    if (au->cfg.sample_every <= 0)
        return;
    double now = au_since(au), limit = AU_IDLE_ROUNDS * au->cfg.interval;
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        if (b->rec.phase != AU_PHASE_SAMPLING || !b->aid)
            continue;
        double sampled = b->sampled + (now - b->turn_start);
        if (received(&b->rec) || sampled < limit || !au_analysis_cancel(au->an, b->aid))
            continue;
        fail_idle(au, b);
    }
}

/* Under mu (then the analysis lock, the documented order): whether b,
 * whose turn is over, gets one more (audit.extend):
 * at its rate so far, were its estimate to hold, it would decide within
 * the extra turns it has left (AuResult.to_decide).  Why: with one slot
 * and a round of 20-50 bakeoffs, one that would decide in another second
 * would wait a whole round for it, and the run may end first.  A foresight that fails costs one turn; the
 * test is anytime-valid, so when it stops does not touch α. */
static bool extend(AuAuditor *au, AuBakeoff *b)
{
    int64_t max = au->cfg.extend;
    if (b->extra >= max)
        return false;
    AuResult r;
    if (!au_analysis_result(au->an, b->aid, &r) || r.outcome != AU_RUNNING)
        return false;
    r.to_decide = au_stats_to_decide(&au->cfg, &r);
    if (!(r.to_decide <= (double)(max - b->extra) * au->cfg.quantum))
        return false;
    b->extra++;
    b->rec.extended++;
    b->rec.result = r;
    event(au, b, AU_EV_EXTENDED);
    return true;
}

/* Under mu: whether b, audit.cut of the way into its turn or more (rotate()
 * asks), ends the turn now: at its rate so far it cannot have `need` samples (the
 * fewest any test looks at) by the turn's end, and its foresight sees no
 * decision by the end of the longest turn extend() could give it, so the
 * turn would end undecided.  Why: shortest job first; a turn spent that
 * way gives nothing the next one will not, and the bakeoffs waiting
 * behind it may decide in theirs: rarely timed bakeoffs would otherwise
 * spend most of the slot on whole turns ending with intervals ±20% wide.
 * Their samples stay; the test is anytime-valid, so
 * when a turn stops does not touch α. */
static bool cut_short(AuAuditor *au, AuBakeoff *b, double ran)
{
    AuResult r;
    if (!au_analysis_result(au->an, b->aid, &r) || r.outcome != AU_RUNNING || r.confirming)
        return false;
    const AuForesight *f = &r.foresight;
    double left = au->cfg.quantum * (1 + b->extra) - ran;
    double at_end = f->n && f->elapsed > 0 ? (double)f->n * (1 + left / f->elapsed) : 0;
    uint64_t need = f->need ? f->need : (uint64_t)au->cfg.min_samples;
    if (at_end >= (double)need)
        return false;
    return !(au_stats_to_decide(&au->cfg, &r) <= au_queue_longest_turn(au) - ran);
}

/* Under mu: whether sampling b, its turn over, gives its slot to c, the
 * waiting record au_queue_next() would start: c's method is called now
 * and b's is not (au_queue_idle()); or neither or both are, and b has a
 * callee queued in the JIT and c not (AuBakeoff.jit_queued); or that too is
 * alike and c has had no more turns than b. */
static bool yields(const AuAuditor *au, const AuBakeoff *b, const AuBakeoff *c)
{
    bool bi = au_queue_idle(au, b), ci = au_queue_idle(au, c);
    if (bi != ci)
        return bi;
    if (b->jit_queued != c->jit_queued)
        return b->jit_queued;
    return au_queue_turns_had(c) <= au_queue_turns_had(b);
}

/* Under mu: turns (audit.quantum_ms).  Pauses one bakeoff that has
 * sampled a whole turn while a waiting one could take its place and has
 * had no more turns, unless it foresees its decision within its extra
 * turns (extend: its turn then lasts one audit.quantum_ms more), or one
 * whose turn cut_short() ends early; start_pending then starts that one.
 * research.wait_jit: one with a callee queued in the JIT (Bake.jit_queued)
 * yields its slot at the cut point, or at its turn's end unextended, to
 * a waiting one without (AU_EV_YIELDED; not counted as a turn had,
 * queue_turns_had).  Why: the callee's install restarts its samples, so
 * those it takes meanwhile are thrown away, and the slot is better
 * another's meanwhile.  One a
 * round: two paused for one waiting record would leave a slot empty. */
static void rotate(AuAuditor *au)
{
    if (!(au->cfg.quantum > 0) || au->stopping)
        return;
    double now = au_since(au);
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        /* a decision waiting for its confirmation is let finish: paused, it
         * would wait for its samples a whole round of turns */
        if (b->rec.phase != AU_PHASE_SAMPLING || !b->aid || b->rec.result.confirming || b->beside)
            continue;
        double ran = now - b->turn_start;
        bool over = ran >= au->cfg.quantum * (1 + b->extra);
        int64_t cut = au->cfg.cut;   /* percent of a turn */
        if (!over && (cut <= 0 || ran < au->cfg.quantum * (double)cut / 100))
            continue;
        AuBakeoff *c = au_queue_next(au, b);
        if (!c || !yields(au, b, c))
            continue;
        /* its samples until a queued callee's install go at the restart:
         * it yields the slot to one whose samples stay, neither cut nor
         * extended */
        bool yield = b->jit_queued && !c->jit_queued;
        /* cut_short solves the foresight: only once another would take the slot */
        if (!over && !yield && !cut_short(au, b, ran))
            continue;
        if (over && !yield && extend(au, b))
            continue;
        /* false: the analysis decided it meanwhile, decide() is waiting for mu */
        if (!au_analysis_pause(au->an, b->aid, au_now()))
            continue;
        au_analysis_result(au->an, b->aid, &b->rec.result);
        b->foreseen = b->rec.result.to_decide = au_stats_to_decide(&au->cfg, &b->rec.result);
        b->hopeless = b->rec.result.foresight.n > 0 && !(b->foreseen <= au_queue_longest_turn(au));
        b->rec.cut += !over && !yield;
        b->rec.yielded += yield;
        to_paused(au, b, i, yield ? AU_EV_YIELDED : over ? AU_EV_PAUSED : AU_EV_CUT);
        return;
    }
}

/* ---- the bakeoff thread --------------------------------------------------- */

/* Under mu (released meanwhile): starts queued bakeoffs while there is
 * room.  wait: on the bakeoff thread (start). */
static void start_pending(AuAuditor *au, bool wait)
{
    AuBakeoff *b;
    while ((b = au_queue_take(au))) {
        pthread_mutex_unlock(&au->mu);
        start(au, b, wait);
        pthread_mutex_lock(&au->mu);
    }
}

/* Under mu (released meanwhile): research.ahead.  While every slot samples,
 * the record that would start next, if it never ran, is probed and
 * compiled now, for a policy slot of its own held meanwhile (the slot is
 * compiled into its dispatcher), and waits READY; queue_take then gives it
 * the first slot that frees, with nothing left to compile.  Why: probing
 * and compiling take 0.1-1 s a bakeoff, as long as sampling itself, and a
 * slot waiting for them samples nothing.  At most
 * one record is ahead; none when no slot is left to reserve. */
static bool start_ahead(AuAuditor *au, bool wait)
{
    if (!au->cfg.ahead || au->stopping || au->running < au->concurrent)
        return false;
    if (au->ahead && au->ahead->rec.phase != AU_PHASE_READY)
        return false;   /* still compiling */
    AuBakeoff *b = au_queue_next(au, NULL);
    if (!b || b->rec.phase != AU_PHASE_QUEUED)
        return false;
    if (au->ahead)
        au_queue_unreserve(au, au->ahead);
    int slot = au_queue_free_slot(au);
    if (slot < 0)
        return false;
    au_queue_claim(au, b, slot);
    b->ahead = true;
    au->ahead = b;
    pthread_mutex_unlock(&au->mu);
    prepare(au, b, wait);
    pthread_mutex_lock(&au->mu);
    return true;
}

/* Under mu: research.wait_jit — tells the analysis which bakeoffs have a
 * callee queued or compiling in the JIT (mu, then the JIT's lock, then
 * the analysis lock), when that changes: an analysis bakeoff begins
 * without, as does AuBakeoff.jit_queued (begin_analysis).  Asked every round
 * rather than at installs, since a queued compile can also fail or be
 * dropped.  With research.hurry_jit such a callee goes first in the JIT's
 * queue.  Why: the JIT orders its queue by interpreter work, so a cheap
 * callee can wait seconds behind methods with more work, while the
 * bakeoff yields its turns and loses its samples at the install. */
static void mark_jit_queued(AuAuditor *au)
{
    if (!au->cfg.wait_jit || au->cfg.oracle)
        return;
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        bool queued = false;
        if (b->aid && b->d && (b->rec.phase == AU_PHASE_SAMPLING || b->rec.phase == AU_PHASE_PAUSED)) {
            queued = jit_bakeoff_waits(au->jit, &b->d->tab, au->cfg.hurry_jit);
            if (queued != b->jit_queued)
                au_analysis_jit_queued(au->an, b->aid, queued);
        }
        b->jit_queued = queued;
    }
}

/* One round of the bakeoff thread (wait) or of a test (not: no probes). */
static void poll_round(AuAuditor *au, bool wait)
{
    pthread_mutex_lock(&au->mu);
    if (!au->stopping) {
        mark_jit_queued(au);
        scan(au);
        refresh(au);
        drop_idle(au);
        rotate(au);
    }
    start_pending(au, wait);
    if (start_ahead(au, wait))
        start_pending(au, wait);   /* a slot that freed meanwhile takes it now */
    pthread_mutex_unlock(&au->mu);
}

void au_auditor_poll(AuAuditor *au)
{
    poll_round(au, false);
}

/* The JIT installed compiled code for m (on the thread that compiled it):
 * its calls count from here; with audit.hot_threshold 0 its bakeoffs are
 * queued and started at once, on this thread — with --jit=sync or eager
 * before the program continues, which makes tests deterministic. */
static void on_install(void *ctx, VmMethod *m)
{
    AuAuditor *au = ctx;
    pthread_mutex_lock(&au->mu);
    /* research.restart: the bakeoffs whose variants call m (mu, then the
     * analysis lock) */
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        if (b->aid && b->d && (b->rec.phase == AU_PHASE_SAMPLING || b->rec.phase == AU_PHASE_PAUSED) &&
            jit_bakeoff_calls(&b->d->tab, m) && au_analysis_code_changed(au->an, b->aid) &&
            b->rec.phase == AU_PHASE_SAMPLING)
            turn_again(au, b);
    }
    if (!au->stopping && m->index < au->nmethods && m == &au->vm->module->methods[m->index] &&
        auditable(au, m)) {
        AuMethodState *s = &au->ms[m->index];
        if (!s->seen) {
            s->seen = true;
            s->base = s->mark = __atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED);
            s->mark_t = au_since(au);
        }
        if (au->hot_threshold == 0) {
            for (int c = 0; c < AU_NCLIENTS; c++)
                if ((au->clients & 1u << c) && !(s->asked & 1u << c)) {
                    enqueue(au, m, (AuClient)c);
                    s->asked |= 1u << c;
                }
            start_pending(au, false);
        }
    }
    pthread_mutex_unlock(&au->mu);
}

static void *bakeoff_thread(void *arg)
{
    AuAuditor *au = arg;
    pthread_setname_np(pthread_self(), "tally-bakeoff");
    /* not registered with the collector, as the JIT's compile thread
     * (jit/thread.c): it allocates nothing from the GC heap */
    long step_ns = (long)(au->cfg.interval * 1e9);
    pthread_mutex_lock(&au->mu);
    while (!au->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += step_ns % 1000000000L;
        until.tv_sec += step_ns / 1000000000L + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!au->stopping && pthread_cond_timedwait(&au->wake, &au->mu, &until) != ETIMEDOUT)
            if (au->running < au->concurrent && au->first_waiting < au->nbakes)
                break;   /* a slot came free: start the next one now */
        if (au->stopping)
            break;
        pthread_mutex_unlock(&au->mu);
        poll_round(au, true);
        pthread_mutex_lock(&au->mu);
    }
    pthread_mutex_unlock(&au->mu);
    return NULL;
}

/* ---- the auditor ------------------------------------------------------------ */

static AuCompileFn default_compiler(void)
{
    return jit_compile_bakeoff;
}

/* --stats: the bakeoffs, and how the recording goes. */
static void stats_extra(Vm *vm, FILE *f, void *ctx)
{
    AuAuditor *au = ctx;
    au_stats_extra(vm, f, au);
    au_remember_json(f, au->verdicts, au);
    au_record_json(f, au->rec);
}

/* Under nothing: the analysis stopped, the recording completed with the
 * samples it filed (the stats' counts then match the file's). */
static void record_finish(AuAuditor *au)
{
    au_analysis_stop(au->an);
    AuCounters c;
    au_analysis_counters(au->an, &c);
    VmError err = {{0}};
    bool ok = au_record_finish(au->rec, au_analysis_cycles_hz(au->an), &c, &err);
    pthread_mutex_lock(&au->mu);   /* a signal's thread and the main thread may both get here */
    au->rec_ok = ok;
    if (!ok && !au->rec_err.msg[0])
        au->rec_err = err;
    pthread_mutex_unlock(&au->mu);
}

/* The stats writer's thread, as a signal or the time limit ends the
 * process (vm/profile.c): the recording must be complete before. */
static void record_at_end(Vm *vm, void *ctx)
{
    (void)vm;
    record_finish(ctx);
}

AuAuditor *au_auditor_new(Vm *vm, struct Jit *jit, const AuConfig *cfg, VmError *err)
{
    if (err)
        err->msg[0] = 0;
    if (!vm || !vm->module)
        return vm_fail(err, "audit: no VM"), NULL;
    if (!cfg || !cfg->clients || !cfg->clients[0])
        return NULL;
    AuConfig checked = *cfg;
    JitTunables jdef;
    IrOptions idef;
    const char *optset = jit_tunables(jit, &jdef)->optset;
    const IrOptions *ir = jit_ir_options(jit, &idef);
    if (!au_check_config(&checked, optset, ir, err))
        return NULL;
    if (!jit)
        return vm_fail(err, "auditing needs the JIT (not --jit=off)"), NULL;
    AuAuditor *au = calloc(1, sizeof *au);
    if (!au)
        return vm_fail(err, "audit: out of memory"), NULL;
    au->vm = vm;
    au->jit = jit;
    au->t0 = jit_t0(jit);   /* one time base with --log=jit and the compile timeline */
    au->compile = default_compiler();
    au->cfg = checked;
    au->log = au->cfg.log ? stderr : NULL;
    au->hot_threshold = (uint64_t)au->cfg.hot_threshold;
    au->concurrent = (int)au->cfg.concurrent;
    if (!au_clients_parse(au->cfg.clients, &au->clients, err)) {
        free(au);
        return NULL;
    }
    for (int c = 0; c < AU_NCLIENTS; c++)
        if (au->clients & 1u << c)
            au->nvariants[c] = au_client_variants((AuClient)c, &au->cfg, optset, ir, au->variants[c], err);
    au->nmethods = vm->module->nmethods;
    au->ms = calloc(au->nmethods ? au->nmethods : 1, sizeof *au->ms);
    au->an = au_analysis_new(&au->cfg, decide, au);
    bool ok = au->ms && au->an;
    if (!ok)
        vm_fail(err, "audit: out of memory");
    if (!ok || !au_select_methods(au, au->cfg.methods, err)) {
        au_analysis_free(au->an);
        free(au->ms);
        free(au);
        return NULL;
    }
    pthread_mutex_init(&au->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&au->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (au->cfg.record && au->cfg.record[0]) {
        au->rec = au_record_open(au->cfg.record, &au->cfg, au_analysis_min_timing(au->an), err);
        if (!au->rec) {
            au_analysis_free(au->an);
            free(au->ms);
            free(au);
            return NULL;
        }
        au_analysis_record(au->an, au->rec);
        vm->hooks.at_end = record_at_end;
        vm->hooks.end_ctx = au;
    }
    au->verdicts = au_remember_load(au);
    vm->hooks.stats_extra = stats_extra;   /* --stats: "bakeoffs" (and "audit_record") */
    vm->hooks.stats_ctx = au;
    jit_set_install_hook(jit, on_install, au);
    return au;
}

bool au_auditor_start(AuAuditor *au, VmError *err)
{
    if (au->started)
        return true;
    if (!au_analysis_start(au->an))
        return vm_fail(err, "audit: cannot start the analysis thread");
    int e = vm_fault(VM_FAULT_THREAD) ? EAGAIN : pthread_create(&au->thread, NULL, bakeoff_thread, au);
    if (e) {
        au_analysis_stop(au->an);
        return vm_fail(err, "audit: cannot start the bakeoff thread: %s", strerror(e));
    }
    au->started = true;
    return true;
}

void au_auditor_stop(AuAuditor *au)
{
    if (!au)
        return;
    jit_set_install_hook(au->jit, NULL, NULL);   /* waits for a call in progress */
    pthread_mutex_lock(&au->mu);
    bool was = au->stopping;
    au->stopping = true;
    pthread_cond_broadcast(&au->wake);
    pthread_mutex_unlock(&au->mu);
    if (au->started)
        pthread_join(au->thread, NULL);
    au->started = false;
    au_analysis_stop(au->an);   /* no decision after this */
    if (!au_remember_save(au->verdicts, au) && au->log)
        fprintf(au->log, "[%.3fms] audit: this run's verdicts could not be kept in the code cache\n",
                au_since(au) * 1e3);
    if (au->rec)
        record_finish(au);
    if (was)
        return;
    /* bakeoffs still sampling or paused end undecided: their last look is
     * kept */
    pthread_mutex_lock(&au->mu);
    refresh(au);
    for (size_t i = 0; i < au->nbakes; i++) {
        AuBakeoff *b = au->bakes[i];
        if (b->rec.phase == AU_PHASE_SAMPLING || b->rec.phase == AU_PHASE_PAUSED) {
            if (b->aid)   /* none: paused idle (pause_idle) */
                au_analysis_cancel(au->an, b->aid);
            b->aid = 0;
            if (b->rec.phase == AU_PHASE_SAMPLING)
                end_turn(au, b);
            event(au, b, AU_EV_CANCELLED);
        }
    }
    pthread_mutex_unlock(&au->mu);
}

void au_auditor_free(AuAuditor *au)
{
    if (!au)
        return;
    au_auditor_stop(au);
    if (au->vm->hooks.stats_ctx == au) {
        au->vm->hooks.stats_extra = NULL;
        au->vm->hooks.stats_ctx = NULL;
    }
    if (au->vm->hooks.end_ctx == au) {
        au->vm->hooks.at_end = NULL;
        au->vm->hooks.end_ctx = NULL;
    }
    au_analysis_free(au->an);
    au_record_free(au->rec);
    au_remember_free(au->verdicts);
    /* the program has ended: no dispatcher runs any more */
    for (size_t i = 0; i < au->nbakes; i++) {
        free(au->bakes[i]->d);
        free(au->bakes[i]);
    }
    free(au->bakes);
    for (uint32_t i = 0; i < au->nmethods; i++)
        if (au->ms[i].probe) {
            au->vm->module->methods[i].tier = NULL;
            free(au->ms[i].probe);
        }
    free(au->ms);
    pthread_cond_destroy(&au->wake);
    pthread_mutex_destroy(&au->mu);
    free(au);
}

size_t au_bakeoffs_snapshot(AuAuditor *au, AuBakeoffRecord *out, size_t max)
{
    if (!au)
        return 0;
    pthread_mutex_lock(&au->mu);
    if (!au->stopping)
        refresh(au);
    size_t n = au->nbakes;
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = au->bakes[i]->rec;
    pthread_mutex_unlock(&au->mu);
    return n;
}

bool au_auditor_recorded(AuAuditor *au, VmError *err)
{
    if (!au || !au->rec)
        return true;
    pthread_mutex_lock(&au->mu);
    bool ok = au->rec_ok;
    if (!ok)
        snprintf(err->msg, sizeof err->msg, "%s", au->rec_err.msg[0] ? au->rec_err.msg : "samples were not recorded");
    pthread_mutex_unlock(&au->mu);
    return ok;
}

AuAnalysis *au_auditor_analysis(AuAuditor *au)
{
    return au->an;
}

void au_auditor_set_compiler(AuAuditor *au, AuCompileFn fn)
{
    pthread_mutex_lock(&au->mu);
    au->compile = fn ? fn : default_compiler();
    pthread_mutex_unlock(&au->mu);
}
