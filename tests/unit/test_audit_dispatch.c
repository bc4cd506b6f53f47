/* tests/unit/test_audit_dispatch.c — the auditor's generated code and
 * threads (audit/lifecycle.c through libgccjit):
 * - the real dispatcher: timed and clean calls and bursts exactly as
 *   au_policy_next counts them on a fixed seed, results equal to the
 *   interpreter's; copies at their offsets;
 * - end to end with the auditor's threads: custom -O0 vs -O2 on a
 *   float-heavy method picks -O2; aa never changes results. */
#include "audit_env.h"

#include <stdlib.h>
#include <unistd.h>

/* ---- the real dispatcher ---------------------------------------------------------- */

#define ARMS (JIT_MAX_VARIANTS * JIT_MAX_COPIES)

typedef struct Count {
    uint32_t aid;
    uint64_t per[ARMS], warm[ARMS];   /* by the arm timed code reports: c·N + k */
    uint64_t other;
} Count;

static void count_sample(void *ctx, const AuSample *s)
{
    Count *c = ctx;
    uint32_t k = s->variant & ~AU_SAMPLE_WARMUP;
    if (s->bakeoff == c->aid && k < ARMS && s->weight == 1 && s->cycles > 0)
        (s->variant & AU_SAMPLE_WARMUP ? c->warm : c->per)[k]++;
    else
        c->other++;
}

/* bake_twice with `set`, then its one bakeoff sampling through its
 * dispatcher: the method, its record in r[0]; NULL (a failure reported,
 * e freed) otherwise.  r has room for 2 records. */
static VmMethod *dispatched(Env *e, const char *const *set, AuBakeoffRecord *r)
{
    VmMethod *twice = env_bake_twice(e, set, false);
    if (!twice)
        return NULL;
    size_t n = env_records(e, r, 2);
    CHECK_INT(n, 1);
    if (n != 1 || r[0].phase != AU_PHASE_SAMPLING) {
        test_fail(__FILE__, __LINE__, "no dispatcher: %s", n ? r[0].failure : "no bakeoff");
        env_free(e);
        return NULL;
    }
    return twice;
}

/* sample_every 5, burst 2, no jitter: the analysis's parameters are
 * exactly reset 8, burst 2; the generated fast path plus the slow path
 * must time exactly the calls au_policy_next times, arm for arm (variant
 * k's copy c is arm c·2 + k), mark the first of each burst as its warm-up
 * (audit.warmup 1), and leave the thread's state where au_policy_next
 * leaves it. */
static void dispatcher_counts(const char *copies, int arms)
{
    const char *const set[] = {"audit.clients=optlevel", "audit.sample_every=5", "audit.burst=2", "audit.warmup=1",
                               "audit.jitter=0", "audit.buffer_slots=65536", "audit.max_overhead=0",
                               "research.same_code=0" /* O2 and O3 compile twice alike */, copies, NULL};
    Env e;
    AuBakeoffRecord r[2];
    VmMethod *twice = dispatched(&e, set, r);
    if (!twice)
        return;
    CHECK_INT(r[0].copies, arms / 2);
    AuPolicyParams *p = au_analysis_policy(au_auditor_analysis(e.au), 0);
    CHECK_INT(p->reset, 8);
    CHECK_INT(p->burst, 2);
    VmAuditSlot sim = {0};
    uint64_t want[ARMS] = {0}, warm[ARMS] = {0}, clean = 0;
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        CHECK_INT(env_call_int(&e, twice, i).i, 2 * i);
        bool first = sim.countdown == 0;   /* a timed call now is its burst's first */
        int k = au_policy_next(&sim, p, arms);
        if (k == AU_CLEAN)
            clean++;
        else
            (first ? warm : want)[k]++;
    }
    Count c = {0};
    /* the bakeoff's id as the analysis knows it: the only bakeoff; samples
     * of others would land in `other` */
    AuResult res;
    for (uint32_t id = 1; id < 8; id++)
        if (au_analysis_result(au_auditor_analysis(e.au), id, &res))
            c.aid = id;
    AuDrainCounts dc = {0};
    au_samples_drain(count_sample, &c, &dc);
    CHECK_INT(c.other, 0);
    uint64_t timed = 0;
    for (int k = 0; k < ARMS; k++) {
        CHECK_INT(c.per[k], want[k]);
        CHECK_INT(c.warm[k], warm[k]);
        CHECK_INT(warm[k], want[k]);     /* bursts of 2: one warm-up, one estimated */
        CHECK(k < arms ? want[k] > 0 : want[k] == 0);
        timed += want[k] + warm[k];
    }
    CHECK_INT(timed, N / 5);
    CHECK_INT(clean, N - N / 5);
    CHECK_INT(dc.dropped, 0);
    /* the thread's state for the slot: as the simulation's */
    VmAuditSlot *st = &e.t->audit[0];
    CHECK_INT(st->countdown, sim.countdown);
    CHECK_INT(st->variant, sim.variant);
    env_free(&e);
}

TEST(audit_dispatcher_counts)
{
    dispatcher_counts("audit.copies=1", 2);
    dispatcher_counts("audit.copies=2", 4);
}

/* Sampling off (audit.sample_every=0): the real dispatcher counts every
 * call down from INT32_MAX (its first call takes the slow path, which
 * sets that), and with research.prologue=0 it is the same code without the
 * countdown: the thread's state is never touched, and the method still
 * computes what it computes. */
static void dispatcher_prologue(const char *prologue, bool counts)
{
    const char *const set[] = {"audit.clients=aa", "audit.sample_every=0", prologue, NULL};
    Env e;
    AuBakeoffRecord r[2];
    VmMethod *twice = dispatched(&e, set, r);
    if (!twice)
        return;
    CHECK(twice->entry != env_fake_compiled);
    VmAuditSlot *st = &e.t->audit[0];
    *st = (VmAuditSlot){0};
    const int N = 5000;
    for (int i = 0; i < N; i++)
        CHECK_INT(env_call_int(&e, twice, i).i, 2 * i);
    CHECK_INT(st->countdown, counts ? INT32_MAX - (N - 1) : 0);
    env_free(&e);
}

TEST(audit_dispatcher_prologue)
{
    dispatcher_prologue("research.prologue=1", true);
    dispatcher_prologue("research.prologue=0", false);
}

/* audit.copies=2 as the JIT lays it out: every variant twice, each copy
 * at an offset in its page of its own, common to the variants (copy c of
 * every variant meets the same cache sets), each computing what the
 * method computes; the copies' symbols are renamed, so nothing clashes. */
TEST(audit_copies_layout)
{
    static const char *const set[] = {"audit.clients=aa", NULL};
    Env e;
    if (!env_new(&e, set)) {
        env_free(&e);
        return;
    }
    VmMethod *twice = test_method(e.vm, "twice");
    JitBakeoffRequest rq;
    memset(&rq, 0, sizeof rq);
    rq.m = twice;
    rq.id = 7;
    rq.nvariants = 2;
    rq.copies = 2;
    for (int k = 0; k < 2; k++) {
        ir_options_default(&rq.ir[k]);
        rq.optset[k] = k ? "O3" : "O2";
    }
    rq.slow = test_stub_slow;
    rq.sample = test_stub_sample;
    JitBakeoffTable tab;
    memset(&tab, 0, sizeof tab);
    VmError err = {{0}};
    bool ok = jit_compile_bakeoff(e.jit, &rq, &tab, &err);
    CHECK(ok);
    if (!ok)
        test_fail(__FILE__, __LINE__, "%s", err.msg);
    for (int a = 0; ok && a < 4; a++) {
        CHECK(tab.clean[a] != NULL);
        VmValue arg[1] = {{.i = 20 + a}};
        if (tab.clean[a])
            CHECK_INT(tab.clean[a](e.t, twice, arg).i, 40 + 2 * a);
        for (int b = 0; b < a; b++)
            CHECK(tab.clean[a] != tab.clean[b]);
    }
    /* copy 1 of each variant at another place in the page than its copy
     * 0, moved by the same amount for both variants */
    uintptr_t shift[2] = {0, 0};
    for (int k = 0; ok && k < 2; k++) {
        shift[k] = ((uintptr_t)tab.clean[2 + k] - (uintptr_t)tab.clean[k]) % 4096;
        CHECK(shift[k] != 0);
    }
    CHECK_INT(shift[0], shift[1]);
    CHECK(tab.clean[4] == NULL);
    /* more copies than the table holds: refused, nothing compiled */
    rq.copies = JIT_MAX_COPIES + 1;
    CHECK(!jit_compile_bakeoff(e.jit, &rq, &tab, &err));
    CHECK_CONTAINS(err.msg, "copies");
    env_free(&e);
}

/* ---- end to end, with the auditor's threads ------------------------------------------ */

/* Calls name(arg) until the first bakeoff is decided (or max_seconds);
 * every result must equal the interpreter's.  Returns the record. */
static bool until_decided_on(Env *e, const char *name, int64_t arg, double max_seconds, AuBakeoffRecord *out)
{
    VmMethod *work = test_method(e->vm, name);
    VmValue a[1] = {{.i = arg}};
    double want = vm_interp_entry(e->t, work, a).f;
    work->entry = env_fake_compiled;
    VmError err = {{0}};
    if (!au_auditor_start(e->au, &err)) {
        test_fail(__FILE__, __LINE__, "start: %s", err.msg);
        return false;
    }
    double t0 = au_now();
    bool same = true;
    for (;;) {
        for (int i = 0; i < 2000; i++) {
            a[0].i = arg;
            same &= __atomic_load_n(&work->entry, __ATOMIC_ACQUIRE)(e->t, work, a).f == want;
        }
        size_t n = au_bakeoffs_snapshot(e->au, out, 1);
        if (n && (out->phase == AU_PHASE_DONE || out->phase == AU_PHASE_FAILED))
            break;
        if (au_now() - t0 > max_seconds) {
            test_fail(__FILE__, __LINE__, "no decision in %.0f s (phase %s)", max_seconds,
                      n ? au_phase_name(out->phase) : "none");
            return false;
        }
    }
    CHECK(same);
    CHECK_INT(out->phase, AU_PHASE_DONE);
    if (out->phase == AU_PHASE_FAILED)
        test_fail(__FILE__, __LINE__, "bakeoff failed: %s", out->failure);
    /* the installed code computes the same */
    a[0].i = arg;
    CHECK(work->entry(e->t, work, a).f == want);
    return out->phase == AU_PHASE_DONE;
}

static bool until_decided(Env *e, double max_seconds, AuBakeoffRecord *out)
{
    return until_decided_on(e, "work", 200, max_seconds, out);
}

/* custom -O0 vs -O2 on name(arg), to a decision: -O2 must win by at least
 * 30%.  False if the bakeoff did not decide (a failure is reported). */
static bool o2_beats_o0_with(const char *label, const char *name, int64_t arg, const char *more, AuBakeoffRecord *r)
{
    const char *const set[] = {"audit.clients=custom", "audit.custom=-O0;-O2", "audit.min_samples=2000",
                               "audit.timeout_ms=120000", more, NULL};
    Env e;
    bool decided = env_new(&e, set) && until_decided_on(&e, name, arg, 120, r);
    env_free(&e);
    if (!decided)
        return false;
    CHECK_INT(r->result.outcome, AU_WINNER);
    CHECK_INT(r->installed, 1);
    CHECK_STR(r->variants[r->installed].name, "-O2");
    CHECK(r->result.rel < -0.3);
    if (getenv("AUDIT_E2E_VERBOSE"))
        fprintf(stderr, "%s: %s rel=%.3f [%.3f, %.3f] samples=%llu/%llu weight/sample=%.1f in %.2f s\n", label,
                au_outcome_name(r->result.outcome), r->result.rel, r->result.rel_lo, r->result.rel_hi,
                (unsigned long long)r->result.v[0].samples, (unsigned long long)r->result.v[1].samples,
                r->result.v[0].weight / (double)r->result.v[0].samples, r->t_decided - r->t_sampling);
    return true;
}

static bool o2_beats_o0(const char *label, const char *name, int64_t arg, AuBakeoffRecord *r)
{
    return o2_beats_o0_with(label, name, arg, NULL, r);
}

TEST(audit_end_to_end_custom_O0_vs_O2)
{
    AuBakeoffRecord r;
    if (o2_beats_o0("custom", "work", 200, &r))
        CHECK_INT(r.result.v[0].weight, r.result.v[0].samples);   /* not recursive: weight 1 */
}

/* audit.verify: the online decision (-O2) installs nothing; the bakeoff
 * samples on through the same dispatcher to audit.max_samples and ends on
 * the oracle's look at those later samples, which agrees here. */
TEST(audit_end_to_end_verify)
{
    const char *const set[] = {"audit.clients=custom", "audit.custom=-O0;-O2", "audit.min_samples=2000",
                               "audit.timeout_ms=120000", "audit.verify=1", "audit.max_samples=6000", NULL};
    Env e;
    AuBakeoffRecord r;
    bool decided = env_new(&e, set) && until_decided_on(&e, "work", 200, 120, &r);
    env_free(&e);
    if (!decided)
        return;
    CHECK_INT(r.result.online.outcome, AU_WINNER);
    CHECK_INT(r.result.online.install, 1);
    CHECK(r.result.online.samples >= 2000 && r.result.online.samples < 6000);
    CHECK(r.result.online.rel < -0.3);
    CHECK(r.result.online.elapsed > 0 && r.result.online.elapsed <= r.sampled);
    CHECK_INT(r.result.outcome, AU_WINNER);   /* the look after it */
    CHECK_INT(r.installed, 1);
    CHECK(r.result.rel < -0.3);
    for (int k = 0; k < 2; k++)
        CHECK(r.result.v[k].samples >= 6000);
}

/* audit.copies=2: each variant's samples come from both its copies, and
 * each copy runs its own variant's code: -O0 and -O2 differ by more than
 * 30%, a copy of the other variant's code would show as much between a
 * variant's copies. */
TEST(audit_end_to_end_copies)
{
    AuBakeoffRecord r;
    if (!o2_beats_o0_with("copies", "work", 200, "audit.copies=2", &r))
        return;
    CHECK_INT(r.copies, 2);
    for (int k = 0; k < 2; k++) {
        const AuVariantResult *v = &r.result.v[k];
        CHECK(v->copy_samples[0] > 0 && v->copy_samples[1] > 0);
        /* windows of their own: all but the incomplete ones */
        uint64_t both = v->copy_samples[0] + v->copy_samples[1];
        CHECK(both <= v->samples + 200 && both + 200 >= v->samples);
        CHECK(v->copy_mean[1] > 0.85 * v->copy_mean[0] && v->copy_mean[1] < 1.15 * v->copy_mean[0]);
    }
}

/* A recursive method: a timed call runs its whole recursion in the
 * variant timed (not in the dispatcher's default code), weighted by the
 * calls it made, so -O2 beats -O0 as clearly as on a loop.  (With the
 * recursion going back through the dispatcher, both variants' timed calls
 * ran mostly the default's code, -O0: −21% [−30%, −11%].) */
TEST(audit_end_to_end_recursive)
{
    AuBakeoffRecord r;
    if (!o2_beats_o0("recursive", "tree", 9, &r))
        return;
    /* weighted: a timed call of tree(9) makes up to 109 calls, one nested
     * at any depth at least 1 */
    for (int k = 0; k < 2; k++) {
        CHECK(r.result.v[k].weight > 1.5 * (double)r.result.v[k].samples);
        CHECK(r.result.v[k].cycles > 1.5 * r.result.v[k].mean);
    }
}

/* Two identical variants: no-difference or timeout, never another result.
 * A winner is a false positive (≤ 1% by the test's guarantee): one retry. */
TEST(audit_end_to_end_aa)
{
    static const char *const set[] = {"audit.clients=aa", "audit.min_samples=2000", "audit.timeout_ms=4000", NULL};
    for (int attempt = 0; attempt < 2; attempt++) {
        Env e;
        if (!env_new(&e, set)) {
            env_free(&e);
            return;
        }
        AuBakeoffRecord r;
        bool decided = until_decided(&e, 60, &r);
        env_free(&e);
        if (!decided)
            return;
        if (getenv("AUDIT_E2E_VERBOSE"))
            fprintf(stderr, "aa: %s rel=%.4f [%.4f, %.4f] samples=%llu/%llu in %.2f s\n",
                    au_outcome_name(r.result.outcome), r.result.rel, r.result.rel_lo, r.result.rel_hi,
                    (unsigned long long)r.result.v[0].samples, (unsigned long long)r.result.v[1].samples,
                    r.t_decided - r.t_sampling);
        if (r.result.outcome == AU_NO_DIFFERENCE || r.result.outcome == AU_TIMEOUT) {
            CHECK_INT(r.installed, 0);
            return;
        }
    }
    test_fail(__FILE__, __LINE__, "aa declared a winner twice in a row");
}
