/* tests/unit/audit_env.h — the auditor's test environment (audit_env.c),
 * shared by test_audit_lifecycle.c (the lifecycle, with a stub compiler)
 * and test_audit_dispatch.c (the real dispatcher, end to end).  The
 * program is called from C (m->entry), so a test runs exactly as many
 * calls as it needs. */
#ifndef AUDIT_ENV_H
#define AUDIT_ENV_H

#include "test.h"
#include "auditor_api.h"
#include "tier.h"

/* fn work(n), fn twice(x), fn tree(n) and a main */
extern const char *const ENV_SRC;

typedef struct Env {
    Vm *vm;
    Jit *jit;
    AuAuditor *au;
    VmThread *t;
} Env;

/* The JIT an Env gets: by default one that never compiles by itself
 * (sync mode, an unreachable threshold). */
typedef struct EnvJit {
    JitCompileFn compile;   /* the JIT's test hook, if set (env_jit_stub) */
    bool queue;             /* on, its compile thread paused: jit_enqueue queues */
} EnvJit;

/* Links ENV_SRC with tunables adjusted by assign[], a JIT, and the auditor.
 * False (env_free it) on failure, reported. */
bool env_new_jit(Env *e, const char *const *assign, EnvJit jit);
bool env_new(Env *e, const char *const *assign);
void env_free(Env *e);
/* "Compiled code" for the auditor to find: the interpreter behind another address. */
VmValue env_fake_compiled(VmThread *t, VmMethod *m, VmValue *args);
VmValue env_call_int(Env *e, VmMethod *m, int64_t x);
void env_calls(Env *e, VmMethod *m, int n);
size_t env_records(Env *e, AuBakeoffRecord *out, size_t max);

/* The stub bakeoff compiler (au_auditor_set_compiler): what it was asked,
 * in `env_stub`; its code is the interpreter behind these addresses. */
typedef struct EnvStub {
    int n;
    uint32_t id[16];
    VmMethod *m[16];
    JitBakeoffTable *tab[16];
    uint32_t slot[16];
    bool fail;
    VmMethod *callee;   /* the first bakeoff's variants call it (JitBakeoffTable.callees) */
} EnvStub;
extern EnvStub env_stub;
bool env_stub_compile(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, VmError *err);
VmValue env_stub_clean0(VmThread *t, VmMethod *m, VmValue *a);
VmValue env_stub_clean1(VmThread *t, VmMethod *m, VmValue *a);
VmValue env_stub_timed(VmThread *t, VmMethod *m, VmValue *a);
VmValue env_stub_dispatch(VmThread *t, VmMethod *m, VmValue *a);
/* Samples of a bakeoff: variant k costs base[k] ± 10%, deterministic. */
void env_feed(uint32_t aid, const double base[2], int per_variant);
/* A JIT compile hook that installs env_fake_compiled. */
bool env_jit_stub(Jit *jit, JitRequest *rq, JitResult *out, VmError *err);
/* An auditor with the stub compiler for which `twice` and then `work`
 * (their "compiled code" env_fake_compiled) got hot, 100 calls each, and
 * one poll that queued and started what it could; with callee, the first
 * bakeoff's variants call it (JitBakeoffTable.callees).  False (nothing
 * to free) when the environment could not be built. */
bool env_two_hot_calling(Env *e, const char *const *set, const char *callee, EnvJit jit);
bool env_two_hot(Env *e, const char *const *set);
/* An Env under set in which twice, compiled (env_fake_compiled), got hot after
 * 100 calls and its bakeoff started: with the stub compiler if stubbed,
 * else with the JIT's.  NULL (the Env freed) if the Env fails. */
VmMethod *env_bake_twice(Env *e, const char *const *set, bool stubbed);

#endif
