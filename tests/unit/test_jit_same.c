/* tests/unit/test_jit_same.c — whether two variants compiled to the same
 * code (jit/same.c: jit_asm_same), on hand-written assembly in gcc's
 * layout, and through the real compiler (JitBakeoffTable.same_code); and
 * the callees a compiled bakeoff records (JitBakeoffTable.callees).
 */
#include "ir.h"
#include "jit_int.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Variant 0's context: its code, then the timed wrapper and the
 * dispatcher (left out), then a constant.  %s: the where address. */
static const char *const V0 =
    "\t.file\t\"fake0\"\n"
    "\t.text\n"
    "\t.p2align 6\n"
    "\t.globl\tta1_v0_f\n"
    "\t.type\tta1_v0_f, @function\n"
    "ta1_v0_f:\n"
    ".LFB0:\n"
    "\tmovsd\t.LC3(%%rip), %%xmm0\n"
    "\ttestq\t%%rdi, %%rdi\n"
    "\tje\t.L7\n"
    "\tcall\tta1_v0_f.localalias\n"
    "\tret\n"
    ".L7:\n"
    "\tmovabsq\t$%s, %%rsi\n"
    "\tmovabsq\t$94139533901184, %%rax\n"
    "\tcall\t*%%rax\n"
    "\t.size\tta1_v0_f, .-ta1_v0_f\n"
    "\t.p2align 6\n"
    "\t.globl\tta1_t_f\n"
    "\t.type\tta1_t_f, @function\n"
    "ta1_t_f:\n"
    "\trdtsc\n"
    "\t.size\tta1_t_f, .-ta1_t_f\n"
    "\t.p2align 6\n"
    "\t.globl\tta1_d_f\n"
    "\t.type\tta1_d_f, @function\n"
    "ta1_d_f:\n"
    "\tmovabsq\t$12345, %%rax\n"
    "\t.size\tta1_d_f, .-ta1_d_f\n"
    "\t.section\t.rodata.cst8,\"aM\",@progbits,8\n"
    "\t.align 8\n"
    ".LC3:\n"
    "\t.long\t0\n"
    "\t.long\t1071644672\n"
    "\t.ident\t\"GCC: (Debian 12.2.0-14) 12.2.0\"\n"
    "\t.section\t.note.GNU-stack,\"\",@progbits\n";

/* Variant 1's context as gcc would write it for the same code: other
 * label numbers, its own symbol, its own descriptor, no wrapper.  The
 * two %s: the where address, then what replaces the helper's address
 * (the same for the same code). */
static const char *const V1 =
    "\t.file\t\"fake1\"\n"
    "\t.text\n"
    "\t.p2align 6\n"
    "\t.globl\tta1_v1_f\n"
    "\t.type\tta1_v1_f, @function\n"
    "ta1_v1_f:\n"
    ".LFB4:\n"
    "\tmovsd\t.LC0(%%rip), %%xmm0\n"
    "\ttestq\t%%rdi, %%rdi\n"
    "\tje\t.L2\n"
    "\tcall\tta1_v1_f.localalias\n"
    "\tret\n"
    ".L2:\n"
    "\tmovabsq\t$%s, %%rsi\n"
    "\tmovabsq\t$%s, %%rax\n"
    "\tcall\t*%%rax\n"
    "\t.size\tta1_v1_f, .-ta1_v1_f\n"
    "\t.section\t.rodata.cst8,\"aM\",@progbits,8\n"
    "\t.align 8\n"
    ".LC0:\n"
    "\t.long\t0\n"
    "\t.long\t1071644672\n"
    "\t.ident\t\"GCC: (Debian 12.2.0-14) 12.2.0\"\n"
    "\t.section\t.note.GNU-stack,\"\",@progbits\n";

static JitWhere *where(VmMethod *m, uint32_t pc)
{
    JitWhere *w = malloc(sizeof *w + sizeof w->lv[0]);
    w->n = 1;
    w->lv[0].m = m;
    w->lv[0].pc = pc;
    return w;
}

static bool same(const char *helper1, JitWhere *w0, JitWhere *w1, const char *edit_from, const char *edit_to)
{
    char a0[32], a1[32], t0[4096], t1[4096];
    snprintf(a0, sizeof a0, "%llu", (unsigned long long)(uintptr_t)w0);
    snprintf(a1, sizeof a1, "%llu", (unsigned long long)(uintptr_t)w1);
    snprintf(t0, sizeof t0, V0, a0);
    snprintf(t1, sizeof t1, V1, a1, helper1);
    if (edit_from) {   /* one edit of variant 1's text */
        char *p = strstr(t1, edit_from);
        if (!p)
            return test_fail(__FILE__, __LINE__, "no '%s' to edit", edit_from), false;
        char rest[4096];
        snprintf(rest, sizeof rest, "%s", p + strlen(edit_from));
        snprintf(p, sizeof t1 - (size_t)(p - t1), "%s%s", edit_to, rest);
    }
    JitWhere *wv0[1] = {w0}, *wv1[1] = {w1};
    JitAsmView v0 = {t0, strlen(t0), "ta1_v0_f", {"ta1_t_f", "ta1_d_f"}, wv0, 1};
    JitAsmView v1 = {t1, strlen(t1), "ta1_v1_f", {NULL, NULL}, wv1, 1};
    return jit_asm_same(&v0, &v1);
}

TEST(jit_asm_same_texts)
{
    VmMethod m[2];
    JitWhere *w0 = where(&m[0], 5), *w1 = where(&m[0], 5), *other = where(&m[1], 5);
    /* labels, symbols, descriptor addresses and the wrapper apart: same */
    CHECK(same("94139533901184", w0, w1, NULL, NULL));
    /* another callee */
    CHECK(!same("94139533901185", w0, w1, NULL, NULL));
    /* descriptors of another site */
    CHECK(!same("94139533901184", w0, other, NULL, NULL));
    /* another instruction, another branch target, another constant */
    CHECK(!same("94139533901184", w0, w1, "testq", "cmpq"));
    CHECK(!same("94139533901184", w0, w1, "je\t.L2", "je\t.LFB4"));
    CHECK(!same("94139533901184", w0, w1, "1071644672", "1071644673"));
    /* a loop alignment inside the function counts, one outside does not */
    CHECK(!same("94139533901184", w0, w1, ".L2:\n", "\t.p2align 4\n.L2:\n"));
    CHECK(same("94139533901184", w0, w1, "\t.section\t.rodata", "\t.p2align 5\n\t.section\t.rodata"));
    /* a call of another symbol that merely starts like its own */
    CHECK(!same("94139533901184", w0, w1, "call\tta1_v1_f.localalias", "call\tta1_v1_fx"));
    free(w0);
    free(w1);
    free(other);
}

/* Through gcc: a method with no call compiles to the same code under both
 * inliner settings of the inline client (no dispatcher compiled when the
 * caller ends such a bakeoff), as its IR showed before gcc ran
 * (same_ir); -O0 and -O2 do not. */
static const char *const SRC =
    "fn work(n: int): float {\n"
    "    var s = 0.0;\n"
    "    for i in 0..n { s += float(i) * 0.5 / (1.0 + float(i % 7)); }\n"
    "    if n < 0 { return float(n / (n + 1)); }\n"
    "    return s;\n"
    "}\n"
    "fn main() { println(work(10)); }\n";

/* A request for m's bakeoff of two O2 variants with the default inliner
 * settings, `copies` copies each, timed through the test stubs. */
static void two_variants(JitBakeoffRequest *rq, VmMethod *m, uint32_t id, int copies)
{
    memset(rq, 0, sizeof *rq);
    rq->m = m;
    rq->id = id;
    rq->nvariants = 2;
    rq->copies = copies;
    for (int k = 0; k < 2; k++) {
        ir_options_default(&rq->ir[k]);
        rq->optset[k] = "O2";
    }
    rq->slow = test_stub_slow;
    rq->sample = test_stub_sample;
}

/* Compiles work's bakeoff of variants O2 and (opt1, callee1): whether it
 * compiled, its same_code in *same_code, whether it has a dispatcher in
 * *dispatcher; and asserts that same_ir (known before gcc) is want_ir
 * and implies same_code. */
static bool compiles_same(Vm *vm, VmMethod *m, const char *opt1, int callee1, bool end_if_same, bool end_if_same_ir,
                          bool want_ir, bool *same_code, bool *dispatcher)
{
    JitBakeoffRequest rq;
    two_variants(&rq, m, 3, 2);
    rq.ir[1].max_callee_size = callee1;
    rq.optset[1] = opt1;
    rq.end_if_same = end_if_same;
    rq.end_if_same_ir = end_if_same_ir;
    JitBakeoffTable tab;
    memset(&tab, 0, sizeof tab);
    VmError err = {{0}};
    if (!jit_compile_bakeoff(NULL, &rq, &tab, &err))
        return test_fail(__FILE__, __LINE__, "compile: %s", err.msg), false;
    *same_code = tab.same_code;
    *dispatcher = tab.dispatcher != NULL;
    CHECK(tab.same_ir == want_ir);
    CHECK(!tab.same_ir || tab.same_code);
    /* a bakeoff the caller ends: variant 0 alone loaded (and, its IR the
     * same, alone compiled), one entry point for every variant and copy */
    bool alone = tab.same_code && end_if_same;
    for (int part = 1; part < 4; part++)
        CHECK((tab.clean[part] == tab.clean[0]) == alone);
    CHECK(tab.timed != NULL);
    VmThread *t = vm_thread_new(vm);
    VmValue a[1] = {{.i = 100}};
    double want = vm_interp_entry(t, m, a).f;
    for (int part = 0; part < 4; part++)   /* both copies of both variants compute it */
        CHECK(tab.clean[part](t, m, a).f == want);
    vm_thread_free(t);
    return true;
}

TEST(jit_bakeoff_same_code)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.hot_threshold = 1LL << 40;
    Vm *vm = test_load_tl("same.tl", SRC, &tun);
    if (!vm)
        return;
    VmMethod *work = test_method(vm, "work");
    IrOptions ir;
    ir_options_default(&ir);
    int inline4x = 4 * (int)ir.max_callee_size;
    bool s = false, d = false;
    /* the same code, and the caller ends such a bakeoff: no dispatcher */
    if (compiles_same(vm, work, "O2", inline4x, true, false, true, &s, &d))
        CHECK(s && !d);
    /* ... known from the IR, variant 0 alone compiled: every clean[] its
     * code (compiles_same runs them all) */
    if (compiles_same(vm, work, "O2", inline4x, true, true, true, &s, &d))
        CHECK(s && !d);
    /* the same code, timed all the same (aa, research.same_code=0) */
    if (compiles_same(vm, work, "O2", inline4x, false, false, true, &s, &d))
        CHECK(s && d);
    if (compiles_same(vm, work, "O0", (int)ir.max_callee_size, true, true, false, &s, &d))
        CHECK(!s && d);
    test_unload(vm);
}

/* The callees a bakeoff records (JitBakeoffTable.callees: what
 * research.restart watches the JIT install): every method a variant calls
 * rather than inlines, once, whichever variant calls it — and no other. */
static const char *const CALLS_SRC =
    "fn helper(n: int): int { return n * 3 + 1; }\n"
    "fn other(n: int): int { return n - 1; }\n"
    "fn work(n: int): int {\n"
    "    var s = 0;\n"
    "    for i in 0..n { s += helper(i) + helper(i + 1); }\n"
    "    return s;\n"
    "}\n"
    "fn main() { println(work(10)); println(other(2)); }\n";

TEST(jit_bakeoff_callees)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.hot_threshold = 1LL << 40;
    Vm *vm = test_load_tl("calls.tl", CALLS_SRC, &tun);
    if (!vm)
        return;
    VmMethod *work = test_method(vm, "work"), *helper = test_method(vm, "helper");
    JitBakeoffRequest rq;
    two_variants(&rq, work, 4, 1);
    rq.ir[0].max_depth = 0;   /* variant 0 calls helper; variant 1 inlines it */
    JitBakeoffTable tab;
    memset(&tab, 0, sizeof tab);
    VmError err = {{0}};
    if (jit_compile_bakeoff(NULL, &rq, &tab, &err)) {
        CHECK_INT(tab.ncallees, 1);
        CHECK(jit_bakeoff_calls(&tab, helper));
        CHECK(!jit_bakeoff_calls(&tab, work));
        CHECK(!jit_bakeoff_calls(&tab, test_method(vm, "other")));
        CHECK(!jit_bakeoff_calls(&tab, test_method(vm, "main")));
    } else
        test_fail(__FILE__, __LINE__, "compile: %s", err.msg);
    /* past the array, any method may be one */
    tab.ncallees = JIT_MAX_CALLEES + 1;
    CHECK(jit_bakeoff_calls(&tab, work));
    test_unload(vm);
}
