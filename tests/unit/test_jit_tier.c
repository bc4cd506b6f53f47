/* tests/unit/test_jit_tier.c — the JIT tier around the code generator:
 * mode parsing, the compile queue (hottest first, each method once), the
 * program never waiting for a slow compile, fault injection, shutdown with
 * a non-empty queue, and the sync/eager modes.  A stub compiler (through
 * jit_set_test_hooks) stands in for libgccjit: its "code" is an entry that
 * runs the interpreter, so programs behave exactly as before and only the
 * tier's own logic is under test.
 */
#include "test.h"
#include "tier.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* main calls a 200 times, c 100 times, b 20 times (in that order), each
 * adding 1 to a running total that it prints: 320. */
static const char *const PROGRAM =
    "module \"tier\"\n"
    "main main\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "method a (int) : int static\n  regs int\n  ADDK r0, r0, 1\n  RET r0\nend\n"
    "method b (int) : int static\n  regs int\n  ADDK r0, r0, 1\n  RET r0\nend\n"
    "method c (int) : int static\n  regs int\n  ADDK r0, r0, 1\n  RET r0\nend\n"
    "method main () : void static\n"
    "  regs int, int, int\n"
    "  LDI r2, 0\n"
    "  LDI r0, 0\n  LDI r1, 200\n"
    "la:\n  CALL r2, r2, a\n  LOOP r0, r1, la\n"
    "  LDI r0, 0\n  LDI r1, 100\n"
    "lc:\n  CALL r2, r2, c\n  LOOP r0, r1, lc\n"
    "  LDI r0, 0\n  LDI r1, 20\n"
    "lb:\n  CALL r2, r2, b\n  LOOP r0, r1, lb\n"
    "  CALLN _, r2, println_int\n"
    "  RETV\n"
    "end\n";

/* ---- the stub compiler ----------------------------------------------------- */

static pthread_mutex_t stub_mu = PTHREAD_MUTEX_INITIALIZER;
static VmMethod *stub_order[64];
static int stub_n;

static VmValue stub_entry(VmThread *t, VmMethod *m, VmValue *args)
{
    return vm_interp_entry(t, m, args);
}

static bool stub_compile(Jit *jit, JitRequest *rq, JitResult *out, VmError *err)
{
    (void)jit;
    (void)err;
    pthread_mutex_lock(&stub_mu);
    if (stub_n < 64)
        stub_order[stub_n++] = rq->m;
    pthread_mutex_unlock(&stub_mu);
    *out = (JitResult){.entry = stub_entry, .code_bytes = 8u * rq->m->ncode};
    return true;
}

static void stub_reset(void)
{
    pthread_mutex_lock(&stub_mu);
    stub_n = 0;
    pthread_mutex_unlock(&stub_mu);
}

static int stub_count(const VmMethod *m)
{
    int n = 0;
    pthread_mutex_lock(&stub_mu);
    for (int i = 0; i < stub_n; i++)
        n += stub_order[i] == m;
    pthread_mutex_unlock(&stub_mu);
    return n;
}

/* ---- helpers ------------------------------------------------------------- */

static Vm *load(int64_t hot_threshold, int64_t fail_every)
{
    VmError err;
    VmModule *m = vm_asm(PROGRAM, strlen(PROGRAM), "tier.tla", &err);
    if (!m) {
        test_fail(__FILE__, __LINE__, "asm: %s", err.msg);
        return NULL;
    }
    if (!vm_verify(m, &err)) {
        test_fail(__FILE__, __LINE__, "verify: %s", err.msg);
        vm_module_free(m);
        return NULL;
    }
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.hot_threshold = hot_threshold;
    tun.jit_fail_every = fail_every;
    tun.stack_slots = 1 << 14;
    tun.max_frames = 1024;
    Vm *vm = vm_new(&tun);
    if (!vm || !vm_link(vm, m, &err)) {
        test_fail(__FILE__, __LINE__, "link failed");
        vm_free(vm);
        vm_module_free(m);
        return NULL;
    }
    return vm;
}

static void unload(Vm *vm)
{
    VmModule *m = vm->module;
    vm_free(vm);
    vm_module_free(m);
}

static VmMethod *method(Vm *vm, const char *name)
{
    for (uint32_t i = 0; i < vm->module->nmethods; i++)
        if (!strcmp(vm->module->methods[i].name, name))
            return &vm->module->methods[i];
    return NULL;
}

/* Runs the program with stdout captured; returns its status and run time. */
static int run(Vm *vm, char *out, size_t size, double *seconds)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    double t0 = jit_now();
    int status = vm_run(vm, 0, NULL);
    if (seconds)
        *seconds = jit_now() - t0;
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, size - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    return status;
}

static void read_log(FILE *log, char *buf, size_t size)
{
    fflush(log);
    rewind(log);
    size_t n = fread(buf, 1, size - 1, log);
    buf[n] = 0;
}

/* ---- tests --------------------------------------------------------------- */

TEST(jit_mode_parse_names)
{
    JitMode m = JIT_OFF;
    CHECK(jit_mode_parse("on", &m) && m == JIT_ON);
    CHECK(jit_mode_parse("off", &m) && m == JIT_OFF);
    CHECK(jit_mode_parse("eager", &m) && m == JIT_EAGER);
    CHECK(jit_mode_parse("sync", &m) && m == JIT_SYNC);
    m = JIT_SYNC;
    CHECK(!jit_mode_parse("bogus", &m));
    CHECK(!jit_mode_parse("", &m));
    CHECK(!jit_mode_parse("ON", &m));
    CHECK(!jit_mode_parse(NULL, &m));
    CHECK(m == JIT_SYNC);  /* untouched on failure */
}

TEST(jit_off_wires_nothing)
{
    Vm *vm = load(2, 0);
    if (!vm)
        return;
    VmError err;
    Jit *jit = jit_new(vm, JIT_OFF, &err);
    CHECK(jit != NULL);
    CHECK(vm->hooks.hot == NULL);
    jit_free(jit);
    unload(vm);
}

/* Queued while the thread is paused; when it resumes, the order follows
 * the live hotness (main's back edges, then a, c, b), not queue order. */
TEST(jit_queue_hottest_first)
{
    Vm *vm = load(5, 0);
    if (!vm)
        return;
    stub_reset();
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile, .paused = true});
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, &err);
    jit_set_test_hooks(NULL);
    if (!jit) {
        test_fail(__FILE__, __LINE__, "jit_new: %s", err.msg);
        unload(vm);
        return;
    }
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    CHECK_INT(jit_test_stats(jit).queued, 4);
    CHECK_INT(stub_n, 0);  /* nothing compiled while paused */
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    CHECK_INT(stub_n, 4);
    if (stub_n == 4) {
        CHECK_STR(stub_order[0]->name, "main");
        CHECK_STR(stub_order[1]->name, "a");
        CHECK_STR(stub_order[2]->name, "c");
        CHECK_STR(stub_order[3]->name, "b");
    }
    CHECK(method(vm, "a")->entry == stub_entry);
    CHECK_INT(jit_test_stats(jit).compiled, 4);
    jit_free(jit);
    unload(vm);
}

/* Each method is requested once however often it gets hot or is queued. */
TEST(jit_each_method_queued_once)
{
    Vm *vm = load(1, 0);
    if (!vm)
        return;
    stub_reset();
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile});
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, &err);
    jit_set_test_hooks(NULL);
    if (!jit) {
        unload(vm);
        return;
    }
    char out[256];
    for (int k = 0; k < 3; k++)
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    VmMethod *a = method(vm, "a");
    for (int k = 0; k < 5; k++)
        jit_enqueue(jit, a);
    jit_test_wait_idle(jit);
    CHECK_INT(jit_test_stats(jit).queued, 4);
    CHECK_INT(stub_count(a), 1);
    CHECK_INT(stub_count(method(vm, "b")), 1);
    CHECK_INT(stub_count(method(vm, "main")), 1);
    CHECK_INT(stub_n, 4);
    jit_free(jit);
    unload(vm);
}

static bool busy(Jit *jit)
{
    pthread_mutex_lock(&jit->mu);
    bool b = jit->busy;
    pthread_mutex_unlock(&jit->mu);
    return b;
}

/* While a compile that takes 400 ms is in progress, the program runs (and
 * queues its hot methods) without waiting for it. */
TEST(jit_program_never_waits)
{
    Vm *vm = load(3, 0);
    if (!vm)
        return;
    stub_reset();
    const unsigned delay_us = 400000;
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile, .delay_us = delay_us});
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, &err);
    jit_set_test_hooks(NULL);
    if (!jit) {
        unload(vm);
        return;
    }
    jit_enqueue(jit, method(vm, "b"));  /* the slow compile */
    for (int k = 0; k < 2000 && !busy(jit); k++)
        usleep(100);
    CHECK(busy(jit));
    char out[256];
    double secs = 1e9;
    CHECK_INT(run(vm, out, sizeof out, &secs), 0);
    CHECK_STR(out, "320\n");
    CHECK(secs < delay_us * 1e-6 / 2);
    CHECK(busy(jit));      /* still compiling b */
    CHECK_INT(stub_n, 0);
    CHECK_INT(jit_test_stats(jit).queued, 4);  /* a, c, main queued meanwhile */
    double t0 = jit_now();
    jit_free(jit);  /* waits for the compile in progress only */
    double waited = jit_now() - t0;
    CHECK(waited < 2 * delay_us * 1e-6);
    CHECK(stub_n <= 1);
    unload(vm);
}

/* jit.fail_every=1: every compile fails before the compiler runs; all
 * methods stay interpreted, the output is unchanged, failures are logged. */
TEST(jit_fault_injection)
{
    static const JitMode modes[] = {JIT_SYNC, JIT_EAGER, JIT_ON};
    for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
        Vm *vm = load(2, 1);
        if (!vm)
            return;
        stub_reset();
        FILE *log = tmpfile();
        jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile, .log = log});
        VmError err;
        Jit *jit = jit_new(vm, modes[k], &err);
        jit_set_test_hooks(NULL);
        if (!jit) {
            fclose(log);
            unload(vm);
            return;
        }
        char out[256];
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
        CHECK_STR(out, "320\n");
        jit_test_wait_idle(jit);
        JitStats s = jit_test_stats(jit);
        jit_free(jit);
        CHECK_INT(stub_n, 0);
        CHECK_INT(s.compiled, 0);
        CHECK(s.failed >= 1);
        for (uint32_t i = 0; i < vm->module->nmethods; i++)
            CHECK(vm->module->methods[i].entry == vm_interp_entry);
        char text[4096];
        read_log(log, text, sizeof text);
        CHECK_CONTAINS(text, "] jit: failed #1 ");
        CHECK_CONTAINS(text, ": injected failure\n");
        CHECK(strstr(text, "jit: compiled") == NULL);
        fclose(log);
        unload(vm);
    }
}

/* Every second compile fails: the others are installed and logged. */
TEST(jit_fault_injection_every_second)
{
    Vm *vm = load(2, 2);
    if (!vm)
        return;
    stub_reset();
    FILE *log = tmpfile();
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile, .log = log});
    VmError err;
    Jit *jit = jit_new(vm, JIT_SYNC, &err);
    jit_set_test_hooks(NULL);
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    JitStats s = jit_test_stats(jit);
    jit_free(jit);
    CHECK_INT(s.compiled + s.failed, 4);
    CHECK_INT(s.failed, 2);
    CHECK_INT(stub_n, 2);
    char text[4096];
    read_log(log, text, sizeof text);
    CHECK_CONTAINS(text, "jit: compiled #1 main optset=");
    CHECK_CONTAINS(text, "jit: failed #2 a: injected failure");
    fclose(log);
    unload(vm);
}

/* jit_free with requests still queued drops them (logged) and returns. */
TEST(jit_shutdown_with_queue)
{
    Vm *vm = load(2, 0);
    if (!vm)
        return;
    stub_reset();
    FILE *log = tmpfile();
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile, .log = log, .paused = true});
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, &err);
    jit_set_test_hooks(NULL);
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_INT(jit_test_stats(jit).queued, 4);
    jit_free(jit);
    CHECK_INT(stub_n, 0);
    char text[4096];
    read_log(log, text, sizeof text);
    CHECK_CONTAINS(text, "jit: queued #1 main prio=");
    CHECK_CONTAINS(text, "jit: dropped #");
    CHECK_CONTAINS(text, "jit: summary queued=4 compiled=0 failed=0 dropped=4");
    CHECK(vm->hooks.hot == NULL);  /* unwired */
    fclose(log);
    unload(vm);
}

/* sync: a method compiled on the hot path; eager: main before the run,
 * every called method at its first call. */
TEST(jit_sync_and_eager)
{
    Vm *vm = load(3, 0);
    if (!vm)
        return;
    stub_reset();
    jit_set_test_hooks(&(JitTestHooks){.compile = stub_compile});
    VmError err;
    Jit *jit = jit_new(vm, JIT_SYNC, &err);
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    CHECK(method(vm, "a")->entry == stub_entry);  /* no thread: installed by now */
    CHECK(method(vm, "b")->entry == stub_entry);
    CHECK_INT(stub_n, 4);
    jit_free(jit);
    unload(vm);

    vm = load(1000000, 0);
    if (!vm)
        return;
    stub_reset();
    jit = jit_new(vm, JIT_EAGER, &err);
    jit_set_test_hooks(NULL);
    CHECK(method(vm, "main")->entry == stub_entry);
    CHECK(method(vm, "a")->entry == vm_interp_entry);
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    CHECK(method(vm, "a")->entry == stub_entry);
    CHECK(method(vm, "c")->entry == stub_entry);
    CHECK_INT(stub_n, 4);
    if (stub_n == 4)
        CHECK_STR(stub_order[0]->name, "main");
    jit_free(jit);
    unload(vm);
}
