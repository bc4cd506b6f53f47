/* vm/profile.c — what the profile says about a method, and its JSON dump.
 *
 * Input: linked methods with the counters the interpreter keeps (calls,
 * backedges, branch slots, call sites; see docs/bytecode.md "Profiles").
 * Output: vm_block_counts derives per-basic-block execution counts from
 * those counters; vm_stats_write dumps every method's profile as JSON.
 * Invariants: only a few counters exist (entry, branches, backward jumps),
 * so block counts are derived, not counted: every edge into a block is
 * either a forward edge (its count known once its source block is done, in
 * instruction order) or a backward edge (which owns a counter).  One pass in
 * instruction order therefore suffices.  The JSON file is written to
 * PATH.tmp and renamed, so a reader never sees half a file.
 */
#include "vm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- control flow from the opcode table --------------------------------- */

/* Position of the 'j' operand in the opcode's operand string, or -1. */
static int target_pos(uint32_t op)
{
    if (op >= VM_OP_COUNT)
        return -1;
    const char *j = strchr(vm_op_info[op].operands, 'j');
    return j ? (int)(j - vm_op_info[op].operands) : -1;
}

/* The jump target of a branch instruction (the a/b/c of its 'j' operand). */
static int64_t branch_target(const VmInsn *in)
{
    switch (target_pos(in->op)) {
    case 0: return in->a;
    case 1: return in->b;
    case 2: return in->c;
    default: return -1;
    }
}

static bool is_return(uint32_t op)
{
    return op == VM_OP_RET || op == VM_OP_RETV;
}

/* Does control leave the block after this instruction? */
static bool ends_block(uint32_t op)
{
    return target_pos(op) >= 0 || is_return(op);
}

static const VmBranchProf *slot_of(const VmMethod *m, const VmInsn *in)
{
    if (in->k.i < 0 || (uint64_t)in->k.i >= m->prof.nbranches || !m->prof.branches)
        return NULL;
    return &m->prof.branches[in->k.i];
}

static uint64_t taken(const VmMethod *m, const VmInsn *in)
{
    const VmBranchProf *b = slot_of(m, in);
    return b ? b->taken : 0;
}

static uint64_t not_taken(const VmMethod *m, const VmInsn *in)
{
    const VmBranchProf *b = slot_of(m, in);
    return b ? b->not_taken : 0;
}

/* Block index of the block starting at pc (a leader), by binary search. */
static uint32_t block_at(const uint32_t *starts, uint32_t n, uint32_t pc)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- block counts ------------------------------------------------------- */

uint32_t vm_block_counts(const VmMethod *m, uint32_t *starts, uint64_t *counts)
{
    uint32_t n = m->ncode;
    if (!n || !m->code)
        return 0;
    /* leaders, marked in counts (scratch until the blocks are known) */
    memset(counts, 0, n * sizeof *counts);
    counts[0] = 1;
    for (uint32_t pc = 0; pc < n; pc++) {
        const VmInsn *in = &m->code[pc];
        int64_t tgt = branch_target(in);
        if (tgt >= 0 && tgt < n)
            counts[tgt] = 1;
        if (ends_block(in->op) && pc + 1 < n)
            counts[pc + 1] = 1;
    }
    uint32_t nb = 0;
    for (uint32_t pc = 0; pc < n; pc++)
        if (counts[pc])
            starts[nb++] = pc;
    memset(counts, 0, n * sizeof *counts);

    /* backward edges first: each owns a counter, so no order is needed */
    for (uint32_t pc = 0; pc < n; pc++) {
        const VmInsn *in = &m->code[pc];
        int64_t tgt = branch_target(in);
        if (tgt >= 0 && tgt <= pc)
            counts[block_at(starts, nb, (uint32_t)tgt)] += taken(m, in);
    }
    counts[0] += m->prof.calls;

    /* forward edges in instruction order: a block's count is final once
     * every earlier block has pushed its edges */
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t last = (b + 1 < nb ? starts[b + 1] : n) - 1;
        const VmInsn *in = &m->code[last];
        int64_t tgt = branch_target(in);
        bool has_next = b + 1 < nb;
        if (is_return(in->op))
            continue;
        if (in->op == VM_OP_JMP) {
            if (tgt > last && tgt < n)
                counts[block_at(starts, nb, (uint32_t)tgt)] += counts[b];
        } else if (tgt >= 0) {
            if (tgt > last && tgt < n)
                counts[block_at(starts, nb, (uint32_t)tgt)] += taken(m, in);
            if (has_next)
                counts[b + 1] += not_taken(m, in);
        } else if (has_next) {
            counts[b + 1] += counts[b];
        }
    }
    return nb;
}

/* ---- JSON --------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void write_method(FILE *f, const VmMethod *m, uint32_t *starts, uint64_t *counts)
{
    const VmProfile *p = &m->prof;
    fputs("{\"name\":", f);
    json_string(f, m->name);
    fprintf(f, ",\"calls\":%" PRIu64 ",\"backedges\":%" PRIu64 ",\"hot\":%s,\"branches\":[",
            p->calls, p->backedges, p->hot ? "true" : "false");
    for (uint32_t i = 0; p->branches && i < p->nbranches; i++) {
        const VmBranchProf *b = &p->branches[i];
        fprintf(f, "%s{\"pc\":%" PRIu32 ",\"taken\":%" PRIu64 ",\"not_taken\":%" PRIu64 "}",
                i ? "," : "", b->pc, b->taken, b->not_taken);
    }
    fputs("],\"sites\":[", f);
    for (uint32_t i = 0; p->sites && i < p->nsites; i++) {
        const VmCallSite *s = &p->sites[i];
        fprintf(f, "%s{\"pc\":%" PRIu32 ",\"target\":", i ? "," : "", s->pc);
        json_string(f, s->target ? s->target->name : "");
        fputs(",\"receivers\":[", f);
        bool first = true;
        for (int w = 0; w < VM_SITE_WAYS; w++) {
            if (!s->seen[w].cls)
                continue;
            fprintf(f, "%s{\"class\":", first ? "" : ",");
            json_string(f, s->seen[w].cls->name);
            fprintf(f, ",\"count\":%" PRIu64 "}", s->seen[w].count);
            first = false;
        }
        fprintf(f, "],\"other\":%" PRIu64 "}", s->other);
    }
    fputs("],\"blocks\":[", f);
    uint32_t nb = vm_block_counts(m, starts, counts);
    for (uint32_t i = 0; i < nb; i++)
        fprintf(f, "%s{\"start\":%" PRIu32 ",\"count\":%" PRIu64 "}", i ? "," : "", starts[i],
                counts[i]);
    fputs("]}", f);
}

bool vm_stats_write(Vm *vm, const char *path, VmError *err)
{
    const VmModule *mod = vm ? vm->module : NULL;
    uint32_t maxcode = 1;
    for (uint32_t i = 0; mod && i < mod->nmethods; i++)
        if (mod->methods[i].ncode > maxcode)
            maxcode = mod->methods[i].ncode;
    uint32_t *starts = malloc(maxcode * sizeof *starts);
    uint64_t *counts = malloc(maxcode * sizeof *counts);
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!starts || !counts || !tmp) {
        free(starts), free(counts), free(tmp);
        return vm_fail(err, "out of memory");
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);

    bool ok = false;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        vm_fail(err, "cannot write '%s': %s", tmp, strerror(errno));
        goto out;
    }
    fputs("{\"version\":1,\"module\":", f);
    json_string(f, mod ? mod->name : "");
    fputs(",\"methods\":[", f);
    for (uint32_t i = 0; mod && i < mod->nmethods; i++) {
        if (i)
            fputc(',', f);
        write_method(f, &mod->methods[i], starts, counts);
    }
    fputs("]}\n", f);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        vm_fail(err, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        vm_fail(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        remove(tmp);
        goto out;
    }
    ok = true;
out:
    free(starts), free(counts), free(tmp);
    return ok;
}
