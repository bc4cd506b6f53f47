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
 * OSR: a back-edge hot call (osr_pc != NULL) compiles the method with an
 * OSR entry at that loop header as well (VmMethod.osr); the interpreter
 * polls for it every vm.osr_poll back edges (the OSR hook, osr_hook) and
 * continues the running activation there.  In sync mode the back edge
 * that made the method hot already transfers.  In the background (on)
 * the request depends on how the method runs (calls = its invocations):
 *   entered once        hot at vm.osr_threshold, not vm.hot_threshold;
 *                       OSR code only; the ordinary entry waits for a
 *                       second call (a call that finds the method
 *                       still interpreted calls the hot hook again)
 *   calls average       the ordinary entry and the OSR entry, one compile
 *   >= vm.osr_poll
 *   back edges
 *   shorter calls       the ordinary entry only: no call would poll
 * A method looping at another header than its OSR code's gets a new OSR compile after
 * JIT_OSR_PATIENCE polls, at most JIT_OSR_MAX OSR requests in all.
 * Batching (jit.batch): the compile thread compiles up to that many of
 * the hottest queued requests as one unit (jit_compile_unit); each method
 * still gets its own log line, with the unit's id, size and shared times.
 *
 * Log (--log=jit or -X jit.log=1, to stderr), one line per event, stamped
 * with milliseconds since jit_new (just before the program starts):
 *   [12.345ms] jit: queued #12 Foo.bar prio=1234
 *   [40.001ms] jit: compiled #12 Foo.bar optset=O2 bytecode=57 queue=1234us
 *              ir=80us compile=15000us assemble=6000us code=812B  (one line)
 *              [osr@17 [only]] [unit=#12/3]   (an OSR entry at pc 17, the
 *              only entry built; a unit of 3 methods)
 *   [41.000ms] jit: queued #14 main prio=1001 osr@17   (also when a
 *              request still queued gets a header: the same id again)
 *   [40.002ms] jit: failed #12 Foo.bar: <reason>
 *   [40.003ms] jit: deferred #12 main: entered once; ...   (after OSR-only
 *              code: the ordinary entry waits for a second call)
 *   [40.004ms] jit: hastened Plan.execute: makes hot Plan.execute$lambda1
 *              (the maker gets hot at its next call or back edge)
 *   [99.000ms] jit: dropped #13 Foo.baz: shutdown
 *   [99.100ms] jit: summary queued=2 compiled=1 failed=0 dropped=1 units=1
 *              osr_compiled=1 osr_entries=1   (one line; entries = transfers)
 * -X jit.fail_every=N makes every Nth compile attempt fail before the
 * compiler runs ("injected failure").
 * Every compile that ends, installed or failed, is also an event of the
 * compile timeline (events.c: the --stats file's "compiles").
 *
 * Invariants:
 * - A failed compile (including an injected one) leaves m->entry as it
 *   was; it is counted and logged, never reported to the program.
 * - A method is requested at most once (Jit.state), plus at most
 *   JIT_OSR_MAX OSR requests (and the ordinary entry after an OSR-only
 *   one); a compile id is assigned when a request is made and names it
 *   in every log line.
 * - Loaded units are never unloaded: compiled code may be running on
 *   another frame until the program ends.
 */
#include "jit_int.h"
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

double jit_t0(const Jit *jit)
{
    return jit ? jit->t0 : 0;
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

static const VmTunDesc jit_rows[] = {
#define TUNABLE(...) VM_TUN_ROW(JitTunables, __VA_ARGS__)
#define TUNABLE_STR(...) VM_TUN_ROW_STR(JitTunables, __VA_ARGS__)
#include "jit_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
};
const VmTunGroup jit_tun_group = {"jit", jit_rows, sizeof jit_rows / sizeof jit_rows[0]};

void jit_tunables_default(JitTunables *tun)
{
    memset(tun, 0, sizeof *tun);
    vm_tun_defaults(&jit_tun_group, tun);
}

const JitTunables *jit_tunables(const Jit *jit, JitTunables *def)
{
    if (jit)
        return &jit->tun;
    jit_tunables_default(def);
    return def;
}

const IrOptions *jit_ir_options(const Jit *jit, IrOptions *def)
{
    if (jit)
        return &jit->ir;
    ir_options_default(def);
    return def;
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
    const JitChosen *c = jit->chosen && m->index < jit->nmethods ? &jit->chosen[m->index] : NULL;
    rq->ir = c && c->set ? c->ir : jit->ir;
    rq->optset = c && c->set ? c->optset : jit->optset;
    rq->priority = rq->seen = hotness(m);
    rq->t_queued = rq->t_seen = jit_now();
    rq->lam_seen = jit_lambda_calls(jit, m);
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

/* The unit compiler: jit_compile_unit, or the test hook's per-request
 * compiler once per request (stubs compile nothing together). */
static size_t compile_unit(Jit *jit, JitRequest *rq, size_t n, JitResult *out, VmError *err)
{
    if (jit->compile == jit_compile)
        return jit_compile_unit(jit, rq, n, out, err);
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        err[i].msg[0] = 0;
        if (jit->compile(jit, &rq[i], &out[i], &err[i]) && (out[i].entry || out[i].osr)) {
            ok++;
        } else {
            out[i].entry = NULL;
            out[i].osr = NULL;
        }
    }
    return ok;
}

/* Under mu: a compile of m ended (rq asked for OSR at rq->osr_pc). */
static void done_locked(Jit *jit, const JitRequest *rq, bool ok, const VmOsr *osr)
{
    VmMethod *m = rq->m;
    if (m->index >= jit->nmethods)
        return;
    JitOsrState *s = &jit->osr[m->index];
    jit->state[m->index] = JIT_M_DONE;
    if (rq->osr_pc)
        s->pending = false;
    if (!ok || (rq->osr_pc && !osr))
        s->given_up = true;
    if (osr)
        s->misses = 0;
}

static uint64_t calls_of(const VmMethod *m)
{
    return __atomic_load_n(&m->prof.calls, __ATOMIC_RELAXED);
}

/* Whether OSR code is worth asking for in the background: the method was
 * entered once (the looping activation is all there is), or its calls
 * average at least vm.osr_poll back edges (a running call will poll). */
static bool loops_long(const Jit *jit, const VmMethod *m)
{
    uint64_t calls = calls_of(m), be = __atomic_load_n(&m->prof.backedges, __ATOMIC_RELAXED);
    int64_t poll = jit->vm->tun.osr_poll;
    return calls <= 1 || (poll > 0 && be / calls >= (uint64_t)poll);
}

/* Background mode: a method entered once (main, a kernel's only call) is
 * hot only at vm.osr_threshold (its call + back edges).  The loops of a start-up
 * phase end long before their code could arrive, and compiling them
 * would delay the code of the loops that follow; the polls (osr_hook)
 * ask again every vm.osr_poll back edges. */
static bool too_early(const Jit *jit, const VmMethod *m)
{
    return jit->mode == JIT_ON && calls_of(m) <= 1 && hotness(m) < jit->vm->tun.osr_threshold;
}

/* An OSR-only compile (it succeeded or not) is followed by a request for
 * the ordinary entry when the method has none yet and has been called
 * again; a method entered once gets it on its next call (hot_hook). */
static void follow_up(Jit *jit, const JitRequest *rq)
{
    VmMethod *m = rq->m;
    if (!rq->osr_only || jit->mode != JIT_ON || m->index >= jit->nmethods ||
        __atomic_load_n(&m->entry, __ATOMIC_RELAXED) != vm_interp_entry)
        return;
    bool deferred = false;
    pthread_mutex_lock(&jit->mu);
    if (jit->state[m->index] == JIT_M_DONE) {
        if (calls_of(m) <= 1)
            deferred = jit->osr[m->index].entry_deferred = true;
        else if (jit_push_locked(jit, m, NULL))
            jit->state[m->index] = JIT_M_QUEUED;
    }
    pthread_mutex_unlock(&jit->mu);
    if (deferred)
        jit_log(jit, "deferred #%llu %s: entered once; its entry is compiled when it is called again",
                (unsigned long long)rq->id, m->name);
}

static void install(Jit *jit, JitRequest *rq, JitResult *res, double t_start)
{
    VmMethod *m = rq->m;
    keep_unit(jit, res->unit);
    if (res->entry)
        __atomic_store_n(&m->entry, res->entry, __ATOMIC_RELEASE);
    if (res->osr)
        __atomic_store_n(&m->osr, res->osr, __ATOMIC_RELEASE);
    pthread_mutex_lock(&jit->mu);
    jit->stats.compiled++;
    jit->stats.osr_compiled += res->osr != NULL;
    done_locked(jit, rq, true, res->osr);
    JitInstallHook hook = res->entry ? jit->install_hook : NULL;
    void *hook_ctx = jit->install_ctx;
    jit->hooks_running += hook != NULL;
    pthread_mutex_unlock(&jit->mu);
    double queue_us = (t_start - rq->t_queued) * 1e6;
    char osr[96] = "", unit[64] = "";
    if (rq->osr_pc && res->osr)
        snprintf(osr, sizeof osr, " osr@%u", (unsigned)(rq->osr_pc - m->code));
    else if (rq->osr_pc)
        snprintf(osr, sizeof osr, " osr@%u=none (%s)", (unsigned)(rq->osr_pc - m->code),
                 res->osr_none ? res->osr_none : "not built");
    if (rq->osr_only && res->osr)
        snprintf(osr, sizeof osr, " osr@%u only", (unsigned)(rq->osr_pc - m->code));
    if (res->unit_size > 1)
        snprintf(unit, sizeof unit, " unit=#%llu/%u", (unsigned long long)res->unit_id, res->unit_size);
    jit_event_tier(jit, rq, res, t_start, NULL);
    jit_log(jit, "compiled #%llu %s optset=%s bytecode=%u queue=%.0fus ir=%.0fus compile=%.0fus "
            "assemble=%.0fus code=%zuB%s%s%s",
            (unsigned long long)rq->id, m->name, rq->optset ? rq->optset : DEFAULT_OPTSET, m->ncode,
            queue_us < 0 ? 0 : queue_us, res->us_ir, res->us_compile, res->us_assemble, res->code_bytes, osr,
            unit, res->cached ? " cached" : "");
    if (hook) {
        hook(hook_ctx, m);
        pthread_mutex_lock(&jit->mu);
        if (--jit->hooks_running == 0)
            pthread_cond_broadcast(&jit->hook_done);
        pthread_mutex_unlock(&jit->mu);
    }
    follow_up(jit, rq);
}

bool jit_bakeoff_waits(Jit *jit, const JitBakeoffTable *tab, bool hurry)
{
    if (!jit || !jit->state)
        return false;
    bool waits = false;
    pthread_mutex_lock(&jit->mu);
    for (uint32_t i = 0; i < tab->ncallees && i < JIT_MAX_CALLEES && (hurry || !waits); i++) {
        const VmMethod *m = tab->callees[i];
        if (m->index < jit->nmethods && jit->state[m->index] == JIT_M_QUEUED &&
            __atomic_load_n(&m->entry, __ATOMIC_RELAXED) == vm_interp_entry) {
            waits = true;
            if (hurry)
                jit_hurry_locked(jit, m);
        }
    }
    pthread_mutex_unlock(&jit->mu);
    return waits;
}

bool jit_choose_options(Jit *jit, const VmMethod *m, const IrOptions *ir, const char *optset)
{
    if (!jit || m->index >= jit->nmethods)
        return false;
    if (!jit->chosen && !(jit->chosen = calloc(jit->nmethods ? jit->nmethods : 1, sizeof *jit->chosen)))
        return false;
    JitChosen *c = &jit->chosen[m->index];
    char *s = strdup(optset && *optset ? optset : jit->optset);
    if (!s)
        return false;
    free(c->optset);
    c->optset = s;
    c->ir = *ir;
    c->set = true;
    return true;
}

static bool note_name(const Jit *jit, const char *kind, char *buf, size_t size)
{
    if (!jit || !jit->cache || !jit->note_base[0] || strlen(kind) > 8)
        return false;
    snprintf(buf, size, "%s.%s", jit->note_base, kind);
    return true;
}

bool jit_note_get(Jit *jit, const char *kind, VmBuf *out)
{
    char name[64];
    return note_name(jit, kind, name, sizeof name) && jit_cache_get_note(jit->cache, name, out);
}

bool jit_note_put(Jit *jit, const char *kind, const void *data, size_t len)
{
    char name[64];
    return note_name(jit, kind, name, sizeof name) && jit_cache_put_note(jit->cache, name, data, len);
}

void jit_set_install_hook(Jit *jit, JitInstallHook fn, void *ctx)
{
    pthread_mutex_lock(&jit->mu);
    jit->install_hook = fn;
    jit->install_ctx = ctx;
    while (!fn && jit->hooks_running > 0)
        pthread_cond_wait(&jit->hook_done, &jit->mu);
    pthread_mutex_unlock(&jit->mu);
}

static void fail(Jit *jit, JitRequest *rq, const JitResult *res, double t_start, const char *why)
{
    jit_event_tier(jit, rq, res, t_start, why && *why ? why : "unknown error");
    pthread_mutex_lock(&jit->mu);
    jit->stats.failed++;
    done_locked(jit, rq, false, NULL);
    pthread_mutex_unlock(&jit->mu);
    jit_log(jit, "failed #%llu %s: %s", (unsigned long long)rq->id, rq->m->name, why && *why ? why : "unknown error");
    follow_up(jit, rq);
}

size_t jit_compile_and_install_batch(Jit *jit, JitRequest *rq, size_t n)
{
    int64_t every = jit->tun.fail_every;
    /* on the heap: in sync mode this runs on the program's stack */
    JitRequest *live = calloc(n ? n : 1, sizeof *live);
    JitResult *res = calloc(n ? n : 1, sizeof *res);
    VmError *err = calloc(n ? n : 1, sizeof *err);
    size_t nlive = 0, ok = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t attempt = __atomic_add_fetch(&jit->attempts, 1, __ATOMIC_RELAXED);
        if (every > 0 && attempt % (uint64_t)every == 0)
            fail(jit, &rq[i], NULL, 0, "injected failure");
        else if (!live || !res || !err)
            fail(jit, &rq[i], NULL, 0, "out of memory");
        else
            live[nlive++] = rq[i];
    }
    /* OSR: in the background, only the OSR entry (it is ready sooner, and
     * the ordinary entry follows in its own request); likewise when the
     * method has compiled code already.  sync/eager: both in one unit. */
    for (size_t i = 0; i < nlive; i++)
        live[i].osr_only = live[i].osr_pc && ((jit->mode == JIT_ON && calls_of(live[i].m) <= 1) ||
                                              __atomic_load_n(&live[i].m->entry, __ATOMIC_RELAXED) != vm_interp_entry);
    if (nlive) {
        if (jit->delay_us)
            usleep(jit->delay_us);
        double t_start = jit_now();
        compile_unit(jit, live, nlive, res, err);
        count(jit, &jit->stats.units);
        for (size_t i = 0; i < nlive; i++) {
            if (res[i].entry || res[i].osr) {
                install(jit, &live[i], &res[i], t_start);
                ok++;
            } else {
                fail(jit, &live[i], &res[i], t_start, err[i].msg[0] ? err[i].msg : "the compiler returned no code");
            }
        }
    }
    free(live);
    free(res);
    free(err);
    return ok;
}

bool jit_compile_and_install(Jit *jit, JitRequest *rq)
{
    return jit_compile_and_install_batch(jit, rq, 1) == 1;
}

static bool compilable(const Jit *jit, const VmMethod *m)
{
    const VmModule *mod = jit->vm->module;
    return mod && m->module == mod && m->index < jit->nmethods && m == &mod->methods[m->index] &&
           !(m->flags & VM_M_ABSTRACT) && m->code && m->ncode > 0;
}

/* sync and eager: compile now, on the program's thread. */
static void compile_now(Jit *jit, VmMethod *m, const VmInsn *osr_pc)
{
    if (!compilable(jit, m))
        return;
    pthread_mutex_lock(&jit->mu);
    bool fresh = jit->state[m->index] == JIT_M_NEW;
    jit->state[m->index] = JIT_M_DONE;
    if (fresh && osr_pc) {
        jit->osr[m->index].requests++;
        jit->osr[m->index].pending = true;
    }
    pthread_mutex_unlock(&jit->mu);
    if (!fresh)
        return;
    JitRequest rq;
    jit_request_init(jit, &rq, m);
    rq.osr_pc = osr_pc;
    jit_compile_and_install(jit, &rq);
}

/* What decides a run's code besides its module, as text (malloc'd, NULL
 * when out of memory): every IR tunable (the inliner, escape analysis,
 * dead stores) and the option set; jit's other tunables do not change code. */
static char *code_config(const Jit *jit)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    VmTunSet set = {.group = {&ir_tun_group}, .obj = {(void *)&jit->ir}, .n = 1};
    vm_tun_list(f, &set, false);
    fprintf(f, "optset=%s\n", jit->optset);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* jit_preload_run's install: cached code of the last run, before the
 * program's first instruction (nothing runs yet, nothing is queued). */
static void install_preloaded(void *ctx, const JitPreloaded *x)
{
    Jit *jit = ctx;
    VmMethod *m = x->m;
    keep_unit(jit, x->unit);
    VmOsr *o = x->osr_entry ? malloc(sizeof *o) : NULL;
    if (o) {
        o->pc = x->osr_pc;
        o->entry = x->osr_entry;
        __atomic_store_n(&m->osr, o, __ATOMIC_RELEASE);
    }
    if (x->entry) {
        __atomic_store_n(&m->entry, x->entry, __ATOMIC_RELEASE);
        pthread_mutex_lock(&jit->mu);
        if (m->index < jit->nmethods)
            jit->state[m->index] = JIT_M_DONE;
        pthread_mutex_unlock(&jit->mu);
    }
    /* the compile timeline's event: a load, at the start */
    JitRequest rq;
    jit_request_init(jit, &rq, m);
    rq.osr_pc = o ? x->osr_pc : NULL;
    rq.osr_only = !x->entry;
    rq.t_queued -= x->us / 1e6;
    JitResult res = {.entry = x->entry, .unit = x->unit, .code_bytes = x->code_bytes, .us_assemble = x->us,
                     .osr = o, .unit_id = rq.id, .unit_size = 1, .cached = true};
    jit_event_tier(jit, &rq, &res, rq.t_queued, NULL);
    char osr[48] = "";
    if (o)
        snprintf(osr, sizeof osr, " osr@%u%s", (unsigned)(x->osr_pc - m->code), x->entry ? "" : " only");
    jit_log(jit, "preloaded %s load=%.0fus code=%zuB%s", m->name, x->us, x->code_bytes, osr);
}

/* jit->maker, the one method making each lambda's closures (CLOS c), and
 * jit->made, its inverse; both NULL when out of memory (no method is then
 * hastened or credited with its lambdas' calls). */
static void find_makers(Jit *jit, const VmModule *mod)
{
    uint32_t n = mod->nmethods;
    uint32_t *mk = malloc((n ? n : 1) * sizeof *mk), *made = malloc((n ? 2 * (size_t)n : 1) * sizeof *made);
    if (!mk || !made) {
        free(mk);
        free(made);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        mk[i] = JIT_NO_MAKER - 1;   /* none seen yet */
    for (uint32_t i = 0; i < n; i++) {
        const VmMethod *m = &mod->methods[i];
        for (uint32_t pc = 0; m->code && pc < m->ncode; pc++) {
            uint32_t c = (uint32_t)m->code[pc].c;
            if (m->code[pc].op != VM_OP_CLOS || c >= n)
                continue;
            mk[c] = mk[c] == JIT_NO_MAKER - 1 || mk[c] == i ? i : JIT_NO_MAKER;
        }
    }
    for (uint32_t i = 0; i < 2 * n; i++)
        made[i] = JIT_NO_MAKER;
    for (uint32_t i = 0; i < n; i++) {
        if (mk[i] == JIT_NO_MAKER - 1)
            mk[i] = JIT_NO_MAKER;
        if (mk[i] < n) {
            made[n + i] = made[mk[i]];
            made[mk[i]] = i;
        }
    }
    jit->maker = mk;
    jit->made = made;
}

uint64_t jit_lambda_calls(const Jit *jit, const VmMethod *m)
{
    uint64_t sum = 0;
    uint32_t n = jit->nmethods;
    if (!jit->made || m->index >= n || m != &jit->vm->module->methods[m->index])
        return 0;
    for (uint32_t l = jit->made[m->index]; l < n; l = jit->made[n + l])
        sum += __atomic_load_n(&jit->vm->module->methods[l].prof.calls, __ATOMIC_RELAXED);
    return sum;
}

/* A lambda got hot: compiled library code (Vector.forEach) calls it in a
 * loop and cannot inline it, while the method making its closures, which
 * inlines both once compiled, runs once per loop and gets hot by its own
 * count much later.  The maker is made hot at its next call or back edge
 * instead: the tiers' usual rules then decide what to compile. */
static void hasten_maker(Jit *jit, const VmMethod *lam)
{
    if (!(lam->flags & VM_M_LAMBDA) || !jit->maker || lam->index >= jit->nmethods)
        return;
    uint32_t k = jit->maker[lam->index];
    if (k >= jit->nmethods)
        return;
    VmMethod *mk = &jit->vm->module->methods[k];
    if (!compilable(jit, mk) || mk->prof.hot || mk->prof.hot_countdown <= 1)
        return;
    mk->prof.hot_countdown = 1;   /* a plain store, as --jit=eager's start does: the counts are plain */
    jit_log(jit, "hastened %s: makes hot %s", mk->name, lam->name);
}

static void hot_hook(Vm *vm, VmMethod *m, const VmInsn *osr_pc)
{
    Jit *jit = vm->hooks.ctx;
    if (!jit || !m || !compilable(jit, m))
        return;
    hasten_maker(jit, m);
    if (jit->mode == JIT_ON) {
        if (osr_pc && too_early(jit, m))
            return;
        if (osr_pc && !loops_long(jit, m))
            osr_pc = NULL;   /* short calls: the ordinary entry is what counts */
        pthread_mutex_lock(&jit->mu);
        JitOsrState *s = &jit->osr[m->index];
        if (!osr_pc && s->entry_deferred && jit->state[m->index] == JIT_M_DONE &&
            __atomic_load_n(&m->entry, __ATOMIC_RELAXED) == vm_interp_entry) {
            s->entry_deferred = false;   /* called again: now it pays */
            if (jit_push_locked(jit, m, NULL))
                jit->state[m->index] = JIT_M_QUEUED;
        }
        if (jit->state[m->index] == JIT_M_NEW) {
            bool queued = jit_push_locked(jit, m, osr_pc);
            jit->state[m->index] = queued ? JIT_M_QUEUED : JIT_M_DONE;
            if (queued && osr_pc) {
                jit->osr[m->index].requests++;
                jit->osr[m->index].pending = true;
            }
        }
        pthread_mutex_unlock(&jit->mu);
    } else {
        compile_now(jit, m, osr_pc);
    }
}

/* The interpreter still loops in m at header (every vm.osr_poll back edges
 * while m->osr is not for header): ask for OSR code for it, within the
 * per-method limits.  A first request still queued just gets the header;
 * OSR code for another header gets JIT_OSR_PATIENCE polls first (nested
 * loops: the polls land on the inner header most of the time). */
static void osr_hook(Vm *vm, VmMethod *m, const VmInsn *header)
{
    Jit *jit = vm->hooks.ctx;
    if (!jit || !m || !header || !compilable(jit, m))
        return;
    pthread_mutex_lock(&jit->mu);
    JitOsrState *s = &jit->osr[m->index];
    uint8_t state = jit->state[m->index];
    bool ask = false;
    if (jit->mode == JIT_ON && (too_early(jit, m) || !loops_long(jit, m))) {
        /* not yet, or short calls: OSR code would rarely be entered */
    } else if (state == JIT_M_QUEUED) {
        if (!s->pending && jit_upgrade_locked(jit, m, header)) {
            s->requests++;
            s->pending = true;
        }
    } else if (!s->pending && !s->given_up && s->requests < JIT_OSR_MAX) {
        const VmOsr *o = __atomic_load_n(&m->osr, __ATOMIC_ACQUIRE);
        if (!o || ++s->misses >= JIT_OSR_PATIENCE) {
            s->misses = 0;
            ask = true;
        }
    }
    if (ask && jit->mode == JIT_ON) {
        if (jit_push_locked(jit, m, header)) {
            jit->state[m->index] = JIT_M_QUEUED;
            s->requests++;
            s->pending = true;
        }
        ask = false;
    } else if (ask) {
        jit->state[m->index] = JIT_M_DONE;
        s->requests++;
        s->pending = true;
    }
    pthread_mutex_unlock(&jit->mu);
    if (ask) {
        JitRequest rq;
        jit_request_init(jit, &rq, m);
        rq.osr_pc = header;
        jit_compile_and_install(jit, &rq);
    }
}

Jit *jit_new(Vm *vm, JitMode mode, const JitTunables *tun, const IrOptions *ir, const JitMarkerHooks *markers,
             VmError *err)
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
    jit_tmp_init();   /* TMPDIR set before any thread of ours compiles */
    jit->vm = vm;
    jit->mode = mode;
    if (tun)
        jit->tun = *tun;
    else
        jit_tunables_default(&jit->tun);
    if (ir)
        jit->ir = *ir;
    else
        ir_options_default(&jit->ir);
    if (markers)
        jit->markers = *markers;
    jit->t0 = jit_now();
    jit->compile = test_hooks.compile ? test_hooks.compile : jit_compile;
    jit->delay_us = test_hooks.delay_us;
    jit->log = test_hooks.log ? test_hooks.log : jit->tun.log ? stderr : NULL;
    jit->paused = test_hooks.paused;
    jit->optset = jit->tun.optset && jit->tun.optset[0] ? jit->tun.optset : DEFAULT_OPTSET;
    pthread_mutex_init(&jit->mu, NULL);
    pthread_cond_init(&jit->wake, NULL);
    pthread_cond_init(&jit->idle, NULL);
    pthread_cond_init(&jit->hook_done, NULL);
    pthread_mutex_init(&jit->evmu, NULL);
    if (mode == JIT_OFF)
        return jit;

    VmModule *mod = vm->module;
    jit->nmethods = mod->nmethods;
    jit->state = calloc(mod->nmethods ? mod->nmethods : 1, 1);
    jit->osr = calloc(mod->nmethods ? mod->nmethods : 1, sizeof *jit->osr);
    find_makers(jit, mod);
    int64_t batch = jit->tun.batch;
    jit->batch = batch < 1 ? 1 : batch > JIT_BATCH_MAX ? JIT_BATCH_MAX : (size_t)batch;
    jit->batch_bytecode = jit->tun.batch_bytecode > 0 ? (uint64_t)jit->tun.batch_bytecode : UINT64_MAX;
    jit->gather_us = jit->tun.gather_us > 0 ? (unsigned)(jit->tun.gather_us < 1000000 ? jit->tun.gather_us : 1000000) : 0;
    if (!jit->state || !jit->osr) {
        vm_fail(err, "jit: out of memory");
        jit_free(jit);
        return NULL;
    }
    char cdir[4096];
    if (jit_cache_dir(jit->tun.cache, cdir, sizeof cdir)) {
        VmError cerr = {{0}};
        if (!(jit->cache = jit_cache_open(cdir, &cerr)))
            fprintf(stderr, "tally: warning: %s; the code cache is off\n", cerr.msg);
    }
    if (jit->cache) {
        char *config = code_config(jit), name[64];
        VmBuf bytes = {0};
        vm_module_write(mod, &bytes);
        if (config && bytes.data) {
            jit_cache_module_name(jit->cache, bytes.data, bytes.len, config, "run", name, sizeof name);
            snprintf(jit->note_base, sizeof jit->note_base, "%.32s", name);
        }
        free(config);
        vm_buf_free(&bytes);
    }
    if (jit->note_base[0] && jit->tun.preload && !jit->markers.edit) {
        char name[64];
        snprintf(name, sizeof name, "%s.run", jit->note_base);
        jit->preload = jit_preload_new(mod, jit->cache, name);
    }
    if (jit->preload) {
        size_t n = jit_preload_run(jit->preload, install_preloaded, jit);
        if (n)
            jit_log(jit, "preloaded %zu items from the code cache", n);
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
            compile_now(jit, &mod->methods[mod->init], NULL);
        if (mod->main != VM_NONE && mod->main < mod->nmethods)
            compile_now(jit, &mod->methods[mod->main], NULL);
    }
    vm->hooks.ctx = jit;
    vm->hooks.hot = hot_hook;
    vm->hooks.osr = osr_hook;
    vm->hooks.stats_jit = jit_events_json;   /* --stats: "compiles" */
    vm->hooks.stats_jit_ctx = jit;
    return jit;
}

void jit_free(Jit *jit)
{
    if (!jit)
        return;
    Vm *vm = jit->vm;
    if (vm && vm->hooks.hot == hot_hook && vm->hooks.ctx == jit) {
        vm->hooks.hot = NULL;
        vm->hooks.osr = NULL;
        vm->hooks.ctx = NULL;
    }
    if (vm && vm->hooks.stats_jit_ctx == jit) {
        vm->hooks.stats_jit = NULL;
        vm->hooks.stats_jit_ctx = NULL;
    }
    if (jit->thread_started)
        jit_thread_stop(jit);
    if (jit->mode != JIT_OFF) {
        JitStats s = jit_test_stats(jit);
        jit_log(jit, "summary queued=%llu compiled=%llu failed=%llu dropped=%llu units=%llu osr_compiled=%llu "
                "osr_entries=%llu",
                (unsigned long long)s.queued, (unsigned long long)s.compiled, (unsigned long long)s.failed,
                (unsigned long long)s.dropped, (unsigned long long)s.units, (unsigned long long)s.osr_compiled,
                (unsigned long long)s.osr_entries);
        if (jit->cache) {
            jit_preload_save(jit->preload);
            JitCacheStats c = jit_cache_stats(jit->cache);
            jit_log(jit, "cache %s hits=%llu misses=%llu stored=%llu bad=%llu errors=%llu preloaded=%llu",
                    jit_cache_path(jit->cache), (unsigned long long)c.hits, (unsigned long long)c.misses,
                    (unsigned long long)c.stored, (unsigned long long)c.bad, (unsigned long long)c.errors,
                    (unsigned long long)c.preloaded);
            uint64_t gone = 0;
            VmError terr;
            if (jit->tun.cache_max > 0 &&
                jit_cache_trim(jit_cache_path(jit->cache), (uint64_t)jit->tun.cache_max, &gone, &terr) && gone)
                jit_log(jit, "cache trimmed to jit.cache_max: %llu least recently used entries removed",
                        (unsigned long long)gone);
        }
    }
    jit_preload_free(jit->preload);
    jit_cache_close(jit->cache);
    for (uint32_t i = 0; jit->chosen && i < jit->nmethods; i++)
        free(jit->chosen[i].optset);
    free(jit->chosen);
    pthread_cond_destroy(&jit->hook_done);
    pthread_cond_destroy(&jit->idle);
    pthread_cond_destroy(&jit->wake);
    pthread_mutex_destroy(&jit->mu);
    pthread_mutex_destroy(&jit->evmu);
    free(jit->ev);
    free(jit->heap);
    free(jit->state);
    free(jit->osr);
    free(jit->maker);
    free(jit->made);
    free(jit->units);  /* the units themselves stay loaded */
    free(jit);
}
