/* tests/unit/test_jit.c — the JIT code generator (jit/codegen.c, runtime.c,
 * loader.c, options.c): compiled code must be indistinguishable from the
 * interpreter.
 *
 * Method: a program is loaded and run once in the interpreter (output
 * captured, profiles filled), then methods are compiled with jit_compile
 * and installed (m->entry = code), the globals are reset, and the program
 * runs again in the same VM; stdout, stderr (error messages and stack
 * traces) and the exit status must be identical.  Small programs cover
 * each IR op category and each run-time error (also inside inlined
 * callees); the corpus test does it for every program of tests/vm and
 * tests/lang.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "ir.h"
#include "jit.h"
#include "lang.h"
#include "test.h"
#include "vm.h"

#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Compiles m; installs the code when install.  Returns success. */
/* Compiles m under the tunables t (NULL: the defaults) on this thread. */
static bool compile_with(const TestTunables *t, VmMethod *m, const char *optset, bool install, VmError *err,
                         JitResult *res)
{
    JitRequest rq = {.m = m, .optset = optset};
    Jit *jit = NULL;
    if (t) {
        rq.ir = t->ir;
        if (!(jit = jit_new(m->module->vm, JIT_OFF, &t->jit, &t->ir, NULL, err)))
            return false;
    } else {
        ir_options_default(&rq.ir);
    }
    JitResult r;
    bool ok = jit_compile(jit, &rq, &r, err);
    jit_free(jit);
    if (!ok)
        return false;
    if (install)
        m->entry = r.entry;
    if (res)
        *res = r;
    return true;
}

static bool compile_one(VmMethod *m, const char *optset, bool install, VmError *err, JitResult *res)
{
    return compile_with(NULL, m, optset, install, err, res);
}

/* Compiles every method with code whose name is not in `skip` (comma list). */
static int compile_all(Vm *vm, const char *optset, const char *skip, const char *label)
{
    VmModule *mod = vm->module;
    int n = 0;
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        if (!m->code || !m->ncode)
            continue;
        if (skip) {
            char key[256];
            snprintf(key, sizeof key, ",%s,", m->name);
            if (strstr(skip, key))
                continue;
        }
        VmError err;
        if (compile_one(m, optset, true, &err, NULL))
            n++;
        else
            test_fail(__FILE__, __LINE__, "%s: %s [%s]: %s", label, m->name, optset, err.msg);
    }
    return n;
}

static void restore_interp(Vm *vm)
{
    VmModule *mod = vm->module;
    for (uint32_t i = 0; i < mod->nmethods; i++)
        mod->methods[i].entry = vm_interp_entry;
}

static void reset_globals(Vm *vm)
{
    VmModule *mod = vm->module;
    if (mod->gvals)
        memset(mod->gvals, 0, mod->nglobals * sizeof *mod->gvals);
}

static bool same_run(const TestRun *a, const TestRun *b, const char *label, int line)
{
    bool ok = true;
    if (a->status != b->status) {
        test_fail(__FILE__, line, "%s: status %d (interp) vs %d (jit)", label, a->status, b->status);
        ok = false;
    }
    if (strcmp(a->out, b->out)) {
        test_fail(__FILE__, line, "%s: stdout differs:\n--- interp\n%.600s\n--- jit\n%.600s", label, a->out, b->out);
        ok = false;
    }
    if (strcmp(a->err, b->err)) {
        test_fail(__FILE__, line, "%s: stderr differs:\n--- interp\n%.900s\n--- jit\n%.900s", label, a->err, b->err);
        ok = false;
    }
    return ok;
}

/* Interpreter run, then under each option set with every method compiled
 * (except `skip`); returns the interpreter's run for further checks. */
static TestRun differential(Vm *vm, const char *skip, const char *label, int line, int argc, char **argv)
{
    TestRun ref = test_run_capture(vm, argc, argv);
    const char *sets[] = {"O0", "O2"};
    for (int s = 0; s < 2; s++) {
        reset_globals(vm);
        compile_all(vm, sets[s], skip, label);
        TestRun got = test_run_capture(vm, argc, argv);
        char l[160];
        snprintf(l, sizeof l, "%s [%s]", label, sets[s]);
        same_run(&ref, &got, l, line);
        test_run_free(&got);
        restore_interp(vm);
    }
    return ref;
}

#define DIFF_TL(src, skip)                                                     \
    do {                                                                       \
        Vm *vm_ = test_load_tl("t.tl", src, NULL);                             \
        if (vm_) {                                                             \
            TestRun r_ = differential(vm_, skip, __func__, __LINE__, 0, NULL);     \
            test_run_free(&r_);                                                     \
            test_unload(vm_);                                                  \
        }                                                                      \
    } while (0)

/* ---- op categories --------------------------------------------------------- */

TEST(jit_int_arith)
{
    DIFF_TL("fn main() {\n"
            "  let a = 9223372036854775807; let b = -9223372036854775807 - 1;\n"
            "  println(a + 1); println(b - 1); println(a * 3); println(-b);\n"
            "  println(b / -1); println(b % -1); println(7 / -2); println(-7 % 3);\n"
            "  println(5 & 3); println(5 | 3); println(5 ^ 3); println(~5);\n"
            "  println(1 << 65); println(-16 >> 2); println(-16 >>> 60); println(3 << -1);\n"
            "  var s = 0; for i in 0..100 { s = s + i * i; } println(s);\n"
            "  println(a == b); println(a != b); println(b < a); println(a <= a);\n"
            "}\n",
            NULL);
}

TEST(jit_float_ops)
{
    DIFF_TL("fn main() {\n"
            "  let z = 0.0; let n = z / z; let i = 1.0 / z;\n"
            "  println(n < 1.0); println(n <= 1.0); println(n == n); println(n != n);\n"
            "  println(!(n < 1.0)); println(-i); println(1.5 * 2.0 - 0.25); println(7.0 / 2.0);\n"
            "  if n < 1.0 { println(\"lt\"); } else { println(\"nlt\"); }\n"
            "  if !(n <= 1.0) { println(\"nle\"); }\n"
            "  if n == n { println(\"eq\"); } else { println(\"ne\"); }\n"
            "  println(int(3.99)); println(int(-3.99)); println(float(7) / 2.0);\n"
            "  println(-0.0); println(1e300 * 1e10);\n"
            "}\n",
            NULL);
}

TEST(jit_strings_arrays_objects)
{
    DIFF_TL("class P { x: int; y: float; n: string; init(x: int) { self.x = x; self.y = 1.5; self.n = \"p\"; } }\n"
            "fn main() {\n"
            "  let s = \"abc\" + \"def\"; println(s); println(s.length); println(s[4]);\n"
            "  println(s == \"abcdef\"); println(s == \"abd\");\n"
            "  let a = new int[5]; a[2] = 7; println(a[2] + a.length);\n"
            "  let f = new float[3]; f[1] = 2.5; println(f[1]);\n"
            "  let b = new bool[2]; b[1] = true; println(b[1]); println(b[0]);\n"
            "  let ps = new P[2]; ps[0] = P(4); println(ps[0].x); println(ps[0].y); println(ps[0].n);\n"
            "  ps[0].x = ps[0].x * 10; println(ps[0].x); println(ps[1] == null);\n"
            "}\n",
            NULL);
}

TEST(jit_calls_dispatch_closures)
{
    DIFF_TL("interface Shape { fn area(): float; }\n"
            "class Sq implements Shape { s: float; init(s: float) { self.s = s; } fn area(): float { return self.s * self.s; } }\n"
            "class Ci implements Shape { r: float; init(r: float) { self.r = r; } fn area(): float { return 3.0 * self.r * self.r; } }\n"
            "class A { fn who(): string { return \"A\"; } }\n"
            "class B extends A { fn who(): string { return \"B\"; } }\n"
            "fn twice(f: fn(int): int, x: int): int { return f(f(x)); }\n"
            "fn main() {\n"
            "  let shapes = new Shape[3]; shapes[0] = Sq(2.0); shapes[1] = Ci(1.0); shapes[2] = Sq(3.0);\n"
            "  var t = 0.0; for k in 0..50 { for i in 0..3 { t = t + shapes[i].area(); } } println(t);\n"
            "  let xs = new A[2]; xs[0] = A(); xs[1] = B();\n"
            "  for i in 0..2 { println(xs[i].who()); }\n"
            "  let k = 5; let add = fn(x: int): int { return x + k; };\n"
            "  println(twice(add, 1));\n"
            "  let o: A = xs[1]; println(o is B); if o is B { let bb = o as B; println(bb.who()); }\n"
            "}\n",
            NULL);
}

/* ---- run-time errors and traces --------------------------------------------- */

TEST(jit_errors)
{
    const char *bodies[] = {
        "let a = new int[3]; let i = 5; println(a[i]);",
        "let z = 0; println(10 / z);",
        "let z = 0; println(10 % z);",
        "let a: int[] = null; println(a[0]);",
        "let s: string = null; println(s + \"x\");",
        "let n = -3; let a = new int[n];",
        "let z = 0.0; println(int(z / z));",
        "let f = 1e19; println(int(f));",
        "let s = \"abc\"; println(s[3]);",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char src[1024];
        snprintf(src, sizeof src, "fn helper(k: int) {\n  %s\n}\nfn main() {\n  println(\"start\");\n  helper(1);\n}\n",
                 bodies[i]);
        Vm *vm = test_load_tl("t.tl", src, NULL);
        if (!vm)
            continue;
        char label[64];
        snprintf(label, sizeof label, "error %zu", i);
        TestRun r = differential(vm, NULL, label, __LINE__, 0, NULL);
        CHECK_INT(r.status, 1);
        CHECK_CONTAINS(r.err, "error: ");
        CHECK_CONTAINS(r.err, "at helper (t.tl:2)");
        CHECK_CONTAINS(r.err, "at main (t.tl:6)");
        test_run_free(&r);
        test_unload(vm);
    }
}

/* An error inside an inlined callee has the interpreter's trace: the
 * inlined frames appear, at their own lines. */
TEST(jit_error_in_inlined_callee)
{
    const char *src = "class C { v: int; fn get(): int { return self.v; } }\n"
                      "fn div(a: int, b: int): int {\n"
                      "  return a / b;\n"
                      "}\n"
                      "fn mid(a: int, b: int): int {\n"
                      "  return div(a, b) + 1;\n"
                      "}\n"
                      "fn field(c: C): int {\n"
                      "  return c.get();\n"
                      "}\n"
                      "fn main() {\n"
                      "  var s = 0;\n"
                      "  let c = C();\n"
                      "  for i in 0..2000 { s = s + mid(i, 1) + field(c); }\n"
                      "  println(s);\n"
                      "  println(mid(1, 0));\n"
                      "}\n";
    Vm *vm = test_load_tl("t.tl", src, NULL);
    if (!vm)
        return;
    TestRun ref = test_run_capture(vm, 0, NULL);
    CHECK_CONTAINS(ref.err, "at div (t.tl:3)\n  at mid (t.tl:6)\n  at main (t.tl:16)");
    /* only main compiled: div and mid are inlined into it */
    VmError err;
    reset_globals(vm);
    CHECK(compile_one(test_method(vm, "main"), "O2", true, &err, NULL));
    TestRun got = test_run_capture(vm, 0, NULL);
    same_run(&ref, &got, "inlined error", __LINE__);
    test_run_free(&got);
    /* mid inlined, div called from inside it (interpreted, then compiled):
     * the callee sees mid's synthetic frame */
    TestTunables depth1;
    test_tunables_init(&depth1);
    CHECK(test_tunables_set(&depth1, "inline.max_depth=1", &err));
    for (int k = 0; k < 2; k++) {
        restore_interp(vm);
        reset_globals(vm);
        CHECK(compile_with(&depth1, test_method(vm, "main"), "O2", true, &err, NULL));
        if (k)
            CHECK(compile_one(test_method(vm, "div"), "O0", true, &err, NULL));
        got = test_run_capture(vm, 0, NULL);
        same_run(&ref, &got, k ? "call from inlined code, compiled callee" : "call from inlined code", __LINE__);
        test_run_free(&got);
    }
    test_run_free(&ref);
    restore_interp(vm);
    test_unload(vm);

    /* a null receiver in an inlined virtual call raises in the real call */
    const char *src2 = "class C { v: int; fn get(): int { return self.v; } }\n"
                       "fn field(c: C): int {\n"
                       "  return c.get();\n"
                       "}\n"
                       "fn main() {\n"
                       "  let c = C(); var s = 0;\n"
                       "  for i in 0..2000 { s = s + field(c); }\n"
                       "  let n: C = null;\n"
                       "  println(field(n));\n"
                       "}\n";
    vm = test_load_tl("t.tl", src2, NULL);
    if (vm) {
        TestRun r = differential(vm, NULL, "inlined null receiver", __LINE__, 0, NULL);
        CHECK_CONTAINS(r.err, "null dereference");
        test_run_free(&r);
        test_unload(vm);
    }
}

/* ---- recursion and mixed tiers ---------------------------------------------- */

TEST(jit_deep_recursion_and_mixed_tiers)
{
    const char *src = "fn down(n: int): int { if n == 0 { return 0; } return 1 + down(n - 1); }\n"
                      "fn a(n: int): int { if n <= 0 { return 0; } return b(n - 1) + 1; }\n"
                      "fn b(n: int): int { if n <= 0 { return 0; } return a(n - 1) + 2; }\n"
                      "fn boom(n: int): int { if n == 0 { return 1 / n; } return a(0) + boom(n - 1); }\n"
                      "fn main() {\n"
                      "  println(down(10000));\n"
                      "  println(a(5001));\n"
                      "  println(boom(3));\n"
                      "}\n";
    Vm *vm = test_load_tl("t.tl", src, NULL);
    if (!vm)
        return;
    TestRun ref = test_run_capture(vm, 0, NULL);
    CHECK_CONTAINS(ref.out, "10000\n");
    /* everything compiled, then b interpreted between compiled a's */
    const char *skips[] = {NULL, ",b,"};
    for (int k = 0; k < 2; k++) {
        reset_globals(vm);
        compile_all(vm, "O2", skips[k], "mixed");
        TestRun got = test_run_capture(vm, 0, NULL);
        same_run(&ref, &got, k ? "a compiled, b interpreted" : "all compiled", __LINE__);
        test_run_free(&got);
        restore_interp(vm);
    }
    test_run_free(&ref);
    test_unload(vm);
}

/* A recursive method unrolled into itself (inline.max_depth) counts its
 * calls as the interpreter does: each inlined level counts the call it
 * replaced (IR_COUNT), which is what a bakeoff's weights rest on. */
TEST(jit_unrolled_recursion_counts_calls)
{
    const char *src = "fn fib(n: int): int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n"
                      "fn main() { println(fib(15)); }\n";
    Vm *vm = test_load_tl("t.tl", src, NULL);
    if (!vm)
        return;
    VmMethod *fib = test_method(vm, "fib");
    VmThread *t = vm_thread_new(vm);
    VmValue a[1] = {{.i = 15}};
    uint64_t c0 = fib->prof.calls;
    int64_t want = vm_interp_entry(t, fib, a).i;
    uint64_t interp_calls = fib->prof.calls - c0;
    CHECK_INT(interp_calls, 1973);
    JitRequest rq = {.m = fib, .optset = "O2"};
    ir_options_default(&rq.ir);
    rq.ir.max_depth = 3;
    rq.ir.max_growth = 1000;
    VmError err = {{0}};
    /* the IR unrolls: count instructions stand for the inlined calls */
    IrFunc *f = ir_compile(fib, &rq.ir, NULL, &err);
    CHECK(f != NULL);
    int counts = 0;
    for (uint32_t b = 0; f && b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b]->ninsns; i++)
            counts += f->blocks[b]->insns[i].op == IR_COUNT;
    CHECK(counts >= 2);
    ir_free(f);
    JitResult r;
    if (jit_compile(NULL, &rq, &r, &err)) {
        fib->entry = r.entry;
        c0 = fib->prof.calls;
        CHECK_INT(fib->entry(t, fib, a).i, want);
        CHECK_INT(fib->prof.calls - c0, interp_calls);
    } else {
        test_fail(__FILE__, __LINE__, "compile: %s", err.msg);
    }
    vm_thread_free(t);
    test_unload(vm);
}

/* The VmEntry ABI, called straight from C: arguments in, result out, the
 * frame pushed and popped; and a stack overflow in O0 code (bigger C
 * frames) still raises the interpreter's error. */
TEST(jit_entry_abi)
{
    const char *src = "module \"abi\"\nsource \"abi.tl\"\nmain main\n"
                      "native println_int (int) : void = builtin \"println_int\"\n"
                      "method mix (int, float, int) : float static\n"
                      "  regs float\n"
                      "  I2F r3, r0\n"
                      "  FMUL r3, r3, r1\n"
                      "  JGES r2, 0, pos\n"
                      "  FNEG r3, r3\n"
                      "pos:\n"
                      "  RET r3\n"
                      "end\n"
                      "method main () : void static\n"
                      "  regs int\n"
                      "  LDI r0, 3\n"
                      "  CALLN _, r0, println_int\n"
                      "  RETV\n"
                      "end\n";
    Vm *vm = test_load_tla(src, NULL);
    if (!vm)
        return;
    VmMethod *m = test_method(vm, "mix");
    VmError err;
    if (m && compile_one(m, "O2", true, &err, NULL)) {
        VmThread *t = vm_thread_new(vm);
        VmValue args[3] = {{.i = 4}, {.f = 2.5}, {.i = -1}};
        VmValue r = m->entry(t, m, args);
        CHECK(r.f == -10.0);
        CHECK(t->fp == t->frames - 1);
        args[2].i = 7;
        r = m->entry(t, m, args);
        CHECK(r.f == 10.0);
        vm_thread_free(t);
    } else {
        test_fail(__FILE__, __LINE__, "compile: %s", err.msg);
    }
    restore_interp(vm);
    test_unload(vm);

    /* Compiled recursion uses the C stack, so O0 code (big frames) may hit
     * the C stack limit before vm.max_frames: same error, same innermost
     * and outermost frames, only the "... N more frames" count differs. */
    vm = test_load_tl("t.tl", "fn down(n: int): int { return 1 + down(n + 1); }\nfn main() { println(down(0)); }\n", NULL);
    if (vm) {
        TestRun ref = test_run_capture(vm, 0, NULL);
        const char *sets[] = {"O0", "O2"};
        for (int k = 0; k < 2; k++) {
            compile_all(vm, sets[k], NULL, "overflow");
            TestRun got = test_run_capture(vm, 0, NULL);
            CHECK_INT(got.status, 1);
            CHECK(!strncmp(got.err, "error: stack overflow\n  at down (t.tl:1)\n", 40));
            const char *tail = strstr(got.err, "more frames\n");
            CHECK(tail && strstr(ref.err, tail));
            test_run_free(&got);
            restore_interp(vm);
        }
        test_run_free(&ref);
        test_unload(vm);
    }
}

/* ---- failures ------------------------------------------------------------------ */

TEST(jit_failed_compile_keeps_interpreter)
{
    Vm *vm = test_load_tl("t.tl", "fn f(x: int): int { return x * 2; }\nfn main() { println(f(21)); }\n", NULL);
    if (!vm)
        return;
    VmMethod *f = test_method(vm, "f");
    VmError err = {{0}};
    JitResult r;
    /* gcc's own diagnostic for the bad option goes to stderr: hide it */
    fflush(stderr);
    int se = dup(2), nul = open("/dev/null", O_WRONLY);
    dup2(nul, 2);
    bool compiled = compile_one(f, "-fno-such-option-at-all", true, &err, &r);
    dup2(se, 2);
    close(se), close(nul);
    CHECK(!compiled);
    CHECK_CONTAINS(err.msg, "options rejected");
    CHECK(err.msg[0] != 0);
    CHECK(f->entry == vm_interp_entry);
    CHECK(!compile_one(f, "O7", true, &err, &r));
    CHECK_CONTAINS(err.msg, "unknown option set");
    TestRun run = test_run_capture(vm, 0, NULL);
    CHECK_STR(run.out, "42\n");
    test_run_free(&run);
    /* every named set compiles, both load routes work */
    const char *const sets[] = {"O0", "O1", "O2", "O3", "unroll", "vectorize", "novectorize", "size",
                                "-O1 -fno-inline"};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        CHECK(compile_one(f, sets[i], false, &err, &r));
        CHECK(r.entry && r.code_bytes > 0);
    }
    TestTunables gccjit;
    test_tunables_init(&gccjit);
    CHECK(test_tunables_set(&gccjit, "jit.load=gccjit", &err));
    CHECK(compile_with(&gccjit, f, "O2", true, &err, &r));
    run = test_run_capture(vm, 0, NULL);
    CHECK_STR(run.out, "42\n");
    test_run_free(&run);
    restore_interp(vm);
    test_unload(vm);
}

/* ---- the corpus ------------------------------------------------------------------- */


/* Runs one program interpreted, then with every method compiled (O2). */
typedef struct {
    int nmethods, nfailed;
} CorpusCount;

static void corpus_program(TestProgram *p, void *ctx)
{
    CorpusCount *c = ctx;
    VmModule *m = p->m;
    VmError err;
    Vm *vm = test_link(m, &p->tun.vm, false);
    if (!vm)
        return;
    TestRun ref = test_run_capture(vm, p->nargs, p->args);
    reset_globals(vm);
    for (uint32_t i = 0; i < m->nmethods; i++) {
        VmMethod *mm = &m->methods[i];
        if (!mm->code || !mm->ncode)
            continue;
        if (compile_one(mm, "O2", true, &err, NULL)) {
            c->nmethods++;
        } else {
            c->nfailed++;
            test_fail(__FILE__, __LINE__, "%s: %s: %s", p->path, mm->name, err.msg);
        }
    }
    TestRun got = test_run_capture(vm, p->nargs, p->args);
    same_run(&ref, &got, p->path, __LINE__);
    test_run_free(&ref);
    test_run_free(&got);
    test_unload(vm);
}

TEST(jit_corpus)
{
    const char *only = getenv("JIT_CORPUS_ONLY");
    CorpusCount c = {0};
    int nprog = test_corpus_each(only, corpus_program, &c);
    if (getenv("JIT_CORPUS_VERBOSE"))
        fprintf(stderr, "jit corpus: %d programs, %d methods compiled, %d failed\n", nprog, c.nmethods,
                c.nfailed);
    if (!only) {
        CHECK(nprog >= 50);
        CHECK(c.nmethods >= 200);
    }
}

/* ---- compile latency (JIT_LATENCY=1 only: prints, checks nothing) ---------- */

TEST(jit_latency)
{
    if (!getenv("JIT_LATENCY"))
        return;
    const char *files[] = {"tests/lang/class_basic.tl", "tests/lang/array_sort.tl", "tests/vm/fib.tla",
                           "tests/vm/interfaces.tla", "tests/vm/strings.tla", "tests/lang/builtin_str.tl",
                           "tests/vm/closures.tla", "tests/vm/arrays_int.tla"};
    const char *routes[] = {"jit.load=elf", "jit.load=as", "jit.load=gccjit"};
    for (int r = 0; r < 3; r++) {
        double ir[512], cc[512], as[512], tot[512];
        size_t bytes[512];
        int n = 0;
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            VmError err;
            VmModule *m = test_module_file(files[i], stderr);
            Vm *vm = test_link(m, NULL, true);
            if (!vm)
                continue;
            TestTunables route;
            test_tunables_init(&route);
            test_tunables_set(&route, routes[r], &err);
            TestRun ref = test_run_capture(vm, 0, NULL);
            test_run_free(&ref);
            for (uint32_t k = 0; k < m->nmethods && n < 512; k++) {
                JitResult res;
                if (!m->methods[k].code || !compile_with(&route, &m->methods[k], "O2", false, &err, &res))
                    continue;
                ir[n] = res.us_ir, cc[n] = res.us_compile, as[n] = res.us_assemble;
                tot[n] = res.us_ir + res.us_compile + res.us_assemble;
                bytes[n] = res.code_bytes;
                n++;
            }
            test_unload(vm);
        }
        if (!n)
            continue;
        qsort(ir, (size_t)n, sizeof *ir, test_cmp_double);
        qsort(cc, (size_t)n, sizeof *cc, test_cmp_double);
        qsort(as, (size_t)n, sizeof *as, test_cmp_double);
        qsort(tot, (size_t)n, sizeof *tot, test_cmp_double);
        size_t b = 0;
        for (int k = 0; k < n; k++)
            b += bytes[k];
        fprintf(stderr, "%s: %d methods, median us: ir+codegen %.0f, gcc %.0f, load %.0f, total %.0f; mean code %zu bytes\n",
                routes[r], n, ir[n / 2], cc[n / 2], as[n / 2], tot[n / 2], b / (size_t)n);
    }
}
