/* jit/jit.c — the JIT tier's front: modes, the hot hook, compile-and-install,
 * fault injection and the --log=jit event log.
 *
 * Input: a linked Vm and a JitMode.  Output: vm->hooks wired so hot
 * methods get compiled (by jit_compile, codegen.c) and installed with one
 * release store of m->entry; one log line per event when logging is on.
 *
 * Modes (see JitMode in jit.h):
 * - off:   nothing is wired; the interpreter runs everything.
 * - on:    the hook queues the method (thread.c) and returns at once.
 * - sync:  the hook compiles on the program's thread before returning, so
 *          a hot call already runs the compiled code (deterministic).
 * - eager: sync, with every method's hot countdown set to 1, so the first
 *          interpreted call compiles the method before the call proceeds
 *          (INVOKE calls the hook before it looks at callee->entry).  init
 *          and main, entered from C through vm_call, are compiled by
 *          jit_new itself.  A method whose first call comes from C or from
 *          compiled code (which calls through m->entry = vm_interp_entry)
 *          runs that one call interpreted; every later call is compiled.
 * A back-edge hot call (osr_pc != NULL) compiles the method for its next
 * call in every mode; on-stack replacement is a later part.
 *
 * Log (--log=jit or -X jit.log=1, to stderr), one line per event, stamped
 * with milliseconds since jit_new (just before the program starts):
 *   [12.345ms] jit: queued #12 Foo.bar prio=1234
 *   [40.001ms] jit: compiled #12 Foo.bar optset=O2 bytecode=57 queue=1234us
 *              ir=80us compile=15000us assemble=6000us code=812B  (one line)
 *   [40.002ms] jit: failed #12 Foo.bar: <reason>
 *   [99.000ms] jit: dropped #13 Foo.baz: shutdown
 *   [99.100ms] jit: summary queued=2 compiled=1 failed=0 dropped=1
 * -X jit.fail_every=N makes every Nth compile attempt fail before the
 * compiler runs ("injected failure").
 *
 * Invariants:
 * - A failed compile (including an injected one) leaves m->entry as it
 *   was; it is counted and logged, never reported to the program.
 * - A method is requested at most once (Jit.state); its compile id is
 *   assigned when it is requested and names it in every log line.
 * - Loaded units are never unloaded: compiled code may be running on
 *   another frame until the program ends.
 */
#include "tier.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_OPTSET "O2"

static JitTestHooks test_hooks;

void jit_set_test_hooks(const JitTestHooks *h)
{
    if (h)
        test_hooks = *h;
    else
        memset(&test_hooks, 0, sizeof test_hooks);
}

bool jit_mode_parse(const char *s, JitMode *out)
{
    static const struct { const char *name; JitMode mode; } modes[] = {
        {"off", JIT_OFF}, {"on", JIT_ON}, {"eager", JIT_EAGER}, {"sync", JIT_SYNC},
    };
    if (!s)
        return false;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        if (!strcmp(s, modes[i].name)) {
            if (out)
                *out = modes[i].mode;
            return true;
        }
    }
    return false;
}

double jit_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void jit_log(Jit *jit, const char *fmt, ...)
{
    if (!jit->log)
        return;
    /* one buffer, one write: lines from both threads never interleave */
    char line[1024];
    int n = snprintf(line, sizeof line, "[%.3fms] jit: ", (jit_now() - jit->t0) * 1e3);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (k < 0 ? 0 : (size_t)k);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    line[len] = 0;
    fputs(line, jit->log);
    fflush(jit->log);
}

/* The string tunable `name`, found through the table so this file does not
 * depend on which tier declares it (NULL when no such tunable exists). */
static const char *string_tunable(const VmTunables *tun, const char *name)
{
    static const struct { const char *name; size_t off; } table[] = {
#define TUNABLE(field, tname, type, deflt, help)
#define TUNABLE_STR(field, tname, deflt, help) {tname, offsetof(VmTunables, field)},
#include "tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i].name, name))
            return *(const char *const *)((const char *)tun + table[i].off);
    return NULL;
}

static int64_t hotness(const VmMethod *m)
{
    /* the program thread keeps counting: a snapshot is all we need */
    return (int64_t)(__atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED) +
                     __atomic_load_n(&m->prof.backedges, __ATOMIC_RELAXED));
}

void jit_request_init(Jit *jit, JitRequest *rq, VmMethod *m)
{
    memset(rq, 0, sizeof *rq);
    rq->id = __atomic_add_fetch(&jit->next_id, 1, __ATOMIC_RELAXED);
    rq->m = m;
    ir_options_default(&rq->ir, &jit->vm->tun);
    rq->optset = jit->optset;
    rq->priority = hotness(m);
    rq->t_queued = jit_now();
}

static void keep_unit(Jit *jit, void *unit)
{
    if (!unit)
        return;
    pthread_mutex_lock(&jit->mu);
    if (jit->nunits == jit->capunits) {
        size_t cap = jit->capunits ? jit->capunits * 2 : 16;
        void **u = realloc(jit->units, cap * sizeof *u);
        if (u) {
            jit->units = u;
            jit->capunits = cap;
        }
    }
    if (jit->nunits < jit->capunits)
        jit->units[jit->nunits++] = unit;
    pthread_mutex_unlock(&jit->mu);  /* on OOM the unit just leaks: it stays loaded */
}

static void count(Jit *jit, uint64_t *counter)
{
    pthread_mutex_lock(&jit->mu);
    (*counter)++;
    pthread_mutex_unlock(&jit->mu);
}

bool jit_compile_and_install(Jit *jit, JitRequest *rq)
{
    VmMethod *m = rq->m;
    uint64_t attempt = __atomic_add_fetch(&jit->attempts, 1, __ATOMIC_RELAXED);
    int64_t every = jit->vm->tun.jit_fail_every;
    VmError err = {{0}};
    JitResult res = {0};
    bool ok;
    double t_start = jit_now();
    if (every > 0 && attempt % (uint64_t)every == 0) {
        ok = vm_fail(&err, "injected failure");
    } else {
        if (jit->delay_us)
            usleep(jit->delay_us);
        t_start = jit_now();
        ok = jit->compile(jit, rq, &res, &err);
        if (ok && !res.entry)
            ok = vm_fail(&err, "the compiler returned no code");
    }
    if (!ok) {
        count(jit, &jit->stats.failed);
        jit_log(jit, "failed #%llu %s: %s", (unsigned long long)rq->id, m->name,
                err.msg[0] ? err.msg : "unknown error");
        return false;
    }
    keep_unit(jit, res.unit);
    __atomic_store_n(&m->entry, res.entry, __ATOMIC_RELEASE);
    count(jit, &jit->stats.compiled);
    double queue_us = (t_start - rq->t_queued) * 1e6;
    jit_log(jit, "compiled #%llu %s optset=%s bytecode=%u queue=%.0fus ir=%.0fus compile=%.0fus "
            "assemble=%.0fus code=%zuB",
            (unsigned long long)rq->id, m->name, rq->optset ? rq->optset : DEFAULT_OPTSET, m->ncode,
            queue_us < 0 ? 0 : queue_us, res.us_ir, res.us_compile, res.us_assemble, res.code_bytes);
    return true;
}

static bool compilable(const Jit *jit, const VmMethod *m)
{
    const VmModule *mod = jit->vm->module;
    return mod && m->module == mod && m->index < jit->nmethods && m == &mod->methods[m->index] &&
           !(m->flags & VM_M_ABSTRACT) && m->code && m->ncode > 0;
}

/* sync and eager: compile now, on the program's thread. */
static void compile_now(Jit *jit, VmMethod *m)
{
    if (!compilable(jit, m))
        return;
    pthread_mutex_lock(&jit->mu);
    bool fresh = jit->state[m->index] == JIT_M_NEW;
    jit->state[m->index] = JIT_M_DONE;
    pthread_mutex_unlock(&jit->mu);
    if (!fresh)
        return;
    JitRequest rq;
    jit_request_init(jit, &rq, m);
    jit_compile_and_install(jit, &rq);
}

static void hot_hook(Vm *vm, VmMethod *m, const VmInsn *osr_pc)
{
    (void)osr_pc;  /* no OSR yet: the method's next call gets the code */
    Jit *jit = vm->hooks.ctx;
    if (!jit || !m)
        return;
    if (jit->mode == JIT_ON) {
        if (compilable(jit, m))
            jit_enqueue(jit, m);
    } else {
        compile_now(jit, m);
    }
}

Jit *jit_new(Vm *vm, JitMode mode, VmError *err)
{
    if (!vm) {
        vm_fail(err, "jit: no VM");
        return NULL;
    }
    if (mode != JIT_OFF && (!vm->module || !vm->module->linked)) {
        vm_fail(err, "jit: the module must be linked before the JIT starts");
        return NULL;
    }
    Jit *jit = calloc(1, sizeof *jit);
    if (!jit) {
        vm_fail(err, "jit: out of memory");
        return NULL;
    }
    jit->vm = vm;
    jit->mode = mode;
    jit->t0 = jit_now();
    jit->compile = test_hooks.compile ? test_hooks.compile : jit_compile;
    jit->delay_us = test_hooks.delay_us;
    jit->log = test_hooks.log ? test_hooks.log : vm->tun.jit_log ? stderr : NULL;
    jit->paused = test_hooks.paused;
    const char *os = string_tunable(&vm->tun, "jit.optset");
    jit->optset = os && os[0] ? os : DEFAULT_OPTSET;
    pthread_mutex_init(&jit->mu, NULL);
    pthread_cond_init(&jit->wake, NULL);
    pthread_cond_init(&jit->idle, NULL);
    if (mode == JIT_OFF)
        return jit;

    VmModule *mod = vm->module;
    jit->nmethods = mod->nmethods;
    jit->state = calloc(mod->nmethods ? mod->nmethods : 1, 1);
    if (!jit->state) {
        vm_fail(err, "jit: out of memory");
        jit_free(jit);
        return NULL;
    }
    if (mode == JIT_ON && !jit_thread_start(jit, err)) {
        jit_free(jit);
        return NULL;
    }
    if (mode == JIT_EAGER) {
        for (uint32_t i = 0; i < mod->nmethods; i++) {
            VmMethod *m = &mod->methods[i];
            if (compilable(jit, m) && m->prof.hot_countdown > 1)
                m->prof.hot_countdown = 1;
        }
        if (mod->init != VM_NONE && mod->init < mod->nmethods)
            compile_now(jit, &mod->methods[mod->init]);
        if (mod->main != VM_NONE && mod->main < mod->nmethods)
            compile_now(jit, &mod->methods[mod->main]);
    }
    vm->hooks.ctx = jit;
    vm->hooks.hot = hot_hook;
    return jit;
}

void jit_free(Jit *jit)
{
    if (!jit)
        return;
    Vm *vm = jit->vm;
    if (vm && vm->hooks.hot == hot_hook && vm->hooks.ctx == jit) {
        vm->hooks.hot = NULL;
        vm->hooks.ctx = NULL;
    }
    if (jit->thread_started)
        jit_thread_stop(jit);
    if (jit->mode != JIT_OFF)
        jit_log(jit, "summary queued=%llu compiled=%llu failed=%llu dropped=%llu",
                (unsigned long long)jit->stats.queued, (unsigned long long)jit->stats.compiled,
                (unsigned long long)jit->stats.failed, (unsigned long long)jit->stats.dropped);
    pthread_cond_destroy(&jit->idle);
    pthread_cond_destroy(&jit->wake);
    pthread_mutex_destroy(&jit->mu);
    free(jit->heap);
    free(jit->state);
    free(jit->units);  /* the units themselves stay loaded */
    free(jit);
}
