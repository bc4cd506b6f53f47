/* ir/pass.c — the IR pipeline: one flat list of passes, run in order.
 *
 * Input: a linked method and the compile request's IrOptions.  Output: an
 * IrFunc satisfying every invariant of ir.h, or NULL with a message.
 * Invariants: each pass states what it requires and what it establishes
 * or breaks; the list is ordered so every requirement holds when its pass
 * runs.  A pass is a plain function over the IrFunc; adding one (marker
 * insertion, say) is one line in `passes`.  With a dump stream, the
 * function is printed after every pass (-X jit.dump=ir).  Memory failure
 * anywhere unwinds here (IrFunc.oom) and the request fails cleanly.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct IrPass {
    const char *name;
    bool (*run)(IrFunc *f, const IrOptions *o, VmError *err);
    const char *requires;      /* documentation: what must hold before */
    const char *establishes;   /*   what holds after; what it breaks */
} IrPass;

static bool pass_build(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)o;
    return ir_build(f, err);
}

static bool pass_cfg(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)o, (void)err;
    ir_cfg(f);
    return true;
}

static bool pass_inline(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)err;
    ir_inline(f, o);
    return true;
}

static bool pass_deadstore(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)err;
    if (o->dead_stores)
        ir_dead_stores(f);
    return true;
}

static bool pass_loops(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)o, (void)err;
    ir_loops(f);
    ir_frequencies(f);
    return true;
}

static bool pass_escape(IrFunc *f, const IrOptions *o, VmError *err)
{
    (void)err;
    if (o->stack_alloc)
        ir_escape(f);
    return true;
}

static const IrPass passes[] = {
    {"build", pass_build,
     "a linked, verified method with code",
     "locals, blocks with explicit terminators, block and edge counts; no succs/preds yet"},
    {"cfg", pass_cfg,
     "terminators with targets",
     "succs/preds, no unreachable blocks, RPO order (id), idom"},
    {"inline", pass_inline,
     "block counts; cfg facts (counts of call blocks)",
     "callees spliced, decisions logged; breaks succs/preds, RPO, idom, loops, freq"},
    {"cfg", pass_cfg,
     "terminators with targets",
     "succs/preds, RPO, idom again"},
    {"deadstore", pass_deadstore,
     "preds (a trace follows JMPs to single-predecessor blocks)",
     "overwritten PUTFs and unread NEW/NEWA removed, f->dead; blocks, edges and locals unchanged"},
    {"loops", pass_loops,
     "cfg facts (idom, RPO, preds)",
     "natural loops with nesting and exits, block->loop, freq"},
    {"escape", pass_escape,
     "cfg facts (succs, RPO); inlining done",
     "some NEW/NEWA/CLOS -> NEWL/NEWAL/CLOSL, f->nslots; cfg, loops and freq unchanged"},
};

static const VmTunDesc ir_rows[] = {
#define TUNABLE(...) VM_TUN_ROW(IrOptions, __VA_ARGS__)
#include "ir_tunables.def"
#undef TUNABLE
};
const VmTunGroup ir_tun_group = {"ir", ir_rows, sizeof ir_rows / sizeof ir_rows[0]};

void ir_options_default(IrOptions *o)
{
    memset(o, 0, sizeof *o);
    vm_tun_defaults(&ir_tun_group, o);
}

bool ir_options_same(const IrOptions *a, const IrOptions *b)
{
#define TUNABLE(field, ...) if (a->field != b->field) return false;
#include "ir_tunables.def"
#undef TUNABLE
    return true;
}

/* Runs the list on f; the volatile parameters survive the longjmp. */
static bool run_passes(IrFunc *volatile f, const IrOptions *volatile o, FILE *volatile dump,
                       VmError *volatile err)
{
    jmp_buf oom;
    f->oom = &oom;
    if (setjmp(oom)) {
        vm_fail(err, "%s: out of memory building IR", f->method->name);
        return false;
    }
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) {
        if (!passes[i].run(f, o, err))
            return false;
        if (dump)
            ir_dump(f, passes[i].name, dump);
    }
    f->oom = NULL;
    return true;
}

IrFunc *ir_compile(VmMethod *m, const IrOptions *opt, FILE *dump, VmError *err)
{
    if (!m) {
        vm_fail(err, "no method");
        return NULL;
    }
    IrOptions def;
    if (!opt)
        ir_options_default(&def);
    IrFunc *f = ir_func_new(m);
    if (!f) {
        vm_fail(err, "%s: out of memory", m->name);
        return NULL;
    }
    if (!run_passes(f, opt ? opt : &def, dump, err)) {
        ir_free(f);
        return NULL;
    }
    return f;
}

IrFunc *ir_compile_request(VmMethod *m, const IrOptions *o, FILE *dump)
{
    return ir_compile(m, o, dump, NULL);
}
