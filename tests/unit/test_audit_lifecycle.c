/* tests/unit/test_audit_lifecycle.c — the bakeoff lifecycle (audit/lifecycle.c)
 * and the clients (audit/clients.c).
 *
 * - clients: names, errors, the variants each client names;
 * - lifecycle with a stub compiler (no gcc): the FIFO queue, one bakeoff
 *   per method at a time, audit.concurrent, a decision installs the
 *   chosen clean code with one store, timeouts install the default;
 * - turns: pauses, extensions, cuts, idle turns, yields to a bakeoff
 *   without a callee queued in the JIT, a turn begun again at a restart;
 * - fault injection through the real compiler (jit.fail_every): FAILED,
 *   the method keeps its code, the next bakeoff starts.
 * The environment is audit_env.c's; the real dispatcher and the end to
 * end tests are in test_audit_dispatch.c.
 */
#include "audit_env.h"
#include "auditor.h"

#include <stdlib.h>
#include <unistd.h>

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
    AuConfig cfg;
    au_config_default(&cfg);
    IrOptions ir;
    ir_options_default(&ir);
    AuVariantSpec v[JIT_MAX_VARIANTS];
    VmError err = {{0}};
    CHECK_INT(au_client_variants(AU_CLIENT_INLINE, &cfg, "O2", &ir, v, &err), 2);
    CHECK_STR(v[1].name, "inline4x");
    CHECK_INT(v[1].inline_max_callee_size, 4 * ir.max_callee_size);
    CHECK_INT(v[0].inline_max_callee_size, ir.max_callee_size);
    CHECK_STR(v[0].optset, "O2");
    CHECK_INT(au_client_variants(AU_CLIENT_OPTLEVEL, &cfg, "O2", &ir, v, &err), 2);
    CHECK_STR(v[0].optset, "O2");
    CHECK_STR(v[1].optset, "O3");
    CHECK_INT(au_client_variants(AU_CLIENT_UNROLL, &cfg, "O2", &ir, v, &err), 2);
    CHECK_STR(v[1].optset, "unroll");
    CHECK_INT(au_client_variants(AU_CLIENT_AA, &cfg, "O2", &ir, v, &err), 2);
    CHECK(!strcmp(v[0].optset, v[1].optset) && v[0].inline_max_callee_size == v[1].inline_max_callee_size);
    /* custom: raw option strings, at least two */
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &cfg, "O2", &ir, v, &err), 0);
    CHECK_CONTAINS(err.msg, "audit.custom");
    cfg.custom = "-O0; -O2 -funroll-loops ;O3";
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &cfg, "O2", &ir, v, &err), 3);
    CHECK_STR(v[1].optset, "-O2 -funroll-loops");
    CHECK_STR(v[2].name, "O3");
    cfg.custom = "-O0;bogus";
    CHECK_INT(au_client_variants(AU_CLIENT_CUSTOM, &cfg, "O2", &ir, v, &err), 0);
    CHECK_CONTAINS(err.msg, "unknown option set 'bogus'");
    cfg.optlevel = "O2";
    CHECK_INT(au_client_variants(AU_CLIENT_OPTLEVEL, &cfg, "O2", &ir, v, &err), 0);
    cfg.clients = "optlevel";
    CHECK(!au_check_config(&cfg, "O2", &ir, &err));
    /* ranges are the rows' own: -X rejects them before any check */
    TestTunables tun;
    test_tunables_init(&tun);
    CHECK(!test_tunables_set(&tun, "audit.concurrent=0", &err));
    CHECK_CONTAINS(err.msg, "tunable 'audit.concurrent' must be in 1..16 (bakeoffs), got 0");
    CHECK(!test_tunables_set(&tun, "audit.inline_scale=1", &err));
    CHECK_CONTAINS(err.msg, "audit.inline_scale");
}

/* ---- the lifecycle, with a stub compiler ---------------------------------------- */
/* one feed decides: no confirmation look (audit.confirm, tested in
 * test_audit_stats.c); one compile at a time, into a free slot
 * (audit_bakeoff_ahead tests compiles ahead) */
static const char *const LIFECYCLE[] = {
    "audit.clients=aa,custom", "audit.custom=-O0;-O2", "audit.min_samples=200", "audit.trim_window=10",
    "audit.trim_drop=1", "audit.timeout_ms=60000", "audit.confirm=0", "research.ahead=0", NULL,
};

TEST(audit_bakeoff_queue_and_decisions)
{
    Env e;
    if (!env_new(&e, LIFECYCLE)) {
        env_free(&e);
        return;
    }
    memset(&env_stub, 0, sizeof env_stub);
    au_auditor_set_compiler(e.au, env_stub_compile);
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    work->entry = env_fake_compiled;
    twice->entry = env_fake_compiled;
    au_auditor_poll(e.au);            /* both seen: their calls count from here */
    env_calls(&e, twice, 99);
    env_calls(&e, work, 100);
    au_auditor_poll(e.au);
    AuBakeoffRecord r[8];
    size_t n = env_records(&e, r, 8);
    CHECK_INT(n, 2);                  /* work is hot (100 calls), twice not yet */
    env_calls(&e, twice, 1);
    au_auditor_poll(e.au);
    n = env_records(&e, r, 8);
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
    CHECK_INT(env_stub.n, 1);
    CHECK(work->entry == env_stub_dispatch);
    CHECK(r[0].t_queued > 0 && r[0].t_started >= r[0].t_queued && r[0].t_sampling >= r[0].t_started);

    /* variant 1 is 20% faster: decided at the next look, its clean code installed */
    AuAnalysis *an = au_auditor_analysis(e.au);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    n = env_records(&e, r, 8);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[0].result.outcome, AU_WINNER);
    CHECK_INT(r[0].installed, 1);
    CHECK(work->entry == env_stub_clean1);
    CHECK(r[0].t_decided >= r[0].t_sampling);
    /* the next poll starts the oldest queued one: work's custom bakeoff */
    au_auditor_poll(e.au);
    n = env_records(&e, r, 8);
    CHECK_INT(env_stub.n, 2);
    CHECK(env_stub.m[1] == work && env_stub.id[1] == r[1].id);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[2].phase, AU_PHASE_QUEUED);
    /* out of wall time: timeout, the default (variant 0) installed */
    au_analysis_step(an, au_now() + 3600);
    n = env_records(&e, r, 8);
    CHECK_INT(r[1].phase, AU_PHASE_DONE);
    CHECK_INT(r[1].result.outcome, AU_TIMEOUT);
    CHECK_INT(r[1].installed, 0);
    CHECK(work->entry == env_stub_clean0);
    /* work is done with both clients: never audited again */
    env_calls(&e, work, 1000);
    au_auditor_poll(e.au);
    n = env_records(&e, r, 8);
    CHECK_INT(n, 4);
    CHECK_INT(env_stub.n, 3);
    CHECK(env_stub.m[2] == twice);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
out:
    env_free(&e);
}


/* audit.hot_threshold=0 with --jit=sync: the bakeoff starts when the JIT
 * installs the method's code, on the program's thread, so the call that
 * made the method hot already finds the dispatcher installed. */
TEST(audit_bakeoff_starts_at_install)
{
    static const char *const set[] = {"audit.clients=aa", "audit.hot_threshold=0", "vm.hot_threshold=3", NULL};
    Env e;
    if (!env_new_jit(&e, set, (EnvJit){.compile = env_jit_stub})) {
        env_free(&e);
        return;
    }
    memset(&env_stub, 0, sizeof env_stub);
    au_auditor_set_compiler(e.au, env_stub_compile);
    VmMethod *twice = test_method(e.vm, "twice");
    CHECK_INT(env_call_int(&e, twice, 1).i, 2);
    CHECK_INT(env_call_int(&e, twice, 2).i, 4);
    CHECK(twice->entry == vm_interp_entry);
    CHECK_INT(env_stub.n, 0);
    CHECK_INT(env_call_int(&e, twice, 3).i, 6);   /* hot: compiled, installed, audited */
    CHECK(twice->entry == env_stub_dispatch);
    CHECK_INT(env_stub.n, 1);
    AuBakeoffRecord r[2];
    CHECK_INT(env_records(&e, r, 2), 1);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_STR(r[0].method, "twice");
    env_free(&e);
}

TEST(audit_bakeoff_concurrent)
{
    static const char *const set[] = {"audit.clients=aa,custom", "audit.custom=-O0;-O2", "audit.concurrent=2", NULL};
    Env e;
    if (!env_two_hot(&e, set))
        return;
    AuBakeoffRecord r[8];
    size_t n = env_records(&e, r, 8);
    CHECK_INT(n, 4);
    /* two at once, but never two of one method: work/aa and twice/aa */
    CHECK_INT(env_stub.n, 2);
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
    memset(&env_stub, 0, sizeof env_stub);
    env_stub.fail = true;
    au_auditor_set_compiler(e.au, env_stub_compile);
    VmMethod *work = test_method(e.vm, "work");
    work->entry = env_fake_compiled;
    au_auditor_poll(e.au);
    env_calls(&e, work, 100);
    au_auditor_poll(e.au);
    AuBakeoffRecord r[8];
    size_t n = env_records(&e, r, 8);
    CHECK_INT(n, 2);
    /* the first failed, the method kept its code, and the next one started
     * (and failed) in the same round: the slot came free */
    CHECK_INT(env_stub.n, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_STR(r[0].failure, "stub failure");
    CHECK_INT(r[1].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].installed, -1);
    CHECK(work->entry == env_fake_compiled);
    env_free(&e);
}

/* A method whose timed calls take fewer than audit.min_cycles: once each
 * variant has AU_CHEAP_SAMPLES samples the analysis round ends the bakeoff
 * FAILED and the old code is back. */
TEST(audit_bakeoff_too_cheap)
{
    static const char *const set[] = {"audit.clients=aa", "audit.min_samples=100000", "audit.trim_window=10",
                                      "audit.trim_drop=1", "audit.min_cycles=200", NULL};
    Env e;
    VmMethod *twice = env_bake_twice(&e, set, true);
    if (!twice)
        return;
    CHECK(twice->entry == env_stub_dispatch);
    AuAnalysis *an = au_auditor_analysis(e.au);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){300, 300}, 900);   /* expensive enough, too few */
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    AuBakeoffRecord r[2];
    env_records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){60, 60}, 3000);
    /* the analysis round alone ends it: no poll of the bakeoff thread,
     * which may be busy compiling for seconds */
    au_analysis_step(an, au_now());
    env_records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "too cheap to time");
    CHECK(twice->entry == env_fake_compiled);
    env_free(&e);

    /* decided by the analysis before the bakeoff thread looked: the
     * decision is not taken either */
    static const char *const set2[] = {"audit.clients=aa", "audit.min_samples=200", "audit.trim_window=10",
                                       "audit.trim_drop=1", "audit.min_cycles=200", NULL};
    twice = env_bake_twice(&e, set2, true);
    if (!twice)
        return;
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){60, 45}, 2000);
    au_analysis_step(au_auditor_analysis(e.au), au_now());
    env_records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].result.outcome, AU_RUNNING);
    CHECK_INT(r[0].installed, -1);
    CHECK_CONTAINS(r[0].failure, "too cheap to time");
    CHECK(twice->entry == env_fake_compiled);
    env_free(&e);
}

/* audit.min_cost: twice (no loop, no call, a few IR cost units) ends
 * FAILED before anything compiles and keeps its code; work (a loop) is
 * compiled as before. */
TEST(audit_bakeoff_static_cheap)
{
    static const char *const set[] = {"audit.clients=aa", "audit.min_cost=100", NULL};
    Env e;
    VmMethod *twice = env_bake_twice(&e, set, true);
    if (!twice)
        return;
    AuBakeoffRecord r[2];
    CHECK_INT(env_records(&e, r, 2), 1);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "too cheap to time: a call costs at most");
    CHECK_CONTAINS(r[0].failure, "audit.min_cost 100; not compiled");
    CHECK_INT(env_stub.n, 0);
    CHECK(twice->entry == env_fake_compiled);

    VmMethod *work = test_method(e.vm, "work");
    work->entry = env_fake_compiled;
    au_auditor_poll(e.au);
    env_calls(&e, work, 100);
    au_auditor_poll(e.au);
    CHECK_INT(env_records(&e, r, 2), 2);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(env_stub.n, 1);
    CHECK(env_stub.m[0] == work);
    env_free(&e);

    /* a bound at the limit or above is audited: twice costs less than 100,
     * and at audit.min_cost=1 nothing costs less */
    static const char *const set1[] = {"audit.clients=aa", "audit.min_cost=1", NULL};
    twice = env_bake_twice(&e, set1, true);
    if (!twice)
        return;
    CHECK_INT(env_stub.n, 1);
    CHECK(twice->entry == env_stub_dispatch);
    env_free(&e);
}

/* The bakeoff of `twice` ended as "not called through its entry": failed,
 * not decided, its old code back.  Frees e. */
static void check_ended_idle(Env *e, VmMethod *twice)
{
    AuBakeoffRecord r[2];
    env_records(e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_INT(r[0].result.outcome, AU_RUNNING);
    CHECK_CONTAINS(r[0].failure, "not called through its entry");
    CHECK(twice->entry == env_fake_compiled);
    env_free(e);
}

/* A dispatcher that gets no call (audit.interval_ms 1: 100 rounds are
 * 0.1 s) ends FAILED with the old code back, freeing the queue. */
TEST(audit_bakeoff_idle)
{
    static const char *const set[] = {"audit.clients=aa", NULL};
    Env e;
    VmMethod *twice = env_bake_twice(&e, set, true);
    if (!twice)
        return;
    CHECK(twice->entry == env_stub_dispatch);
    AuBakeoffRecord r[2];
    env_records(&e, r, 2);
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
        VmMethod *twice = env_bake_twice(&e, set, true);
        if (!twice)
            return;
        CHECK(twice->entry == env_stub_dispatch);
        uint32_t first = env_stub.tab[0]->bakeoff;
        AuAnalysis *an = au_auditor_analysis(e.au);
        usleep(40000);
        au_analysis_step(an, au_now());
        AuBakeoffRecord r[2];
        env_records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
        CHECK_INT(r[0].idled, 1);
        CHECK_INT(r[0].result.outcome, AU_RUNNING);
        CHECK(twice->entry == env_fake_compiled);
        au_auditor_poll(e.au);   /* not called: it waits, the slot free */
        env_records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
        twice->prof.calls += 10;
        au_auditor_poll(e.au);   /* called again: its next turn */
        env_records(&e, r, 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        CHECK_INT(r[0].turns, 2);
        CHECK(twice->entry == env_stub_dispatch);
        CHECK_INT(env_stub.n, 1);    /* nothing recompiled */
        CHECK(env_stub.tab[0]->bakeoff != first && env_stub.tab[0]->bakeoff != 0);
        if (decides) {
            env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
            au_analysis_step(an, au_now());
            env_records(&e, r, 2);
            CHECK_INT(r[0].phase, AU_PHASE_DONE);
            CHECK_INT(r[0].result.outcome, AU_WINNER);
            CHECK(twice->entry == env_stub_clean1);
            env_free(&e);
        } else {
            usleep(70000);   /* 110 ms without a timed call, turns summed */
            au_analysis_step(an, au_now());
            env_records(&e, r, 2);
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
        "audit.trim_window=10", "audit.trim_drop=1", "audit.confirm=0", "research.ahead=0",
        "audit.timeout_ms=60000", NULL,
    };
    if (!env_two_hot(e, set))
        return false;
    AuBakeoffRecord r[2];
    CHECK_INT(env_records(e, r, 2), 2);
    CHECK_STR(r[0].method, "work");
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    usleep(wait);
    test_method(e->vm, "work")->prof.calls += work_calls;
    test_method(e->vm, "twice")->prof.calls += twice_calls;
    au_analysis_step(au_auditor_analysis(e->au), au_now());
    env_records(e, r, 2);
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
    env_records(&e, r, 2);
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
    env_records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == env_stub_dispatch);
    work->prof.calls += 10;   /* work called again */
    usleep(25000);
    au_auditor_poll(e.au);   /* twice's turn is over: work resumes */
    env_records(&e, r, 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 2);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK(work->entry == env_stub_dispatch);
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
    if (!env_two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    AuBakeoffRecord r[4];
    CHECK_INT(env_records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 1);
    CHECK_INT(r[1].phase, AU_PHASE_READY);   /* compiled ahead (research.ahead) */
    usleep(3000);
    au_auditor_poll(e.au);   /* work's turn is over: paused, twice starts */
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK(r[0].sampled >= 0.001);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(work->entry == env_fake_compiled);
    CHECK(twice->entry == env_stub_dispatch);
    CHECK_INT(env_stub.n, 2);
    /* samples of a paused bakeoff wait: no decision */
    AuAnalysis *an = au_auditor_analysis(e.au);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
    au_analysis_step(an, au_now());
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    usleep(3000);
    au_auditor_poll(e.au);   /* twice's turn is over: work resumes */
    env_records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[0].turns, 2);
    CHECK(work->entry == env_stub_dispatch);
    CHECK_INT(env_stub.n, 2);    /* nothing recompiled */
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
    au_analysis_step(an, au_now());
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[0].result.outcome, AU_WINNER);
    CHECK(work->entry == env_stub_clean1);
    CHECK(r[0].result.v[1].received >= 2000);
    /* the paused one gets the slot back; without a waiting one it keeps it */
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].turns, 2);
    usleep(3000);
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    env_free(&e);
}

/* Among paused records the one foreseeing its decision soonest resumes
 * first (AuBakeoff.foreseen: au_stats_to_decide when it was paused), not the
 * least recently run: work (2% apart: far from a decision) was paused
 * before twice (10% apart: 65 samples from audit.min_samples); when tree's
 * turn is over, twice resumes. */
TEST(audit_bakeoff_foreseen_first)
{
    static const char *const set[] = {
        "audit.clients=aa",     "audit.quantum_ms=50", "audit.min_samples=200", "audit.trim_window=10",
        "audit.trim_drop=1",    "audit.confirm=0",     "audit.timeout_ms=60000", "research.ahead=0",
        "audit.extend=0",       NULL,
    };
    Env e;
    if (!env_two_hot(&e, set))
        return;
    VmMethod *tree = test_method(e.vm, "tree");
    tree->entry = env_fake_compiled;
    au_auditor_poll(e.au);
    env_calls(&e, tree, 100);
    au_auditor_poll(e.au);
    AuAnalysis *an = au_auditor_analysis(e.au);
    AuBakeoffRecord r[4];
    CHECK_INT(env_records(&e, r, 4), 3);
    CHECK_STR(r[0].method, "work");
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1020}, 150);
    au_analysis_step(an, au_now());
    usleep(60000);
    au_auditor_poll(e.au);   /* work paused, twice starts */
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_STR(r[1].method, "twice");
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    env_feed(env_stub.tab[1]->bakeoff, (double[2]){1000, 900}, 150);
    au_analysis_step(an, au_now());
    usleep(60000);
    au_auditor_poll(e.au);   /* twice paused, tree starts */
    env_records(&e, r, 4);
    CHECK_INT(r[1].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    usleep(60000);
    au_auditor_poll(e.au);   /* tree paused; twice, paused after work, goes first */
    env_records(&e, r, 4);
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
    if (!env_two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    AuBakeoffRecord r[4];
    CHECK_INT(env_records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);   /* work */
    CHECK_INT(r[1].phase, AU_PHASE_READY);      /* twice, compiled ahead */
    /* samples, so that drop_idle leaves work alone */
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
    au_analysis_step(au_auditor_analysis(e.au), au_now());
    usleep(520000);   /* a rate window: twice's 100 calls, work's million */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    usleep(520000);   /* the next: twice not called, work's turn over */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    twice->prof.calls += 1000000;   /* twice called again */
    usleep(520000);
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_PAUSED);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    env_free(&e);
}

/* A record READY ahead whose method goes idle is passed over by a newly
 * queued one whose method is called: it gives its slot back
 * (au_queue_unreserve) and the new one compiles ahead, in a slot no waiting
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
    if (!env_two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    VmMethod *tree = test_method(e.vm, "tree");
    AuBakeoffRecord r[4];
    CHECK_INT(env_records(&e, r, 4), 2);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);   /* work, slot 0 */
    CHECK_INT(r[1].phase, AU_PHASE_READY);      /* twice, ahead in slot 1 */
    CHECK_INT(env_stub.n, 2);
    CHECK(env_stub.slot[0] == 0 && env_stub.slot[1] == 1);
    /* samples, so that drop_idle leaves work alone */
    AuAnalysis *an = au_auditor_analysis(e.au);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
    au_analysis_step(an, au_now());
    usleep(520000);   /* a rate window: twice's 100 calls, work's million */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    usleep(520000);   /* the next: twice not called: idle */
    work->prof.calls += 1000000;
    au_auditor_poll(e.au);
    CHECK_INT(env_stub.n, 2);
    tree->entry = env_fake_compiled;   /* tree compiled now, then hot: queued, */
    au_auditor_poll(e.au);         /* its rate not known yet: not idle, */
    env_calls(&e, tree, 100);          /* so it goes before twice */
    au_auditor_poll(e.au);
    CHECK_INT(env_records(&e, r, 4), 3);
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK_INT(r[2].phase, AU_PHASE_READY);
    CHECK_INT(env_stub.n, 3);
    CHECK(env_stub.m[2] == tree && env_stub.slot[2] == 2);   /* not twice's slot 1 */
    CHECK(tree->entry == env_fake_compiled && twice->entry == env_fake_compiled);
    /* work decided: tree samples, nothing compiled */
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK(tree->entry == env_stub_dispatch);
    CHECK_INT(env_stub.n, 3);
    /* tree decided, twice called again: twice samples in its slot 1 */
    twice->prof.calls += 1000000;
    usleep(520000);
    env_feed(env_stub.tab[2]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    env_records(&e, r, 4);
    CHECK_INT(r[2].phase, AU_PHASE_DONE);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == env_stub_dispatch);
    CHECK_INT(env_stub.n, 3);
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
        if (!env_two_hot(&e, set))
            return;
        AuAnalysis *an = au_auditor_analysis(e.au);
        AuBakeoffRecord r[4];
        CHECK_INT(env_records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 1000);
        au_analysis_step(an, au_now());
        usleep(110000);
        au_auditor_poll(e.au);
        env_records(&e, r, 4);
        CHECK_INT(r[0].phase, extend ? AU_PHASE_SAMPLING : AU_PHASE_PAUSED);
        CHECK_INT(r[0].extended, extend);
        CHECK_INT(r[1].phase, extend ? AU_PHASE_READY : AU_PHASE_SAMPLING);
        if (extend) {
            AuConfig cfg = e.au->cfg;
            double td = au_stats_to_decide(&cfg, &r[0].result);   /* the look it was extended on */
            CHECK(td > 0 && td <= 0.1);
            usleep(100000);   /* its one extra turn is over too */
            au_auditor_poll(e.au);
            env_records(&e, r, 4);
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
        if (!env_two_hot(&e, set))
            return;
        AuBakeoffRecord r[4];
        CHECK_INT(env_records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, cases[i].slower}, cases[i].per_variant);
        usleep(120000);
        au_analysis_step(au_auditor_analysis(e.au), au_now());   /* the rate: samples in 0.12 s */
        au_auditor_poll(e.au);
        env_records(&e, r, 4);
        CHECK_INT(r[0].phase, cases[i].is_cut ? AU_PHASE_PAUSED : AU_PHASE_SAMPLING);
        CHECK_INT(r[0].cut, cases[i].is_cut);
        CHECK_INT(r[0].turns, 1);
        CHECK_INT(r[1].phase, cases[i].is_cut ? AU_PHASE_SAMPLING : AU_PHASE_READY);
        if (cases[i].is_cut)
            CHECK(r[0].sampled >= 0.1 && r[0].sampled < 0.4);
        env_free(&e);
    }
}

/* research.wait_jit: a quarter into its turn, a bakeoff whose variants call
 * a method queued in the JIT (tree, the compile thread paused) yields its
 * slot to the waiting one ("yielded", not a turn had), its samples being
 * ones the install would throw away, though at its rate it would decide
 * in its turn (900 samples a variant in 0.12 s: audit_bakeoff_cut keeps
 * it); with its callee compiled, or research.wait_jit=0, it keeps the slot. */
TEST(audit_bakeoff_yields_while_callee_queued)
{
    for (int mode = 0; mode < 3; mode++) {   /* queued, installed, wait_jit=0 */
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=400", "audit.min_samples=1000", "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000", "audit.cut=25",
            "audit.extend=0",    mode == 2 ? "research.wait_jit=0" : "research.wait_jit=1", NULL,
        };
        Env e;
        if (!env_two_hot_calling(&e, set, "tree", (EnvJit){.queue = true}))
            return;
        VmMethod *tree = test_method(e.vm, "tree");
        jit_enqueue(e.jit, tree);
        if (mode == 1)
            tree->entry = env_fake_compiled;   /* what the JIT's install does */
        AuBakeoffRecord r[4];
        CHECK_INT(env_records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 900);
        usleep(120000);
        au_analysis_step(au_auditor_analysis(e.au), au_now());
        au_auditor_poll(e.au);
        env_records(&e, r, 4);
        bool yields = mode == 0;
        CHECK_INT(r[0].phase, yields ? AU_PHASE_PAUSED : AU_PHASE_SAMPLING);
        CHECK_INT(r[0].yielded, yields);
        CHECK_INT(r[0].cut, 0);
        CHECK_INT(r[0].turns, 1);
        CHECK_INT(r[1].phase, yields ? AU_PHASE_SAMPLING : AU_PHASE_READY);
        env_free(&e);
    }
}

/* research.restart: a callee's install while a bakeoff samples starts its
 * samples over, and its turn begins again: 0.3 s into a 0.4 s turn the
 * JIT installs tree, and 0.15 s later the bakeoff still samples, its
 * sampling time counted whole; with research.restart=0 its turn is over. */
TEST(audit_bakeoff_turn_again_at_restart)
{
    for (int mode = 0; mode < 2; mode++) {   /* restart on, off */
        const char *const set[] = {
            "audit.clients=aa",  "audit.quantum_ms=400", "audit.min_samples=1000", "audit.trim_window=10",
            "audit.trim_drop=1", "audit.confirm=0",      "audit.timeout_ms=60000", "audit.cut=0",
            "audit.extend=0",    mode == 0 ? "research.restart=1" : "research.restart=0", NULL,
        };
        Env e;
        if (!env_two_hot_calling(&e, set, "tree", (EnvJit){.compile = env_jit_stub, .queue = true}))
            return;
        AuBakeoffRecord r[4];
        CHECK_INT(env_records(&e, r, 4), 2);
        CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
        usleep(300000);
        AuAnalysis *an = au_auditor_analysis(e.au);
        env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);   /* not idle (drop_idle) */
        au_analysis_step(an, au_now());
        VmMethod *tree = test_method(e.vm, "tree");
        jit_enqueue(e.jit, tree);
        jit_test_pause(e.jit, false);
        jit_test_wait_idle(e.jit);
        CHECK(tree->entry == env_fake_compiled);   /* installed: the auditor heard of it */
        usleep(150000);
        env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 1000}, 100);
        au_analysis_step(an, au_now());
        au_auditor_poll(e.au);
        env_records(&e, r, 4);
        CHECK_INT(r[0].phase, mode == 0 ? AU_PHASE_SAMPLING : AU_PHASE_PAUSED);
        CHECK_INT(r[0].turns, 1);
        CHECK(r[0].sampled >= 0.44);
        env_free(&e);
    }
}

/* research.ahead: while the one slot samples, the record next in line
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
    if (!env_two_hot(&e, set))
        return;
    VmMethod *work = test_method(e.vm, "work"), *twice = test_method(e.vm, "twice");
    VmMethod *tree = test_method(e.vm, "tree");
    tree->entry = env_fake_compiled;
    AuBakeoffRecord r[8];
    CHECK_INT(env_records(&e, r, 8), 4);
    /* work/aa samples in slot 0; work/custom waits for its method, so
     * twice/aa is next: compiled for slot 1, its method's code untouched */
    CHECK_INT(r[0].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[1].phase, AU_PHASE_QUEUED);
    CHECK_INT(r[2].phase, AU_PHASE_READY);
    CHECK_INT(r[3].phase, AU_PHASE_QUEUED);
    CHECK(r[2].t_started > 0 && r[2].t_sampling == 0);
    CHECK_INT(env_stub.n, 2);
    CHECK(env_stub.m[1] == twice && env_stub.slot[0] == 0 && env_stub.slot[1] == 1);
    CHECK(twice->entry == env_fake_compiled);
    au_auditor_poll(e.au);   /* one ahead at a time */
    CHECK_INT(env_stub.n, 2);

    /* work/aa decided: twice/aa samples with no compile, work/custom compiles ahead in slot 0 */
    AuAnalysis *an = au_auditor_analysis(e.au);
    env_feed(env_stub.tab[0]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    env_records(&e, r, 8);
    CHECK_INT(r[0].phase, AU_PHASE_DONE);
    CHECK_INT(r[2].phase, AU_PHASE_SAMPLING);
    CHECK(twice->entry == env_stub_dispatch);
    CHECK_INT(r[1].phase, AU_PHASE_READY);
    CHECK_INT(env_stub.n, 3);
    CHECK(env_stub.m[2] == work && env_stub.slot[2] == 0);
    CHECK(work->entry == env_stub_clean1);

    /* twice/aa decided: work/custom samples; twice/custom fails to compile ahead */
    env_stub.fail = true;
    env_feed(env_stub.tab[1]->bakeoff, (double[2]){1000, 800}, 2000);
    au_analysis_step(an, au_now());
    au_auditor_poll(e.au);
    env_records(&e, r, 8);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK(work->entry == env_stub_dispatch);
    CHECK_INT(r[3].phase, AU_PHASE_FAILED);
    CHECK_STR(r[3].failure, "stub failure");
    CHECK_INT(env_stub.n, 4);
    /* the slot count survived the failure: tree's bakeoff, now hot, only
     * compiles ahead while work/custom holds the one slot */
    env_stub.fail = false;
    env_calls(&e, tree, 100);
    au_auditor_poll(e.au);
    CHECK_INT(env_records(&e, r, 8), 6);
    CHECK_INT(r[1].phase, AU_PHASE_SAMPLING);
    CHECK_INT(r[4].phase, AU_PHASE_READY);
    CHECK_INT(r[5].phase, AU_PHASE_QUEUED);
    CHECK(tree->entry == env_fake_compiled);
    env_free(&e);
}

/* The real compiler with jit.fail_every=2: variant 0 compiles (attempt 1),
 * variant 1 is the injected failure (attempt 2); nothing is installed. */
TEST(audit_bakeoff_injected_failure)
{
    static const char *const set[] = {"audit.clients=aa", "jit.fail_every=2", NULL};
    Env e;
    VmMethod *twice = env_bake_twice(&e, set, false);
    if (!twice)
        return;
    AuBakeoffRecord r[4];
    size_t n = env_records(&e, r, 4);
    CHECK_INT(n, 1);
    CHECK_INT(r[0].phase, AU_PHASE_FAILED);
    CHECK_CONTAINS(r[0].failure, "variant 1: injected failure");
    CHECK(twice->entry == env_fake_compiled);
    CHECK_INT(env_call_int(&e, twice, 21).i, 42);
    env_free(&e);
}
