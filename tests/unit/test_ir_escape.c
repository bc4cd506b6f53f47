/* tests/unit/test_ir_escape.c — ir/escape.c: which NEW sites become frame
 * slots (NEWL) and why the others stay on the heap.
 *
 * Programs are Tally source run in the interpreter first (output thrown
 * away), so the inliner sees real profiles; then one method is compiled to
 * IR and its site verdicts (IrFunc.sites) are checked.
 */
#include "ir.h"
#include "test.h"
#include "vm.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const char *esc_src =
    "class Vec {\n"
    "  x: int; y: int;\n"
    "  init(x: int, y: int) { self.x = x; self.y = y; }\n"
    "  fn plus(o: Vec): Vec { return Vec(self.x + o.x, self.y + o.y); }\n"
    "  fn dot(o: Vec): int { return self.x * o.x + self.y * o.y; }\n"
    "}\n"
    "class Holder { v: Vec; }\n"
    "fn temps(n: int): int {\n"                      /* all three in the frame */
    "  var s = 0;\n"
    "  for i in 0..n { let a = Vec(i, 1); let b = Vec(2, i); s += a.plus(b).dot(a); }\n"
    "  return s;\n"
    "}\n"
    "fn stored(n: int, h: Holder): int {\n"          /* PUTF of the reference */
    "  for i in 0..n { h.v = Vec(i, i); }\n"
    "  return h.v.x;\n"
    "}\n"
    "fn made(i: int): Vec { return Vec(i, i); }\n"   /* RET */
    "fn chained(n: int): int {\n"                    /* the previous one is live */
    "  var prev = Vec(0, 0);\n"
    "  var s = 0;\n"
    "  for i in 0..n { let cur = Vec(i, i); s += prev.x; prev = cur; }\n"
    "  return s;\n"
    "}\n"
    "fn keepIt(h: Holder, v: Vec) { h.v = v; }\n"
    "fn walk(v: Vec, d: int): int { if d == 0 { return v.x; } return walk(v, d - 1) + v.y; }\n"
    "fn leakAt(h: Holder, v: Vec, d: int): int { if d == 0 { h.v = v; return 0; } return leakAt(h, v, d - 1); }\n"
    "fn ping(h: Holder, v: Vec, d: int): int { if d == 0 { return v.x; } return pong(h, v, d - 1); }\n"
    "fn pong(h: Holder, v: Vec, d: int): int { if d == 3 { h.v = v; } return ping(h, v, d); }\n"
    "fn passed(n: int, h: Holder): int {\n"         /* a callee keeps it */
    "  for i in 0..n { keepIt(h, Vec(i, i)); }\n"
    "  return h.v.x;\n"
    "}\n"
    "class Bag { items: Vec[]; n: int; init() { self.items = new Vec[4]; }\n"
    "  fn add(v: Vec) { self.items[self.n] = v; self.n += 1; }\n"
    "  fn first(): Vec { return self.items[0]; } }\n"
    "fn total(a: int[]): int { var s = 0; for j in 0..a.length { s += a[j]; } return s; }\n"
    "fn arrays(n: int): int {\n"                    /* arrays of constant length */
    "  var s = 0;\n"
    "  for i in 0..n { let a = new int[8]; a[3] = i; s += total(a); let b = Bag(); b.add(Vec(i, i)); }\n"
    "  return s;\n"
    "}\n"
    "fn zeros(k: int): int[] { let z = k; return new int[z]; }\n"   /* a factory: its length comes in */
    "fn factory(n: int): int {\n"
    "  var s = 0;\n"
    "  for i in 0..n { let a = zeros(6); a[1] = i; s += total(a); }\n"
    "  return s;\n"
    "}\n"
    "fn main() {\n"
    "  let h = Holder();\n"
    "  var s = 0;\n"
    "  for k in 0..50 { s += temps(40) + stored(40, h) + made(k).x + chained(40) + passed(40, h) + arrays(40) + factory(40); }\n"
    "  println(s);\n"
    "}\n";

static Vm *run_tl(const char *src)
{
    Vm *vm = test_load_tl("esc.tl", src, NULL);
    if (!vm)
        return NULL;
    fflush(stdout);
    int so = dup(1), nul = open("/dev/null", O_WRONLY);
    dup2(nul, 1);
    int status = vm_run(vm, 0, NULL);
    fflush(stdout);
    dup2(so, 1);
    close(so), close(nul);
    CHECK_INT(status, 0);
    return vm;
}

static IrFunc *compile(Vm *vm, const char *name, bool stack_alloc, int64_t depth)
{
    VmMethod *m = vm ? test_method(vm, name) : NULL;
    if (!m)
        return NULL;
    IrOptions o;
    ir_options_default(&o);
    o.stack_alloc = stack_alloc;
    o.max_depth = depth;
    VmError err;
    IrFunc *f = ir_compile(m, &o, NULL, &err);
    if (!f)
        test_fail(__FILE__, __LINE__, "ir_compile %s: %s", name, err.msg);
    else if (!ir_check(f, &err))
        test_fail(__FILE__, __LINE__, "ir_check: %s", err.msg);
    return f;
}


/* The verdict on the NEW at pc of method `origin`; NULL (a failure) if none. */
static const IrSite *site(const IrFunc *f, const char *origin, uint32_t pc)
{
    for (uint32_t i = 0; f && i < f->nsites; i++)
        if (f->sites[i].pc == pc && !strcmp(f->sites[i].origin->name, origin))
            return &f->sites[i];
    test_fail(__FILE__, __LINE__, "no site %s@%u", origin, pc);
    return NULL;
}

/* The first site of `origin` (any pc). */
static const IrSite *site_in(const IrFunc *f, const char *origin)
{
    for (uint32_t i = 0; f && i < f->nsites; i++)
        if (!strcmp(f->sites[i].origin->name, origin))
            return &f->sites[i];
    test_fail(__FILE__, __LINE__, "no site in %s", origin);
    return NULL;
}

TEST(ir_escape_temporaries_in_frame)
{
    Vm *vm = run_tl(esc_src);
    IrFunc *f = compile(vm, "temps", true, 3);
    if (f) {
        /* a, b and plus's result: the slow sides of the guards get only
         * null receivers (every object in them is a Vec) */
        CHECK_INT(test_ir_count_op(f, IR_NEW), 0);
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 3);
        CHECK_INT(f->nslots, 3);
        const IrSite *s = site_in(f, "Vec.plus");
        if (s) {
            CHECK_INT(s->stack, 1);
            CHECK_CONTAINS(s->reason, "slot");
        }
    }
    ir_free(f);
    /* off: nothing changes */
    f = compile(vm, "temps", false, 3);
    if (f) {
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 0);
        CHECK_INT(f->nsites, 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_escape_stored_returned_passed)
{
    Vm *vm = run_tl(esc_src);
    IrFunc *f = compile(vm, "stored", true, 3);
    if (f) {
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 0);
        const IrSite *s = site_in(f, "stored");
        if (s)
            CHECK_CONTAINS(s->reason, "escapes: PUTF at stored@");
    }
    ir_free(f);
    f = compile(vm, "made", true, 3);
    if (f) {
        const IrSite *s = site(f, "made", 0);
        if (s) {
            CHECK_INT(s->stack, 0);
            CHECK_CONTAINS(s->reason, "escapes: RET at made@");
        }
    }
    ir_free(f);
    /* without inlining, the calls only read a and b (ir/argesc.c) */
    f = compile(vm, "temps", true, 0);
    if (f)
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 2);
    ir_free(f);
    /* ... but keepIt keeps its second argument */
    f = compile(vm, "passed", true, 0);
    if (f) {
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 0);
        const IrSite *s = site_in(f, "passed");
        if (s)
            CHECK_CONTAINS(s->reason, "escapes: CALL at passed@");
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_escape_slot_reuse_needs_dead_object)
{
    Vm *vm = run_tl(esc_src);
    IrFunc *f = compile(vm, "chained", true, 3);
    if (f) {
        /* the first Vec runs once: frame; the one in the loop is still
         * referenced from prev when it runs again */
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 1);
        const IrSite *s = site(f, "chained", 0);
        if (s)
            CHECK_INT(s->stack, 1);
        uint32_t heap = 0;
        for (uint32_t i = 0; i < f->nsites; i++)
            if (!f->sites[i].stack) {
                heap++;
                CHECK_STR(f->sites[i].reason, "still live when it runs again");
            }
        CHECK_INT(heap, 1);
    }
    ir_free(f);
    test_unload(vm);
}

/* What a callee does with its arguments: loads after which they escape. */
TEST(ir_argesc_summaries)
{
    Vm *vm = run_tl(esc_src);
    VmMethod *plus = vm ? test_method(vm, "Vec.plus") : NULL, *keep = vm ? test_method(vm, "keepIt") : NULL;
    VmMethod *add = vm ? test_method(vm, "Bag.add") : NULL, *first = vm ? test_method(vm, "Bag.first") : NULL;
    IrFunc *f = plus && keep && add && first ? ir_func_new(plus) : NULL;
    if (f) {
        const IrArgEsc *a = ir_argesc(f, plus);
        CHECK_INT(a->known, 1);
        CHECK_INT(a->norig, 2);
        CHECK_INT(a->depth[0], IR_ARGESC_DEPTH);   /* only its int fields read */
        CHECK_INT(a->depth[1], IR_ARGESC_DEPTH);
        a = ir_argesc(f, keep);
        CHECK_INT(a->depth[0], IR_ARGESC_DEPTH);   /* stored into: stays */
        CHECK_INT(a->depth[1], 0);                 /* stored: escapes */
        a = ir_argesc(f, add);
        CHECK_INT(a->depth[0], IR_ARGESC_DEPTH);   /* self.items only written */
        CHECK_INT(a->depth[1], 0);
        CHECK_INT(a->invoked, 0);
        a = ir_argesc(f, first);
        CHECK_INT(a->depth[0], 2);                 /* returns self.items[0] */
        /* recursion: summarized under an assumption until it holds */
        a = ir_argesc(f, test_method(vm, "walk"));
        CHECK_INT(a->known, 1);
        CHECK_INT(a->depth[0], IR_ARGESC_DEPTH);
        a = ir_argesc(f, test_method(vm, "leakAt"));
        CHECK_INT(a->known, 1);
        CHECK_INT(a->depth[0], IR_ARGESC_DEPTH);
        CHECK_INT(a->depth[1], 0);
        a = ir_argesc(f, test_method(vm, "ping"));   /* through pong */
        CHECK_INT(a->known, 1);
        CHECK_INT(a->depth[1], 0);
        a = ir_argesc(f, test_method(vm, "pong"));
        CHECK_INT(a->depth[1], 0);
    }
    ir_free(f);
    test_unload(vm);
}

TEST(ir_escape_arrays_and_fields)
{
    Vm *vm = run_tl(esc_src);
    IrFunc *f = compile(vm, "arrays", true, 3);
    if (f) {
        /* a (only read by total) and the Bag's items (held by the
         * Bag's field, itself in the frame) */
        CHECK_INT(test_ir_count_op(f, IR_NEWAL), 2);
        CHECK_INT(test_ir_count_op(f, IR_NEWA), 0);
        const IrSite *s = site(f, "arrays", 10);
        if (s)
            CHECK_INT(s->stack, 1);
    }
    ir_free(f);
    /* the length reaches the inlined factory's NEWA through its
     * parameter and a copy, from the caller's block */
    f = compile(vm, "factory", true, 3);
    if (f) {
        CHECK_INT(test_ir_count_op(f, IR_NEWAL), 1);
        CHECK_INT(test_ir_count_op(f, IR_NEWA), 0);
    }
    ir_free(f);
    test_unload(vm);
}

/* ---- closures: inlined where they are made, then in the frame ----------- */

static const char *clos_src =
    "import \"collections\";\n"
    "class P { v: int; init(v: int) { self.v = v; } }\n"
    "class Acc { s: int; }\n"
    "class Keeper { f: fn(int): int; }\n"
    "fn sum(vec: Vector<P>): int {\n"   /* lambda behind a generic adapter */
    "  let acc = Acc();\n"
    "  vec.forEach(fn(p: P) { acc.s += p.v; });\n"
    "  return acc.s;\n"
    "}\n"
    "fn kept(k: Keeper, i: int): int {\n"   /* a closure read from a field */
    "  k.f = fn(x: int): int { return x + i; };\n"
    "  return k.f(1);\n"
    "}\n"
    "fn main() {\n"
    "  let vec = Vector<P>();\n"
    "  for i in 0..10 { vec.append(P(i)); }\n"
    "  let k = Keeper();\n"
    "  var t = 0;\n"
    "  for n in 0..100 { t += sum(vec) + kept(k, n); }\n"
    "  println(t);\n"
    "}\n";

static const IrDecision *decision_for(const IrFunc *f, const char *callee)
{
    for (uint32_t i = 0; f && i < f->ndecisions; i++)
        if (f->decisions[i].name && !strcmp(f->decisions[i].name, callee))
            return &f->decisions[i];
    test_fail(__FILE__, __LINE__, "no decision about %s", callee);
    return NULL;
}

TEST(ir_inline_closure_made_here)
{
    Vm *vm = run_tl(clos_src);
    IrFunc *f = compile(vm, "sum", true, 3);
    if (f) {
        /* forEach (monomorphic), its closure call (the adapter: a CLOS of
         * sum, passed in), the adapter's call (its capture: the lambda) */
        const IrDecision *d = decision_for(f, "$adapt1");
        if (d) {
            CHECK_INT(d->yes, 1);
            CHECK_CONTAINS(d->reason, "closure made here");
        }
        d = decision_for(f, "sum$lambda1");
        if (d)
            CHECK_INT(d->yes, 1);
        CHECK_INT(test_ir_count_op(f, IR_GUARD_FN), 2);
        CHECK_INT(test_ir_count_op(f, IR_CALLF), 2);   /* the guards' slow sides */
        /* Vector has no subclass: forEach's slow side gets only null, so
         * the adapter, the lambda it captures and the Acc that captures
         * all stay in the frame */
        CHECK_INT(test_ir_count_op(f, IR_CLOSL), 2);
        CHECK_INT(test_ir_count_op(f, IR_NEWL), 1);
        CHECK_INT(test_ir_count_op(f, IR_CLOS) + test_ir_count_op(f, IR_NEW), 0);
    }
    ir_free(f);
    /* the adapter only forwards: the lambda's call is at its depth (1),
     * so max_depth 2 reaches the lambda through forEach and the adapter */
    f = compile(vm, "sum", true, 2);
    if (f) {
        const IrDecision *d = decision_for(f, "sum$lambda1");
        if (d) {
            CHECK_INT(d->yes, 1);
            CHECK_INT(d->depth, 1);
        }
        CHECK_INT(test_ir_count_op(f, IR_GUARD_FN), 2);
        for (uint32_t i = 0; i < f->ninlines; i++)   /* the chain still nests */
            if (!strcmp(f->inlines[i]->callee->name, "sum$lambda1"))
                CHECK_INT(f->inlines[i]->depth, 3);
    }
    ir_free(f);
    f = compile(vm, "kept", true, 3);
    if (f) {
        const IrDecision *d = decision_for(f, "closure");
        if (d) {
            CHECK_INT(d->yes, 0);
            CHECK_CONTAINS(d->reason, "no known lambda");
        }
        CHECK_INT(test_ir_count_op(f, IR_GUARD_FN), 0);
        const IrSite *s = site_in(f, "kept");
        if (s) {
            CHECK_INT(s->closure, 1);
            CHECK_CONTAINS(s->reason, "escapes: PUTF");
        }
    }
    ir_free(f);
    test_unload(vm);
}

/* ir/deadstore.c: a default constructor's array replaced at once goes;
 * a store something may read first, or into an object that may be null,
 * stays. */
static const char *dse_src =
    "class Vec { storage: int[]; n: int; init() { self.storage = new int[50]; } }\n"
    "class Bag { items: Vec; init() { self.items = Vec(); self.items.storage = new int[10]; } }\n"
    "fn peek(v: Vec): int { return v.storage.length; }\n"
    "fn replaced(): int { return Bag().items.storage.length; }\n"
    "fn readFirst(): int {\n"                        /* read through a copy */
    "  let v = Vec(); let w = v; let k = w.storage.length; v.storage = new int[3]; return k + v.storage.length;\n"
    "}\n"
    "fn callFirst(): int {\n"                        /* a call may read it */
    "  let v = Vec(); let k = peek(v); v.storage = new int[3]; return k + v.storage.length;\n"
    "}\n"
    "fn notNew(v: Vec): int { v.n = 1; v.n = 2; return v.n; }\n"
    "fn main() {\n"
    "  var s = 0;\n"
    "  for k in 0..50 { s += replaced() + readFirst() + callFirst() + notNew(Vec()); }\n"
    "  println(s);\n"
    "}\n";

static uint32_t dead_of(const IrFunc *f, uint8_t op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; f && i < f->ndead; i++)
        n += f->dead[i].op == op;
    return n;
}

TEST(ir_dead_stores_and_allocations)
{
    Vm *vm = run_tl(dse_src);
    IrFunc *f = compile(vm, "replaced", true, 3);
    if (f) {
        CHECK_INT(dead_of(f, IR_PUTF), 1);
        CHECK_INT(dead_of(f, IR_NEWA), 1);
        CHECK_INT(test_ir_count_op(f, IR_NEWA) + test_ir_count_op(f, IR_NEWAL), 1);
        CHECK_STR(f->dead[0].what, "storage");
        CHECK_STR(f->dead[0].origin->name, "Vec.init");
        CHECK_STR(f->dead[0].by_origin->name, "Bag.init");
    }
    ir_free(f);
    const char *kept[] = {"readFirst", "callFirst", "notNew"};
    for (int i = 0; i < 3; i++) {
        f = compile(vm, kept[i], true, 3);
        if (f)
            CHECK_INT(f->ndead, 0);
        ir_free(f);
    }
    /* jit.dead_stores=0: both arrays stay */
    VmMethod *m = test_method(vm, "replaced");
    IrOptions o;
    ir_options_default(&o);
    o.dead_stores = false;
    VmError err;
    f = m ? ir_compile(m, &o, NULL, &err) : NULL;
    if (f) {
        CHECK_INT(f->ndead, 0);
        CHECK_INT(test_ir_count_op(f, IR_NEWA) + test_ir_count_op(f, IR_NEWAL), 2);
    }
    ir_free(f);
    test_unload(vm);
}
