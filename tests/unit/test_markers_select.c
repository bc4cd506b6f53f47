/* tests/unit/test_markers_select.c — markers/select.c: where loop timing
 * points go (mk_select), the markers.everywhere plans (mk_select_every)
 * and static-cost distances (mk_cost_distance).
 *
 * One .tla program is run in the interpreter (no JIT: the profile is the
 * same on every run), then single methods are compiled to IR and planned.
 * Block costs follow from ir/ops.def by hand: DIV 25, ADD/ADDK/AND/LDI 1,
 * BR 1, JMP 1 (a fall-through gets one), RET 2; four DIVs make a body of
 * at least markers.min_cost's default 100.  Frequencies follow from the
 * calls in main.  Last, every method of every test program is planned
 * under several tunables and each plan checked against what any plan
 * promises (own blocks, order, distances).
 */
#include "ir.h"
#include "markers.h"
#include "test.h"
#include "vm.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#define DIV4(d, s) "  DIV " d ", " d ", " s "\n  DIV " d ", " d ", " s "\n  DIV " d ", " d ", " s "\n  DIV " d ", " d ", " s "\n"

/* for i < n: four DIVs.  Blocks: b0 pcs 0-1 (cost 3), head pc 2 (1), body
 * pcs 3-8 (102), out pc 9 (2). */
#define LOOPY(name)                                                              \
    "method " name " (int) : int static\n"                                       \
    "  regs int, int, int\n"                                                     \
    "  LDI r1, 0\n"                  /* 0 */                                     \
    "  LDI r3, 7\n"                  /* 1 */                                     \
    "head:\n"                                                                    \
    "  JLE r0, r1, out\n"            /* 2 */                                     \
    DIV4("r2", "r3")                 /* 3..6 */                                  \
    "  ADDK r1, r1, 1\n"             /* 7 */                                     \
    "  JMP head\n"                   /* 8 */                                     \
    "out:\n"                                                                     \
    "  RET r2\n"                     /* 9 */                                     \
    "end\n"

/* Two loops after each other; the first has a branch t1 (pc 9) taken on
 * odd i, between them `between`.  Costs: h1 1, b1 102, t1 2, skip 2. */
#define SEQ(name, between)                                                       \
    "method " name " (int) : int static\n"                                       \
    "  regs int, int, int, int, int, int\n"                                      \
    "  LDI r3, 7\n"                  /* 0 */                                     \
    "  LDI r6, 1\n"                  /* 1 */                                     \
    "h1:\n"                                                                      \
    "  JLE r0, r1, out1\n"           /* 2 */                                     \
    DIV4("r2", "r3")                 /* 3..6 */                                  \
    "  AND r4, r1, r6\n"             /* 7 */                                     \
    "  JEQS r4, 0, skip\n"           /* 8 */                                     \
    "  ADDK r2, r2, 1\n"             /* 9: t1 */                                 \
    "skip:\n"                                                                    \
    "  ADDK r1, r1, 1\n"             /* 10 */                                    \
    "  JMP h1\n"                     /* 11 */                                    \
    "out1:\n"                                                                    \
    between                                                                      \
    "  LDI r5, 0\n"                                                              \
    "h2:\n"                                                                      \
    "  JLE r0, r5, out2\n"                                                       \
    DIV4("r2", "r3")                                                             \
    "  ADDK r5, r5, 1\n"                                                         \
    "  JMP h2\n"                                                                 \
    "out2:\n"                                                                    \
    "  RET r2\n"                                                                 \
    "end\n"

static const char *sel_src =
    "module \"sel\"\n"
    "main main\n"
    LOOPY("rare")
    LOOPY("often")
    /* i = i + 1 alone: a cycle of 3 (head 1, ADDK 1 + JMP 1) */
    "method spin (int) : int static\n"
    "  regs int\n"
    "  LDI r1, 0\n"                  /* 0 */
    "head:\n"
    "  JLE r0, r1, out\n"            /* 1 */
    "  ADDK r1, r1, 1\n"             /* 2 */
    "  JMP head\n"                   /* 3 */
    "out:\n"
    "  RET r1\n"                     /* 4 */
    "end\n"
    /* for i < n: for j < m: four DIVs */
    "method nest (int, int) : int static\n"
    "  regs int, int, int, int\n"
    "  LDI r5, 7\n"                  /* 0 */
    "outer:\n"
    "  JLE r0, r2, out\n"            /* 1 */
    "  LDI r3, 0\n"                  /* 2 */
    "inner:\n"
    "  JLE r1, r3, next\n"           /* 3 */
    DIV4("r4", "r5")                 /* 4..7 */
    "  ADDK r3, r3, 1\n"             /* 8 */
    "  JMP inner\n"                  /* 9 */
    "next:\n"
    "  ADDK r2, r2, 1\n"             /* 10 */
    "  JMP outer\n"                  /* 11 */
    "out:\n"
    "  RET r4\n"                     /* 12 */
    "end\n"
    /* for i < n: { four DIVs; for j < m: four DIVs; four DIVs; if odd i: t } */
    "method tailnest (int, int) : int static\n"
    "  regs int, int, int, int, int, int\n"
    "  LDI r5, 7\n"                  /* 0 */
    "  LDI r7, 1\n"                  /* 1 */
    "outer:\n"
    "  JLE r0, r2, out\n"            /* 2 */
    "  LDI r3, 0\n"                  /* 3 */
    DIV4("r4", "r5")                 /* 4..7 */
    "inner:\n"
    "  JLE r1, r3, tail\n"           /* 8 */
    DIV4("r4", "r5")                 /* 9..12 */
    "  ADDK r3, r3, 1\n"             /* 13 */
    "  JMP inner\n"                  /* 14 */
    "tail:\n"
    DIV4("r4", "r5")                 /* 15..18 */
    "  AND r6, r2, r7\n"             /* 19 */
    "  JEQS r6, 0, skip\n"           /* 20 */
    "  ADDK r4, r4, 1\n"             /* 21: t */
    "skip:\n"
    "  ADDK r2, r2, 1\n"             /* 22 */
    "  JMP outer\n"                  /* 23 */
    "out:\n"
    "  RET r4\n"                     /* 24 */
    "end\n"
    SEQ("seq_near", "")
    SEQ("seq_far", DIV4("r2", "r3"))
    /* a loop of its own around an inlined callee's loop */
    "method work (int) : int static\n"
    "  regs int, int, int\n"
    "  LDI r1, 0\n"
    "  LDI r3, 7\n"
    "head:\n"
    "  JLE r0, r1, out\n"
    "  DIV r2, r2, r3\n"
    "  DIV r2, r2, r3\n"
    "  ADDK r1, r1, 1\n"
    "  JMP head\n"
    "out:\n"
    "  RET r2\n"
    "end\n"
    "method calls (int, int) : int static\n"
    "  regs int, int, int, int\n"
    "top:\n"
    "  JLE r0, r2, out\n"            /* 0 */
    "  MOV r4, r1\n"                 /* 1 */
    "  CALL r5, r4, work\n"          /* 2 */
    "  ADD r3, r3, r5\n"             /* 3 */
    "  ADDK r2, r2, 1\n"             /* 4 */
    "  JMP top\n"                    /* 5 */
    "out:\n"
    "  RET r3\n"                     /* 6 */
    "end\n"
    /* if x < 0: -1 else two DIVs */
    "method diamond (int) : int static\n"
    "  regs int\n"
    "  JLTS r0, 0, neg\n"            /* 0: cost 1 */
    "  DIV r1, r0, r0\n"             /* 1: pos, cost 51 */
    "  DIV r1, r1, r0\n"             /* 2 */
    "  JMP done\n"                   /* 3 */
    "neg:\n"
    "  LDI r1, -1\n"                 /* 4: cost 2 */
    "done:\n"
    "  RET r1\n"                     /* 5: cost 2 */
    "end\n"
    "method straight (int) : int static\n"
    "  ADDK r0, r0, 1\n"
    "  RET r0\n"
    "end\n"
    "method main () : void static\n"
    "  regs int, int, int, int\n"
    "  LDI r0, 10000\n"
    "  CALL r1, r0, rare\n"
    "  CALL r1, r0, rare\n"
    "  CALL r1, r0, rare\n"
    "  LDI r3, 100000\n"
    "again:\n"
    "  LDI r0, 3\n"
    "  CALL r1, r0, often\n"
    "  LOOP r2, r3, again\n"
    "  LDI r0, 10000\n"
    "  CALL r1, r0, spin\n"
    "  LDI r0, 10\n"
    "  LDI r1, 1000\n"
    "  CALL r2, r0, nest\n"
    "  LDI r0, 1000\n"
    "  LDI r1, 2\n"
    "  CALL r2, r0, tailnest\n"
    "  LDI r0, 1000\n"
    "  CALL r1, r0, seq_near\n"
    "  CALL r1, r0, seq_far\n"
    "  LDI r0, 10\n"
    "  LDI r1, 1000\n"
    "  CALL r2, r0, calls\n"
    "  LDI r0, 5\n"
    "  CALL r1, r0, diamond\n"
    "  CALL r1, r0, straight\n"
    "  RETV\n"
    "end\n";


/* Assembles, links and runs sel_src; NULL (and a failure) if it does not
 * load. */
static Vm *run_sel(void)
{
    Vm *vm = test_load_tla(sel_src, NULL);
    if (vm)
        CHECK_INT(test_run_quiet(vm, 0, NULL), 0);
    return vm;
}

/* name compiled to IR (inlining allowed) with its invariants checked. */
static IrFunc *compile(Vm *vm, const char *name)
{
    VmMethod *m = vm ? test_method(vm, name) : NULL;
    if (!m)
        return NULL;
    IrOptions o;
    ir_options_default(&o);
    o.max_callee_size = 40;
    o.max_depth = 3;
    o.max_growth = 400;
    VmError err;
    IrFunc *f = ir_compile(m, &o, NULL, &err);
    if (!f) {
        test_fail(__FILE__, __LINE__, "ir_compile %s: %s", name, err.msg);
        return NULL;
    }
    if (!ir_check(f, &err))
        test_fail(__FILE__, __LINE__, "ir_check: %s", err.msg);
    return f;
}

/* The method's own block at pc (a test failure if there is none). */
static const IrBlock *block_at(const IrFunc *f, uint32_t pc)
{
    for (uint32_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->pc == pc && f->blocks[i]->origin == f->method && f->blocks[i]->depth == 0)
            return f->blocks[i];
    test_fail(__FILE__, __LINE__, "no block at pc %u", pc);
    return NULL;
}

static uint32_t id_at(const IrFunc *f, uint32_t pc)
{
    const IrBlock *b = block_at(f, pc);
    return b ? b->id : UINT32_MAX;
}

static bool loop_has(const IrLoop *lp, uint32_t block)
{
    for (uint32_t k = 0; k < lp->nblocks; k++)
        if (lp->blocks[k]->id == block)
            return true;
    return false;
}

static MkTunables tunables(double target, int64_t min_cost)
{
    MkTunables t;
    mk_tunables_default(&t);
    t.target = target;
    t.min_cost = min_cost;
    return t;
}

/* Every point is one of the method's own blocks, described as the IR has it. */
static void check_points(const IrFunc *f, const MkPlan *p)
{
    for (uint32_t k = 0; k < p->n; k++) {
        const MkPoint *pt = &p->v[k];
        CHECK(pt->block < f->nblocks);
        if (pt->block >= f->nblocks)
            continue;
        const IrBlock *b = f->blocks[pt->block];
        CHECK_INT(pt->depth, 0);
        CHECK_INT(b->depth, 0);
        CHECK(b->origin == f->method);
        CHECK_INT(pt->pc, b->pc);
        CHECK(pt->pc != UINT32_MAX);
        CHECK(pt->freq == b->freq);
        CHECK(b->loop && pt->loop == (int32_t)b->loop->id);
        if (k)
            CHECK(p->v[k - 1].block < pt->block);
    }
}

/* ---- mk_select ----------------------------------------------------------- */

TEST(mk_select_rare_method_one_point_in_its_loop)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "rare");
    if (f) {
        MkTunables t = tunables(0.05, 100);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        /* 3 calls of 10,000 iterations: entry 3 of 60,009 block counts */
        CHECK(fabs(p.entry_freq - 3.0 / 60009.0) < 1e-12);
        CHECK_INT(p.n, 1);
        if (p.n == 1) {
            CHECK_INT(f->nloops, 1);
            CHECK(loop_has(f->loops[0], p.v[0].block));
            CHECK_INT(p.v[0].loop, 0);
            /* body (30,000) is closer to the target than the head (30,003) */
            CHECK_INT(p.v[0].pc, 3);
            CHECK_INT(p.v[0].block, id_at(f, 3));
        }
        check_points(f, &p);
        mk_plan_free(&p);
        CHECK(p.v == NULL && p.n == 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_often_called_method_keeps_method_timings)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "often");
    if (f) {
        MkTunables t = tunables(0.05, 100);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        /* 100,000 calls of 3 iterations: entry 1/9 of the counts */
        CHECK(fabs(p.entry_freq - 1.0 / 9.0) < 1e-9);
        CHECK_INT(p.n, 0);
        CHECK_CONTAINS(p.reason, "called often for its loops' work");
        CHECK_CONTAINS(p.reason, "entry frequency 1111 bp");
        CHECK_CONTAINS(p.reason, "markers.entry_freq 100 bp");
        mk_plan_free(&p);
        /* just below the entry frequency it would be timed by its loop */
        t.entry_freq = 0.1112;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 1);
        mk_plan_free(&p);
        t.entry_freq = 0.01;
        CHECK(mk_select(f, &t, true, &p));
        CHECK_INT(p.n, 1);
        if (p.n)
            CHECK_INT(p.v[0].pc, 3);
        check_points(f, &p);
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_tight_loop_too_tight)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "spin");
    if (f) {
        MkTunables t = tunables(0.05, 100);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 0);
        CHECK_STR(p.reason, "every loop too tight (shortest cycle 3 < markers.min_cost 100)");
        mk_plan_free(&p);
        /* the bound is inclusive: a cycle of 3 passes min_cost 3, not 4 */
        t.min_cost = 4;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 0);
        mk_plan_free(&p);
        t.min_cost = 3;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 1);
        check_points(f, &p);
        mk_plan_free(&p);
        t.min_cost = 1;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 1);
        if (p.n)
            CHECK_INT(p.v[0].pc, 2);
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_cold_outer_loop_hot_inner_loop)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "nest");
    if (f) {
        CHECK_INT(f->nloops, 2);
        MkTunables t = tunables(0.05, 100);
        /* 10 outer iterations of 1,000 inner: the outer header's 11 counts
         * are far below the target, the inner header's 10,010 above it */
        CHECK(block_at(f, 1) && block_at(f, 1)->freq < t.target);
        CHECK(block_at(f, 3) && block_at(f, 3)->freq > t.target);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 1);
        if (p.n && f->nloops == 2) {
            const IrLoop *inner = f->loops[1];
            CHECK(inner->header == block_at(f, 3));
            CHECK_INT(p.v[0].loop, 1);
            CHECK(loop_has(inner, p.v[0].block));
            CHECK_INT(p.v[0].pc, 4);
        }
        check_points(f, &p);
        mk_plan_free(&p);
        /* a target above every header: nothing qualifies */
        t.target = 0.6;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 0);
        CHECK_CONTAINS(p.reason, "no loop is hot enough");
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_same_loop_twice_points_in_block_order)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "tailnest");
    if (f) {
        /* 1,000 outer iterations: headers 1,001 and 3,000, bodies 1,000 and
         * 2,000, t 500 of 9,503.  t (526 bp) is closest to 700 bp; 174 bp
         * remain, below the outer header: the block closest to them that is
         * far enough from t both ways is the tail (pc 15, 1,000): the outer
         * body (pc 3) ties but is 5 from t (t, skip, outer header) */
        MkTunables t = tunables(0.07, 100);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 2);
        if (p.n == 2) {
            CHECK_INT(p.v[0].pc, 15);
            CHECK_INT(p.v[1].pc, 21);
            CHECK(p.v[0].block < p.v[1].block);
            CHECK_INT(p.v[0].loop, 0);
            CHECK_INT(p.v[1].loop, 0);
        }
        CHECK_INT(mk_cost_distance(f, id_at(f, 21), id_at(f, 3)), 5);
        CHECK_INT(mk_cost_distance(f, id_at(f, 21), id_at(f, 15)), 108);
        CHECK_INT(mk_cost_distance(f, id_at(f, 15), id_at(f, 21)), 102);
        check_points(f, &p);
        mk_plan_free(&p);
        t.max_points = 1;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 1);
        if (p.n)
            CHECK_INT(p.v[0].pc, 21);
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_sequential_loops_min_cost_apart)
{
    Vm *vm = run_sel();
    /* 1,000 iterations each: h1 1,001, t1 500, h2 1,001, b2 1,000 of 5,505
     * (far: the same).  Target 1,200 bp: t1 (908 bp) first, then 292 bp
     * remain; loop 1's other blocks are within 5 of t1, refused */
    MkTunables t = tunables(0.12, 100);
    IrFunc *f = compile(vm, "seq_far");
    if (f) {
        CHECK_INT(f->nloops, 2);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 2);
        if (p.n == 2 && f->nloops == 2) {
            CHECK_INT(p.v[0].pc, 9);
            CHECK_INT(p.v[0].loop, 0);
            CHECK_INT(p.v[1].pc, 18);
            CHECK_INT(p.v[1].loop, 1);
            uint64_t there = mk_cost_distance(f, p.v[0].block, p.v[1].block);
            uint64_t back = mk_cost_distance(f, p.v[1].block, p.v[0].block);
            /* t1 2, skip 2, h1 1, out1 4·25 + LDI + JMP, h2 1 */
            CHECK_INT(there, 108);
            CHECK(back == UINT64_MAX);
        }
        check_points(f, &p);
        mk_plan_free(&p);
    }
    ir_free(f);
    f = compile(vm, "seq_near");
    if (f) {
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        /* from t1 to loop 2 costs 8: the second point is refused */
        CHECK_INT(mk_cost_distance(f, id_at(f, 9), id_at(f, 14)), 8);
        CHECK_INT(p.n, 1);
        if (p.n)
            CHECK_INT(p.v[0].pc, 9);
        check_points(f, &p);
        mk_plan_free(&p);
        /* with min_cost 8 both pass (the own cycles are 105 and more) */
        t.min_cost = 8;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 2);
        check_points(f, &p);
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_only_own_blocks_around_inlined_loop)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "calls");
    if (f) {
        /* work and its loop were inlined: a loop headed at depth 1 */
        CHECK_INT(f->nloops, 2);
        bool inlined_loop = false;
        for (uint32_t i = 0; i < f->nloops; i++)
            inlined_loop |= f->loops[i]->header->depth == 1;
        CHECK(inlined_loop);
        /* the own loop's header (11 of about 20,000 counts) is cold */
        MkTunables t = tunables(0.05, 100);
        MkPlan p;
        CHECK(mk_select(f, &t, false, &p));
        CHECK_INT(p.n, 0);
        CHECK_CONTAINS(p.reason, "no loop is hot enough");
        mk_plan_free(&p);
        /* a target of 1 bp makes it qualify; the hot blocks in it are the
         * inlined ones, and none is chosen */
        t = tunables(0.0001, 1);
        CHECK(mk_select(f, &t, false, &p));
        CHECK(p.n >= 1);
        check_points(f, &p);
        for (uint32_t k = 0; k < p.n; k++)
            CHECK(p.v[k].pc == 0 || p.v[k].pc == 1);
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(mk_select_no_loop_no_profile)
{
    Vm *vm = run_sel();
    MkTunables t = tunables(0.05, 100);
    MkPlan p;
    IrFunc *f = compile(vm, "straight");
    if (f) {
        CHECK(mk_select(f, &t, true, &p));
        CHECK_INT(p.n, 0);
        CHECK_STR(p.reason, "no loop");
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
    /* a program that never ran: no counts */
    vm = test_load_tla(sel_src, NULL);
    f = compile(vm, "rare");
    if (f) {
        CHECK(!f->has_counts);
        CHECK(mk_select(f, &t, true, &p));
        CHECK_INT(p.n, 0);
        CHECK_STR(p.reason, "no profile");
        mk_plan_free(&p);
    }
    ir_free(f);
    test_unload(vm);
}

/* ---- mk_cost_distance ---------------------------------------------------- */

TEST(mk_cost_distance_by_hand)
{
    Vm *vm = run_sel();
    IrFunc *f = compile(vm, "diamond");
    if (f) {
        uint32_t e = id_at(f, 0), pos = id_at(f, 1), neg = id_at(f, 4), done = id_at(f, 5);
        /* e (BR) 1, then the cheaper arm: neg (LDI + JMP) 2 */
        CHECK_INT(mk_cost_distance(f, e, done), 3);
        CHECK_INT(mk_cost_distance(f, e, pos), 1);
        /* pos: two DIVs and a JMP */
        CHECK_INT(mk_cost_distance(f, pos, done), 51);
        CHECK_INT(mk_cost_distance(f, neg, done), 2);
        CHECK_INT(mk_cost_distance(f, e, e), UINT64_MAX);      /* no cycle */
        CHECK(mk_cost_distance(f, done, e) == UINT64_MAX);     /* backwards */
        CHECK(mk_cost_distance(f, pos, neg) == UINT64_MAX);    /* other arm */
        CHECK(mk_cost_distance(f, e, f->nblocks) == UINT64_MAX);
    }
    ir_free(f);
    f = compile(vm, "seq_near");
    if (f) {
        uint32_t h1 = id_at(f, 2), b1 = id_at(f, 3), t1 = id_at(f, 9), skip = id_at(f, 10);
        /* the cycles through h1 avoid t1: h1 1 + b1 102 + skip 2 */
        CHECK_INT(mk_cost_distance(f, h1, h1), 105);
        CHECK_INT(mk_cost_distance(f, b1, b1), 105);
        /* through t1: + t1 2 */
        CHECK_INT(mk_cost_distance(f, t1, t1), 107);
        CHECK_INT(mk_cost_distance(f, t1, skip), 2);
        CHECK_INT(mk_cost_distance(f, skip, t1), 105);
        CHECK_INT(mk_cost_distance(f, h1, skip), 103);
        CHECK_INT(mk_cost_distance(f, skip, skip), 105);
    }
    ir_free(f);
    test_unload(vm);
}

/* ---- mk_select_every ------------------------------------------------------ */

TEST(mk_select_every_counts)
{
    Vm *vm = run_sel();
    const char *names[] = {"nest", "calls", "straight", "tailnest"};
    for (int i = 0; i < 4; i++) {
        IrFunc *f = compile(vm, names[i]);
        if (!f)
            continue;
        MkPlan p;
        CHECK(mk_select_every(f, false, &p));
        CHECK_INT(p.n, f->nloops);
        for (uint32_t k = 0; k < p.n; k++) {
            const IrBlock *b = f->blocks[p.v[k].block];
            CHECK(b->loop && b->loop->header == b);
            CHECK_INT(p.v[k].loop, b->loop ? (int32_t)b->loop->id : -2);
            CHECK_INT(p.v[k].depth, b->depth);
            CHECK_INT(p.v[k].pc, b->pc);
        }
        if (!strcmp(names[i], "calls")) {   /* the inlined loop's header too */
            bool deep = false;
            for (uint32_t k = 0; k < p.n; k++)
                deep |= p.v[k].depth == 1;
            CHECK(deep);
        }
        mk_plan_free(&p);
        CHECK(mk_select_every(f, true, &p));
        CHECK_INT(p.n, f->nblocks);
        for (uint32_t k = 0; k < p.n; k++) {
            CHECK_INT(p.v[k].block, k);
            const IrBlock *b = f->blocks[k];
            CHECK_INT(p.v[k].loop, b->loop ? (int32_t)b->loop->id : -1);
        }
        mk_plan_free(&p);
        ir_free(f);
    }
    test_unload(vm);
}

/* ---- every method of every test program ----------------------------------- */

/* What any plan promises, whatever the program: at most max_points own
 * blocks in block order, each on a cycle of at least min_cost and at least
 * min_cost from every other point one way or the other; a reason when
 * empty. */
static void check_plan(const char *path, const IrFunc *f, const MkTunables *t, const MkPlan *p)
{
    check_points(f, p);
    CHECK(p->n <= (uint32_t)t->max_points);
    if (!p->n && !p->reason[0])
        test_fail(__FILE__, __LINE__, "%s: %s: no point and no reason", path, f->method->name);
    for (uint32_t k = 0; k < p->n; k++) {
        uint64_t cyc = mk_cost_distance(f, p->v[k].block, p->v[k].block);
        if (cyc < (uint64_t)t->min_cost)
            test_fail(__FILE__, __LINE__, "%s: %s: point %u on a cycle of %llu", path, f->method->name, k,
                      (unsigned long long)cyc);
        for (uint32_t j = 0; j < k; j++) {
            uint64_t there = mk_cost_distance(f, p->v[j].block, p->v[k].block);
            uint64_t back = mk_cost_distance(f, p->v[k].block, p->v[j].block);
            if ((there < back ? there : back) < (uint64_t)t->min_cost)
                test_fail(__FILE__, __LINE__, "%s: %s: points %u and %u %llu apart", path, f->method->name, j, k,
                          (unsigned long long)(there < back ? there : back));
        }
    }
}

typedef struct {
    int methods, planned, multi;   /* compiled; plans with a point, with two */
} CorpusCounts;

static void plan_program(TestProgram *p, void *ctx)
{
    CorpusCounts *c = ctx;
    VmModule *m = p->m;
    Vm *vm = test_link(m, &p->tun.vm, false);
    if (!vm)
        return;
    test_run_quiet(vm, p->nargs, p->args);
    /* the defaults, then targets and distances that let several points in */
    MkTunables tuns[4];
    tuns[0] = tunables(0.05, 100);
    tuns[1] = tunables(0.2, 10);
    tuns[2] = tunables(0.3, 0);
    tuns[3] = tunables(0.02, 0);
    tuns[2].max_points = tuns[3].max_points = 64;
    for (uint32_t i = 0; i < m->nmethods; i++) {
        VmMethod *mm = &m->methods[i];
        if (!mm->code || !mm->ncode)
            continue;
        VmError err;
        IrFunc *f = ir_compile(mm, &p->tun.ir, NULL, &err);
        if (!f)
            continue;   /* test_ir's business */
        c->methods++;
        for (int v = 0; v < 4; v++) {
            for (int forced = 0; forced < 2; forced++) {
                MkPlan plan;
                CHECK(mk_select(f, &tuns[v], forced, &plan));
                check_plan(p->path, f, &tuns[v], &plan);
                c->planned += plan.n > 0;
                c->multi += plan.n > 1;
                mk_plan_free(&plan);
            }
        }
        MkPlan plan;
        CHECK(mk_select_every(f, true, &plan));
        CHECK_INT(plan.n, f->nblocks);
        mk_plan_free(&plan);
        ir_free(f);
    }
    test_unload(vm);
}

TEST(mk_select_invariants_on_all_programs)
{
    CorpusCounts c = {0};
    int nprog = test_corpus_each(NULL, plan_program, &c);
    CHECK(nprog >= 50);
    CHECK(c.methods >= 200);
    CHECK(c.planned >= 20);
    CHECK(c.multi >= 5);          /* the pairwise checks had pairs */
}
