/* ir/dump.c — the readable text form of an IrFunc (-X jit.dump=ir).
 *
 * Input: an IrFunc in any state between passes.  Output: text on a FILE:
 * a header line, locals with their types, the inliner's decisions, loops,
 * then each block with its count, frequency, loop, dominator and edges,
 * and its insns with the type of every local they name.  Only reads the
 * function; tolerant of stale facts (a dump right after inlining shows
 * pre-cfg edges as "?").
 *
 *   == ir after inline: fib (4 blocks, 12 insns, 3 locals, 1 loop, cost 9.5)
 *   b1 count 30 freq 0.4545 loop L0/1 idom b0 [fib@2] preds b0 b3 succs b2 b4
 *       l2:int = ADD l0:int, l1:int                       ; fib@3
 *       BR LT l0:int, 10 -> b2 (30), b4 (3)               ; fib@4
 */
#include "ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *ir_local_type_name(const IrFunc *f, int32_t local, char *buf, size_t size)
{
    if (local < 0 || (uint32_t)local >= f->nlocals || !f->module) {
        snprintf(buf, size, "?");
        return buf;
    }
    const VmModule *mod = f->module;
    const VmType *t = f->locals[local].type;
    if (t < mod->types || t >= mod->types + mod->ntypes) {
        snprintf(buf, size, "?");
        return buf;
    }
    vm_type_format(mod, (uint32_t)(t - mod->types), buf, size);
    return buf;
}

static void local(const IrFunc *f, int32_t l, FILE *out)
{
    char ty[128];
    fprintf(out, "l%d:%s", l, ir_local_type_name(f, l, ty, sizeof ty));
}

static const char *aux_name(const IrFunc *f, const IrInsn *in, char *buf, size_t size)
{
    const VmModule *mod = f->module;
    if (!in->aux)
        return "null";
    switch (in->op) {
    case IR_NEWA: case IR_NEWAL: case IR_ISA: case IR_CAST: {
        const VmType *t = in->aux;
        if (mod && t >= mod->types && t < mod->types + mod->ntypes) {
            vm_type_format(mod, (uint32_t)(t - mod->types), buf, size);
            return buf;
        }
        return "?";
    }
    case IR_LDG: case IR_STG:
        if (mod && in->imm.i >= 0 && (uint64_t)in->imm.i < mod->nglobals)
            return mod->globals[in->imm.i].name;
        return "?";
    case IR_CALL: case IR_CLOS: case IR_CLOSL: case IR_GUARD_FN:
        return ((VmMethod *)in->aux)->name;
    case IR_CALLV: case IR_CALLI: {
        const VmCallSite *s = in->aux;
        return s->target ? s->target->name : "?";
    }
    case IR_CALLN:
        return ((VmNative *)in->aux)->name;
    case IR_NEW: case IR_NEWL: case IR_GUARD_CLASS:
        return ((VmClass *)in->aux)->name;
    case IR_GETF: case IR_PUTF:
        return ((VmField *)in->aux)->name;
    case IR_LDK: {
        const VmString *s = in->aux;
        snprintf(buf, size, "\"%.*s\"%s", (int)(s->length > 24 ? 24 : s->length), s->bytes,
                 s->length > 24 ? "..." : "");
        return buf;
    }
    default:
        snprintf(buf, size, "%p", in->aux);
        return buf;
    }
}

void ir_dump_insn(const IrFunc *f, const IrInsn *in, FILE *out)
{
    if (in->op >= IR_OP_COUNT) {
        fprintf(out, "<bad op %u>", in->op);
        return;
    }
    const IrOpInfo *oi = &ir_op_info[in->op];
    if (in->dst != IR_NONE) {
        local(f, in->dst, out);
        fputs(" = ", out);
    }
    fputs(oi->name, out);
    if (in->op == IR_BR && in->cc < IR_CC_COUNT)
        fprintf(out, " %s", ir_cond_info[in->cc].name);
    bool call = oi->flags & IR_OPF_ARGS;
    const char *sep = " ";
    if (call && oi->flags & IR_OPF_AUX) {
        char buf[64];
        fprintf(out, " %s", aux_name(f, in, buf, sizeof buf));
        sep = " (";
    }
    if (call) {
        for (int64_t a = 0; a < in->imm.i && in->src[0] != IR_NONE; a++) {
            fputs(a ? ", " : sep, out);
            local(f, in->src[0] + (int32_t)a, out);
        }
        if (oi->flags & IR_OPF_AUX && in->imm.i > 0 && in->src[0] != IR_NONE)
            fputs(")", out);
        else if (oi->flags & IR_OPF_AUX)
            fputs(" ()", out);
    } else {
        for (int s = 0; s < oi->nsrc; s++) {
            if (in->src[s] == IR_NONE) {
                if (in->op == IR_BR && s == 1 && ir_cond_info[in->cc].nsrc == 2)
                    fprintf(out, "%s%" PRId64, sep, in->imm.i);
                continue;
            }
            fputs(sep, out);
            local(f, in->src[s], out);
            sep = ", ";
        }
        if (in->op == IR_LDF)
            fprintf(out, "%s%.17g", sep, in->imm.f);
        else if ((oi->flags & IR_OPF_IMM) && in->op != IR_BR && in->op != IR_LDG &&
                 in->op != IR_STG && in->op != IR_LDK)
            fprintf(out, "%s%" PRId64, sep, in->imm.i);
        if (oi->flags & IR_OPF_AUX) {
            char buf[64];
            fprintf(out, " %s", aux_name(f, in, buf, sizeof buf));
        }
    }
    if (oi->flags & IR_OPF_TERM) {
        for (int t = 0; t < 2; t++)
            if (in->target[t])
                fprintf(out, "%sb%u", t ? ", " : " -> ", in->target[t]->id);
    }
}

void ir_dump(const IrFunc *f, const char *pass, FILE *out)
{
    if (!out || !f)
        return;
    fprintf(out, "== ir after %s: %s (%u blocks, %u insns, %u locals, %u loops, cost %.2f)\n",
            pass ? pass : "?", f->method ? f->method->name : "?", f->nblocks, ir_count_insns(f),
            f->nlocals, f->nloops, ir_cost(f));
    fputs("locals:", out);
    for (uint32_t l = 0; l < f->nlocals; l++) {
        fputc(l % 8 ? ' ' : '\n', out);
        if (!(l % 8))
            fputs("   ", out);
        local(f, (int32_t)l, out);
        if (l < f->nparams)
            fputs("(param)", out);
    }
    fputc('\n', out);
    for (uint32_t i = 0; i < f->ndecisions; i++) {
        const IrDecision *d = &f->decisions[i];
        fprintf(out, "inline %s into %s at pc %u: %s (%s)\n", d->name ? d->name : "?",
                d->caller ? d->caller->name : "?", d->pc, d->yes ? "yes" : "no", d->reason);
    }
    for (uint32_t i = 0; i < f->nsites; i++) {
        const IrSite *s = &f->sites[i];
        fprintf(out, "escape %s%s at %s@%u: %s (%s)\n", s->closure ? "closure " : "", s->what ? s->what : "?",
                s->origin ? s->origin->name : "?", s->pc,
                s->stack ? "frame" : "heap", s->reason);
    }
    for (uint32_t i = 0; i < f->ndead; i++) {
        const IrDead *d = &f->dead[i];
        fprintf(out, "dead %s %s at %s@%u", d->op == IR_PUTF ? "store" : "allocation", d->what,
                d->origin ? d->origin->name : "?", d->pc);
        if (d->op == IR_PUTF)
            fprintf(out, " (overwritten at %s@%u)\n", d->by_origin ? d->by_origin->name : "?", d->by_pc);
        else
            fputs(" (nothing reads it)\n", out);
    }
    if (f->irreducible)
        fputs("irreducible: a retreating edge that is not a back edge\n", out);
    for (uint32_t i = 0; i < f->nloops; i++) {
        const IrLoop *lp = f->loops[i];
        fprintf(out, "loop L%u: header b%u depth %u parent ", lp->id, lp->header->id, lp->depth);
        if (lp->parent)
            fprintf(out, "L%u", lp->parent->id);
        else
            fputc('-', out);
        fputs(" blocks", out);
        for (uint32_t k = 0; k < lp->nblocks; k++)
            fprintf(out, " b%u", lp->blocks[k]->id);
        fputs(" exits", out);
        for (uint32_t k = 0; k < lp->nexits; k++)
            fprintf(out, " b%u->b%u", lp->exits[k].from->id, lp->exits[k].to->id);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        fprintf(out, "b%u count %" PRIu64 " freq %.4f loop ", b->id, b->count, b->freq);
        if (b->loop)
            fprintf(out, "L%u/%u", b->loop->id, b->loop->depth);
        else
            fputc('-', out);
        fputs(" idom ", out);
        if (b->idom)
            fprintf(out, "b%u", b->idom->id);
        else
            fputc('?', out);
        if (b->pc != UINT32_MAX)
            fprintf(out, " [%s@%u]", b->origin ? b->origin->name : "?", b->pc);
        if (b->depth)
            fprintf(out, " inline %u", b->depth);
        fputs(" preds", out);
        for (uint32_t p = 0; p < b->npreds; p++)
            fprintf(out, " b%u", b->preds[p]->id);
        fputc('\n', out);
        for (uint32_t k = 0; k < b->ninsns; k++) {
            const IrInsn *in = &b->insns[k];
            char *text = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&text, &len);
            if (!mem)
                continue;
            ir_dump_insn(f, in, mem);
            if (in->op == IR_BR || in->op == IR_GUARD_CLASS || in->op == IR_GUARD_FN)
                fprintf(mem, " [%" PRIu64 " / %" PRIu64 "]", b->edge_count[0], b->edge_count[1]);
            fclose(mem);
            fprintf(out, "    %-56s", text ? text : "");
            free(text);
            if (in->pc != UINT32_MAX)
                fprintf(out, " ; %s@%u", in->origin ? in->origin->name : "?", in->pc);
            if (in->depth)
                fprintf(out, " d%u", in->depth);
            fputc('\n', out);
        }
    }
}
