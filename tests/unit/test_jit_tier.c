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
static int stub_osr;   /* requests that carried an OSR header */

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
    stub_osr += rq->osr_pc != NULL;
    pthread_mutex_unlock(&stub_mu);
    *out = (JitResult){.entry = stub_entry, .code_bytes = 8u * rq->m->ncode};
    return true;
}

static void stub_reset(void)
{
    pthread_mutex_lock(&stub_mu);
    stub_n = 0;
    stub_osr = 0;
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

/* main calls tiny 300 times, then big 100 times: tiny is called more
 * often, big does more work (24 instructions a call).  Prints 2700. */
static const char *const PROGRAM_WORK =
    "module \"work\"\n"
    "main main\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "method tiny (int) : int static\n  regs int\n  ADDK r0, r0, 1\n  RET r0\nend\n"
    "method big (int) : int static\n  regs int\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n  ADDK r0, r0, 1\n"
    "  RET r0\nend\n"
    "method main () : void static\n"
    "  regs int, int, int\n"
    "  LDI r2, 0\n"
    "  LDI r0, 0\n  LDI r1, 300\n"
    "lt:\n  CALL r2, r2, tiny\n  LOOP r0, r1, lt\n"
    "  LDI r0, 0\n  LDI r1, 100\n"
    "lb:\n  CALL r2, r2, big\n  LOOP r0, r1, lb\n"
    "  CALLN _, r2, println_int\n"
    "  RETV\n"
    "end\n";

static Vm *load_text(const char *text, int64_t hot_threshold)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.hot_threshold = hot_threshold;
    tun.osr_threshold = hot_threshold;   /* main's loop counts like any other */
    tun.stack_slots = 1 << 14;
    tun.max_frames = 1024;
    return test_load_tla(text, &tun);
}

static Vm *load(int64_t hot_threshold)
{
    return load_text(PROGRAM, hot_threshold);
}

/* A tier in `mode` over vm compiling with the stub (whose record starts
 * empty) under the other test hooks given; NULL and a failure if jit_new
 * fails. */
static Jit *stub_jit(Vm *vm, JitMode mode, JitTestHooks hooks, const JitTunables *tun)
{
    stub_reset();
    hooks.compile = stub_compile;
    jit_set_test_hooks(&hooks);
    VmError err;
    Jit *jit = jit_new(vm, mode, tun, NULL, NULL, &err);
    jit_set_test_hooks(NULL);
    if (!jit)
        test_fail(__FILE__, __LINE__, "jit_new: %s", err.msg);
    return jit;
}

/* load() and stub_jit() together: *jit is the tier.  NULL if either fails,
 * with the VM freed and hooks.log closed, so a test only has to return. */
static Vm *load_stub(int64_t hot_threshold, int64_t fail_every, JitMode mode, JitTestHooks hooks, Jit **jit)
{
    Vm *vm = load(hot_threshold);
    JitTunables tun;
    jit_tunables_default(&tun);
    tun.fail_every = fail_every;
    *jit = vm ? stub_jit(vm, mode, hooks, &tun) : NULL;
    if (*jit)
        return vm;
    if (hooks.log)
        fclose(hooks.log);
    test_unload(vm);
    return NULL;
}

/* Runs the program with stdout captured; returns its status and run time. */
static int run(Vm *vm, char *out, size_t size, double *seconds)
{
    FILE *tmp;
    int saved = test_redirect(1, &tmp);
    double t0 = jit_now();
    int status = vm_run(vm, 0, NULL);
    if (seconds)
        *seconds = jit_now() - t0;
    test_restore(1, saved, tmp, out, size);
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
    Vm *vm = load(2);
    if (!vm)
        return;
    VmError err;
    Jit *jit = jit_new(vm, JIT_OFF, NULL, NULL, NULL, &err);
    CHECK(jit != NULL);
    CHECK(vm->hooks.hot == NULL);
    jit_free(jit);
    test_unload(vm);
}

/* Queued while the thread is paused; when it resumes, the order follows
 * the live hotness (main's back edges, then a, c, b), not queue order. */
TEST(jit_queue_hottest_first)
{
    Jit *jit;
    Vm *vm = load_stub(5, 0, JIT_ON, (JitTestHooks){.paused = true}, &jit);
    if (!vm)
        return;
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
    CHECK(test_method(vm, "a")->entry == stub_entry);
    CHECK_INT(jit_test_stats(jit).compiled, 4);
    jit_free(jit);
    test_unload(vm);
}

/* jit_bakeoff_waits (research.wait_jit): true while a listed callee is
 * queued for the JIT and its entry not installed, false once compiled,
 * and for a method never queued or an empty list. */
TEST(jit_bakeoff_waits_for_queued_callee)
{
    Jit *jit;
    Vm *vm = load_stub(5, 0, JIT_ON, (JitTestHooks){.paused = true}, &jit);
    if (!vm)
        return;
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    JitBakeoffTable tab;
    memset(&tab, 0, sizeof tab);
    CHECK(!jit_bakeoff_waits(jit, &tab, false));
    CHECK(!jit_bakeoff_waits(NULL, &tab, false));
    tab.callees[tab.ncallees++] = test_method(vm, "a");   /* queued while paused */
    CHECK(jit_bakeoff_waits(jit, &tab, false));
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    CHECK(!jit_bakeoff_waits(jit, &tab, false));   /* compiled and installed */
    jit_free(jit);
    test_unload(vm);
}

/* Loads text (hot after hot_threshold) with a stub JIT whose compile
 * thread is paused, and runs it (status 0 checked, stdout into out);
 * the JIT, or NULL (nothing left loaded) when loading failed. */
static Jit *run_paused(const char *text, int64_t hot_threshold, Vm **vm, char *out, size_t outsz)
{
    *vm = load_text(text, hot_threshold);
    Jit *jit = *vm ? stub_jit(*vm, JIT_ON, (JitTestHooks){.paused = true}, NULL) : NULL;
    if (!jit) {
        test_unload(*vm);
        return NULL;
    }
    CHECK_INT(run(*vm, out, outsz, NULL), 0);
    return jit;
}

/* PROGRAM_WORK run with the compile thread paused (3 methods queued),
 * hurried (jit_bakeoff_waits with hurry) if not NULL, then compiled: the
 * order the stub compiler saw them in must be want. */
static void check_queue_order(const char *hurried, const char *const want[3])
{
    Vm *vm;
    char out[256];
    Jit *jit = run_paused(PROGRAM_WORK, 5, &vm, out, sizeof out);
    if (!jit)
        return;
    CHECK_STR(out, "2700\n");
    CHECK_INT(jit_test_stats(jit).queued, 3);
    JitBakeoffTable tab;
    memset(&tab, 0, sizeof tab);
    if (hurried) {
        tab.callees[tab.ncallees++] = test_method(vm, hurried);
        CHECK(jit_bakeoff_waits(jit, &tab, true));
    }
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    CHECK_INT(stub_n, 3);
    for (int k = 0; k < 3 && stub_n == 3; k++)
        CHECK_STR(stub_order[k]->name, want[k]);
    CHECK(!jit_bakeoff_waits(jit, &tab, true));   /* installed: waits no more */
    jit_free(jit);
    test_unload(vm);
}

/* The queue orders by interpreter work (growth times size), not by calls:
 * big, called a third as often as tiny but 12 times its size, comes first. */
TEST(jit_queue_work_before_calls)
{
    check_queue_order(NULL, (const char *const[]){"main", "big", "tiny"});
}

/* research.hurry_jit: a callee a bakeoff waits for (jit_bakeoff_waits with
 * hurry) goes before the queue's order by work: tiny, last by work,
 * compiles first. */
TEST(jit_queue_hurried_first)
{
    check_queue_order("tiny", (const char *const[]){"tiny", "main", "big"});
}

/* maker makes closures of lam$1 and passes them to apply, whose loop
 * calls them 50 times; main calls maker twice.  Prints 50. */
static const char *const PROGRAM_MAKER =
    "module \"makers\"\n"
    "main main\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "method lam$1 (fn(int):int, int) : int lambda\n  ADDK r1, r1, 1\n  RET r1\nend\n"
    "method apply (fn(int):int, int) : int static\n"
    "  regs int, int, fn(int):int, int\n"
    "  LDI r2, 0\n  LDI r3, 0\n"
    "l:\n  MOV r4, r0\n  MOV r5, r3\n  CALLF r3, r4\n  LOOP r2, r1, l\n"
    "  RET r3\nend\n"
    "method maker (int) : int static\n"
    "  regs fn(int):int, int\n"
    "  CLOS r1, r1, lam$1\n  MOV r2, r0\n  CALL r0, r1, apply\n  RET r0\nend\n"
    "method main () : void static\n"
    "  regs int, int\n"
    "  LDI r0, 50\n  CALL r1, r0, maker\n  CALL r1, r0, maker\n"
    "  CALLN _, r1, println_int\n  RETV\nend\n";

/* A lambda's maker is credited with the lambda's calls (the queue's
 * priority of its request) and, when the lambda gets hot (after 10
 * calls), is made hot at its next call: maker, called twice, is queued. */
TEST(jit_lambda_hastens_its_maker)
{
    Vm *vm;
    char out[64];
    Jit *jit = run_paused(PROGRAM_MAKER, 10, &vm, out, sizeof out);
    if (!jit)
        return;
    CHECK_STR(out, "50\n");
    CHECK_INT(jit_lambda_calls(jit, test_method(vm, "maker")), 100);
    CHECK_INT(jit_lambda_calls(jit, test_method(vm, "apply")), 0);
    CHECK_INT(jit_lambda_calls(jit, test_method(vm, "lam$1")), 0);
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    CHECK_INT(stub_count(test_method(vm, "maker")), 1);
    CHECK_INT(stub_count(test_method(vm, "main")), 0);
    jit_free(jit);
    test_unload(vm);
}

/* Each method is requested once however often it gets hot or is queued. */
TEST(jit_each_method_queued_once)
{
    Jit *jit;
    Vm *vm = load_stub(1, 0, JIT_ON, (JitTestHooks){0}, &jit);
    if (!vm)
        return;
    char out[256];
    for (int k = 0; k < 3; k++)
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    VmMethod *a = test_method(vm, "a");
    for (int k = 0; k < 5; k++)
        jit_enqueue(jit, a);
    jit_test_wait_idle(jit);
    CHECK_INT(jit_test_stats(jit).queued, 4);
    CHECK_INT(stub_count(a), 1);
    CHECK_INT(stub_count(test_method(vm, "b")), 1);
    CHECK_INT(stub_count(test_method(vm, "main")), 1);
    CHECK_INT(stub_n, 4);
    jit_free(jit);
    test_unload(vm);
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
    const unsigned delay_us = 400000;
    Jit *jit;
    Vm *vm = load_stub(3, 0, JIT_ON, (JitTestHooks){.delay_us = delay_us}, &jit);
    if (!vm)
        return;
    jit_enqueue(jit, test_method(vm, "b"));  /* the slow compile */
    for (int k = 0; k < 2000 && !busy(jit); k++)
        usleep(100);
    CHECK(busy(jit));
    char out[256];
    double secs = 1e9;
    CHECK_INT(run(vm, out, sizeof out, &secs), 0);
    CHECK_STR(out, "320\n");
    CHECK(secs < delay_us * 1e-6 / 2);
    CHECK(busy(jit));      /* still compiling b */
    pthread_mutex_lock(&stub_mu);
    int compiled = stub_n;
    pthread_mutex_unlock(&stub_mu);
    CHECK_INT(compiled, 0);
    CHECK_INT(jit_test_stats(jit).queued, 4);  /* a, c, main queued meanwhile */
    double t0 = jit_now();
    jit_free(jit);  /* waits for the compile in progress only */
    double waited = jit_now() - t0;
    CHECK(waited < 2 * delay_us * 1e-6);
    CHECK(stub_n <= 1);
    test_unload(vm);
}

/* jit.fail_every=1: every compile fails before the compiler runs; all
 * methods stay interpreted, the output is unchanged, failures are logged. */
TEST(jit_fault_injection)
{
    static const JitMode modes[] = {JIT_SYNC, JIT_EAGER, JIT_ON};
    for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
        FILE *log = tmpfile();
        Jit *jit;
        Vm *vm = load_stub(2, 1, modes[k], (JitTestHooks){.log = log}, &jit);
        if (!vm)
            return;
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
        test_unload(vm);
    }
}

/* Every second compile fails: the others are installed and logged. */
TEST(jit_fault_injection_every_second)
{
    FILE *log = tmpfile();
    Jit *jit;
    Vm *vm = load_stub(2, 2, JIT_SYNC, (JitTestHooks){.log = log}, &jit);
    if (!vm)
        return;
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
    test_unload(vm);
}

/* jit_free with requests still queued drops them (logged) and returns. */
TEST(jit_shutdown_with_queue)
{
    FILE *log = tmpfile();
    Jit *jit;
    Vm *vm = load_stub(2, 0, JIT_ON, (JitTestHooks){.log = log, .paused = true}, &jit);
    if (!vm)
        return;
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
    test_unload(vm);
}

/* sync: a method compiled on the hot path; eager: main before the run,
 * every called method at its first call. */
TEST(jit_sync_and_eager)
{
    Jit *jit;
    Vm *vm = load_stub(3, 0, JIT_SYNC, (JitTestHooks){0}, &jit);
    if (!vm)
        return;
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    CHECK(test_method(vm, "a")->entry == stub_entry);  /* no thread: installed by now */
    CHECK(test_method(vm, "b")->entry == stub_entry);
    CHECK_INT(stub_n, 4);
    jit_free(jit);
    test_unload(vm);

    vm = load_stub(1000000, 0, JIT_EAGER, (JitTestHooks){0}, &jit);
    if (!vm)
        return;
    CHECK(test_method(vm, "main")->entry == stub_entry);
    CHECK(test_method(vm, "a")->entry == vm_interp_entry);
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "320\n");
    CHECK(test_method(vm, "a")->entry == stub_entry);
    CHECK(test_method(vm, "c")->entry == stub_entry);
    CHECK_INT(stub_n, 4);
    if (stub_n == 4)
        CHECK_STR(stub_order[0]->name, "main");
    jit_free(jit);
    test_unload(vm);
}

/* ---- on-stack replacement and batching (the real compiler) ----------------- */

/* work() gets hot in its loop while its frame is one the interpreter pushed
 * in place for caller(); deep() recursion: deep(1) gets hot in its loop,
 * the 11 outer activations (interpreted frames) move over when their loops
 * poll; main's own loop moves over too. */
static const char *const OSR_SRC =
    "fn work(n: int): int {\n"
    "    var s = 0;\n"
    "    for i in 0..n { s = (s * 31 + i) % 1000003; }\n"
    "    return s;\n"
    "}\n"
    "fn deep(d: int): int {\n"
    "    if d == 0 { return 1; }\n"
    "    let r = deep(d - 1);\n"
    "    var s = r;\n"
    "    for i in 0..30000 { s = (s + i * d) % 1000003; }\n"
    "    return s;\n"
    "}\n"
    "fn caller(n: int): int { let a = work(n); return (a + 1) * 2; }\n"
    "fn main() {\n"
    "    println(caller(400000));\n"
    "    println(deep(12));\n"
    "    var f = 0.5;\n"
    "    var t = \"s\";\n"
    "    for i in 0..100000 { f = f + float(i % 3); if i % 50000 == 0 { t = t + str(i); } }\n"
    "    println(str(f) + \" \" + t);\n"
    "}\n";
static const char *const OSR_OUT = "512372\n724707\n99999.5 s050000\n";

static void osr_tunables(VmTunables *tun, int64_t hot, int64_t poll)
{
    vm_tunables_default(tun);
    tun->hot_threshold = hot;
    tun->osr_threshold = hot;
    tun->osr_poll = poll;
}

/* sync mode is deterministic: work's and main's loops transfer once each,
 * deep's 12 activations (deep(1) where it got hot, 11 interpreted frames
 * below it when their loops poll) once each. */
TEST(jit_osr_transfers)
{
    VmTunables tun;
    osr_tunables(&tun, 30, 50);
    Vm *vm = test_load_tl("osr.tl", OSR_SRC, &tun);
    if (!vm)
        return;
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);   /* no tier: the interpreter */
    CHECK_STR(out, OSR_OUT);
    test_unload(vm);

    vm = test_load_tl("osr.tl", OSR_SRC, &tun);
    if (!vm)
        return;
    VmError err;
    Jit *jit = jit_new(vm, JIT_SYNC, NULL, NULL, NULL, &err);
    if (!jit) {
        test_fail(__FILE__, __LINE__, "jit_new: %s", err.msg);
        test_unload(vm);
        return;
    }
    CHECK(vm->hooks.osr != NULL);
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, OSR_OUT);
    JitStats s = jit_test_stats(jit);
    jit_free(jit);
    CHECK_INT(s.failed, 0);
    CHECK_INT(s.osr_compiled, 3);
    CHECK_INT(s.osr_entries, 14);
    CHECK_INT(test_method(vm, "work")->prof.osr_entries, 1);
    CHECK_INT(test_method(vm, "deep")->prof.osr_entries, 12);
    CHECK_INT(test_method(vm, "main")->prof.osr_entries, 1);
    CHECK_INT(test_method(vm, "caller")->prof.osr_entries, 0);
    VmMethod *w = test_method(vm, "work");
    CHECK(w->osr && w->osr->pc > w->code && w->osr->pc < w->code + w->ncode);
    CHECK(w->entry != vm_interp_entry);   /* the normal entry came with it */
    test_unload(vm);
}

/* vm.osr_poll=0 stops the polls, so only
 * the back edge that makes a method hot can transfer; work (hot in its
 * loop) still moves, deep's interpreted outer frames stay interpreted. */
TEST(jit_osr_poll_off)
{
    VmTunables tun;
    osr_tunables(&tun, 30, 0);
    Vm *vm = test_load_tl("osr.tl", OSR_SRC, &tun);
    if (!vm)
        return;
    VmError err;
    Jit *jit = jit_new(vm, JIT_SYNC, NULL, NULL, NULL, &err);
    char out[256];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, OSR_OUT);
    jit_free(jit);
    CHECK_INT(test_method(vm, "work")->prof.osr_entries, 1);
    CHECK_INT(test_method(vm, "deep")->prof.osr_entries, 1);
    test_unload(vm);
}

/* A run-time error inside OSR'd code: the same trace as the interpreter. */
TEST(jit_osr_error_trace)
{
    static const char *const src =
        "fn get(a: int[], i: int): int { return a[i]; }\n"
        "fn main() {\n"
        "    let a = new int[8];\n"
        "    var s = 0;\n"
        "    for i in 0..100000 {\n"
        "        var j = i % 8;\n"
        "        if i >= 5000 { j += 1; }\n"
        "        s += get(a, j);\n"
        "    }\n"
        "    println(s);\n"
        "}\n";
    char ref[1024] = "", got[1024] = "", out[64];
    for (int k = 0; k < 2; k++) {
        VmTunables tun;
        osr_tunables(&tun, 20, 50);
        Vm *vm = test_load_tl("osr.tl", src, &tun);
        if (!vm)
            return;
        VmError err;
        Jit *jit = k ? jit_new(vm, JIT_SYNC, NULL, NULL, NULL, &err) : NULL;
        FILE *tmp;
        int saved = test_redirect(2, &tmp);
        int status = run(vm, out, sizeof out, NULL);
        test_restore(2, saved, tmp, k ? got : ref, sizeof ref);
        CHECK_INT(status, 1);
        if (jit) {
            CHECK_INT(jit_test_stats(jit).osr_entries, 1);
            jit_free(jit);
        }
        test_unload(vm);
    }
    CHECK_STR(ref, "error: index out of bounds: index 8, length 8\n"
                   "  at get (osr.tl:1)\n"
                   "  at main (osr.tl:8)\n");
    CHECK_STR(got, ref);
}

/* The background compiler: a loop that takes seconds interpreted moves to
 * compiled code once it is ready (the transfer makes the test fast). */
TEST(jit_osr_background)
{
    static const char *const src =
        "fn main() {\n"
        "    var s = 0;\n"
        "    var i = 0;\n"
        "    while i < 200000000 { s = s + (i & 7); i += 1; }\n"
        "    println(s);\n"
        "}\n";
    VmTunables tun;
    osr_tunables(&tun, 1000, 1000);
    Vm *vm = test_load_tl("osr.tl", src, &tun);
    if (!vm)
        return;
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, NULL, NULL, NULL, &err);
    if (!jit) {
        test_unload(vm);
        return;
    }
    char out[64];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "700000000\n");
    jit_test_wait_idle(jit);
    JitStats s = jit_test_stats(jit);
    jit_free(jit);
    CHECK_INT(s.osr_compiled, 1);
    CHECK_INT(s.osr_entries, 1);
    test_unload(vm);
}

/* Batching with the stub compiler: four queued methods are one unit with
 * jit.batch=8, four units with jit.batch=1. */
TEST(jit_batch_units)
{
    for (int b = 0; b < 2; b++) {
        Vm *vm = load(5);
        if (!vm)
            return;
        JitTunables tun;
        jit_tunables_default(&tun);
        tun.batch = b ? 1 : 8;
        Jit *jit = stub_jit(vm, JIT_ON, (JitTestHooks){.paused = true}, &tun);
        if (!jit) {
            test_unload(vm);
            return;
        }
        char out[256];
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
        CHECK_INT(jit_test_stats(jit).queued, 4);
        jit_test_pause(jit, false);
        jit_test_wait_idle(jit);
        JitStats s = jit_test_stats(jit);
        CHECK_INT(s.compiled, 4);
        CHECK_INT(s.units, b ? 4 : 1);
        if (stub_n == 4) {   /* hottest first within the unit too */
            CHECK_STR(stub_order[0]->name, "main");
            CHECK_STR(stub_order[3]->name, "b");
        }
        jit_free(jit);
        test_unload(vm);
    }
}

/* jit.batch_bytecode: main (11 instructions) and big (25) exceed 30
 * together, so main goes alone and big takes tiny (2) along; without the
 * limit all three are one unit. */
TEST(jit_batch_bytecode_limit)
{
    for (int limit = 0; limit < 2; limit++) {
        Vm *vm = load_text(PROGRAM_WORK, 5);
        if (!vm)
            return;
        JitTunables tun;
        jit_tunables_default(&tun);
        tun.batch = 8;
        tun.batch_bytecode = limit ? 30 : 0;
        Jit *jit = stub_jit(vm, JIT_ON, (JitTestHooks){.paused = true}, &tun);
        if (!jit) {
            test_unload(vm);
            return;
        }
        CHECK_INT((int)test_method(vm, "main")->ncode, 11);
        char out[256];
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
        jit_test_pause(jit, false);
        jit_test_wait_idle(jit);
        JitStats s = jit_test_stats(jit);
        CHECK_INT(s.compiled, 3);
        CHECK_INT(s.units, limit ? 2 : 1);
        jit_free(jit);
        test_unload(vm);
    }
}

/* jit.batch_backlog: a backlog of requests (main calls 24 one-instruction
 * methods 10 times each, all hot, all queued while the compile thread is
 * paused) drains in units of jit.batch (2) when it is 0, and in units of
 * a quarter of the queue when it is 4: 24 = 6 + 4 + 3 + 2 + 2 + 2 + 2 + 2 +
 * 1, nine units (main's OSR request, when it is queued too, makes 25 = 6 +
 * 4 + 3 + 3 + 2 + 2 + 2 + 2 + 1, nine as well). */
TEST(jit_batch_backlog_units)
{
    enum { NM = 24 };
    static char text[8192];
    int at = snprintf(text, sizeof text, "module \"backlog\"\nmain main\n"
                                         "native println_int (int) : void = builtin \"println_int\"\n");
    for (int i = 0; i < NM; i++)
        at += snprintf(text + at, sizeof text - (size_t)at,
                       "method m%d (int) : int static\n  regs int\n  ADDK r0, r0, 1\n  RET r0\nend\n", i);
    at += snprintf(text + at, sizeof text - (size_t)at, "method main () : void static\n  regs int, int, int\n  LDI r2, 0\n");
    for (int i = 0; i < NM; i++)
        at += snprintf(text + at, sizeof text - (size_t)at,
                       "  LDI r0, 0\n  LDI r1, 10\nl%d:\n  CALL r2, r2, m%d\n  LOOP r0, r1, l%d\n", i, i, i);
    snprintf(text + at, sizeof text - (size_t)at, "  CALLN _, r2, println_int\n  RETV\nend\n");
    for (int k = 0; k < 2; k++) {
        Vm *vm = load_text(text, 5);
        if (!vm)
            return;
        JitTunables tun;
        jit_tunables_default(&tun);
        tun.batch = 2;
        tun.batch_bytecode = 0;
        tun.batch_backlog = k ? 4 : 0;
        Jit *jit = stub_jit(vm, JIT_ON, (JitTestHooks){.paused = true}, &tun);
        if (!jit) {
            test_unload(vm);
            return;
        }
        char out[256];
        CHECK_INT(run(vm, out, sizeof out, NULL), 0);
        CHECK_STR(out, "240\n");
        uint64_t q = jit_test_stats(jit).queued;
        CHECK(q >= NM && q <= NM + 1);
        jit_test_pause(jit, false);
        jit_test_wait_idle(jit);
        JitStats s = jit_test_stats(jit);
        CHECK_INT(s.compiled, q);
        /* the same split as unit_limits: max(jit.batch, queue / 4) */
        uint64_t want = 0;
        for (uint64_t left = q; left > 0; want++) {
            uint64_t n = k && left / 4 > 2 ? left / 4 : 2;
            left -= n < left ? n : left;
        }
        CHECK_INT(s.units, want);
        CHECK_INT(s.units, k ? 9 : (q + 1) / 2);   /* 12 or 13 without */
        jit_free(jit);
        test_unload(vm);
    }
}

/* The real compiler, three methods in one unit: one gcc run, one loaded
 * object, every entry found and 64-byte aligned; a method that cannot be compiled (abstract)
 * and an OSR header that is not a block start cost nobody else anything. */
TEST(jit_compile_unit_batch)
{
    static const char *const src =
        "abstract class A { abstract fn f(): int; }\n"
        "class B extends A { fn f(): int { return 7; } }\n"
        "fn sq(x: int): int { return x * x; }\n"
        "fn sum(n: int): int { var s = 0; for i in 0..n { s += sq(i); } return s; }\n"
        "fn main() { let a: A = B(); println(sum(10) + a.f()); }\n";
    VmTunables tun;
    osr_tunables(&tun, 1000, 1000);
    Vm *vm = test_load_tl("osr.tl", src, &tun);
    if (!vm)
        return;
    char out[64];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "292\n");
    const char *names[] = {"sq", "A.f", "sum", "main"};
    JitRequest rq[4];
    JitResult res[4];
    VmError err[4];
    for (int i = 0; i < 4; i++) {
        memset(&rq[i], 0, sizeof rq[i]);
        rq[i].m = test_method(vm, names[i]);
        rq[i].optset = "O1";
        ir_options_default(&rq[i].ir);
    }
    if (!rq[0].m || !rq[1].m || !rq[2].m || !rq[3].m) {
        test_unload(vm);
        return;
    }
    rq[2].osr_pc = &rq[2].m->code[1];   /* inside sum's first block: no OSR entry */
    CHECK_INT(jit_compile_unit(NULL, rq, 4, res, err), 3);
    CHECK(res[0].entry && res[2].entry && res[3].entry);
    CHECK(!res[1].entry);
    CHECK_CONTAINS(err[1].msg, "no code");
    CHECK(!res[2].osr && res[2].osr_none);
    CHECK_INT(res[0].unit_size, 3);
    CHECK(res[0].unit_id == res[2].unit_id && res[2].unit_id == res[3].unit_id);
    CHECK((res[0].unit != NULL) + (res[2].unit != NULL) + (res[3].unit != NULL) == 1);
    CHECK(res[0].us_compile == res[3].us_compile);
    /* every function starts a 64-byte line (jit_options_apply): at gcc's
     * own alignment the functions after the tiny sq would not */
    for (int i = 0; i < 4; i++)
        if (res[i].entry)
            CHECK_INT((uintptr_t)res[i].entry & 63, 0);
    for (int i = 0; i < 4; i++)
        if (res[i].entry)
            rq[i].m->entry = res[i].entry;
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "292\n");
    test_unload(vm);
}

/* ---- compile latency with batching (JIT_LATENCY=1 only: prints, checks nothing) -- */

/* Groups of up to 8 methods of a few test programs (profiles filled by a
 * run), each group compiled in units of 1, of 4 and of 8 methods, the
 * three ways interleaved and repeated (the machine's load drifts): the
 * per-method cost is the group's total time / its methods; the unit
 * latency is what a unit's methods wait for. */
TEST(jit_latency_batch)
{
    if (!getenv("JIT_LATENCY"))
        return;
    const char *files[] = {"tests/lang/class_basic.tl", "tests/lang/array_sort.tl", "tests/lang/builtin_str.tl",
                           "tests/lang/class_interfaces.tl", "tests/lang/class_virtual.tl",
                           "tests/lang/osr_loop_calls.tl", "tests/lang/class_inheritance.tl"};
    enum { NS = 3, REPS = 3, MAXG = 64 };
    const size_t sizes[NS] = {1, 4, 8};
    double per[NS][MAXG * REPS], lat[NS][MAXG * REPS * 8];
    int nper[NS] = {0}, nlat[NS] = {0}, nmeth = 0, ngroups = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        VmModule *m = test_module_file(files[f], stderr);
        Vm *vm = test_link(m, NULL, false);
        if (!vm)
            continue;
        char out[4096];
        run(vm, out, sizeof out, NULL);
        JitRequest rq[8];
        JitResult res[8];
        VmError errs[8];
        size_t k = 0;
        for (uint32_t i = 0; i <= m->nmethods; i++) {
            VmMethod *mm = i < m->nmethods ? &m->methods[i] : NULL;
            if (mm && mm->code && mm->ncode && !(mm->flags & VM_M_ABSTRACT)) {
                memset(&rq[k], 0, sizeof rq[k]);
                rq[k].m = mm;
                rq[k].optset = "O2";
                ir_options_default(&rq[k].ir);
                k++;
            }
            if (!k || (k < 8 && mm) || ngroups >= MAXG)
                continue;
            ngroups++;
            nmeth += (int)k;
            for (int r = 0; r < REPS; r++)
                for (int z = 0; z < NS; z++) {
                    double total = 0;
                    for (size_t at = 0; at < k; at += sizes[z]) {
                        size_t n = k - at < sizes[z] ? k - at : sizes[z];
                        double t0 = jit_now();
                        jit_compile_unit(NULL, rq + at, n, res, errs);
                        double us = (jit_now() - t0) * 1e6;
                        total += us;
                        lat[z][nlat[z]++] = us;
                    }
                    per[z][nper[z]++] = total / (double)k;
                }
            k = 0;
        }
        vm_free(vm);
        vm_module_free(m);
    }
    for (int z = 0; z < NS; z++) {
        if (!nper[z])
            continue;
        qsort(per[z], (size_t)nper[z], sizeof *per[z], test_cmp_double);
        qsort(lat[z], (size_t)nlat[z], sizeof *lat[z], test_cmp_double);
        fprintf(stderr, "jit.batch=%zu: %d methods in %d groups x %d runs: median per method %.1f ms, "
                "median unit latency %.1f ms\n",
                sizes[z], nmeth, ngroups, REPS, per[z][nper[z] / 2] / 1e3, lat[z][nlat[z] / 2] / 1e3);
    }
}

/* A request still queued (work got hot by its calls) gains the header of
 * the loop the interpreter then keeps polling in: the same request, logged
 * again with osr@, compiled once, with the header. */
TEST(jit_osr_upgrades_queued_request)
{
    static const char *const src =
        "fn work(n: int): int { var s = 0; for i in 0..n { s += i; } return s; }\n"
        "fn main() {\n"
        "    var t = 0;\n"
        "    for k in 0..3 { t += work(1); }\n"
        "    println(t + work(5000));\n"
        "}\n";
    VmTunables tun;
    osr_tunables(&tun, 3, 100);
    Vm *vm = test_load_tl("osr.tl", src, &tun);
    if (!vm)
        return;
    FILE *log = tmpfile();
    Jit *jit = stub_jit(vm, JIT_ON, (JitTestHooks){.log = log, .paused = true}, NULL);
    if (!jit) {
        fclose(log);
        test_unload(vm);
        return;
    }
    char out[64];
    CHECK_INT(run(vm, out, sizeof out, NULL), 0);
    CHECK_STR(out, "12497500\n");
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    CHECK_INT(stub_count(test_method(vm, "work")), 1);
    CHECK_INT(stub_osr, 2);   /* work's, and main's (hot at a back edge) */
    jit_free(jit);
    char text[8192];
    read_log(log, text, sizeof text);
    char want[64] = "";
    const char *w = strstr(text, " work prio=");
    if (w) {   /* "queued #<id> work prio=": the same id again with osr@ */
        const char *h = w;
        while (h > text && h[-1] != '#')
            h--;
        snprintf(want, sizeof want, "queued #%.*s work prio=", (int)(w - h), h);
    }
    const char *again = want[0] ? strstr(strstr(text, want) + 1, want) : NULL;
    CHECK(again != NULL);
    CHECK(again && strstr(again, " osr@") && strstr(again, " osr@") < strchr(again, '\n'));
    fclose(log);
    test_unload(vm);
}

/* A stub tier over PROGRAM in which nothing gets hot by itself, with
 * jit.batch=8 and the given gather window; NULL (the VM freed) on failure. */
static Jit *gather_jit(Vm **vm, int64_t gather_us)
{
    *vm = load(1000000);
    if (!*vm)
        return NULL;
    JitTunables tun;
    jit_tunables_default(&tun);
    tun.batch = 8;
    tun.gather_us = gather_us;
    Jit *jit = stub_jit(*vm, JIT_ON, (JitTestHooks){0}, &tun);
    if (!jit)
        test_unload(*vm);
    return jit;
}

/* jit.gather_us: after an idle spell, a method's entry waits for more
 * requests (here b, 50 ms later: one unit, entry requests in it); without
 * it a goes alone.  An OSR request is taken at once even with a 10 s
 * window. */
TEST(jit_gather_window)
{
    Vm *vm;
    for (int gather = 0; gather < 2; gather++) {
        Jit *jit = gather_jit(&vm, gather ? 300000 : 0);
        if (!jit)
            return;
        jit_enqueue(jit, test_method(vm, "a"));
        usleep(50000);
        jit_enqueue(jit, test_method(vm, "b"));
        jit_test_wait_idle(jit);
        JitStats s = jit_test_stats(jit);
        CHECK_INT(s.compiled, 2);
        CHECK_INT(s.units, gather ? 1 : 2);
        jit_free(jit);
        test_unload(vm);
    }
    Jit *jit = gather_jit(&vm, 10000000);
    if (!jit)
        return;
    VmMethod *m = test_method(vm, "main");
    double t0 = jit_now();
    pthread_mutex_lock(&jit->mu);
    jit_push_locked(jit, m, m->code + 3);
    pthread_mutex_unlock(&jit->mu);
    for (int k = 0; k < 2000 && stub_osr == 0; k++)
        usleep(1000);
    CHECK_INT(stub_osr, 1);
    CHECK(jit_now() - t0 < 1.0);
    jit_free(jit);
    test_unload(vm);
}
