/* ir/build.c — bytecode to IR: the first pass.
 *
 * Input: a linked method with code (VmInsn.k resolved by vm_link) and its
 * profile.  Output: f's locals (one per VM register, same type), one block
 * per basic block of vm_block_counts (so counts line up exactly with the
 * profile's view), each ending in an explicit terminator, with block counts
 * and per-edge counts from the branch profile.
 * Invariants: operands are mapped generically from the operand letters of
 * vm/opcodes.def to the IR op of the same name (ir/ops.def); only control
 * flow and a few constants are translated by hand.  When pc 0 is a branch
 * target, a synthetic entry block (count = calls) jumps to it, so the entry
 * never has predecessors.  succs/preds are left to ir_cfg.
 */
#include "ir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The IR op named like each VM op, or -1 (control flow, LDTRUE, ...);
 * computed once, from the two tables. */
static int vm2ir_table[VM_OP_COUNT];
static pthread_once_t vm2ir_once = PTHREAD_ONCE_INIT;

static void map_ops(void)
{
    for (int v = 0; v < VM_OP_COUNT; v++) {
        vm2ir_table[v] = -1;
        for (int o = 0; o < IR_OP_COUNT; o++)
            if (!strcmp(vm_op_info[v].name, ir_op_info[o].name) && !(ir_op_info[o].flags & IR_OPF_TERM))
                vm2ir_table[v] = o;
    }
}

static int32_t operand_value(const VmInsn *in, int pos)
{
    return pos == 0 ? in->a : pos == 1 ? in->b : in->c;
}

static int jpos(uint32_t op)
{
    const char *j = strchr(vm_op_info[op].operands, 'j');
    return j ? (int)(j - vm_op_info[op].operands) : -1;
}

/* BR condition of a conditional jump; imm: compares against an immediate. */
static bool branch_cond(uint32_t op, IrCond *cc, bool *imm)
{
    *imm = false;
    switch (op) {
    case VM_OP_JT: *cc = IR_CC_T; return true;
    case VM_OP_JF: *cc = IR_CC_F; return true;
    case VM_OP_JNULL: *cc = IR_CC_NULL; return true;
    case VM_OP_JNNULL: *cc = IR_CC_NNULL; return true;
    case VM_OP_JEQ: *cc = IR_CC_EQ; return true;
    case VM_OP_JNE: *cc = IR_CC_NE; return true;
    case VM_OP_JLT: *cc = IR_CC_LT; return true;
    case VM_OP_JLE: *cc = IR_CC_LE; return true;
    case VM_OP_JEQS: *cc = IR_CC_EQ; *imm = true; return true;
    case VM_OP_JNES: *cc = IR_CC_NE; *imm = true; return true;
    case VM_OP_JLTS: *cc = IR_CC_LT; *imm = true; return true;
    case VM_OP_JLES: *cc = IR_CC_LE; *imm = true; return true;
    case VM_OP_JGTS: *cc = IR_CC_GT; *imm = true; return true;
    case VM_OP_JGES: *cc = IR_CC_GE; *imm = true; return true;
    case VM_OP_FJLT: *cc = IR_CC_FLT; return true;
    case VM_OP_FJLE: *cc = IR_CC_FLE; return true;
    case VM_OP_FJNLT: *cc = IR_CC_FNLT; return true;
    case VM_OP_FJNLE: *cc = IR_CC_FNLE; return true;
    case VM_OP_FJEQ: *cc = IR_CC_FEQ; return true;
    case VM_OP_FJNE: *cc = IR_CC_FNE; return true;
    case VM_OP_LOOP: *cc = IR_CC_LT; return true;
    default: return false;
    }
}

static const VmBranchProf *slot_of(const VmMethod *m, const VmInsn *in)
{
    if (in->k.i < 0 || (uint64_t)in->k.i >= m->prof.nbranches || !m->prof.branches)
        return NULL;
    return &m->prof.branches[in->k.i];
}

static VmType *reg_type(const VmMethod *m, uint32_t r)
{
    const VmModule *mod = m->module;
    return &mod->types[m->regs[r]];
}

/* Translates one non-control instruction; false if the opcode is unknown. */
static bool translate(IrFunc *f, IrBlock *b, const VmMethod *m, const VmInsn *in, uint32_t pc,
                      const int *vm2ir)
{
    const VmModule *mod = m->module;
    IrInsn *x;
    switch (in->op) {
    case VM_OP_NOP:
        return true;
    case VM_OP_LDTRUE:
    case VM_OP_LDFALSE:
        x = ir_append(f, b, IR_LDI);
        x->dst = in->a;
        x->imm.i = in->op == VM_OP_LDTRUE;
        x->pc = pc;
        return true;
    default:
        break;
    }
    if (vm2ir[in->op] < 0)
        return false;
    x = ir_append(f, b, (IrOp)vm2ir[in->op]);
    x->pc = pc;
    const char *ops = vm_op_info[in->op].operands;
    int ns = 0;
    for (int pos = 0; ops[pos] && pos < 3; pos++) {
        int32_t v = operand_value(in, pos);
        switch (ops[pos]) {
        case 'd': case 'D': x->dst = v < 0 ? IR_NONE : v; break;
        case 'r': x->src[ns++] = v; break;
        case 'i': x->imm.i = in->k.i; break;
        case 'f': x->imm.f = in->k.f; break;
        case 'u': x->imm.i = v; break;
        case 'k': case 'g': x->aux = in->k.p; x->imm.i = v; break;
        case 'F':
            if (v < 0 || (uint32_t)v >= mod->nfields)
                return false;
            x->aux = &mod->fields[v];
            x->imm.i = in->k.i;
            break;
        default: x->aux = in->k.p; break;   /* m n t c: resolved by vm_link */
        }
    }
    switch (in->op) {
    case VM_OP_CALL:
        x->imm.i = ((VmMethod *)x->aux)->nparams;
        break;
    case VM_OP_CALLV:
    case VM_OP_CALLI:
        x->imm.i = ((VmCallSite *)x->aux)->target->nparams;
        break;
    case VM_OP_CALLN:
        x->imm.i = ((VmNative *)x->aux)->nparams;
        break;
    case VM_OP_CALLF: {
        const VmType *t = reg_type(m, (uint32_t)in->b);
        x->imm.i = 1 + (t->kind == VM_T_FUNC ? t->nparams : 0);
        break;
    }
    case VM_OP_CLOS:
        x->imm.i = ((VmMethod *)x->aux)->ncaps;
        break;
    case VM_OP_LDCAP:
        x->src[0] = 0;   /* the running lambda's closure */
        break;
    default:
        break;
    }
    /* no arguments: the base register may not even exist */
    if ((ir_op_info[x->op].flags & IR_OPF_ARGS) && x->imm.i == 0)
        x->src[0] = IR_NONE;
    return true;
}

bool ir_build(IrFunc *f, VmError *err)
{
    VmMethod *m = f->method;
    if (!m || !m->module || !m->module->linked)
        return vm_fail(err, "%s: method is not linked", m && m->name ? m->name : "?");
    if ((m->flags & VM_M_ABSTRACT) || !m->code || !m->ncode)
        return vm_fail(err, "%s: method has no code", m->name);
    uint32_t n = m->ncode;
    VmModule *mod = m->module;
    for (uint32_t r = 0; r < m->nregs; r++) {
        if (m->regs[r] >= mod->ntypes)
            return vm_fail(err, "%s: register %u has a bad type", m->name, r);
        ir_local_new(f, reg_type(m, r), m, r);
    }
    f->nparams = m->nparams;

    uint32_t *starts = ir_alloc(f, n * sizeof *starts);
    uint64_t *counts = ir_alloc(f, n * sizeof *counts);
    IrBlock **at = ir_alloc(f, n * sizeof *at);     /* leader pc -> block */
    pthread_once(&vm2ir_once, map_ops);
    const int *vm2ir = vm2ir_table;
    uint32_t nb = vm_block_counts(m, starts, counts);

    bool zero_target = false;
    for (uint32_t pc = 0; pc < n; pc++) {
        int j = m->code[pc].op < VM_OP_COUNT ? jpos(m->code[pc].op) : -1;
        if (j >= 0 && operand_value(&m->code[pc], j) == 0)
            zero_target = true;
    }
    IrBlock *entry = NULL;
    if (zero_target) {
        entry = ir_block_new(f, m, UINT32_MAX);
        entry->count = VM_PROF_GET(m->prof.calls);
    }
    for (uint32_t i = 0; i < nb; i++) {
        IrBlock *b = ir_block_new(f, m, starts[i]);
        b->count = counts[i];
        at[starts[i]] = b;
    }
    if (entry) {
        IrInsn *j = ir_append(f, entry, IR_JMP);
        j->target[0] = at[0];
        entry->edge_count[0] = entry->count;
    }

    for (uint32_t i = 0; i < nb; i++) {
        IrBlock *b = at[starts[i]];
        uint32_t end = i + 1 < nb ? starts[i + 1] : n;
        IrBlock *next = i + 1 < nb ? at[starts[i + 1]] : NULL;
        bool terminated = false;
        for (uint32_t pc = starts[i]; pc < end; pc++) {
            const VmInsn *in = &m->code[pc];
            if (in->op >= VM_OP_COUNT)
                return vm_fail(err, "%s at offset %u: bad opcode", m->name, pc);
            int j = jpos(in->op);
            IrCond cc;
            bool imm;
            if (in->op == VM_OP_RET || in->op == VM_OP_RETV) {
                IrInsn *x = ir_append(f, b, in->op == VM_OP_RET ? IR_RET : IR_RETV);
                x->pc = pc;
                if (in->op == VM_OP_RET)
                    x->src[0] = in->a;
                terminated = true;
            } else if (j >= 0) {
                int32_t tgt = operand_value(in, j);
                if (tgt < 0 || (uint32_t)tgt >= n || !at[tgt])
                    return vm_fail(err, "%s at offset %u: bad jump target", m->name, pc);
                const VmBranchProf *bp = slot_of(m, in);
                if (in->op == VM_OP_JMP) {
                    IrInsn *x = ir_append(f, b, IR_JMP);
                    x->pc = pc;
                    x->target[0] = at[tgt];
                    b->edge_count[0] = b->count;
                } else if (branch_cond(in->op, &cc, &imm)) {
                    if (!next)
                        return vm_fail(err, "%s at offset %u: branch falls off the end", m->name, pc);
                    if (in->op == VM_OP_LOOP) {    /* a += 1; if a < b goto c */
                        IrInsn *x = ir_append(f, b, IR_ADDK);
                        x->pc = pc;
                        x->dst = x->src[0] = in->a;
                        x->imm.i = 1;
                    }
                    IrInsn *x = ir_append(f, b, IR_BR);
                    x->pc = pc;
                    x->cc = (uint8_t)cc;
                    x->src[0] = in->a;
                    if (imm)
                        x->imm.i = in->b;
                    else if (ir_cond_info[cc].nsrc == 2)
                        x->src[1] = in->b;
                    x->target[0] = at[tgt];
                    x->target[1] = next;
                    b->edge_count[0] = bp ? VM_PROF_GET(bp->taken) : 0;
                    b->edge_count[1] = bp ? VM_PROF_GET(bp->not_taken) : 0;
                } else {
                    return vm_fail(err, "%s at offset %u: unknown branch", m->name, pc);
                }
                terminated = true;
            } else if (!translate(f, b, m, in, pc, vm2ir)) {
                return vm_fail(err, "%s at offset %u: cannot translate %s", m->name, pc,
                               vm_op_info[in->op].name);
            }
            if (terminated && pc + 1 != end)
                return vm_fail(err, "%s at offset %u: block continues after a jump", m->name, pc);
        }
        if (!terminated) {
            if (!next)
                return vm_fail(err, "%s: code falls off the end", m->name);
            IrInsn *x = ir_append(f, b, IR_JMP);
            x->target[0] = next;
            b->edge_count[0] = b->count;
        }
    }
    f->ninsns_built = ir_count_insns(f);
    return true;
}
