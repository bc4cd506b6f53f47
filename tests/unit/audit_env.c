/* tests/unit/audit_env.c — the auditor's test environment: a small
 * program (ENV_SRC), a VM and JIT around it, the auditor, and a stub bakeoff
 * compiler that records what it was asked (test_audit_lifecycle.c,
 * test_audit_dispatch.c). */
#include "audit_env.h"

#include <string.h>

const char *const ENV_SRC =
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

bool env_new_jit(Env *e, const char *const *assign, EnvJit jit)
{
    memset(e, 0, sizeof *e);
    TestTunables tun;
    test_tunables_init(&tun);
    tun.vm.hot_threshold = 1LL << 40;
    tun.vm.stack_slots = 1 << 14;
    tun.vm.max_frames = 1024;
    tun.au.hot_threshold = 100;
    tun.au.interval = 0.001;
    tun.au.seed = 42;
    tun.au.min_cost = 0;   /* twice is cheap: audit_bakeoff_static_cheap sets it */
    VmError err = {{0}};
    for (int i = 0; assign && assign[i]; i++)
        if (!test_tunables_set(&tun, assign[i], &err))
            test_fail(__FILE__, __LINE__, "%s: %s", assign[i], err.msg);
    e->vm = test_load_tl("t.tl", ENV_SRC, &tun.vm);
    if (!e->vm)
        return false;
    jit_set_test_hooks(&(JitTestHooks){.compile = jit.compile, .paused = jit.queue});
    e->jit = jit_new(e->vm, jit.queue ? JIT_ON : JIT_SYNC, &tun.jit, &tun.ir, NULL, &err);
    jit_set_test_hooks(NULL);
    e->au = e->jit ? au_auditor_new(e->vm, e->jit, &tun.au, &err) : NULL;
    e->t = vm_thread_new(e->vm);
    if (!e->au || !e->t) {
        test_fail(__FILE__, __LINE__, "auditor: %s", err.msg);
        return false;
    }
    return true;
}

bool env_new(Env *e, const char *const *assign)
{
    return env_new_jit(e, assign, (EnvJit){0});
}

void env_free(Env *e)
{
    au_auditor_free(e->au);
    jit_free(e->jit);
    if (e->t)
        vm_thread_free(e->t);
    test_unload(e->vm);
}

/* "Compiled code" for the auditor to find: the interpreter behind another address. */
VmValue env_fake_compiled(VmThread *t, VmMethod *m, VmValue *args)
{
    return vm_interp_entry(t, m, args);
}

VmValue env_call_int(Env *e, VmMethod *m, int64_t x)
{
    VmValue a[1] = {{.i = x}};
    return m->entry(e->t, m, a);
}

void env_calls(Env *e, VmMethod *m, int n)
{
    for (int i = 0; i < n; i++)
        env_call_int(e, m, 3);
}

size_t env_records(Env *e, AuBakeoffRecord *out, size_t max)
{
    size_t n = au_bakeoffs_snapshot(e->au, out, max);
    return n < max ? n : max;
}

VmValue env_stub_clean0(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
VmValue env_stub_clean1(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
VmValue env_stub_timed(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }
VmValue env_stub_dispatch(VmThread *t, VmMethod *m, VmValue *a) { return vm_interp_entry(t, m, a); }

EnvStub env_stub;

bool env_stub_compile(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, VmError *err)
{
    (void)jit;
    if (env_stub.n < 16) {
        env_stub.id[env_stub.n] = rq->id;
        env_stub.m[env_stub.n] = rq->m;
        env_stub.tab[env_stub.n] = out;
        env_stub.slot[env_stub.n] = rq->slot;
        env_stub.n++;
    }
    if (env_stub.fail)
        return vm_fail(err, "stub failure");
    if (env_stub.callee && env_stub.n == 1) {
        out->callees[0] = env_stub.callee;
        out->ncallees = 1;
    }
    for (int k = 0; k < rq->nvariants * (rq->copies > 1 ? rq->copies : 1); k++)
        out->clean[k] = k % rq->nvariants == 0 ? env_stub_clean0 : env_stub_clean1;
    out->timed = env_stub_timed;
    out->dispatcher = env_stub_dispatch;
    return true;
}

/* Samples of a bakeoff: variant k costs base[k] ± 10%, deterministic. */
void env_feed(uint32_t aid, const double base[2], int per_variant)
{
    uint64_t x = 12345;
    for (int i = 0; i < per_variant; i++)
        for (int k = 0; k < 2; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double noise = (double)(x >> 11) / (double)(1ULL << 53) * 0.2 - 0.1;
            au_sample_record(aid, (uint32_t)k, (uint64_t)(base[k] * (1 + noise)), 1);
        }
}

bool env_jit_stub(Jit *jit, JitRequest *rq, JitResult *out, VmError *err)
{
    (void)jit, (void)rq, (void)err;
    *out = (JitResult){.entry = env_fake_compiled};
    return true;
}

bool env_two_hot_calling(Env *e, const char *const *set, const char *callee, EnvJit jit)
{
    if (!env_new_jit(e, set, jit)) {
        env_free(e);
        return false;
    }
    memset(&env_stub, 0, sizeof env_stub);
    env_stub.callee = callee ? test_method(e->vm, callee) : NULL;
    au_auditor_set_compiler(e->au, env_stub_compile);
    VmMethod *work = test_method(e->vm, "work"), *twice = test_method(e->vm, "twice");
    work->entry = env_fake_compiled;
    twice->entry = env_fake_compiled;
    au_auditor_poll(e->au);
    env_calls(e, twice, 100);
    env_calls(e, work, 100);
    au_auditor_poll(e->au);
    return true;
}

bool env_two_hot(Env *e, const char *const *set)
{
    return env_two_hot_calling(e, set, NULL, (EnvJit){0});
}

/* An Env under set in which twice, compiled (env_fake_compiled), got hot after
 * 100 calls and its bakeoff started: with the stub compiler if stubbed,
 * else with the JIT's.  NULL (the Env freed) if the Env fails. */
VmMethod *env_bake_twice(Env *e, const char *const *set, bool stubbed)
{
    if (!env_new(e, set)) {
        env_free(e);
        return NULL;
    }
    if (stubbed) {
        memset(&env_stub, 0, sizeof env_stub);
        au_auditor_set_compiler(e->au, env_stub_compile);
    }
    VmMethod *twice = test_method(e->vm, "twice");
    twice->entry = env_fake_compiled;
    au_auditor_poll(e->au);
    env_calls(e, twice, 100);
    au_auditor_poll(e->au);
    return twice;
}
