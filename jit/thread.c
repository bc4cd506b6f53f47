/* jit/thread.c — the compile queue and the one background compile thread.
 *
 * Input: methods the hot hook queues (jit_enqueue, on the program's
 * thread; OSR requests from the OSR hook).  Output: compiled code
 * installed by jit_compile_and_install_batch (one release store of
 * m->entry, and of m->osr for OSR requests) on the compile thread.
 *
 * One thread is enough: libgccjit serializes compiles anyway, and the
 * other core keeps running the program.  The queue is a binary max-heap
 * ordered by the interpreter work a compile would take over *now*: before
 * each unit is taken, every queued request's priority becomes its growth in
 * hotness (calls + back edges, a racy but bounded snapshot) since the last
 * refresh, per second, times the method's size plus a call's overhead,
 * plus, for a method making lambdas that compiled loops call, the growth
 * of their calls times a call's overhead (its compile inlines them).
 * Total hotness would put the many tiny getters that interpreted callers
 * call most ahead of the big methods that run longest.  A method whose
 * callers have meanwhile been compiled with it inlined stops growing and
 * waits, possibly forever.  Ties go to the older request (lower id).  A
 * request the auditor hurries (jit_hurry_locked: a bakeoff waits for its
 * install, research.hurry_jit) goes before all others.  Up to
 * jit.batch of the first are taken at once and compiled as one unit: one gcc
 * run, one as and one load, so the fixed cost of each is shared.  Only while
 * their bytecode adds up to jit.batch_bytecode, though: gcc's time grows
 * with a method's inlined size (DeltaBlue's 60-instruction chainTest
 * becomes 12 KB of code and most of a second of gcc), and a small method
 * batched with such a one would wait for it.  With jit.batch_backlog set,
 * a backlog (more than jit.batch x jit.batch_backlog requests) gets bigger
 * units: that fraction of the queue, the bytecode limit grown alike.
 *
 * After an idle spell, a unit whose first request is a method's entry
 * waits jit.gather_us (5 ms) before it is taken.  gcc cannot be stopped
 * once started, and a method that has just become hot by its calls is
 * often called from an interpreted loop that is about to ask for OSR
 * code a few milliseconds later; compiled alone, the method would keep
 * that loop waiting in the interpreter for a whole gcc run.  An OSR request is never held back: a loop is running
 * interpreted until its code arrives.
 *
 * Invariants:
 * - The program thread takes the mutex only to push a request; the compile
 *   thread never holds it across a compile, so the program never waits.
 * - The compile thread is registered with the GC while it runs (it reads
 *   module data that holds heap references).
 * - Shutdown (jit_thread_stop): the compile in progress finishes and is
 *   installed, the requests still queued are dropped (logged, counted,
 *   their methods stay interpreted), then the thread is joined.  Finishing
 *   the queue instead could keep a finished program waiting for seconds.
 */
#include "tier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool before(const JitRequest *a, const JitRequest *b)
{
    if (a->urgent != b->urgent)
        return a->urgent;
    return a->priority > b->priority || (a->priority == b->priority && a->id < b->id);
}

static void swap(JitRequest *a, JitRequest *b)
{
    JitRequest t = *a;
    *a = *b;
    *b = t;
}

static void sift_up(JitRequest *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&h[i], &h[p]))
            break;
        swap(&h[i], &h[p]);
        i = p;
    }
}

static void sift_down(JitRequest *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < n && before(&h[l], &h[best]))
            best = l;
        if (r < n && before(&h[r], &h[best]))
            best = r;
        if (best == i)
            return;
        swap(&h[i], &h[best]);
        i = best;
    }
}

/* Interpreter instructions a call of m costs beyond its own (frame set-up,
 * argument copy, return), in the units of a method's size. */
#define CALL_OVERHEAD 4

/* Under mu: sets every queued priority to the recent work (see the head of
 * this file) and restores the heap. */
static void refresh(Jit *jit, double now)
{
    JitRequest *h = jit->heap;
    size_t n = jit->nheap;
    for (size_t i = 0; i < n; i++) {
        VmMethod *m = h[i].m;
        int64_t hot = (int64_t)(__atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED) +
                                __atomic_load_n(&m->prof.backedges, __ATOMIC_RELAXED));
        double dt = now - h[i].t_seen;
        double rate = (double)(hot - h[i].seen) / (dt > 1e-4 ? dt : 1e-4);
        /* a maker's compile inlines the lambdas it makes: their calls from
         * compiled loops (Vector.forEach) are calls it saves */
        uint64_t lam = jit_lambda_calls(jit, m);
        double lam_rate = (double)(lam - h[i].lam_seen) / (dt > 1e-4 ? dt : 1e-4);
        h[i].priority = (int64_t)(rate * (m->ncode + CALL_OVERHEAD) + lam_rate * CALL_OVERHEAD);
        h[i].seen = hot;
        h[i].lam_seen = lam;
        h[i].t_seen = now;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(h, n, i);
}

/* Under mu: the most requests and the most bytecode of the next unit.  A
 * queue longer than jit.batch x jit.batch_backlog is a backlog: then a
 * unit takes that fraction of the queue, with the bytecode limit grown
 * alike, sharing the fixed cost of a gcc run, as, ld and dlopen among
 * more methods.  Off by default: gcc's time is mostly per method, and the
 * hottest requests of a bigger unit wait for all of it (docs/results.md,
 * "Steady state"). */
static size_t unit_limits(const Jit *jit, uint64_t *max_bytecode)
{
    size_t n = jit->batch;
    size_t k = jit->tun.batch_backlog > 0 ? (size_t)jit->tun.batch_backlog : 0;
    if (k && jit->nheap / k > n)
        n = jit->nheap / k;
    if (n > JIT_BATCH_MAX)
        n = JIT_BATCH_MAX;
    uint64_t bc = jit->batch_bytecode;
    if (n > jit->batch && bc != UINT64_MAX)
        bc = bc <= UINT64_MAX / n ? bc * n / jit->batch : UINT64_MAX;
    *max_bytecode = bc;
    return n;
}

/* Under mu: removes the first request. */
static JitRequest pop_first(Jit *jit)
{
    JitRequest *h = jit->heap;
    JitRequest top = h[0];
    h[0] = h[--jit->nheap];
    sift_down(h, jit->nheap, 0);
    return top;
}

bool jit_push_locked(Jit *jit, VmMethod *m, const VmInsn *osr_pc)
{
    if (jit->stop)
        return false;
    if (jit->nheap == jit->capheap) {
        size_t cap = jit->capheap ? jit->capheap * 2 : 64;
        JitRequest *h = realloc(jit->heap, cap * sizeof *h);
        if (!h)    /* no memory: the method stays as it is */
            return false;
        jit->heap = h;
        jit->capheap = cap;
    }
    JitRequest rq;
    jit_request_init(jit, &rq, m);
    rq.osr_pc = osr_pc;
    /* logged under the lock so "queued" always precedes "compiled"; and
     * before sift_up moves another request into the slot */
    if (osr_pc)
        jit_log(jit, "queued #%llu %s prio=%lld osr@%u", (unsigned long long)rq.id, m->name,
                (long long)rq.priority, (unsigned)(osr_pc - m->code));
    else
        jit_log(jit, "queued #%llu %s prio=%lld", (unsigned long long)rq.id, m->name, (long long)rq.priority);
    jit->heap[jit->nheap++] = rq;
    sift_up(jit->heap, jit->nheap - 1);
    jit->stats.queued++;
    pthread_cond_signal(&jit->wake);
    return true;
}

bool jit_upgrade_locked(Jit *jit, VmMethod *m, const VmInsn *osr_pc)
{
    for (size_t i = 0; i < jit->nheap; i++) {
        JitRequest *rq = &jit->heap[i];
        if (rq->m != m)
            continue;
        if (rq->osr_pc)
            return false;
        rq->osr_pc = osr_pc;
        /* announced again, now with its header */
        jit_log(jit, "queued #%llu %s prio=%lld osr@%u", (unsigned long long)rq->id, m->name,
                (long long)rq->priority, (unsigned)(osr_pc - m->code));
        return true;
    }
    return false;
}

void jit_hurry_locked(Jit *jit, const VmMethod *m)
{
    for (size_t i = 0; i < jit->nheap; i++) {
        JitRequest *rq = &jit->heap[i];
        if (rq->m != m)
            continue;
        if (!rq->urgent) {   /* once: asked again every round while it waits */
            rq->urgent = true;
            jit_log(jit, "hurried #%llu %s (a bakeoff waits for it)", (unsigned long long)rq->id, m->name);
            sift_up(jit->heap, i);
        }
        return;
    }
}

void jit_enqueue(Jit *jit, VmMethod *m)
{
    pthread_mutex_lock(&jit->mu);
    if (m->index < jit->nmethods && jit->state[m->index] == JIT_M_NEW && !jit->stop)
        jit->state[m->index] = jit_push_locked(jit, m, NULL) ? JIT_M_QUEUED : JIT_M_DONE;
    pthread_mutex_unlock(&jit->mu);
}

/* Not registered with the collector: nothing here allocates from the GC
 * heap, and every heap object a compile reads (constants, through the
 * module) is reachable from the module for as long as the module lives.
 * A registered thread must be stopped and its stack scanned at every
 * collection; a thread busy in gcc, on two shared cores, would make the
 * program's collections wait for it to be scheduled (10-25% per iteration
 * on the allocation-heavy benchmarks). */
static void *compile_thread(void *arg)
{
    Jit *jit = arg;
    pthread_setname_np(pthread_self(), "tally-jit");
    pthread_mutex_lock(&jit->mu);
    bool was_idle = true;   /* no unit yet counts as an idle spell */
    for (;;) {
        while (!jit->stop && (jit->paused || jit->nheap == 0)) {
            if (jit->nheap == 0) {
                was_idle = true;
                pthread_cond_broadcast(&jit->idle);
            }
            pthread_cond_wait(&jit->wake, &jit->mu);
        }
        if (jit->stop)
            break;
        if (was_idle) {
            was_idle = false;
            if (jit->gather_us > 0 && !jit->heap[0].osr_pc) {
                /* not holding mu: requests still come in meanwhile */
                pthread_mutex_unlock(&jit->mu);
                struct timespec ts = {(time_t)(jit->gather_us / 1000000), (long)(jit->gather_us % 1000000) * 1000};
                nanosleep(&ts, NULL);
                pthread_mutex_lock(&jit->mu);
                continue;   /* paused or stopped meanwhile: the loop above decides */
            }
        }
        JitRequest batch[JIT_BATCH_MAX];
        size_t n = 0;
        uint64_t size = 0;
        refresh(jit, jit_now());
        uint64_t max_bytecode;
        size_t max_n = unit_limits(jit, &max_bytecode);
        while (n < max_n && jit->nheap > 0 && (n == 0 || size + jit->heap[0].m->ncode <= max_bytecode)) {
            size += jit->heap[0].m->ncode;
            batch[n++] = pop_first(jit);
        }
        jit->busy = true;
        pthread_mutex_unlock(&jit->mu);
        jit_compile_and_install_batch(jit, batch, n);
        pthread_mutex_lock(&jit->mu);
        jit->busy = false;
    }
    while (jit->nheap > 0) {
        JitRequest *rq = &jit->heap[--jit->nheap];
        jit->state[rq->m->index] = JIT_M_DONE;
        jit->osr[rq->m->index].pending = false;
        jit->stats.dropped++;
        jit_log(jit, "dropped #%llu %s: shutdown", (unsigned long long)rq->id, rq->m->name);
    }
    pthread_cond_broadcast(&jit->idle);
    pthread_mutex_unlock(&jit->mu);
    return NULL;
}

bool jit_thread_start(Jit *jit, VmError *err)
{
    int e = vm_fault(VM_FAULT_THREAD) ? EAGAIN : pthread_create(&jit->thread, NULL, compile_thread, jit);
    if (e != 0)
        return vm_fail(err, "jit: cannot start the compile thread: %s", strerror(e));
    jit->thread_started = true;
    return true;
}

void jit_thread_stop(Jit *jit)
{
    if (!jit->thread_started)
        return;
    pthread_mutex_lock(&jit->mu);
    jit->stop = true;
    pthread_cond_broadcast(&jit->wake);
    pthread_mutex_unlock(&jit->mu);
    pthread_join(jit->thread, NULL);
    jit->thread_started = false;
}

void jit_test_pause(Jit *jit, bool paused)
{
    pthread_mutex_lock(&jit->mu);
    jit->paused = paused;
    pthread_cond_broadcast(&jit->wake);
    pthread_mutex_unlock(&jit->mu);
}

void jit_test_wait_idle(Jit *jit)
{
    pthread_mutex_lock(&jit->mu);
    while (jit->thread_started && !jit->paused && !jit->stop && (jit->nheap > 0 || jit->busy))
        pthread_cond_wait(&jit->idle, &jit->mu);
    pthread_mutex_unlock(&jit->mu);
}

JitStats jit_test_stats(Jit *jit)
{
    pthread_mutex_lock(&jit->mu);
    JitStats s = jit->stats;
    pthread_mutex_unlock(&jit->mu);
    /* transfers are the interpreter's count, a racy but exact-at-rest sum */
    const VmModule *mod = jit->vm ? jit->vm->module : NULL;
    for (uint32_t i = 0; mod && jit->state && i < mod->nmethods && i < jit->nmethods; i++)
        s.osr_entries += __atomic_load_n(&mod->methods[i].prof.osr_entries, __ATOMIC_RELAXED);
    return s;
}
