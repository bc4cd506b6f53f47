/* tests/unit/test_audit_bakeoff.c — the bakeoff lifecycle (audit/bakeoff.c)
 * and the clients (audit/clients.c).
 *
 * - clients: names, errors, the variants each client names;
 * - lifecycle with a stub compiler (no gcc): the FIFO queue, one bakeoff
 *   per method at a time, audit.concurrent, a decision installs the
 *   chosen clean code with one store, timeouts install the default;
 * - fault injection through the real compiler (jit.fail_every): FAILED,
 *   the method keeps its code, the next bakeoff starts;
 * - the real dispatcher (libgccjit): timed and clean calls and bursts
 *   exactly as au_policy_next counts them on a fixed seed, results equal
 *   to the interpreter's;
 * - end to end with the auditor's threads: custom -O0 vs -O2 on a
 *   float-heavy method picks -O2; aa never changes results.
 * The program is called from C (m->entry), so a test runs exactly as many
 * calls as it needs and stops as soon as the bakeoff is decided.
 */
#include "test.h"
#include "bakeoff.h"
#include "tier.h"

#include <stdlib.h>
#include <unistd.h>

static const char *const SRC =
    "fn work(n: int): float {\n"
    "    var s = 0.0;\n"
    "    for i in 0..n { s += float(i) * 0.5 / (1.0 + float(i % 7)) + float(i & 3); }\n"
    "    return s;\n"
    "}\n"
    "fn twice(x: int): int { return x + x; }\n"
    "fn tree(n: int): float {\n"
    "    var s = 0.0;\n"
    "    for i in 0..12 { s += float(i) * 0.5 / (1.0 + float((n + i) % 7)); }\n"
    "    if n < 2 { return s; }\n"
    "    return s + tree(n - 1) * 0.5 + tree(n - 2) * 0.25;\n"
    "}\n"
    "fn main() { println(work(10)); println(twice(4)); }\n";

typedef struct Env {
    Vm *vm;
    Jit *jit;
    AuAuditor *au;
    VmThread *t;
} Env;

static JitCompileFn env_jit_compiler;   /* the JIT's test hook, if set */
static bool env_jit_queue;              /* a JIT whose compile thread is paused: jit_enqueue queues */

/* Links SRC with tunables adjusted by assign[] (by default a JIT that
 * never compiles by itself: sync mode, unreachable threshold), and the
 * auditor. */
static bool env_new(Env *e, const char *const *assign)
{
    memset(e, 0, sizeof *e);
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.hot_threshold = 1LL << 40;
    tun.stack_slots = 1 << 14;
    tun.max_frames = 1024;
    tun.audit_hot_threshold = 100;
    tun.audit_interval_ms = 1;
    tun.audit_seed = 42;
    tun.audit_min_cost = 0;   /* twice is cheap: audit_bakeoff_static_cheap sets it */
    VmError err = {{0}};
    for (int i = 0; assign && assign[i]; i++)
        if (!vm_tunables_set(&tun, assign[i], &err))
            test_fail(__FILE__, __LINE__, "%s: %s", assign[i], err.msg);
    e->vm = test_load_tl("t.tl", SRC, &tun);
    if (!e->vm)
        return false;
    jit_set_test_hooks(&(JitTestHooks){.compile = env_jit_compiler, .paused = env_jit_queue});
    e->jit = jit_new(e->vm, env_jit_queue ? JIT_ON : JIT_SYNC, &err);
    jit_set_test_hooks(NULL);
    e->au = e->jit ? au_auditor_new(e->vm, e->jit, &err) : NULL;
    e->t = vm_thread_new(e->vm);
    if (!e->au || !e->t) {
        test_fail(__FILE__, __LINE__, "auditor: %s", err.msg);
        return false;
    }
    return true;
}

static void env_free(Env *e)
{
    au_auditor_free(e->au);
    jit_free(e->jit);
    if (e->t)
        vm_thread_free(e->t);
    test_unload(e->vm);
}

/* "Compiled code" for the auditor to find: the interpreter behind another address. */
static VmValue fake_compiled(VmThread *t, VmMethod *m, VmValue *args)
{
    return vm_interp_entry(t, m, args);
}

static VmValue call_int(Env *e, VmMethod *m, int64_t x)
{
    VmValue a[1] = {{.i = x}};
    return m->entry(e->t, m, a);
}

static void calls(Env *e, VmMethod *m, int n)
{
    for (int i = 0; i < n; i++)
        call_int(e, m, 3);
}

static size_t records(Env *e, AuBakeoffRecord *out, size_t max)
{
    size_t n = au_bakeoffs_snapshot(e->au, out, max);
    return n < max ? n : max;
}

/* ---- clients ----------------------------------------------------------------- */

TEST(audit_clients_parse)
{
    uint32_t mask = 0;
    VmError err = {{0}};
    CHECK(au_clients_parse("", &mask, &err) && mask == 0);
    CHECK(au_clients_parse("inline,aa", &mask, &err));
    CHECK_INT(mask, 1u << AU_CLIENT_INLINE | 1u << AU_CLIENT_AA);
    CHECK(au_clients_parse("inline,optlevel,unroll,vectorize,aa,custom", &mask, &err));
    CHECK_INT(mask, (1u << AU_NCLIENTS) - 1);
    CHECK(!au_clients_parse("inlien", &mask, &err));
    CHECK_CONTAINS(err.msg, "unknown audit client 'inlien' (did you mean 'inline'?)");
    CHECK(!au_clients_parse("aa,aa", &mask, &err));
    CHECK_CONTAINS(err.msg, "named twice");
    CHECK(!au_clients_parse("aa,", &mask, &err));
    CHECK_STR(au_client_name(AU_CLIENT_CUSTOM), "custom");
}

TEST(audit_client_variants)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    AuVariantSpec v[AU_MAX_VARIANTS];
    VmError err = {{0}};
    CHECK_INT(au_client_variants(AU_CLIENT_INLINE, &tun, v, &err), 2);
    CHECK_STR(v[1].name, "inline4x");
    CHECK_INT(v[1].inline_max_callee_size, 4 * tun.inline_max_callee_size);
    CHECK_INT(v[0].inline_max_callee_size, tun.inline_max_callee_size);
    CHECK_STR(v[0].optset, "O2");
    CHECK_INT(au_client_variants(AU_CLIENT_OPTLEVEL, &tun, v, &err), 2);
    CHECK_STR(v[0].optset, "O2");
    CHECK_STR(v[1].optset, "O3");
    CHECK_INT(au_client_variants(AU_CLIENT_UNROLL, &tun, v, &err), 2);
    CHECK_STR(v[1].optset, "unroll");
    CHECK_INT(au_client_variants(AU_CLIENT_AA, &tun, v, &err), 2);
    CHECK(!strcmp(v[0].optset, v[1].optset) && v[0].inline_max_callee_size == v[1].inline_max_callee_size);
    /* custom: raw option strings, at least two */
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &tun, v, &err), 0);
    CHECK_CONTAINS(err.msg, "audit.custom");
    tun.audit_custom = "-O0; -O2 -funroll-loops ;O3";
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &tun, v, &err), 3);
    CHECK_STR(v[1].optset, "-O2 -funroll-loops");
    CHECK_STR(v[2].name, "O3");
    tun.audit_custom = "-O0;bogus";
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &tun, v, &err), 0);
    CHECK_CONTAINS(err.msg, "unknown option set 'bogus'");
    tun.audit_optlevel = "O2";
    CHECK_INT(au_client_variants(AU_CLIENT_OPTLEVEL, &tun, v, &err), 0);
    tun.audit_clients = "optlevel";
    CHECK(!au_check_tunables(&tun, &err));
    tun.audit_optlevel = "O2,O3";
    tun.audit_concurrent = 0;
    CHECK(!au_check_tunables(&tun, &err));
    CHECK_CONTAINS(err.msg, "audit.concurrent");
}

/* ---- the lifecycle, with a stub compiler ---------------------------------------- */

static VmValue stub_clean0(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
static VmValue stub_clean1(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
static VmValue stub_timed(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
static VmValue stub_dispatch(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }

static struct {
    int n;
    uint32_t id[16];
    VmMethod *m[16];
    JitBakeoffTable *tab[16];
    uint32_t slot[16];
    bool fail;
    VmMethod *callee;   /* the first bakeoff's variants call it (JitBakeoffTable.callees) */
} stub;

static bool stub_compile(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, VmError *err)
{
    (void)jit;
    if (stub.n < 16) {
        stub.id[stub.n] = rq->id;
        stub.m[stub.n] = rq->m;
        stub.tab[stub.n] = out;
        stub.slot[stub.n] = rq->slot;
        stub.n++;
    }
    if (stub.fail)
        return vm_fail(err, "stub failure");
    if (stub.callee && stub.n == 1) {
        out->callees[0] = stub.callee;
        out->ncallees = 1;
    }
    for (int k = 0; k < rq->nvariants * (rq->copies > 1 ? rq->copies : 1); k++)
        out->clean[k] = k % rq->nvariants == 0 ? stub_clean0 : stub_clean1;
    out->timed = stub_timed;
    out->dispatcher = stub_dispatch;
    return true;
}

/* Samples of a bakeoff: variant k costs base[k] ± 10%, deterministic. */
static void feed(uint32_t aid, const double base[2], int per_variant)
{
    uint64_t x = 12345;
    for (int i = 0; i < per_variant; i++)
        for (int k = 0; k < 2; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double noise = (double)(x >> 11) / (double)(1ULL << 53) * 0.2 - 0.1;
            au_sample_record(aid, (uint32_t)k, (uint64_t)(base[k] * (1 + noise)), 1);
        }
}

/* one feed decides: no confirmation look (audit.confirm, tested in
 * test_audit_stats.c); one compile at a time, into a free slot
 * (audit_bakeoff_ahead tests compiles ahead) */
static const char *const LIFECYCLE[] = {
    "audit.clients=aa,custom", "audit.custom=-O0;-O2", "audit.min_samples=200", "audit.trim_window=10",
    "audit.trim_drop=1", "audit.timeout_ms=60000", "audit.confirm=0", "audit.ahead=0", NULL,
};

TEST(audit_bakeoff_queue_and_decisions)
{
    Env e;
    if (!env_new(&e, LIFECYCLE)) {
        env_free(&e);
        return;
    }
    memset(&stub, 0, sizeof stub);
    au_auditor_set_compiler(e.au, stub_compile);
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    work->entry = fake_compiled;
    twice->entry = fake_compiled;
    au_auditor_poll(e.au);            /* both seen: their calls count from here */
    calls(&e, twice, 99);
    calls(&e, work, 100);
    au_auditor_poll(e.au);
    AuBakeoffRecord r[8];
    size_t n = records(&e, r, 8);
    CHECK_INT(n, 2);                  /* work is hot (100 calls), twice not yet */
    calls(&e, twice, 1);
    au_auditor_poll(e.au);
    n = records(&e, r, 8);
    CHECK_INT(n, 4);
    if (n != 4)
        goto out;
    /* FIFO by trigger, clients in table order; one running (concurrent 1) */
    CHECK_STR(r[0].method, "work");
    CHECK_STR(r[0].client, "aa");
    CHECK_STR(r[1].client, "custom");
    CHECK_STR(r[2].method, "twice");
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    CHECK_INT(r[2].phase, AU_PHASE_QUEUED);
    CHECK_INT(r[3].phase, AU_PHASE_QUEUED);
    CHECK_INT(r[1].nvariants, 2);
    CHECK_STR(r[1].variants[0].optset, "-O0");
    CHECK_STR(r[1].variants[1].name, "-O2");
    CHECK_INT(stub.n, 1);
    CHECK(work->entry == stub_dispatch);
    CHECK(r[0].t_queued > 0 && r[0].t_started >= r[0].t_queued && r[0].t_sampling >= r[0].t_started);

    /* variant 1 is 20% faster: decided at the next look, its clean code installed */
    AuAnalysis *an = au_auditor_analysis(e.au);
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    n = records(&e, r, 8);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[0].result.outcome, AU_WINNER);
    CHECK_INT(r[0].installed, 1);
    CHECK(work->entry == stub_clean1);
    CHECK(r[0].t_decided >= r[0].t_sampling);
    /* the next poll starts the oldest queued one: work's custom bakeoff */
    au_auditor_poll(e.au);
    n = records(&e, r, 8);
    CHECK_INT(stub.n, 2);
    CHECK(stub.m[1] == work && stub.id[1] == r[1].id);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[2].phase, AU_PHASE_QUEUED);
    /* out of wall time: timeout, the default (variant 0) installed */
    au_analysis_step(an, au_now() + 3600);
    n = records(&e, r, 8);
    CHECK_INT(r[1].phase, AU_PHASE_DONE);
    CHECK_INT(r[1].result.outcome, AU_TIMEOUT);
    CHECK_INT(r[1].installed, 0);
    CHECK(work->entry == stub_clean0);
    /* work is done with both clients: never audited again */
    calls(&e, work, 1000);
    au_auditor_poll(e.au);
    n = records(&e, r, 8);
    CHECK_INT(n, 4);
    CHECK_INT(stub.n, 3);
    CHECK(stub.m[2] == twice);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
out:
    env_free(&e);
}

static bool jit_stub(Jit *jit, JitRequest *rq, JitResult *out, VmError *err)
{
    (void)jit, (void)rq, (void)err;
    *out = (JitResult){.entry = fake_compiled};
    return true;
}

/* audit.hot_threshold=0 with --jit=sync: the bakeoff starts when the JIT
 * installs the method's code, on the program's thread, so the call that
 * made the method hot already finds the dispatcher installed. */
TEST(audit_bakeoff_starts_at_install)
{
    static const char *const set[] = {"audit.clients=aa", "audit.hot_threshold=0", "vm.hot_threshold=3", NULL};
    Env e;
    env_jit_compiler = jit_stub;
    bool ok = env_new(&e, set);
    env_jit_compiler = NULL;
    if (!ok) {
        env_free(&e);
        return;
    }
    memset(&stub, 0, sizeof stub);
    au_auditor_set_compiler(e.au, stub_compile);
    VmMethod *twice = test_method(e.vm, "twice");
    CHECK_INT(call_int(&e, twice, 1).i, 2);
    CHECK_INT(call_int(&e, twice, 2).i, 4);
    CHECK(twice->entry == vm_interp_entry);
    CHECK_INT(stub.n, 0);
    CHECK_INT(call_int(&e, twice, 3).i, 6);   /* hot: compiled, installed, audited */
    CHECK(twice->entry == stub_dispatch);
    CHECK_INT(stub.n, 1);
    AuBakeoffRecord r[2];
    CHECK_INT(records(&e, r, 2), 1);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_STR(r[0].method, "twice");
    env_free(&e);
}

/* An auditor with the stub compiler for which `twice` and then `work`
 * (their "compiled code" fake_compiled) got hot, 100 calls each, and one
 * poll that queued and started what it could.  False (nothing to free)
 * when the environment could not be built. */
static bool two_hot_calling(Env *e, const char *const *set, const char *callee)
{
    if (!env_new(e, set)) {
        env_free(e);
        return false;
    }
    memset(&stub, 0, sizeof stub);
    stub.callee = callee ? test_method(e->vm, callee) : NULL;
    au_auditor_set_compiler(e->au, stub_compile);
    VmMethod *work = test_method(e->vm, "work"), *twice = test_method(e->vm, "twice");
    work->entry = fake_compiled;
    twice->entry = fake_compiled;
    au_auditor_poll(e->au);
    calls(e, twice, 100);
    calls(e, work, 100);
    au_auditor_poll(e->au);
    return true;
}

static bool two_hot(Env *e, const char *const *set)
{
    return two_hot_calling(e, set, NULL);
}

TEST(audit_bakeoff_concurrent)
{
    static const char *const set[] = {"audit.clients=aa,custom", "audit.custom=-O0;-O2", "audit.concurrent=2", NULL};
    Env e;
    if (!two_hot(&e, set))
        return;
    AuBakeoffRecord r[8];
    size_t n = records(&e, r, 8);
    CHECK_INT(n, 4);
    /* two at once, but never two of one method: work/aa and twice/aa */
    CHECK_INT(stub.n, 2);
    if (n == 4) {
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
        CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
        CHECK_INT(r[3].phase, AU_PHASE_QUEUED);
    }
    env_free(&e);
}

TEST(audit_bakeoff_compile_failure)
{
    Env e;
    if (!env_new(&e, LIFECYCLE)) {
        env_free(&e);
        return;
    }
    memset(&stub, 0, sizeof stub);
    stub.fail = true;
    au_auditor_set_compiler(e.au, stub_compile);
    VmMethod *work = test_method(e.vm, "work");
    work->entry = fake_compiled;
    au_auditor_poll(e.au);
    calls(&e, work, 100);
    au_auditor_poll(e.au);
    AuBakeoffRecord r[8];
    size_t n = records(&e, r, 8);
    CHECK_INT(n, 2);
    /* the first failed, the method kept its code, and the next one started
     * (and failed) in the same round: the slot came free */
    CHECK_INT(stub.n, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_STR(r[0].failure, "stub failure");
    CHECK_INT(r[1].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].installed, -1);
    CHECK(work->entry == fake_compiled);
    env_free(&e);
}

/* An Env under set in which twice, compiled (fake_compiled), got hot after
 * 100 calls and its bakeoff started: with the stub compiler if stubbed,
 * else with the JIT's.  NULL (the Env freed) if the Env fails. */
static VmMethod *bake_twice(Env *e, const char *const *set, bool stubbed)
{
    if (!env_new(e, set)) {
        env_free(e);
        return NULL;
    }
    if (stubbed) {
        memset(&stub, 0, sizeof stub);
        au_auditor_set_compiler(e->au, stub_compile);
    }
    VmMethod *twice = test_method(e->vm, "twice");
    twice->entry = fake_compiled;
    au_auditor_poll(e->au);
    calls(e, twice, 100);
    au_auditor_poll(e->au);
    return twice;
}

/* A method whose timed calls take fewer than audit.min_cycles: once each
 * variant has AU_CHEAP_SAMPLES samples the analysis round ends the bakeoff
 * FAILED and the old code is back. */
TEST(audit_bakeoff_too_cheap)
{
    static const char *const set[] = {"audit.clients=aa", "audit.min_samples=100000", "audit.trim_window=10",
                                      "audit.trim_drop=1", "audit.min_cycles=200", NULL};
    Env e;
    VmMethod *twice = bake_twice(&e, set, true);
    if (!twice)
        return;
    CHECK(twice->entry == stub_dispatch);
    AuAnalysis *an = au_auditor_analysis(e.au);
    feed(stub.tab[0]->bakeoff, (double[2]){300, 300}, 900);   /* expensive enough, too few */
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    AuBakeoffRecord r[2];
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    feed(stub.tab[0]->bakeoff, (double[2]){60, 60}, 3000);
    /* the analysis round alone ends it: no poll of the bakeoff thread,
     * which may be busy compiling for seconds */
    au_analysis_step(an, au_now());
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "too cheap to time");
    CHECK(twice->entry == fake_compiled);
    env_free(&e);

    /* decided by the analysis before the bakeoff thread looked: the
     * decision is not taken either */
    static const char *const set2[] = {"audit.clients=aa", "audit.min_samples=200", "audit.trim_window=10",
                                       "audit.trim_drop=1", "audit.min_cycles=200", NULL};
    twice = bake_twice(&e, set2, true);
    if (!twice)
        return;
    feed(stub.tab[0]->bakeoff, (double[2]){60, 45}, 2000);
    au_analysis_step(au_auditor_analysis(e.au), au_now());
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].result.outcome, AU_RUNNING);
    CHECK_INT(r[0].installed, -1);
    CHECK_CONTAINS(r[0].failure, "too cheap to time");
    CHECK(twice->entry == fake_compiled);
    env_free(&e);
}

/* audit.min_cost: twice (no loop, no call, a few IR cost units) ends
 * FAILED before anything compiles and keeps its code; work (a loop) is
 * compiled as before. */
TEST(audit_bakeoff_static_cheap)
{
    static const char *const set[] = {"audit.clients=aa", "audit.min_cost=100", NULL};
    Env e;
    VmMethod *twice = bake_twice(&e, set, true);
    if (!twice)
        return;
    AuBakeoffRecord r[2];
    CHECK_INT(records(&e, r, 2), 1);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "too cheap to time: a call costs at most");
    CHECK_CONTAINS(r[0].failure, "audit.min_cost 100; not compiled");
    CHECK_INT(stub.n, 0);
    CHECK(twice->entry == fake_compiled);

    VmMethod *work = test_method(e.vm, "work");
    work->entry = fake_compiled;
    au_auditor_poll(e.au);
    calls(&e, work, 100);
    au_auditor_poll(e.au);
    CHECK_INT(records(&e, r, 2), 2);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(stub.n, 1);
    CHECK(stub.m[0] == work);
    env_free(&e);

    /* a bound at the limit or above is audited: twice costs less than 100,
     * and at audit.min_cost=1 nothing costs less */
    static const char *const set1[] = {"audit.clients=aa", "audit.min_cost=1", NULL};
    twice = bake_twice(&e, set1, true);
    if (!twice)
        return;
    CHECK_INT(stub.n, 1);
    CHECK(twice->entry == stub_dispatch);
    env_free(&e);
}

/* The bakeoff of `twice` ended as "not called through its entry": failed,
 * not decided, its old code back.  Frees e. */
static void check_ended_idle(Env *e, VmMethod *twice)
{
    AuBakeoffRecord r[2];
    records(e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].result.outcome, AU_RUNNING);
    CHECK_CONTAINS(r[0].failure, "not called through its entry");
    CHECK(twice->entry == fake_compiled);
    env_free(e);
}

/* A dispatcher that gets no call (audit.interval_ms 1: 100 rounds are
 * 0.1 s) ends FAILED with the old code back, freeing the queue. */
TEST(audit_bakeoff_idle)
{
    static const char *const set[] = {"audit.clients=aa", NULL};
    Env e;
    VmMethod *twice = bake_twice(&e, set, true);
    if (!twice)
        return;
    CHECK(twice->entry == stub_dispatch);
    AuBakeoffRecord r[2];
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    usleep(150000);
    au_auditor_poll(e.au);
    check_ended_idle(&e, twice);
}

/* Futility by rate judges from 90% of a turn, here 18 ms, long before
 * drop_idle's 100 rounds (0.1 s): a bakeoff that got no timed call in its
 * turn is paused ("idle": its method not called then), not ended as a
 * (futile) timeout: it measured nothing.  It waits until its method is
 * called again, even with the slot free; its next turn begins a fresh
 * analysis, whose samples decide it; once its turns without a timed call
 * sum to 100 rounds, it ends as drop_idle's case. */
TEST(audit_bakeoff_futile_without_calls)
{
    static const char *const set[] = {
        "audit.clients=aa", "audit.quantum_ms=20", "audit.min_samples=200", "audit.trim_window=10",
        "audit.trim_drop=1", "audit.confirm=0",    NULL,
    };
    for (int decides = 1; decides >= 0; decides--) {
        Env e;
        VmMethod *twice = bake_twice(&e, set, true);
        if (!twice)
            return;
        CHECK(twice->entry == stub_dispatch);
        uint32_t first = stub.tab[0]->bakeoff;
        AuAnalysis *an = au_auditor_analysis(e.au);
        usleep(40000);
        au_analysis_step(an, au_now());
        AuBakeoffRecord r[2];
        records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
        CHECK_INT(r[0].idled, 1);
        CHECK_INT(r[0].result.outcome, AU_RUNNING);
        CHECK(twice->entry == fake_compiled);
        au_auditor_poll(e.au);   /* not called: it waits, the slot free */
        records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
        twice->prof.calls += 10;
        au_auditor_poll(e.au);   /* called again: its next turn */
        records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        CHECK_INT(r[0].turns, 2);
        CHECK(twice->entry == stub_dispatch);
        CHECK_INT(stub.n, 1);    /* nothing recompiled */
        CHECK(stub.tab[0]->bakeoff != first && stub.tab[0]->bakeoff != 0);
        if (decides) {
            feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
            au_analysis_step(an, au_now());
            records(&e, r, 2);
            CHECK_INT(r[0].phase, AU_PHASE_DONE);
            CHECK_INT(r[0].result.outcome, AU_WINNER);
            CHECK(twice->entry == stub_clean1);
            env_free(&e);
        } else {
            usleep(70000);   /* 110 ms without a timed call, turns summed */
            au_analysis_step(an, au_now());
            records(&e, r, 2);
            CHECK_INT(r[0].idled, 1);
            check_ended_idle(&e, twice);
        }
    }
}

/* two_hot with turns of 20 ms, then `wait` µs in which work (sampling)
 * gets no timed call while its method and twice's are called work_calls
 * and twice_calls times, and an analysis round: work is paused idle,
 * twice never ran.  False (nothing to free) when the environment could
 * not be built. */
static bool work_paused_idle(Env *e, useconds_t wait, uint64_t work_calls, uint64_t twice_calls)
{
    static const char *const set[] = {
        "audit.clients=aa",  "audit.quantum_ms=20", "audit.interval_ms=10", "audit.min_samples=200",
        "audit.trim_window=10", "audit.trim_drop=1", "audit.confirm=0", "audit.ahead=0",
        "audit.timeout_ms=60000", NULL,
    };
    if (!two_hot(e, set))
        return false;
    AuBakeoffRecord r[2];
    CHECK_INT(records(e, r, 2), 2);
    CHECK_STR(r[0].method, "work");
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    usleep(wait);
    test_method(e->vm, "work")->prof.calls += work_calls;
    test_method(e->vm, "twice")->prof.calls += twice_calls;
    au_analysis_step(au_auditor_analysis(e->au), au_now());
    records(e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[0].idled, 1);
    return true;
}

/* An idle turn (no timed call: pause_idle) does not count among the
 * turns that order the queue (turns_had): work, paused idle after its
 * first turn and called ten times as often as twice lately (a rate
 * window), goes before twice, which never ran; counted, its one turn put
 * it behind. */
TEST(audit_bakeoff_idle_turns_not_counted)
{
    Env e;
    if (!work_paused_idle(&e, 520000, 1000000, 100000))
        return;
    AuBakeoffRecord r[2];
    au_auditor_poll(e.au);
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 2);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    env_free(&e);
}

/* A bakeoff paused idle resumes only once its method is called again
 * (between the last two scans: idle()), not when the slot frees: work,
 * paused idle, not called, waits while twice, never run, takes its turn;
 * called again, it takes the slot back when twice's turn is over. */
TEST(audit_bakeoff_idle_resumes_when_called)
{
    Env e;
    if (!work_paused_idle(&e, 40000, 0, 0))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    AuBakeoffRecord r[2];
    au_auditor_poll(e.au);   /* work not called: twice goes first */
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == stub_dispatch);
    work->prof.calls += 10;   /* work called again */
    usleep(25000);
    au_auditor_poll(e.au);   /* twice's turn is over: work resumes */
    records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 2);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK(work->entry == stub_dispatch);
    env_free(&e);
}

/* Turns (audit.quantum_ms=1): once its turn is over, the sampling
 * bakeoff is paused for a waiting one (old code back, samples kept, not
 * decided while paused) and resumes, not recompiled, when that one's turn
 * is over; its samples from both turns decide it. */
TEST(audit_bakeoff_turns)
{
    static const char *const set[] = {
        "audit.clients=aa",     "audit.quantum_ms=1", "audit.min_samples=200", "audit.trim_window=10",
        "audit.trim_drop=1",    "audit.confirm=0",    "audit.timeout_ms=60000", NULL,
    };
    Env e;
    if (!two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    AuBakeoffRecord r[4];
    CHECK_INT(records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 1);
    CHECK_INT(r[1].phase, AU_PHASE_READY);   /* compiled ahead (audit.ahead) */
    usleep(3000);
    au_auditor_poll(e.au);   /* work's turn is over: paused, twice starts */
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK(r[0].sampled >= 0.001);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(work->entry == fake_compiled);
    CHECK(twice->entry == stub_dispatch);
    CHECK_INT(stub.n, 2);
    /* samples of a paused bakeoff wait: no decision */
    AuAnalysis *an = au_auditor_analysis(e.au);
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
    au_analysis_step(an, au_now());
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    usleep(3000);
    au_auditor_poll(e.au);   /* twice's turn is over: work resumes */
    records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 2);
    CHECK(work->entry == stub_dispatch);
    CHECK_INT(stub.n, 2);    /* nothing recompiled */
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
    au_analysis_step(an, au_now());
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[0].result.outcome, AU_WINNER);
    CHECK(work->entry == stub_clean1);
    CHECK(r[0].result.v[1].received >= 2000);
    /* the paused one gets the slot back; without a waiting one it keeps it */
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].turns, 2);
    usleep(3000);
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    env_free(&e);
}

/* Among paused records the one foreseeing its decision soonest resumes
 * first (Bake.foreseen: au_stats_to_decide when it was paused), not the
 * least recently run: work (2% apart: far from a decision) was paused
 * before twice (10% apart: 65 samples from audit.min_samples); when tree's
 * turn is over, twice resumes. */
TEST(audit_bakeoff_foreseen_first)
{
    static const char *const set[] = {
        "audit.clients=aa",     "audit.quantum_ms=50", "audit.min_samples=200", "audit.trim_window=10",
        "audit.trim_drop=1",    "audit.confirm=0",     "audit.timeout_ms=60000", "audit.ahead=0",
        "audit.extend=0",       NULL,
    };
    Env e;
    if (!two_hot(&e, set))
        return;
    VmMethod *tree = test_method(e.vm, "tree");
    tree->entry = fake_compiled;
    au_auditor_poll(e.au);
    calls(&e, tree, 100);
    au_auditor_poll(e.au);
    AuAnalysis *an = au_auditor_analysis(e.au);
    AuBakeoffRecord r[4];
    CHECK_INT(records(&e, r, 4), 3);
    CHECK_STR(r[0].method, "work");
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 1020}, 150);
    au_analysis_step(an, au_now());
    usleep(60000);
    au_auditor_poll(e.au);   /* work paused, twice starts */
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_STR(r[1].method, "twice");
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    feed(stub.tab[1]->bakeoff, (double[2]){1000, 900}, 150);
    au_analysis_step(an, au_now());
    usleep(60000);
    au_auditor_poll(e.au);   /* twice paused, tree starts */
    records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    usleep(60000);
    au_auditor_poll(e.au);   /* tree paused; twice, paused after work, goes first */
    records(&e, r, 4);
    CHECK_INT(r[2].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].turns, 2);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[0].turns, 1);
    env_free(&e);
}

/* A waiting record whose method is, lately, not called through its entry
 * (idle(): 0 calls over the last 0.5 s) does not take the slot from one
 * whose method is, even when that one's turn is over and it has had more
 * turns; once its method is called again, it does. */
TEST(audit_bakeoff_idle_waits)
{
    static const char *const set[] = {
        "audit.clients=aa", "audit.quantum_ms=700", "audit.min_samples=2000", "audit.trim_window=10",
        "audit.trim_drop=1", "audit.confirm=0",     "audit.timeout_ms=60000", NULL,
    };
    Env e;
    if (!two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    AuBakeoffRecord r[4];
    CHECK_INT(records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);   /* work */
    CHECK_INT(r[1].phase, AU_PHASE_READY);      /* twice, compiled ahead */
    /* samples, so that drop_idle leaves work alone */
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
    au_analysis_step(au_auditor_analysis(e.au), au_now());
    usleep(520000);   /* a rate window: twice's 100 calls, work's million */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    usleep(520000);   /* the next: twice not called, work's turn over */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    twice->prof.calls += 1000000;   /* twice called again */
    usleep(520000);
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    env_free(&e);
}

/* A record READY ahead whose method goes idle is passed over by a newly
 * queued one whose method is called: it gives its slot back
 * (queue_unreserve) and the new one compiles ahead, in a slot no waiting
 * record is compiled for; when the slot frees the new one samples with no
 * compile, and the one passed over, its method called again, later
 * samples in its own slot, still with no compile.  Before, the idle one
 * held the one reservation to the end and every later bakeoff compiled
 * while the slot stood empty. */
TEST(audit_bakeoff_ahead_passed_over)
{
    static const char *const set[] = {
        "audit.clients=aa", "audit.min_samples=200",  "audit.trim_window=10", "audit.trim_drop=1",
        "audit.confirm=0",  "audit.timeout_ms=60000", "audit.quantum_ms=10000", NULL,
    };
    Env e;
    if (!two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    VmMethod *tree = test_method(e.vm, "tree");
    AuBakeoffRecord r[4];
    CHECK_INT(records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);   /* work, slot 0 */
    CHECK_INT(r[1].phase, AU_PHASE_READY);      /* twice, ahead in slot 1 */
    CHECK_INT(stub.n, 2);
    CHECK(stub.slot[0] == 0 && stub.slot[1] == 1);
    /* samples, so that drop_idle leaves work alone */
    AuAnalysis *an = au_auditor_analysis(e.au);
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
    au_analysis_step(an, au_now());
    usleep(520000);   /* a rate window: twice's 100 calls, work's million */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    usleep(520000);   /* the next: twice not called: idle */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    CHECK_INT(stub.n, 2);
    tree->entry = fake_compiled;   /* tree compiled now, then hot: queued, */
    au_auditor_poll(e.au);         /* its rate not known yet: not idle, */
    calls(&e, tree, 100);          /* so it goes before twice */
    au_auditor_poll(e.au);
    CHECK_INT(records(&e, r, 4), 3);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK_INT(r[2].phase, AU_PHASE_READY);
    CHECK_INT(stub.n, 3);
    CHECK(stub.m[2] == tree && stub.slot[2] == 2);   /* not twice's slot 1 */
    CHECK(tree->entry == fake_compiled && twice->entry == fake_compiled);
    /* work decided: tree samples, nothing compiled */
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK(tree->entry == stub_dispatch);
    CHECK_INT(stub.n, 3);
    /* tree decided, twice called again: twice samples in its slot 1 */
    twice->prof.calls += 1000000;
    usleep(520000);
    feed(stub.tab[2]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    records(&e, r, 4);
    CHECK_INT(r[2].phase, AU_PHASE_DONE);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == stub_dispatch);
    CHECK_INT(stub.n, 3);
    env_free(&e);
}

/* audit.extend: a bakeoff whose turn is over keeps its slot, one turn at
 * a time, while it foresees a decision within the extra turns it has
 * left (1,000 samples of 1,000 kept 900: 100 to go, about a tenth of its
 * sampling time so far); at the cap, or with audit.extend=0, it is paused
 * for the waiting one as before. */
TEST(audit_bakeoff_extend)
{
    for (int extend = 0; extend <= 1; extend++) {
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=100", "audit.min_samples=1000",   "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000",
            extend ? "audit.extend=1" : "audit.extend=0", NULL,
        };
        Env e;
        if (!two_hot(&e, set))
            return;
        AuAnalysis *an = au_auditor_analysis(e.au);
        AuBakeoffRecord r[4];
        CHECK_INT(records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
        au_analysis_step(an, au_now());
        usleep(110000);
        au_auditor_poll(e.au);
        records(&e, r, 4);
        CHECK_INT(r[0].phase, extend ? AU_PHASE_SAMPLING : AU_PHASE_PAUSED);
        CHECK_INT(r[0].extended, extend);
        CHECK_INT(r[1].phase, extend ? AU_PHASE_READY : AU_PHASE_SAMPLING);
        if (extend) {
            AuConfig cfg;
            VmError err;
            CHECK(au_config_from_tunables(&cfg, &e.vm->tun, &err));
            double td = au_stats_to_decide(&cfg, &r[0].result);   /* the look it was extended on */
            CHECK(td > 0 && td <= 0.1);
            usleep(100000);   /* its one extra turn is over too */
            au_auditor_poll(e.au);
            records(&e, r, 4);
            CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
            CHECK_INT(r[0].extended, 1);
            CHECK_INT(r[0].turns, 1);
            CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
        }
        env_free(&e);
    }
}

/* audit.cut: a quarter into its turn, a bakeoff that at its rate cannot
 * have audit.min_samples by the turn's end (100 samples a variant in
 * 0.12 s of a 0.4 s turn: some 330 of 1,000) and foresees no decision
 * within the longest turn audit.extend could give it is paused for the
 * waiting one ("cut"); at audit.cut=0, at a rate that gets there (900),
 * or foreseeing a decision within its extra turns (30% apart, 1.1 s
 * away, 5 extra turns of 0.4 s), it keeps its slot. */
TEST(audit_bakeoff_cut)
{
    static const struct {
        const char *cut, *extend;
        double slower;
        int per_variant;
        bool is_cut;
    } cases[] = {
        {"audit.cut=25", "audit.extend=0", 1000, 100, true}, {"audit.cut=0", "audit.extend=0", 1000, 100, false},
        {"audit.cut=25", "audit.extend=0", 1000, 900, false}, {"audit.cut=25", "audit.extend=0", 1300, 100, true},
        {"audit.cut=25", "audit.extend=5", 1300, 100, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=400", "audit.min_samples=1000", "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000", cases[i].cut,
            cases[i].extend,     NULL,
        };
        Env e;
        if (!two_hot(&e, set))
            return;
        AuBakeoffRecord r[4];
        CHECK_INT(records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        feed(stub.tab[0]->bakeoff, (double[2]){1000, cases[i].slower}, cases[i].per_variant);
        usleep(120000);
        au_analysis_step(au_auditor_analysis(e.au), au_now());   /* the rate: samples in 0.12 s */
        au_auditor_poll(e.au);
        records(&e, r, 4);
        CHECK_INT(r[0].phase, cases[i].is_cut ? AU_PHASE_PAUSED : AU_PHASE_SAMPLING);
        CHECK_INT(r[0].cut, cases[i].is_cut);
        CHECK_INT(r[0].turns, 1);
        CHECK_INT(r[1].phase, cases[i].is_cut ? AU_PHASE_SAMPLING : AU_PHASE_READY);
        if (cases[i].is_cut)
            CHECK(r[0].sampled >= 0.1 && r[0].sampled < 0.4);
        env_free(&e);
    }
}

/* audit.wait_jit: a quarter into its turn, a bakeoff whose variants call
 * a method queued in the JIT (tree, the compile thread paused) yields its
 * slot to the waiting one ("yielded", not a turn had), its samples being
 * ones the install would throw away, though at its rate it would decide
 * in its turn (900 samples a variant in 0.12 s: audit_bakeoff_cut keeps
 * it); with its callee compiled, or audit.wait_jit=0, it keeps the slot. */
TEST(audit_bakeoff_yields_while_callee_queued)
{
    for (int mode = 0; mode < 3; mode++) {   /* queued, installed, wait_jit=0 */
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=400", "audit.min_samples=1000", "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000", "audit.cut=25",
            "audit.extend=0",    mode == 2 ? "audit.wait_jit=0" : "audit.wait_jit=1", NULL,
        };
        env_jit_queue = true;
        Env e;
        bool ok = two_hot_calling(&e, set, "tree");
        env_jit_queue = false;
        if (!ok)
            return;
        VmMethod *tree = test_method(e.vm, "tree");
        jit_enqueue(e.jit, tree);
        if (mode == 1)
            tree->entry = fake_compiled;   /* what the JIT's install does */
        AuBakeoffRecord r[4];
        CHECK_INT(records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        feed(stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 900);
        usleep(120000);
        au_analysis_step(au_auditor_analysis(e.au), au_now());
        au_auditor_poll(e.au);
        records(&e, r, 4);
        bool yields = mode == 0;
        CHECK_INT(r[0].phase, yields ? AU_PHASE_PAUSED : AU_PHASE_SAMPLING);
        CHECK_INT(r[0].yielded, yields);
        CHECK_INT(r[0].cut, 0);
        CHECK_INT(r[0].turns, 1);
        CHECK_INT(r[1].phase, yields ? AU_PHASE_SAMPLING : AU_PHASE_READY);
        env_free(&e);
    }
}

/* audit.restart: a callee's install while a bakeoff samples starts its
 * samples over, and its turn begins again: 0.3 s into a 0.4 s turn the
 * JIT installs tree, and 0.15 s later the bakeoff still samples, its
 * sampling time counted whole; with audit.restart=0 its turn is over. */
TEST(audit_bakeoff_turn_again_at_restart)
{
    for (int mode = 0; mode < 2; mode++) {   /* restart on, off */
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=400", "audit.min_samples=1000", "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000", "audit.cut=0",
            "audit.extend=0",    mode == 0 ? "audit.restart=1" : "audit.restart=0", NULL,
        };
        env_jit_queue = true;
        env_jit_compiler = jit_stub;
        Env e;
        bool ok = two_hot_calling(&e, set, "tree");
        env_jit_queue = false;
        env_jit_compiler = NULL;
        if (!ok)
            return;
        AuBakeoffRecord r[4];
        CHECK_INT(records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        usleep(300000);
        AuAnalysis *an = au_auditor_analysis(e.au);
        feed(stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);   /* not idle (drop_idle) */
        au_analysis_step(an, au_now());
        VmMethod *tree = test_method(e.vm, "tree");
        jit_enqueue(e.jit, tree);
        jit_test_pause(e.jit, false);
        jit_test_wait_idle(e.jit);
        CHECK(tree->entry == fake_compiled);   /* installed: the auditor heard of it */
        usleep(150000);
        feed(stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
        au_analysis_step(an, au_now());
        au_auditor_poll(e.au);
        records(&e, r, 4);
        CHECK_INT(r[0].phase, mode == 0 ? AU_PHASE_SAMPLING : AU_PHASE_PAUSED);
        CHECK_INT(r[0].turns, 1);
        CHECK(r[0].sampled >= 0.44);
        env_free(&e);
    }
}

/* audit.ahead: while the one slot samples, the record next in line
 * compiles for a slot of its own and waits READY, its method's code
 * untouched; when the slot frees it samples at once, nothing compiled
 * then, and the next one compiles ahead.  One ahead at a time; a failed
 * compile ahead leaves the slot count as it was. */
TEST(audit_bakeoff_ahead)
{
    static const char *const set[] = {
        "audit.clients=aa,custom", "audit.custom=-O0;-O2", "audit.min_samples=200", "audit.trim_window=10",
        "audit.trim_drop=1",       "audit.timeout_ms=60000", "audit.confirm=0",    NULL,
    };
    Env e;
    if (!two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    VmMethod *tree = test_method(e.vm, "tree");
    tree->entry = fake_compiled;
    AuBakeoffRecord r[8];
    CHECK_INT(records(&e, r, 8), 4);
    /* work/aa samples in slot 0; work/custom waits for its method, so
     * twice/aa is next: compiled for slot 1, its method's code untouched */
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    CHECK_INT(r[2].phase, AU_PHASE_READY);
    CHECK_INT(r[3].phase, AU_PHASE_QUEUED);
    CHECK(r[2].t_started > 0 && r[2].t_sampling == 0);
    CHECK_INT(stub.n, 2);
    CHECK(stub.m[1] == twice && stub.slot[0] == 0 && stub.slot[1] == 1);
    CHECK(twice->entry == fake_compiled);
    au_auditor_poll(e.au);   /* one ahead at a time */
    CHECK_INT(stub.n, 2);

    /* work/aa decided: twice/aa samples with no compile, work/custom compiles ahead in slot 0 */
    AuAnalysis *an = au_auditor_analysis(e.au);
    feed(stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    records(&e, r, 8);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == stub_dispatch);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK_INT(stub.n, 3);
    CHECK(stub.m[2] == work && stub.slot[2] == 0);
    CHECK(work->entry == stub_clean1);

    /* twice/aa decided: work/custom samples; twice/custom fails to compile ahead */
    stub.fail = true;
    feed(stub.tab[1]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    records(&e, r, 8);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(work->entry == stub_dispatch);
    CHECK_INT(r[3].phase, AU_PHASE_FAILED);
    CHECK_STR(r[3].failure, "stub failure");
    CHECK_INT(stub.n, 4);
    /* the slot count survived the failure: tree's bakeoff, now hot, only
     * compiles ahead while work/custom holds the one slot */
    stub.fail = false;
    calls(&e, tree, 100);
    au_auditor_poll(e.au);
    CHECK_INT(records(&e, r, 8), 6);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[4].phase, AU_PHASE_READY);
    CHECK_INT(r[5].phase, AU_PHASE_QUEUED);
    CHECK(tree->entry == fake_compiled);
    env_free(&e);
}

/* The real compiler with jit.fail_every=2: variant 0 compiles (attempt 1),
 * variant 1 is the injected failure (attempt 2); nothing is installed. */
TEST(audit_bakeoff_injected_failure)
{
    static const char *const set[] = {"audit.clients=aa", "jit.fail_every=2", NULL};
    Env e;
    VmMethod *twice = bake_twice(&e, set, false);
    if (!twice)
        return;
    AuBakeoffRecord r[4];
    size_t n = records(&e, r, 4);
    CHECK_INT(n, 1);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "variant 1: injected failure");
    CHECK(twice->entry == fake_compiled);
    CHECK_INT(call_int(&e, twice, 21).i, 42);
    env_free(&e);
}

/* ---- the real dispatcher ---------------------------------------------------------- */

#define ARMS (AU_MAX_VARIANTS * AU_MAX_COPIES)

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
    VmMethod *twice = bake_twice(e, set, false);
    if (!twice)
        return NULL;
    size_t n = records(e, r, 2);
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
                               "audit.same_code=0" /* O2 and O3 compile twice alike */, copies, NULL};
    Env e;
    AuBakeoffRecord r[2];
    VmMethod *twice = dispatched(&e, set, r);
    if (!twice)
        return;
    CHECK_INT(r[0].copies, arms / 2);
    AuPolicyParams *p = au_analysis_policy(au_auditor_analysis(e.au), 0);
    CHECK_INT(p->reset, 8);
    CHECK_INT(p->burst, 2);
    AuPolicyState sim = {0};
    uint64_t want[ARMS] = {0}, warm[ARMS] = {0}, clean = 0;
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        CHECK_INT(call_int(&e, twice, i).i, 2 * i);
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
    AuPolicyState *st = (AuPolicyState *)e.t->audit[0];
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
 * sets that), and with audit.prologue=0 it is the same code without the
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
    CHECK(twice->entry != fake_compiled);
    AuPolicyState *st = (AuPolicyState *)e.t->audit[0];
    *st = (AuPolicyState){0};
    const int N = 5000;
    for (int i = 0; i < N; i++)
        CHECK_INT(call_int(&e, twice, i).i, 2 * i);
    CHECK_INT(st->countdown, counts ? INT32_MAX - (N - 1) : 0);
    env_free(&e);
}

TEST(audit_dispatcher_prologue)
{
    dispatcher_prologue("audit.prologue=1", true);
    dispatcher_prologue("audit.prologue=0", false);
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
        ir_options_default(&rq.ir[k], &e.vm->tun);
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
    work->entry = fake_compiled;
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
            same &= work->entry(e->t, work, a).f == want;
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
