/* tests/unit/test_ir.c — the JIT IR (ir/): CFG, dominators, loops, block
 * counts and frequencies, the inliner's decisions and tunables, dumps, and
 * the IR invariants on every method of every test program.
 *
 * Programs are .tla text run end to end (vm_asm, vm_verify, vm_link,
 * vm_run with output thrown away) so the profiles are the interpreter's
 * own; expected counts follow from the program's arguments by hand.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "ir.h"
#include "lang.h"
#include "test.h"
#include "vm.h"

#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- loading and running -------------------------------------------------- */


/* Assembles, links and runs src; NULL (and a failure) if it does not load. */
static Vm *run_src(const char *src)
{
    Vm *vm = test_load_tla(src, NULL);
    if (vm)
        test_run_quiet(vm, 0, NULL);
    return vm;
}

static IrOptions opts(int64_t size, int64_t depth, int64_t growth)
{
    IrOptions o;
    ir_options_default(&o);
    o.max_callee_size = size;
    o.max_depth = depth;
    o.max_growth = growth;
    return o;
}

/* Compiles and checks the invariants. */
static IrFunc *compile(Vm *vm, const char *name, const IrOptions *o)
{
    VmMethod *m = vm ? test_method(vm, name) : NULL;
    if (!m)
        return NULL;
    VmError err;
    IrFunc *f = ir_compile(m, o, NULL, &err);
    if (!f) {
        test_fail(__FILE__, __LINE__, "ir_compile %s: %s", name, err.msg);
        return NULL;
    }
    if (!ir_check(f, &err))
        test_fail(__FILE__, __LINE__, "ir_check: %s", err.msg);
    return f;
}

static IrBlock *block_at(IrFunc *f, uint32_t pc)
{
    for (uint32_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->pc == pc && f->blocks[i]->origin == f->method)
            return f->blocks[i];
    test_fail(__FILE__, __LINE__, "no block at pc %u", pc);
    return NULL;
}

static double freq_sum(const IrFunc *f)
{
    double s = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        s += f->blocks[i]->freq;
    return s;
}


/* The decision about the call at pc in method `caller`, or NULL. */
static const IrDecision *decision(const IrFunc *f, const char *caller, uint32_t pc, uint32_t depth)
{
    for (uint32_t i = 0; f && i < f->ndecisions; i++) {
        const IrDecision *d = &f->decisions[i];
        if (d->pc == pc && d->depth == depth && !strcmp(d->caller->name, caller))
            return d;
    }
    test_fail(__FILE__, __LINE__, "no decision for %s at pc %u depth %u", caller, pc, depth);
    return NULL;
}

#define CHECK_DECISION(f, caller, pc, depth, want_yes, want_reason)              \
    do {                                                                          \
        const IrDecision *d_ = decision((f), (caller), (pc), (depth));            \
        if (d_) {                                                                 \
            CHECK_INT(d_->yes, (want_yes));                                       \
            CHECK_CONTAINS(d_->reason, (want_reason));                            \
        }                                                                         \
    } while (0)

/* ---- CFG, dominators, counts ------------------------------------------------ */

static const char *cfg_src =
    "module \"cfg\"\n"
    "main main\n"
    "method sign (int) : int static\n"
    "  regs int\n"
    "  JLTS r0, 0, neg\n"            /* 0  b0 */
    "  LDI r1, 1\n"                  /* 1  b1 */
    "  JMP done\n"                   /* 2 */
    "neg:\n"
    "  LDI r1, -1\n"                 /* 3  b2 */
    "done:\n"
    "  RET r1\n"                     /* 4  b3 */
    "end\n"
    "method sum (int) : int static\n"
    "  regs int, int\n"
    "  LDI r1, 0\n"                  /* 0  b0 */
    "  LDI r2, 0\n"
    "head:\n"
    "  JLE r0, r1, out\n"            /* 2  b1 */
    "  ADD r2, r2, r1\n"             /* 3  b2 */
    "  ADDK r1, r1, 1\n"
    "  JMP head\n"                   /* 5 */
    "out:\n"
    "  RET r2\n"                     /* 6  b3 */
    "end\n"
    /* for i < n: { for j < 4 {} ; for k < 2 {} } */
    "method nest (int) : int static\n"
    "  regs int, int, int, int, int\n"
    "  LDI r1, 0\n"                  /* 0 i */
    "  LDI r4, 4\n"                  /* 1 */
    "  LDI r5, 2\n"                  /* 2 */
    "outer:\n"
    "  LDI r2, 0\n"                  /* 3 outer header */
    "in1:\n"
    "  ADDK r3, r3, 1\n"             /* 4 inner 1 */
    "  LOOP r2, r4, in1\n"           /* 5 */
    "  LDI r2, 0\n"                  /* 6 */
    "in2:\n"
    "  ADDK r3, r3, 10\n"            /* 7 inner 2 */
    "  LOOP r2, r5, in2\n"           /* 8 */
    "  LOOP r1, r0, outer\n"         /* 9 */
    "  RET r3\n"                     /* 10 */
    "end\n"
    /* pc 0 is a loop header: a synthetic entry goes before it */
    "method spin (int) : int static\n"
    "  regs int\n"
    "top:\n"
    "  ADDK r1, r1, 1\n"
    "  JLT r1, r0, top\n"
    "  RET r1\n"
    "end\n"
    /* a cycle entered at two points: irreducible, no natural loop */
    "method irr (int) : int static\n"
    "  regs int\n"
    "  JGTS r0, 0, b\n"              /* 0 */
    "a:\n"
    "  ADDK r1, r1, 1\n"             /* 1 */
    "  JGES r1, 10, out\n"           /* 2 */
    "b:\n"
    "  ADDK r1, r1, 2\n"             /* 3 */
    "  JLTS r1, 20, a\n"             /* 4 */
    "out:\n"
    "  RET r1\n"                     /* 5 */
    "  LDI r1, 99\n"                 /* 6: unreachable */
    "  RET r1\n"
    "end\n"
    "method main () : void static\n"
    "  regs int, int\n"
    "  LDI r0, 5\n"
    "  CALL r1, r0, sign\n"
    "  CALL r1, r0, sign\n"
    "  LDI r0, -5\n"
    "  CALL r1, r0, sign\n"
    "  LDI r0, 10\n"
    "  CALL r1, r0, sum\n"
    "  LDI r0, 3\n"
    "  CALL r1, r0, nest\n"
    "  LDI r0, 7\n"
    "  CALL r1, r0, spin\n"
    "  LDI r0, 1\n"
    "  CALL r1, r0, irr\n"
    "  LDI r0, 0\n"
    "  CALL r1, r0, irr\n"
    "  RETV\n"
    "end\n";

TEST(ir_cfg_if_else)
{
    Vm *vm = run_src(cfg_src);
    IrOptions o = opts(40, 0, 400);
    IrFunc *f = compile(vm, "sign", &o);
    if (f) {
        CHECK_INT(f->nblocks, 4);
        CHECK_INT(f->nloops, 0);
        CHECK(!f->irreducible);
        IrBlock *e = f->blocks[0], *pos = block_at(f, 1), *neg = block_at(f, 3), *join = block_at(f, 4);
        CHECK_INT(e->pc, 0);
        CHECK_INT(e->nsuccs, 2);
        CHECK(e->succs[0] == neg && e->succs[1] == pos);
        CHECK_INT(join->npreds, 2);
        CHECK(join->idom == e && pos->idom == e && neg->idom == e && e->idom == e);
        CHECK(ir_dominates(e, join) && !ir_dominates(pos, join));
        /* two calls with 5, one with -5 */
        CHECK_INT(e->count, 3);
        CHECK_INT(pos->count, 2);
        CHECK_INT(neg->count, 1);
        CHECK_INT(join->count, 3);
        CHECK_INT(e->edge_count[0], 1);
        CHECK_INT(e->edge_count[1], 2);
        CHECK(fabs(join->freq - 3.0 / 9.0) < 1e-12);
        CHECK(fabs(freq_sum(f) - 1) < 1e-9);
        IrInsn *t = ir_terminator(e);
        CHECK(t && t->op == IR_BR && t->cc == IR_CC_LT && t->src[1] == IR_NONE && t->imm.i == 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_cfg_while_loop_counts)
{
    Vm *vm = run_src(cfg_src);
    IrOptions o = opts(40, 0, 400);
    IrFunc *f = compile(vm, "sum", &o);
    if (f) {
        CHECK_INT(f->nblocks, 4);
        IrBlock *head = block_at(f, 2), *body = block_at(f, 3), *out = block_at(f, 6);
        CHECK_INT(f->blocks[0]->count, 1);
        CHECK_INT(head->count, 11);
        CHECK_INT(body->count, 10);
        CHECK_INT(out->count, 1);
        CHECK(fabs(head->freq - 11.0 / 23.0) < 1e-12);
        CHECK(fabs(freq_sum(f) - 1) < 1e-9);
        CHECK_INT(f->nloops, 1);
        if (f->nloops == 1) {
            IrLoop *l = f->loops[0];
            CHECK(l->header == head);
            CHECK_INT(l->nblocks, 2);
            CHECK_INT(l->depth, 1);
            CHECK(!l->parent);
            CHECK_INT(l->nlatches, 1);
            CHECK(l->latches[0] == body);
            CHECK_INT(l->nexits, 1);
            CHECK(l->exits[0].from == head && l->exits[0].to == out);
            CHECK(head->loop == l && body->loop == l && !out->loop && !f->blocks[0]->loop);
        }
        CHECK(ir_cost(f) > 0);
        CHECK(ir_static_cost(f) > 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_nested_loops_order_and_depth)
{
    Vm *vm = run_src(cfg_src);
    IrOptions o = opts(40, 0, 400);
    IrFunc *f = compile(vm, "nest", &o);
    if (f) {
        CHECK_INT(f->nloops, 3);
        if (f->nloops == 3) {
            IrLoop *outer = f->loops[0], *i1 = f->loops[1], *i2 = f->loops[2];
            CHECK(outer->header == block_at(f, 3));
            CHECK_INT(outer->depth, 1);
            CHECK(i1->header == block_at(f, 4) && i2->header == block_at(f, 7));
            CHECK_INT(i1->depth, 2);
            CHECK_INT(i2->depth, 2);
            CHECK(i1->parent == outer && i2->parent == outer);
            CHECK_INT(outer->nchildren, 2);
            CHECK(block_at(f, 4)->loop == i1 && block_at(f, 6)->loop == outer);
            CHECK(block_at(f, 10)->loop == NULL);
            /* n = 3: the outer header runs 3 times, inner bodies 12 and 6 */
            CHECK_INT(block_at(f, 3)->count, 3);
            CHECK_INT(block_at(f, 4)->count, 12);
            CHECK_INT(block_at(f, 7)->count, 6);
            for (uint32_t k = 0; k < outer->nblocks; k++)
                CHECK(ir_dominates(outer->header, outer->blocks[k]));
        }
        /* LOOP became ADDK + BR LT */
        IrInsn *t = ir_terminator(block_at(f, 4));
        CHECK(t && t->op == IR_BR && t->cc == IR_CC_LT);
        IrBlock *b4 = block_at(f, 4);
        CHECK(b4->ninsns >= 2 && b4->insns[b4->ninsns - 2].op == IR_ADDK);
    }
    ir_free(f);
    f = compile(vm, "spin", &o);
    if (f) {
        CHECK_INT(f->blocks[0]->pc, UINT32_MAX);   /* synthetic entry */
        CHECK_INT(f->blocks[0]->npreds, 0);
        CHECK_INT(f->blocks[0]->count, 1);
        CHECK_INT(f->nloops, 1);
        if (f->nloops)
            CHECK(f->loops[0]->header == block_at(f, 0));
        CHECK_INT(block_at(f, 0)->count, 7);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_irreducible_and_unreachable)
{
    Vm *vm = run_src(cfg_src);
    IrOptions o = opts(40, 0, 400);
    IrFunc *f = compile(vm, "irr", &o);
    if (f) {
        CHECK(f->irreducible);
        CHECK_INT(f->nloops, 0);
        CHECK_INT(f->nblocks, 4);     /* the dead block after RET is gone */
        IrBlock *a = block_at(f, 1), *b = block_at(f, 3);
        CHECK(a->idom == f->blocks[0] && b->idom == f->blocks[0]);
        CHECK(fabs(freq_sum(f) - 1) < 1e-9);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_dump_text)
{
    Vm *vm = run_src(cfg_src);
    IrOptions o = opts(40, 0, 400);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    IrFunc *f = vm ? ir_compile(test_method(vm, "sum"), &o, mem, NULL) : NULL;
    fclose(mem);
    CHECK(f != NULL);
    CHECK_CONTAINS(text, "== ir after build: sum");
    CHECK_CONTAINS(text, "== ir after cfg: sum");
    CHECK_CONTAINS(text, "== ir after inline: sum");
    CHECK_CONTAINS(text, "== ir after loops: sum");
    CHECK_CONTAINS(text, "loop L0: header b1 depth 1");
    CHECK_CONTAINS(text, "BR LE l0:int, l1:int -> b3, b2 [1 / 10]");
    CHECK_CONTAINS(text, "count 11 freq 0.4783");
    free(text);
    ir_free(f);
    test_unload(vm);
}

TEST(ir_compile_rejects_abstract)
{
    Vm *vm = run_src(
        "module \"a\"\nmain main\n"
        "class S abstract\n  vtable S.f\nend\n"
        "method S.f (S) : int owner S abstract\n"
        "method main () : void static\n  RETV\nend\n");
    VmError err;
    if (vm) {
        CHECK(ir_compile(test_method(vm, "S.f"), NULL, NULL, &err) == NULL);
        CHECK_CONTAINS(err.msg, "no code");
        IrFunc *f = ir_compile_request(test_method(vm, "main"), NULL, NULL);
        CHECK(f != NULL);
        ir_free(f);
    }
    test_unload(vm);
}

/* ---- the inliner ------------------------------------------------------------ */

enum { HUGE_SIZE = 185 };   /* bytecode insns of `huge`: with walk, over IR_MIN_BUDGET */

static char *inline_src(void)
{
    static char buf[16384];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n,
        "module \"inl\"\nmain main\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "class Base\n  vtable Base.get\nend\n"
        "class A extends Base\n  vtable A.get\nend\n"
        "class B extends Base\n  vtable B.get\nend\n"
        "class Abs extends Base abstract\n  vtable Abs.get\nend\n"
        "interface Named\n  methods Named.name\nend\n"
        "class Cat implements Named\n  vtable Cat.name\nend\n"
        "class Dog implements Named\n  vtable Dog.name\nend\n"
        "interface Solo\n  methods Solo.id\nend\n"
        "class One implements Solo\n  vtable One.id\nend\n"
        "method Base.get (Base) : int owner Base\n  regs int\n  LDI r1, 1\n  RET r1\nend\n"
        "method A.get (A) : int owner A\n  regs int\n  LDI r1, 2\n  RET r1\nend\n"
        "method B.get (B) : int owner B\n  regs int\n  LDI r1, 3\n  RET r1\nend\n"
        "method Abs.get (Abs) : int owner Abs abstract\n"
        "method Named.name (Named) : int owner Named abstract\n"
        "method Cat.name (Cat) : int owner Cat\n  regs int\n  LDI r1, 7\n  RET r1\nend\n"
        "method Dog.name (Dog) : int owner Dog\n  regs int\n  LDI r1, 8\n  RET r1\nend\n"
        "method Solo.id (Solo) : int owner Solo abstract\n"
        "method One.id (One) : int owner One\n  regs int\n  LDI r1, 9\n  RET r1\nend\n"
        "method add1 (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method caller (int) : int static\n  regs int\n"
        "  CALL r1, r0, add1\n"          /* pc 0 */
        "  CALL r1, r1, big\n"           /* pc 1 */
        "  RET r1\nend\n"
        "method hotloop (int) : int static\n  regs int, int, int\n  LDI r1, 0\n  LDI r2, 20\n"
        "top:\n  CALL r3, r0, big\n"       /* pc 2: 20 times per call */
        "  LOOP r1, r2, top\n  RET r3\nend\n"
        "method chain (int) : int static\n  CALL r0, r0, d1\n  RET r0\nend\n"
        "method d1 (int) : int static\n  CALL r0, r0, d2\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method d2 (int) : int static\n  CALL r0, r0, d3\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method d3 (int) : int static\n  CALL r0, r0, d4\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method d4 (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method fib (int) : int static\n  regs int, int\n  JGES r0, 2, rec\n  RET r0\nrec:\n"
        "  ADDK r1, r0, -1\n  CALL r1, r1, fib\n  ADDK r2, r0, -2\n  CALL r2, r2, fib\n"
        "  ADD r1, r1, r2\n  RET r1\nend\n"
        "method mono (Base) : int static\n  regs int\n  CALLV r1, r0, Base.get\n  RET r1\nend\n"
        "method poly (Base) : int static\n  regs int\n  CALLV r1, r0, Base.get\n  RET r1\nend\n"
        "method absuser (Base) : int static\n  regs int\n  CALLV r1, r0, Base.get\n  RET r1\nend\n"
        "method iface (Named) : int static\n  regs int\n  CALLI r1, r0, Named.name\n  RET r1\nend\n"
        "method onlycat (Cat) : int static\n  regs int\n  CALLV r1, r0, Cat.name\n  RET r1\nend\n"
        "method solo (Solo) : int static\n  regs int\n  CALLI r1, r0, Solo.id\n  RET r1\nend\n"
        "method natv (int) : void static\n  CALLN _, r0, println_int\n  RETV\nend\n"
        "method countdown (int) : int static\n  JLES r0, 0, zero\n  ADDK r0, r0, -1\n"
        "  CALL r0, r0, countdown\nzero:\n  RET r0\nend\n"
        "method walk (int) : int static\n  regs int\n  JLES r0, 0, done\n  ADDK r1, r0, -1\n"
        "  CALL r1, r1, walk\n"          /* pc 2: recursive, found first */
        "  CALL r1, r1, huge\n"          /* pc 3: the same count */
        "  ADDK r1, r1, 0\n"             /* not trivial (IR_TRIVIAL_SIZE) */
        "  RET r1\ndone:\n  RET r0\nend\n"
        "method main () : void static\n"
        "  regs int, int, A, B, Cat, int\n"
        "  NEW r2, A\n  NEW r3, B\n  NEW r4, Cat\n  LDI r1, 10\n"
        "each:\n"
        "  CALL r5, r2, mono\n  CALL r5, r2, poly\n  CALL r5, r3, poly\n"
        "  CALL r5, r4, iface\n  CALL r5, r0, caller\n  CALL r5, r0, chain\n"
        "  CALL r5, r0, fib\n  CALL _, r0, natv\n  CALL r5, r0, hotloop\n"
        "  LDI r5, 1\n  CALL r5, r5, walk\n  CALL r5, r0, bigcall\n"
        "  LOOP r0, r1, each\n  RETV\nend\n"
        "method big (int) : int static\n");
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "  ADDK r0, r0, 1\n");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "  RET r0\nend\nmethod bigcall (int) : int static\n");
    for (int i = 0; i < 70; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "  ADDK r0, r0, 1\n");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "  CALL r0, r0, huge\n  RET r0\nend\nmethod huge (int) : int static\n");
    for (int i = 0; i < HUGE_SIZE - 1; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "  ADDK r0, r0, 1\n");
    snprintf(buf + n, sizeof buf - n, "  RET r0\nend\n");
    return buf;
}

TEST(ir_inline_static_and_too_big)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 400);
    IrFunc *f = compile(vm, "caller", &o);
    if (f) {
        CHECK_DECISION(f, "caller", 0, 0, true, "static");
        CHECK_DECISION(f, "caller", 1, 0, false, "too big (51 > max_callee_size 40)");
        CHECK_INT(test_ir_count_op(f, IR_CALL), 1);          /* only big remains */
        CHECK_INT(f->ninlines, 1);
        CHECK_INT(f->nlocals, 3);                    /* caller 2 + add1 1 */
        CHECK(f->inlines[0]->callee == test_method(vm, "add1"));
        CHECK_INT(f->inlines[0]->first_local, 2);
        /* caller ran 10 times; add1's blocks scaled to this site */
        for (uint32_t i = 0; i < f->nblocks; i++)
            if (f->blocks[i]->origin == test_method(vm, "add1"))
                CHECK_INT(f->blocks[i]->count, 10);
        /* the inlined ADDK carries its origin and chain for errors */
        bool found = false;
        for (uint32_t i = 0; i < f->nblocks; i++)
            for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
                IrInsn *in = &f->blocks[i]->insns[k];
                if (in->op == IR_ADDK && in->origin == test_method(vm, "add1")) {
                    found = true;
                    CHECK_INT(in->depth, 1);
                    CHECK(in->site == f->inlines[0]);
                    CHECK_INT(in->pc, 0);
                    CHECK_INT(in->dst, 2);
                }
            }
        CHECK(found);
    }
    ir_free(f);
    /* max_callee_size per request: the same method, big now fits */
    o = opts(60, 3, 10000);
    f = compile(vm, "caller", &o);
    if (f) {
        CHECK_DECISION(f, "caller", 1, 0, true, "static");
        CHECK_INT(test_ir_count_op(f, IR_CALL), 0);
    }
    ir_free(f);
    test_unload(vm);
}

/* ir_same_code: the same code whatever options built it, when no call
 * inlines differently; not when one does; blind to the profile counts
 * (the back end does not read them), not to an operand or a callee. */
TEST(ir_same_code_compares_the_code)
{
    Vm *vm = run_src(inline_src());
    IrOptions o40 = opts(40, 3, 400), o50 = opts(50, 3, 400), o60 = opts(60, 3, 10000);
    IrFunc *a = compile(vm, "caller", &o40), *b = compile(vm, "caller", &o50), *c = compile(vm, "caller", &o60);
    if (a && b && c) {
        CHECK(ir_same_code(a, b));        /* big (51) fits neither: add1 inlined in both */
        CHECK(!ir_same_code(a, c));       /* big inlined in c */
        CHECK(!ir_same_code(c, a));
        /* a profile that changed since: other counts, the same code */
        test_run_quiet(vm, 0, NULL);
        IrFunc *d = compile(vm, "caller", &o40);
        if (d) {
            CHECK(d->blocks[0]->count != a->blocks[0]->count);
            CHECK(ir_same_code(a, d));
            IrInsn *in = test_ir_first_op(d, IR_ADDK);
            CHECK(in != NULL);
            if (in) {
                in->imm.i++;                    /* another constant */
                CHECK(!ir_same_code(a, d));
                in->imm.i--;
                in->src[0] = in->src[0] + 1;    /* another operand */
                CHECK(!ir_same_code(a, d));
                in->src[0] = in->src[0] - 1;
                CHECK(ir_same_code(a, d));
            }
            IrInsn *call = test_ir_first_op(d, IR_CALL);
            CHECK(call != NULL);
            if (call) {
                void *was = call->aux;            /* another callee */
                call->aux = test_method(vm, "add1");
                CHECK(!ir_same_code(a, d));
                call->aux = was;
            }
        }
        ir_free(d);
        /* another method is never the same code */
        IrFunc *e = compile(vm, "chain", &o40);
        if (e)
            CHECK(!ir_same_code(a, e));
        ir_free(e);
    }
    ir_free(a);
    ir_free(b);
    ir_free(c);
    test_unload(vm);
}

/* A call in a loop (it runs >= IR_HOT_SITE_RATIO times per entry) may
 * inline a callee up to hot_callee_size; the same callee at a cold site
 * (caller's: once per entry) stays a call. */
TEST(ir_inline_hot_site)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 10000);
    o.hot_callee_size = 60;
    IrFunc *f = compile(vm, "hotloop", &o);
    if (f) {
        CHECK_DECISION(f, "hotloop", 2, 0, true, "static, hot site");
        CHECK_INT(test_ir_count_op(f, IR_CALL), 0);
    }
    ir_free(f);
    f = compile(vm, "caller", &o);
    if (f)
        CHECK_DECISION(f, "caller", 1, 0, false, "too big (51 > max_callee_size 40)");
    ir_free(f);
    o.hot_callee_size = 50;
    f = compile(vm, "hotloop", &o);
    if (f)
        CHECK_DECISION(f, "hotloop", 2, 0, false, "too big (51 > hot_callee_size 50)");
    ir_free(f);
    test_unload(vm);
}

/* A recursive call waits until the other calls are decided: in walk the
 * budget (IR_MIN_BUDGET) holds huge or the recursion, not both, and the
 * recursion, found first at the same count, must not take it. */
TEST(ir_inline_recursion_last)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(HUGE_SIZE, 3, 400);
    IrFunc *f = compile(vm, "walk", &o);
    if (f) {
        CHECK(ir_count_insns(f) <= IR_MIN_BUDGET);
        CHECK_DECISION(f, "walk", 3, 0, true, "static");
        CHECK_DECISION(f, "walk", 2, 0, false, "growth limit");
        CHECK_INT(test_ir_count_op(f, IR_CALL), 1);   /* walk's own call */
    }
    ir_free(f);
    test_unload(vm);
}

/* Copies of a method spliced into its own recursion are bounded in all
 * (max_recursive): fib's tree of calls stops after 3, a chain of one
 * recursive call unrolls to max_depth, and 0 inlines no recursion. */
TEST(ir_inline_recursion_bounded)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 10000);
    CHECK_INT(o.max_recursive, 3);   /* the default */
    IrFunc *f = compile(vm, "fib", &o);
    if (f) {
        CHECK_DECISION(f, "fib", 3, 0, true, "static, recursive");
        CHECK_DECISION(f, "fib", 5, 0, true, "static, recursive");
        CHECK_INT(f->ninlines, 3);   /* not the 14 of max_depth 3 */
        int refused = 0;
        for (uint32_t i = 0; i < f->ndecisions; i++)
            refused += !f->decisions[i].yes && strstr(f->decisions[i].reason, "3 copies (max_recursive 3)");
        /* the other three calls of the depth-1 copies, the third copy's two */
        CHECK_INT(refused, 5);
        CHECK_INT(test_ir_count_op(f, IR_CALL), 5);
    }
    ir_free(f);
    f = compile(vm, "countdown", &o);
    if (f) {
        CHECK_INT(f->ninlines, 3);
        CHECK_DECISION(f, "countdown", 2, 3, false, "depth limit (max_depth 3)");
    }
    ir_free(f);
    o = opts(40, 5, 10000);
    f = compile(vm, "countdown", &o);
    if (f) {
        CHECK_INT(f->ninlines, 3);
        CHECK_DECISION(f, "countdown", 2, 3, false, "recursive, 3 copies (max_recursive 3)");
    }
    ir_free(f);
    o.max_recursive = 0;
    f = compile(vm, "fib", &o);
    if (f) {
        CHECK_INT(f->ninlines, 0);
        CHECK_DECISION(f, "fib", 3, 0, false, "recursive, 0 copies (max_recursive 0)");
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_inline_depth_limit)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 1000);
    IrFunc *f = compile(vm, "chain", &o);
    if (f) {
        CHECK_DECISION(f, "chain", 0, 0, true, "static");
        CHECK_DECISION(f, "d1", 0, 1, true, "static");
        CHECK_DECISION(f, "d2", 0, 2, true, "static");
        CHECK_DECISION(f, "d3", 0, 3, false, "depth limit (max_depth 3)");
        CHECK_INT(f->ninlines, 3);
        CHECK_INT(test_ir_count_op(f, IR_CALL), 1);
    }
    ir_free(f);
    /* max_depth per request */
    o = opts(40, 1, 1000);
    f = compile(vm, "chain", &o);
    if (f) {
        CHECK_DECISION(f, "d1", 0, 1, false, "depth limit (max_depth 1)");
        CHECK_INT(f->ninlines, 1);
    }
    ir_free(f);
    o = opts(40, 0, 1000);
    f = compile(vm, "chain", &o);
    if (f) {
        CHECK_DECISION(f, "chain", 0, 0, false, "depth limit (max_depth 0)");
        CHECK_INT(f->ninlines, 0);
    }
    ir_free(f);
    o = opts(40, 4, 10000);
    f = compile(vm, "chain", &o);
    if (f) {
        CHECK_INT(f->ninlines, 4);
        CHECK_INT(test_ir_count_op(f, IR_CALL), 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_inline_growth_limit)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 100);    /* no growth at all */
    IrFunc *f = compile(vm, "chain", &o);
    if (f) {
        CHECK_DECISION(f, "chain", 0, 0, false, "growth limit");
        CHECK_INT(f->ninlines, 0);
    }
    ir_free(f);
    /* chain has 2 insns: 400% of it is less than IR_MIN_BUDGET, which
     * lets d1..d3 in until max_depth stops them */
    o = opts(40, 3, 400);
    f = compile(vm, "chain", &o);
    if (f) {
        CHECK_DECISION(f, "chain", 0, 0, true, "static");
        CHECK_DECISION(f, "d1", 0, 1, true, "static");
        CHECK_DECISION(f, "d2", 0, 2, true, "static");
        CHECK_DECISION(f, "d3", 0, 3, false, "depth limit");
        CHECK_INT(f->ninlines, 3);
    }
    ir_free(f);
    /* bigcall has 72 insns (300% of it is over IR_MIN_BUDGET), huge adds
     * HUGE_SIZE + 2 (its insns, the argument's MOV, RET's MOV, JMP in,
     * minus the call): within 500%, not within 300% */
    o = opts(HUGE_SIZE, 3, 300);
    f = compile(vm, "bigcall", &o);
    if (f) {
        CHECK_DECISION(f, "bigcall", 70, 0, false, "growth limit (259 > 216 insns, max_growth 300%)");
        CHECK_INT(f->ninlines, 0);
    }
    ir_free(f);
    o = opts(HUGE_SIZE, 3, 500);
    f = compile(vm, "bigcall", &o);
    if (f) {
        CHECK_DECISION(f, "bigcall", 70, 0, true, "static");
        CHECK_INT(ir_count_insns(f), 259);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_inline_virtual_monomorphic_guard)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 1000);
    IrFunc *f = compile(vm, "mono", &o);
    if (f) {
        CHECK_DECISION(f, "mono", 0, 0, true, "monomorphic A");
        CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 1);
        CHECK_INT(test_ir_count_op(f, IR_CALLV), 1);         /* the fallback */
        CHECK_INT(f->ninlines, 1);
        CHECK(f->ninlines && f->inlines[0]->callee == test_method(vm, "A.get"));
        for (uint32_t i = 0; i < f->nblocks; i++) {
            IrInsn *t = ir_terminator(f->blocks[i]);
            if (t && t->op == IR_GUARD_CLASS) {
                CHECK_STR(((VmClass *)t->aux)->name, "A");
                CHECK_INT(t->target[0]->count, 10);  /* every receiver was an A */
                CHECK_INT(t->target[1]->count, 0);
                CHECK_INT(t->src[0], 0);
            }
        }
    }
    ir_free(f);
    /* poly's site has two classes, half and half: a guard for each (A
     * first: the first seen of equals), the real call behind both */
    f = compile(vm, "poly", &o);
    if (f) {
        CHECK_INT(f->ndecisions, 2);
        CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 2);
        CHECK_INT(test_ir_count_op(f, IR_CALLV), 1);
        CHECK_INT(f->ninlines, 2);
        for (uint32_t i = 0; i < f->ndecisions && i < 2; i++) {
            CHECK_INT(f->decisions[i].yes, 1);
            CHECK_CONTAINS(f->decisions[i].reason, i ? "polymorphic, class 2: B" : "polymorphic, class 1: A");
        }
        for (uint32_t i = 0; i < f->nblocks; i++) {
            IrInsn *t = ir_terminator(f->blocks[i]);
            if (t && t->op == IR_GUARD_CLASS)   /* 10 calls each; none reach the real call */
                CHECK_INT(t->target[0]->count, 10);
            if (t && t->op == IR_GUARD_CLASS && !strcmp(((VmClass *)t->aux)->name, "B"))
                CHECK_INT(t->target[1]->count, 0);
            for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++)   /* the inliner's scratch is cleared */
                if (f->blocks[i]->insns[k].op == IR_CALLV)
                    CHECK_INT(f->blocks[i]->insns[k].cc, 0);
        }
    }
    ir_free(f);
    /* poly_ways 1: monomorphic sites only */
    o.poly_ways = 1;
    f = compile(vm, "poly", &o);
    if (f) {
        CHECK_DECISION(f, "poly", 0, 0, false, "polymorphic (2 classes, top 50.0%)");
        CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 0);
    }
    ir_free(f);
    /* mono_percent is per request too: 50% makes poly's site monomorphic */
    o.mono_percent = 50;
    f = compile(vm, "poly", &o);
    if (f) {
        CHECK_DECISION(f, "poly", 0, 0, true, "monomorphic");
        CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 1);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_inline_interface_native_abstract)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 3, 1000);
    IrFunc *f = compile(vm, "iface", &o);
    if (f) {
        CHECK_DECISION(f, "iface", 0, 0, true, "monomorphic Cat");
        CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 1);
        CHECK_INT(test_ir_count_op(f, IR_CALLI), 1);
    }
    ir_free(f);
    /* one method can run (class hierarchy), profile or not: no guard, no
     * call, the receiver's null check kept */
    const char *only[2] = {"onlycat", "solo"};
    for (int k = 0; k < 2; k++) {
        f = compile(vm, only[k], &o);
        if (f) {
            CHECK_DECISION(f, only[k], 0, 0, true, k ? "only One.id in the class hierarchy"
                                                     : "only Cat.name in the class hierarchy");
            CHECK_INT(test_ir_count_op(f, IR_GUARD_CLASS), 0);
            CHECK_INT(test_ir_count_op(f, IR_CALLV) + test_ir_count_op(f, IR_CALLI), 0);
            CHECK_INT(test_ir_count_op(f, IR_NCHK), 1);
        }
        ir_free(f);
    }
    f = compile(vm, "natv", &o);
    if (f) {
        CHECK_DECISION(f, "natv", 0, 0, false, "native println_int");
        CHECK_INT(test_ir_count_op(f, IR_CALLN), 1);
    }
    ir_free(f);
    /* absuser never ran: no profile; then a profile naming the abstract class */
    f = compile(vm, "absuser", &o);
    if (f)
        CHECK_DECISION(f, "absuser", 0, 0, false, "no receiver profile");
    ir_free(f);
    VmMethod *m = vm ? test_method(vm, "absuser") : NULL;
    VmClass *abs = NULL;
    for (uint32_t i = 0; vm && i < vm->module->nclasses; i++)
        if (!strcmp(vm->module->classes[i].name, "Abs"))
            abs = &vm->module->classes[i];
    if (m && abs && m->prof.nsites == 1) {
        m->prof.sites[0].seen[0].cls = abs;
        m->prof.sites[0].seen[0].count = 10;
        f = compile(vm, "absuser", &o);
        if (f)
            CHECK_DECISION(f, "absuser", 0, 0, false, "abstract");
        ir_free(f);
        m->prof.sites[0].other = 3;
        f = compile(vm, "absuser", &o);
        if (f)
            CHECK_DECISION(f, "absuser", 0, 0, false, "megamorphic");
        ir_free(f);
    } else {
        CHECK(!"absuser site");
    }
    test_unload(vm);
}

TEST(ir_inline_recursion_and_main)
{
    Vm *vm = run_src(inline_src());
    IrOptions o = opts(40, 2, 10000);
    o.max_recursive = 100;
    IrFunc *f = compile(vm, "fib", &o);
    if (f) {
        CHECK_DECISION(f, "fib", 3, 0, true, "static, recursive");
        CHECK_DECISION(f, "fib", 5, 1, true, "recursive");
        CHECK_DECISION(f, "fib", 3, 2, false, "recursive, depth limit (max_depth 2)");
        CHECK_INT(f->ninlines, 6);   /* 2 sites at depth 0, 4 at depth 1 */
    }
    ir_free(f);
    /* main: every kind of call at once, hottest first */
    o = opts(40, 3, 400);
    f = compile(vm, "main", &o);
    if (f) {
        CHECK(f->ndecisions >= 8);
        /* main's calls are in its loop: hot sites, which may use IR_HOT_BUDGET */
        CHECK(ir_count_insns(f) * 100 <= (uint64_t)f->ninsns_built * 400 || ir_count_insns(f) <= IR_HOT_BUDGET);
        /* inlined blocks keep the counts of the calls they replaced */
        CHECK(fabs(freq_sum(f) - 1) < 1e-9);
        for (uint32_t i = 0; i < f->ninlines; i++)
            CHECK(f->inlines[i]->depth >= 1 && f->inlines[i]->depth <= 3);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_options_from_tunables)
{
    TestTunables tun;
    VmError err;
    test_tunables_init(&tun);
    IrOptions o;
    ir_options_default(&o);
    CHECK_INT(o.max_callee_size, 40);
    CHECK_INT(o.hot_callee_size, 100);
    CHECK_INT(o.max_depth, 3);
    CHECK_INT(o.max_growth, 400);
    CHECK_INT(o.mono_percent, 95);
    CHECK(test_tunables_set(&tun, "inline.max_depth=1", &err));
    CHECK(test_tunables_set(&tun, "inline.max_callee_size=7", &err));
    CHECK(test_tunables_set(&tun, "inline.max_growth=150", &err));
    CHECK(test_tunables_set(&tun, "jit.dump=ir", &err));
    o = tun.ir;
    CHECK_INT(o.max_depth, 1);
    CHECK_INT(o.max_callee_size, 7);
    CHECK_INT(o.max_growth, 150);
    CHECK_STR(tun.jit.dump, "ir");
    /* the splice adds exactly what the growth check assumed */
    Vm *vm = run_src(inline_src());
    IrOptions a = opts(40, 1, 10000), none = opts(40, 0, 10000);
    IrFunc *f = compile(vm, "mono", &a), *g = compile(vm, "mono", &none);
    /* GUARD_CLASS, fallback CALLV + JMP; MOV + ZERO + JMP in; LDI, MOV for
     * the RET, JMP out; minus the call: 2 + 8 */
    if (f && g)
        CHECK_INT(ir_count_insns(f), ir_count_insns(g) + 8);
    ir_free(f);
    ir_free(g);
    test_unload(vm);
}

/* ---- every method of every test program -------------------------------------- */


static void check_program(TestProgram *p, void *ctx)
{
    int *nmethods = ctx;
    VmModule *m = p->m;
    VmError err;
    Vm *vm = test_link(m, &p->tun.vm, false);
    if (!vm)
        return;
    test_run_quiet(vm, p->nargs, p->args);
    IrOptions variants[3];
    ir_options_default(&variants[0]);
    variants[1] = opts(1000, 6, 100000);
    variants[2] = opts(40, 0, 400);
    for (uint32_t i = 0; i < m->nmethods; i++) {
        VmMethod *mm = &m->methods[i];
        if (!mm->code || !mm->ncode)
            continue;
        for (int v = 0; v < 3; v++) {
            FILE *nul = v == 0 ? fopen("/dev/null", "w") : NULL;
            IrFunc *f = ir_compile(mm, &variants[v], nul, &err);
            if (nul)
                fclose(nul);
            if (!f) {
                test_fail(__FILE__, __LINE__, "%s: %s: %s", p->path, mm->name, err.msg);
                continue;
            }
            if (!ir_check(f, &err))
                test_fail(__FILE__, __LINE__, "%s (variant %d): %s", p->path, v, err.msg);
            if (v == 2 && mm->prof.calls && !f->has_counts)
                test_fail(__FILE__, __LINE__, "%s: %s ran but has no counts", p->path, mm->name);
            ir_free(f);
        }
        (*nmethods)++;
    }
    test_unload(vm);
}

TEST(ir_invariants_on_all_programs)
{
    int nmeth = 0;
    int nprog = test_corpus_each(NULL, check_program, &nmeth);
    CHECK(nprog >= 50);
    CHECK(nmeth >= 200);
}

/* ir_cost_bound: a bound only for code where each insn runs at most once
 * a call — not with a loop, a call left after inlining, or an op whose
 * time grows with a length. */
TEST(ir_cost_bound_kinds)
{
    static const char *const src =
        "fn add3(a: int, b: int): int { return a + b + 3; }\n"
        "fn callit(a: int): int { return add3(a, 1); }\n"
        "fn cat(s: string): string { return s + \"x\"; }\n"
        "fn loop(n: int): int { var s = 0; for i in 0..n { s += i; } return s; }\n"
        "fn main() { println(callit(2)); println(cat(\"a\")); println(loop(3)); }\n";
    Vm *vm = test_load_tl("bound.tl", src, NULL);
    if (!vm)
        return;
    test_run_quiet(vm, 0, NULL);
    IrOptions none = opts(40, 0, 400), some = opts(40, 3, 400);
    uint64_t b = 12345;
    IrFunc *f = compile(vm, "add3", &none);
    CHECK(f && ir_cost_bound(f, &b) && b == ir_static_cost(f) && b > 0 && b < 20);
    ir_free(f);
    b = 12345;
    f = compile(vm, "callit", &none);
    CHECK(f && !ir_cost_bound(f, &b) && b == 12345);
    ir_free(f);
    f = compile(vm, "callit", &some);   /* add3 inlined: bounded again */
    CHECK(f && ir_cost_bound(f, &b) && b < 30);
    ir_free(f);
    f = compile(vm, "cat", &some);
    CHECK(f && !ir_cost_bound(f, &b));
    ir_free(f);
    f = compile(vm, "loop", &some);
    CHECK(f && !ir_cost_bound(f, &b));
    ir_free(f);
    test_unload(vm);
}
