/* jit/variants.c — a bakeoff's code: N variants of one method, their timed
 * wrappers and the dispatcher, as one loaded unit (jit_compile_bakeoff).
 *
 * Input: a JitBakeoffRequest (the method, per variant IR options and an
 * option set, the dispatcher's policy slot, slow path and sample sink).
 * Output: the JitBakeoffTable filled: clean[c·N + k], timed, dispatcher
 * (NULL when the variants are the same code, same_code, and the request
 * ends such a bakeoff: end_if_same).
 *
 * Why one context per variant: gcc options are per context, and a
 * variant is defined by its options.  Context k holds
 *   clean_k      the method compiled with variant k's IR options and
 *                option set (ordinary VmEntry code, but its calls of the
 *                method itself call clean_k: a timed call's recursion
 *                runs the variant timed, not the dispatcher);
 * and context 0 also
 *   timed        k = t->audit[slot].timing (set by the slow
 *                path); c0 = cycles; r = table->clean[k](t, m, args);
 *                c1 = cycles; sample(table->bakeoff, k, c1 − c0, w)
 *                — time on the stack, callees included; w = 1, or with
 *                table->weighted (a recursive method) the calls of the
 *                method it made; a run-time error unwinds past it and
 *                loses that one sample.  One wrapper
 *                for all variants, so that the variants' own code is all
 *                that differs between their timed calls;
 * and a last context, with variant 0's options,
 *   dispatcher   variant 0's clean code behind
 *                if (--t->audit[slot].countdown < 0) return slow(t, m, args, slow_ctx);
 *                (rq->no_prologue: without it, a baseline to measure it by)
 * Every variant's IR is built before any context compiles (variant_ir:
 * the profile it reads keeps changing while gcc works), once for the
 * variants of the same IR options (ir_options_same).  Variants of equal
 * option sets whose IR is the same code (jit_bakeoff_same_ir:
 * table->same_ir) would compile to the same machine code; when the
 * request ends such a bakeoff (end_if_same_ir), variant 0's context
 * alone compiles.  Each context is compiled to assembly; when every
 * variant's is variant 0's (jit/same.c: table->same_code) and the caller
 * will then end the bakeoff (rq->end_if_same), the dispatcher's is not
 * compiled at all, and variant 0's text alone is laid out and loaded,
 * one copy, every clean[] entry its code.  Otherwise the texts are
 * concatenated with their local
 * labels (.L…) renamed apart, each on a page of its own at a common
 * offset (part_offset), then rq->copies − 1 more copies of every
 * variant's text with its symbols renamed, each copy at an offset of its
 * own, common to its variants (lay_out), and the whole is
 * assembled, linked and loaded once: one object, one as, one load.
 *
 * Loop timings (rq->npoints, markers/ and audit/loops.c): the clean code
 * and the dispatcher are compiled as above, without markers; each
 * variant is compiled once more with a marker at each timing point
 * (marks_for, POINTS_MARKERS), and that text, per copy, rewritten by
 * rq->rewrite into timed code with the markers' stubs (lay_out_marked:
 * marked[c·N + k], which the timed wrapper calls after rq->enter).
 * audit.timing=naive puts a timer call at each point instead
 * (POINTS_NAIVE), the text loaded as gcc left it.
 *
 * Invariants: timed code calls clean_k through the table (a load), so gcc
 * cannot inline or specialize it: a timed call runs exactly the clean
 * code.  The table stays at its address while the code may run (the
 * caller's).  A failure of any part (IR, gccjit, options, as, ld, dlopen,
 * or injected by jit.fail_every, one attempt per variant) fails the whole
 * bakeoff and installs nothing; nothing is installed here anyway.
 */
#include "tier.h"
#include "jit_int.h"

#include <stdlib.h>
#include <string.h>

/* Appends one context's assembly to buf: every local label .LX becomes
 * .Lb<part>_X (outside string literals; injective, and distinct across
 * parts), every identifier that starts with `from` (if not NULL) starts
 * with `to` instead (a copy's symbols), and the .file/.ident lines of all
 * but the first part go. */
static void append_part(VmBuf *buf, const char *text, size_t len, int part, const char *from, const char *to)
{
    char tag[16];
    int ntag = snprintf(tag, sizeof tag, "b%d_", part);
    size_t nfrom = from ? strlen(from) : 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t next = e < len ? e + 1 : e;
        size_t s = i;
        while (s < e && (text[s] == ' ' || text[s] == '\t'))
            s++;
        if (part > 0 && ((e - s >= 5 && !memcmp(text + s, ".file", 5)) || (e - s >= 6 && !memcmp(text + s, ".ident", 6)))) {
            i = next;
            continue;
        }
        bool quoted = false;
        size_t from_at = i;
        for (size_t k = i; k < e; k++) {
            char c = text[k];
            bool starts = k == i || !jit_ident_char(text[k - 1]);
            if (quoted) {
                if (c == '\\')
                    k++;
                else if (c == '"')
                    quoted = false;
            } else if (c == '"') {
                quoted = true;
            } else if (c == '.' && k + 2 < e && text[k + 1] == 'L' && jit_ident_char(text[k + 2]) && text[k + 2] != '.' &&
                       starts) {
                vm_buf_put(buf, text + from_at, k + 2 - from_at);
                vm_buf_put(buf, tag, (size_t)ntag);
                from_at = k + 2;
                k++;
            } else if (nfrom && starts && e - k >= nfrom && !memcmp(text + k, from, nfrom)) {
                vm_buf_put(buf, text + from_at, k - from_at);
                vm_buf_put(buf, to, strlen(to));
                from_at = k + nfrom;
                k += nfrom - 1;
            }
        }
        vm_buf_put(buf, text + from_at, next - from_at);
        i = next;
    }
    if (len && text[len - 1] != '\n')
        vm_buf_put(buf, "\n", 1);
}

/* "ta<id>_<what>_<method name, non-alphanumerics as _>" */
static void symbol(char *buf, size_t size, uint32_t id, const char *what, const char *mname)
{
    int n = snprintf(buf, size, "ta%u_%s_", id, what);
    size_t k = n > 0 ? (size_t)n : 0;
    for (const char *p = mname ? mname : "?"; *p && k + 1 < size && k < 72; p++)
        buf[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
    buf[k] = 0;
}

/* A part's descriptors w->v[own[0] .. own[1]) freed: its text will not load. */
static void drop_wheres(JitWheres *w, const uint32_t own[2])
{
    for (uint32_t i = own[0]; i < own[1]; i++) {
        free(w->v[i]);
        w->v[i] = NULL;
    }
}

static void free_wheres(JitWheres *w, bool contents)
{
    if (contents)
        for (uint32_t i = 0; i < w->n; i++)
            free(w->v[i]);
    free(w->v);
    *w = (JitWheres){0};
}

/* Where in its page a part of bakeoff id starts: a multiple of 64, the
 * same for every variant's copy `copy`, never 0, different for the next
 * bakeoffs, and 1 KB further on (mod 63 lines) for each further copy.
 * Why pages: the L1 instruction cache (and the op cache) pick
 * a line's set from the address bits within the page, and every loaded
 * object's .text starts at the same page offset.  Concatenated parts
 * would not: the first part's hot code would share its sets with the
 * start of every other unit, and in A/A bakeoffs the variant in the first
 * part runs 1-4% slower.  On its own
 * page at a common offset every variant's code meets the same sets.
 * Each copy at another offset: where its code sits in the page changes
 * the variants' difference itself (by up to a few percent), which copies
 * at one offset cannot show; the copies compare the variants at two offsets, and
 * the copy rule (audit/stats.c) wants a difference at both.  Never the
 * wrapper's offset, half a page from copy 0's: copy 1's 16 lines on, mod
 * 63, never lands 32 on mod 64 (a third copy's 32 would). */
_Static_assert(JIT_MAX_COPIES <= 2, "part_offset: a third copy could share the wrapper's offset");

static unsigned part_offset(uint32_t id, int copy)
{
    return 64u * (1u + (id * 37u + 16u * (unsigned)copy) % 63u);
}

static int copies_of(const JitBakeoffRequest *rq)
{
    return rq->copies < 1 ? 1 : rq->copies > JIT_MAX_COPIES ? JIT_MAX_COPIES : rq->copies;
}

typedef struct Names {
    char clean[JIT_MAX_VARIANTS * JIT_MAX_COPIES][96];   /* as JitBakeoffTable.clean */
    char timed[96];
    char dispatcher[96];
} Names;

typedef struct Costs {
    double us_ir, us_compile;
} Costs;

/* Whether a variant's code still calls its own method (a static call of
 * it, or a virtual call with it as the declared target): a recursive
 * method, whose timed calls run their recursion in the variant. */
static bool calls_itself(const IrFunc *f)
{
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const IrBlock *bb = f->blocks[b];
        for (uint32_t i = 0; i < bb->ninsns; i++) {
            const IrInsn *in = &bb->insns[i];
            if ((in->op == IR_CALL && in->aux == f->method) ||
                (in->op == IR_CALLV && ((const VmCallSite *)in->aux)->target == f->method))
                return true;
        }
    }
    return false;
}

static void add_callee(JitBakeoffTable *tab, VmMethod *m)
{
    if (!m || jit_bakeoff_calls(tab, m))
        return;
    if (tab->ncallees < JIT_MAX_CALLEES)
        tab->callees[tab->ncallees] = m;
    tab->ncallees++;
}

/* Adds the methods f calls (not inlined) to tab->callees: what the
 * auditor restarts a bakeoff's samples for when the JIT installs one
 * (research.restart).  The sites' seen[] are read racily, as the inliner
 * reads them: a method missed is one no receiver had run. */
static void collect_callees(JitBakeoffTable *tab, const IrFunc *f)
{
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const IrBlock *bb = f->blocks[b];
        for (uint32_t i = 0; i < bb->ninsns; i++) {
            const IrInsn *in = &bb->insns[i];
            if (in->op == IR_CALL)
                add_callee(tab, in->aux);
            else if (in->op == IR_CALLV || in->op == IR_CALLI) {
                const VmCallSite *site = in->aux;
                add_callee(tab, site->target);
                for (int w = 0; w < VM_SITE_WAYS; w++)
                    add_callee(tab, __atomic_load_n(&site->seen[w].m, __ATOMIC_RELAXED));
            }
        }
    }
}

bool jit_bakeoff_calls(const JitBakeoffTable *tab, const VmMethod *m)
{
    if (tab->ncallees > JIT_MAX_CALLEES)
        return true;
    for (uint32_t i = 0; i < tab->ncallees; i++)
        if (tab->callees[i] == m)
            return true;
    return false;
}

/* Variant k's IR.  All of a bakeoff's IR is built before gcc compiles
 * any of it: the IR reads the profile (the callees' call counts and
 * branch counters, which the running program keeps raising), and built
 * between gcc compiles of half a second each, two A/A variants would read
 * two profiles and could inline and lay out differently — a difference of
 * the code that both copies of a variant share, which the copy rule
 * cannot catch. */
static IrFunc *variant_ir(const JitTunables *tun, const JitBakeoffRequest *rq, int k, Costs *cost, VmError *err)
{
    bool dump_ir = jit_dump_has(tun->dump, "ir");
    double t0 = jit_now_us();
    if (dump_ir)
        fprintf(stderr, "=== jit ir: %s (bakeoff #%u, variant %d)\n", rq->m->name, rq->id, k);
    IrFunc *f = ir_compile(rq->m, &rq->ir[k], dump_ir ? stderr : NULL, err);
    cost->us_ir += jit_now_us() - t0;
    return f;
}

bool jit_bakeoff_same_ir(const JitBakeoffRequest *rq, IrFunc *const ir[JIT_MAX_VARIANTS])
{
    if (!ir[0])
        return false;
    for (int k = 1; k < rq->nvariants; k++)
        if (!ir[k] || strcmp(rq->optset[k] ? rq->optset[k] : "", rq->optset[0] ? rq->optset[0] : "") ||
            !ir_same_code(ir[k], ir[0]))
            return false;
    return true;
}

/* The markers of f for rq's timing points: marker K at the block of the
 * method itself (depth 0) that starts at point_pc[K].  *at malloc'ed
 * (the caller frees it); false without memory or when a point has no
 * block in f (its IR differs from the one the points were chosen on). */
static bool marks_for(const JitBakeoffRequest *rq, const IrFunc *f, int32_t **at, JitMarks *out, VmError *err)
{
    int32_t *v = malloc((f->nblocks ? f->nblocks : 1) * sizeof *v);
    if (!v)
        return vm_fail(err, "out of memory");
    for (uint32_t b = 0; b < f->nblocks; b++)
        v[b] = -1;
    for (uint32_t k = 0; k < rq->npoints; k++) {
        uint32_t b = 0;
        while (b < f->nblocks && !(f->blocks[b]->origin == rq->m && f->blocks[b]->depth == 0 &&
                                   f->blocks[b]->pc == rq->point_pc[k] && v[b] < 0))
            b++;
        if (b == f->nblocks) {
            free(v);
            return vm_fail(err, "timing point %u (pc %u) has no block", k, rq->point_pc[k]);
        }
        v[b] = (int32_t)k;
    }
    *at = v;
    *out = (JitMarks){.at = v, .n = f->nblocks, .nmarkers = rq->npoints, .pinned = rq->pinned};
    return true;
}

/* What compile_variant builds at the timing points (rq->npoints). */
typedef enum Points {
    POINTS_NONE,               /* nothing: clean code (and all code without loop timings) */
    POINTS_MARKERS,            /* markers: the text for the timed copies (lay_out_marked) */
    POINTS_NAIVE,              /* rq->naive calls: naive timings' timed code */
} Points;

/* Variant k's context (k = -1: the dispatcher's), from its IR f (not
 * consumed: variants of the same IR options share it, and variant 0's
 * also makes the dispatcher) → its assembly in *text (malloc'ed), the
 * descriptors of the variant's own code wheres->v[own[0] .. own[1]);
 * false + err.  Variant 0's context also holds the timed wrapper.  The
 * dispatcher has a context of its own, compiled last, and only when the
 * bakeoff will run (not when its variants are the same code and the
 * caller ends it then: rq->end_if_same), a third of its gcc time.
 * untimed: variant 0 compiled alone for a bakeoff that ends untimed (its
 * variants' IR the same): its calls of the method itself go through the
 * entry, as the JIT's code does.  Why: the direct calls are there to keep
 * a timed recursion in its variant, and installed they cost a compare
 * and branch before each self-call (up to 19% on a small recursive
 * method) that the JIT's code of the same IR does not pay. */
static bool compile_variant(const JitBakeoffRequest *rq, int k, IrFunc *f, JitBakeoffTable *tab, const Names *nm,
                            const char *dir, bool untimed, Points points, char **text, size_t *len, JitWheres *wheres,
                            uint32_t own[2], Costs *cost, bool *recursive, VmError *err)
{
    bool marked = rq->npoints && !untimed && points != POINTS_NONE;   /* then *text is the timed text */
    int32_t *at = NULL;
    JitMarks marks;
    VmMethod *m = rq->m;
    double t0;
    *recursive = calls_itself(f);
    bool dispatcher = k < 0;
    if (dispatcher)
        k = 0;
    gcc_jit_context *c = gcc_jit_context_acquire();
    if (!c)
        return vm_fail(err, "gcc_jit_context_acquire failed");
    gcc_jit_context_set_bool_print_errors_to_stderr(c, 0);
    gcc_jit_context_set_bool_allow_unreachable_blocks(c, 1);
    gcc_jit_context_set_str_option(c, GCC_JIT_STR_OPTION_PROGNAME, "tally-jit");
    /* every function on a cache line of its own (jit_options_apply), so
     * identical code is placed identically whichever part it is in */
    bool ok = jit_options_apply(c, rq->optset[k], err);
    JitCodegen *cg = ok ? jit_codegen_new(c) : NULL;
    if (ok && !cg)
        ok = vm_fail(err, "out of memory");
    if (ok && marked)
        ok = marks_for(rq, f, &at, &marks, err);
    if (ok && marked && points == POINTS_NAIVE)
        marks.naive = rq->naive;
    if (ok && marked)
        jit_codegen_marks(cg, &marks);
    t0 = jit_now_us();
    own[0] = wheres->n;
    if (dispatcher) {
        JitDispatch d = {.slot = rq->slot, .slow = rq->slow, .slow_ctx = rq->slow_ctx};
        ok = ok && jit_codegen_dispatcher(cg, f, rq->no_prologue ? NULL : &d, nm->dispatcher, wheres, err);
    } else {
        ok = ok && jit_codegen_variant(cg, f, nm->clean[k], !untimed, wheres, err);
    }
    own[1] = wheres->n;
    /* the timed wrapper after variant 0: lay_out puts it and the
     * dispatcher on a page of their own */
    if (ok && k == 0 && !dispatcher)
        ok = jit_codegen_timed(cg, nm->timed, tab, m, rq->slot, rq->sample, rq->npoints ? rq->enter : NULL,
                               rq->enter_ctx, err);
    cost->us_ir += jit_now_us() - t0;
    jit_codegen_free(cg);
    if (ok) {
        char spath[4200];
        if (dispatcher)
            snprintf(spath, sizeof spath, "%s/d.s", dir);
        else
            snprintf(spath, sizeof spath, "%s/v%d.s", dir, k);
        t0 = jit_now_us();
        ok = jit_compile_asm(c, spath, text, len, err);
        cost->us_compile += jit_now_us() - t0;
    }
    gcc_jit_context_release(c);
    free(at);
    return ok;
}

/* Whether every variant's assembly is variant 0's (jit_asm_same). */
static bool all_same(const JitBakeoffRequest *rq, const Names *nm, char *const *text, const size_t *len,
                     const JitWheres *wheres, uint32_t own[][2])
{
    JitAsmView v0 = {text[0], len[0], nm->clean[0], {nm->timed, NULL}, wheres->v + own[0][0], own[0][1] - own[0][0]};
    for (int k = 1; k < rq->nvariants; k++) {
        JitAsmView vk = {text[k], len[k], nm->clean[k], {NULL, NULL}, wheres->v + own[k][0], own[k][1] - own[k][0]};
        if (!jit_asm_same(&v0, &vk))
            return false;
    }
    return true;
}

/* The unit's layout: each variant's code on a page of its own at the
 * bakeoff's common offset for copy 0 (part_offset), and the timed
 * wrapper (the end of variant 0's text, from the wrapper on) and then
 * the dispatcher (dtext, if any) on a page of their own half a page
 * away, after variant 0's: on variant 0's page the dispatcher kept that
 * page hot (iTLB, prefetch) and variant 0 won A/A bakeoffs.  Then the
 * copies (rq->copies > 1), in reverse order, so that copy c of variant k
 * is as far from the wrapper's page as copy 0 of variant N−1−k: each on
 * a page of its own at copy c's offset, the variant's whole text with
 * every symbol ta<id>_X renamed ta<id>_c<c>X (variant 0's text ends with
 * the wrapper, whose constants its code may share: it comes along,
 * renamed, and is never called).  False if variant 0's text has no
 * wrapper. */
static bool lay_out(VmBuf *all, const JitBakeoffRequest *rq, const Names *nm, char *const *text, const size_t *len,
                    const char *dtext, size_t dlen)
{
    char mark[128], head[64];
    snprintf(mark, sizeof mark, "\t.globl\t%s\n", nm->timed);
    const char *w = memmem(text[0], len[0], mark, strlen(mark));
    if (!w)
        return false;
    size_t cut = (size_t)(w - text[0]);
    int n = rq->nvariants;
    char from[32], to[32];
    snprintf(from, sizeof from, "ta%u_", rq->id);
    for (int c = 0; c < copies_of(rq); c++)
        for (int j = 0; j < n; j++) {
            int k = c % 2 ? n - 1 - j : j, part = c * n + k;
            snprintf(to, sizeof to, "ta%u_c%d", rq->id, c);
            /* each part starts in .text, whatever section the previous one
             * ended in */
            int h = snprintf(head, sizeof head, "\t.text\n\t.p2align 12\n\t.skip %u\n", part_offset(rq->id, c));
            vm_buf_put(all, head, (size_t)h);
            append_part(all, text[k], part == 0 ? cut : len[k], part, c ? from : NULL, to);
            if (part == 0) {
                h = snprintf(head, sizeof head, "\t.text\n\t.p2align 12\n\t.skip %u\n",
                             (part_offset(rq->id, 0) + 2048) % 4096);
                vm_buf_put(all, head, (size_t)h);
                append_part(all, text[0] + cut, len[0] - cut, 0, NULL, NULL);
                if (dtext)   /* its labels apart from every part's */
                    append_part(all, dtext, dlen, copies_of(rq) * n, NULL, NULL);
            }
        }
    return true;
}

/* The symbol of part c·N + k's timed (marked) code: variant k's symbol
 * ta<id>_v<k>_… with its prefix ta<id>_ made ta<id>_m<c> (lay_out_marked). */
static void marked_name(char *buf, size_t size, const JitBakeoffRequest *rq, const Names *nm, int part)
{
    char from[32];
    int n = snprintf(from, sizeof from, "ta%u_", rq->id);
    snprintf(buf, size, "ta%u_m%d%s", rq->id, part / rq->nvariants, nm->clean[part % rq->nvariants] + n);
}

/* Loop timings: after lay_out's parts, the timed code of every copy c
 * of every variant k (in lay_out's order), each on a page of its own at
 * copy c's offset: variant k's marked text with its symbols ta<id>_X
 * renamed ta<id>_m<c>X and its labels apart from every other part's,
 * rewritten by rq->rewrite to report its markers' events as part c·N + k.
 * What the timed wrapper calls is this code, so it is what lies where
 * the clean copies would for method timings. */
static bool lay_out_marked(VmBuf *all, const JitBakeoffRequest *rq, char *const *raw, const size_t *rawlen,
                           VmError *err)
{
    int n = rq->nvariants, copies = copies_of(rq);
    char from[32], to[32], head[64];
    snprintf(from, sizeof from, "ta%u_", rq->id);
    for (int c = 0; c < copies; c++)
        for (int j = 0; j < n; j++) {
            int k = c % 2 ? n - 1 - j : j, part = c * n + k;
            if (!raw[k])
                return vm_fail(err, "variant %d: no marked assembly", k);
            VmBuf renamed = {0};
            snprintf(to, sizeof to, "ta%u_m%d", rq->id, c);
            /* label tags past lay_out's parts and the dispatcher's */
            append_part(&renamed, raw[k], rawlen[k], copies * n + 1 + part, from, to);
            int h = snprintf(head, sizeof head, "\t.text\n\t.p2align 12\n\t.skip %u\n", part_offset(rq->id, c));
            vm_buf_put(all, head, (size_t)h);
            bool ok = rq->naive ? (vm_buf_put(all, renamed.data, renamed.len), true)
                                : rq->rewrite(rq->rewrite_ctx, part, (const char *)renamed.data, renamed.len, all, err);
            vm_buf_free(&renamed);
            if (!ok)
                return false;
        }
    return true;
}

static bool compile_bakeoff(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, double *variant_us,
                            VmError *err)
{
    VmMethod *m = rq ? rq->m : NULL;
    if (!m || !m->module || !m->module->vm || !m->code || !m->ncode || (m->flags & VM_M_ABSTRACT))
        return vm_fail(err, "jit: no method to compile");
    if (rq->nvariants < 2 || rq->nvariants > JIT_MAX_VARIANTS)
        return vm_fail(err, "%s: a bakeoff needs 2..%d variants, got %d", m->name, JIT_MAX_VARIANTS, rq->nvariants);
    if (rq->copies > JIT_MAX_COPIES)
        return vm_fail(err, "%s: at most %d copies of a variant, got %d", m->name, JIT_MAX_COPIES, rq->copies);
    if (!rq->slow || !rq->sample || rq->slot >= VM_AUDIT_SLOTS)
        return vm_fail(err, "%s: a bakeoff without slow path, sample sink or valid slot", m->name);
    if (rq->npoints && (rq->npoints > JIT_MAX_POINTS || (!rq->rewrite && !rq->naive) || !rq->enter))
        return vm_fail(err, "%s: loop timings without rewrite or enter, or more than %d points", m->name, JIT_MAX_POINTS);
    JitTunables def;
    const JitTunables *tun = jit_tunables(jit, &def);
    /* fault injection: one compile attempt per variant, counted with the JIT's */
    if (jit && tun->fail_every > 0) {
        for (int k = 0; k < rq->nvariants; k++) {
            uint64_t a = __atomic_add_fetch(&jit->attempts, 1, __ATOMIC_RELAXED);
            if (a % (uint64_t)tun->fail_every == 0)
                return vm_fail(err, "variant %d: injected failure", k);
        }
    }
    Names nm;
    int copies = copies_of(rq), n = rq->nvariants;
    for (int part = 0; part < copies * n; part++) {
        char what[32];
        if (part < n)
            snprintf(what, sizeof what, "v%d", part);
        else
            snprintf(what, sizeof what, "c%dv%d", part / n, part % n);
        symbol(nm.clean[part], sizeof nm.clean[part], rq->id, what, m->name);
    }
    symbol(nm.timed, sizeof nm.timed, rq->id, "t", m->name);
    symbol(nm.dispatcher, sizeof nm.dispatcher, rq->id, "d", m->name);

    char dir[4096];
    if (!jit_tmpdir(dir, sizeof dir, jit_dump_has(tun->dump, "units"), err))
        return false;
    VmBuf all = {0};
    char *text[JIT_MAX_VARIANTS] = {0}, *raw[JIT_MAX_VARIANTS] = {0};
    size_t len[JIT_MAX_VARIANTS] = {0}, rawlen[JIT_MAX_VARIANTS] = {0};
    JitWheres wheres = {0};
    Costs cost = {0};
    double us_assemble = 0;
    bool ok = true, weighted = true, recursive0 = false;
    IrFunc *ir[JIT_MAX_VARIANTS] = {0};
    /* the variant whose IR k compiles: variants of the same IR options
     * share one, built once — built twice, even a millisecond apart, the
     * profile it reads can differ, and two A/A variants of a method called
     * millions of times a second would differ by their code */
    int owner[JIT_MAX_VARIANTS];
    for (int k = 0; k < rq->nvariants && ok; k++) {
        VmError e = {{0}};
        owner[k] = k;
        for (int j = 0; j < k && owner[k] == k; j++)
            if (owner[j] == j && ir_options_same(&rq->ir[j], &rq->ir[k]))
                owner[k] = j;
        if (owner[k] != k)
            continue;
        ok = (ir[k] = variant_ir(tun, rq, k, &cost, &e)) != NULL;
        if (!ok)
            vm_fail(err, "variant %d (%s): %s", k, rq->optset[k] ? rq->optset[k] : "", e.msg);
    }
    IrFunc *ir_of[JIT_MAX_VARIANTS] = {0};
    for (int k = 0; k < rq->nvariants && ok; k++)
        ir_of[k] = ir[owner[k]];
    out->same_ir = ok && jit_bakeoff_same_ir(rq, ir_of);
    out->ncallees = 0;
    for (int k = 0; k < rq->nvariants && ok; k++)
        if (owner[k] == k)
            collect_callees(out, ir[k]);
    /* variants known to be the same code, in a bakeoff the caller then
     * ends: variant 0's clean code is all it will install, so it is all
     * that compiles */
    bool alone = out->same_ir && rq->end_if_same && rq->end_if_same_ir;
    int compiled = alone ? 1 : rq->nvariants;
    uint32_t own[JIT_MAX_VARIANTS][2];
    for (int k = 0; k < compiled && ok; k++) {
        VmError e = {{0}};
        bool recursive = false;
        double us0 = cost.us_compile;
        ok = compile_variant(rq, k, ir[owner[k]], out, &nm, dir, alone, POINTS_NONE, &text[k], &len[k], &wheres,
                             own[k], &cost, &recursive, &e);
        variant_us[k] += cost.us_compile - us0;
        if (!ok)
            vm_fail(err, "variant %d (%s): %s", k, rq->optset[k] ? rq->optset[k] : "", e.msg);
        weighted = weighted && recursive;
        recursive0 = recursive0 || (k == 0 && recursive);
    }
    out->weighted = ok && weighted;
    out->same_code = ok && (alone || all_same(rq, &nm, text, len, &wheres, own));
    /* the same code found only now, in a bakeoff the caller ends: variant
     * 0 is all it installs, and a recursive one compiled for timing calls
     * itself directly; compiled again untimed, it calls itself through the
     * entry, as alone's does (compile_variant says why).  One more gcc
     * compile, only for a recursive method */
    if (out->same_code && rq->end_if_same && !alone && recursive0) {
        VmError e = {{0}};
        bool recursive;
        drop_wheres(&wheres, own[0]);
        free(text[0]);
        text[0] = NULL;
        ok = compile_variant(rq, 0, ir[owner[0]], out, &nm, dir, true, POINTS_NONE, &text[0], &len[0], &wheres,
                             own[0], &cost, &recursive, &e);
        if (!ok)
            vm_fail(err, "variant 0 (%s), again untimed: %s", rq->optset[0] ? rq->optset[0] : "", e.msg);
    }
    /* the dispatcher: only if the bakeoff is to run; if not, variant 0's
     * clean code is all the caller installs, so it is all that loads (one
     * copy, every clean[] entry its code; the other variants' descriptors
     * go with their texts) */
    bool dispatched = !(out->same_code && rq->end_if_same);
    JitBakeoffRequest one = *rq;   /* what lay_out lays out */
    if (ok && !dispatched) {
        for (int k = 1; k < compiled; k++)
            drop_wheres(&wheres, own[k]);
        one.nvariants = one.copies = 1;
    }
    char *dtext = NULL;
    size_t dlen = 0;
    if (ok && dispatched) {
        VmError e = {{0}};
        bool recursive;
        uint32_t down[2];
        ok = compile_variant(rq, -1, ir[owner[0]], out, &nm, dir, false, POINTS_NONE, &dtext, &dlen, &wheres, down,
                             &cost, &recursive, &e);
        if (!ok)
            vm_fail(err, "dispatcher: %s", e.msg);
    }
    /* loop timings: each variant compiled again, with its markers (or
     * naive timer calls) at the points, for the timed copies; the clean
     * code above has none, so what a decision installs pays nothing for
     * having been timed */
    for (int k = 0; k < rq->nvariants && ok && dispatched && rq->npoints; k++) {
        VmError e = {{0}};
        bool recursive;
        uint32_t unused[2];
        double us0 = cost.us_compile;
        ok = compile_variant(rq, k, ir[owner[k]], out, &nm, dir, false, rq->naive ? POINTS_NAIVE : POINTS_MARKERS,
                             &raw[k], &rawlen[k], &wheres, unused, &cost, &recursive, &e);
        variant_us[k] += cost.us_compile - us0;
        if (!ok)
            vm_fail(err, "variant %d (%s), timed code: %s", k, rq->optset[k] ? rq->optset[k] : "", e.msg);
    }
    for (int k = 0; k < rq->nvariants; k++)
        ir_free(ir[k]);   /* NULL for a variant that shared another's */
    if (ok && !lay_out(&all, &one, &nm, text, len, dtext, dlen))
        ok = vm_fail(err, "%s: the timed wrapper is missing from the assembly", m->name);
    bool marked = ok && dispatched && rq->npoints;
    if (marked)
        ok = lay_out_marked(&all, rq, raw, rawlen, err);
    for (int k = 0; k < rq->nvariants; k++) {
        free(text[k]);
        free(raw[k]);
    }
    free(dtext);
    JitLoaded unit = {0};
    if (ok) {
        JitLoadRoute route = jit_load_route(tun);
        if (jit_dump_has(tun->dump, "asm")) {
            fprintf(stderr, "=== jit asm: bakeoff #%u %s, %d variants\n", rq->id, m->name, rq->nvariants);
            fwrite(all.data, 1, all.len, stderr);
        }
        double t0 = jit_now_us();
        ok = jit_load_text(dir, (const char *)all.data, all.len, route, &unit, err);
        us_assemble = jit_now_us() - t0;
    }
    char what[160];
    snprintf(what, sizeof what, "bakeoff #%u %s", rq->id, m->name);
    jit_keep_or_remove(tun, dir, what);
    vm_buf_free(&all);
    size_t bytes = 0;
    for (int part = 0; part < copies * n && ok; part++) {
        size_t s1 = 0;
        out->clean[part] = !dispatched && part ? out->clean[0] : (VmEntry)jit_load_symbol(&unit, nm.clean[part], &s1);
        bytes += s1;
        if (!out->clean[part])
            ok = vm_fail(err, "variant %d%s: symbol not found in the loaded code", part % n, part < n ? "" : " (copy)");
    }
    for (int part = 0; part < copies * n && ok; part++) {
        char name[128];
        size_t s1 = 0;
        marked_name(name, sizeof name, rq, &nm, part);
        out->marked[part] = marked ? (VmEntry)jit_load_symbol(&unit, name, &s1) : NULL;
        bytes += s1;
        if (marked && !out->marked[part])
            ok = vm_fail(err, "variant %d (timed copy %d): symbol not found in the loaded code", part % n, part / n);
    }
    if (ok) {
        size_t s = 0;
        out->dispatcher = dispatched ? (VmEntry)jit_load_symbol(&unit, nm.dispatcher, &s) : NULL;
        bytes += dispatched ? s : 0;
        out->timed = (VmEntry)jit_load_symbol(&unit, nm.timed, &s);
        bytes += s;
        if ((dispatched && !out->dispatcher) || !out->timed)
            ok = vm_fail(err, "dispatcher or timed wrapper: symbol not found in the loaded code");
    }
    /* loaded code keeps its descriptors for ever; code that never loaded, none */
    free_wheres(&wheres, !ok);
    if (!ok)
        return false;
    out->unit = unit.handle;   /* never unloaded: a dispatcher frame may outlive the bakeoff */
    out->code_bytes = bytes;
    out->us_ir = cost.us_ir;
    out->us_compile = cost.us_compile;
    out->us_assemble = us_assemble;
    if (jit)
        jit_log(jit, "compiled bakeoff #%u %s variants=%d copies=%d ir=%.0fus compile=%.0fus assemble=%.0fus code=%zuB%s%s",
                rq->id, m->name, rq->nvariants, copies, cost.us_ir, cost.us_compile, us_assemble, bytes,
                out->same_code ? " same-code" : "", out->same_ir ? " same-ir" : "");
    return true;
}

/* The compile, then its event on the compile timeline (events.c). */
bool jit_compile_bakeoff(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, VmError *err)
{
    double variant_us[JIT_MAX_VARIANTS] = {0};
    double t0 = jit_now();
    bool ok = compile_bakeoff(jit, rq, out, variant_us, err);
    if (jit)
        jit_event_bakeoff(jit, rq, out, t0, variant_us, ok ? NULL : err && err->msg[0] ? err->msg : "unknown error");
    return ok;
}
