/* vm/interp.c — the bytecode interpreter: dispatch loop, calls, profiles.
 *
 * Input: linked methods (VmInsn.h holds the handler address, VmInsn.k the
 * resolved operand, see VmInsn in vm.h) of a verified module.  Output: the
 * method's result, plus profile counters (calls, back edges, branch and
 * call-site counts) and hot-hook calls that feed the higher tiers.
 *
 * Invariants:
 * - Registers are statically typed and verified, so handlers check no
 *   types; they check only what the verifier cannot know (null, bounds,
 *   zero divisors, casts, stack depth).
 * - Interpreted-to-interpreted calls never recurse in C: a frame is pushed
 *   on t->frames and its registers follow the caller's on t->stack.  One C
 *   activation of vm_interp_entry runs until the frame it pushed returns.
 * - t->fp always equals the local fp; fp->pc of every frame below the top
 *   is its call instruction (RET reads the destination from it), and the
 *   top frame stores its pc before anything that can raise or call out, so
 *   stack traces have lines.
 * - On-stack replacement happens only in the back edges' countdown slow
 *   path: OSR code (VmMethod.osr) for the jump's target takes over the
 *   frame and pops it, and the activation then ends through do_return as
 *   if it had executed RET, whether it is the entry frame or one pushed in
 *   place by INVOKE.
 * - Every interpreted back edge and every call the interpreter makes or
 *   enters uses a step of t->steps_left (vm.max_steps; unlimited is
 *   INT64_MAX, which no run uses up).
 * - Dispatch is threaded (computed goto) unless VM_SWITCH_DISPATCH is
 *   defined; handler bodies are shared through CASE/NEXT/DISPATCH.
 */
#include "vm.h"

#include <string.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- slow paths, kept out of the loop ----------------------------------- */

/* The hot countdown reached zero: tell the higher tiers once, and again
 * whenever a call finds the method still interpreted (the tier may have
 * put off its ordinary entry until a second call).  With an OSR hook the
 * countdown is re-armed, so back edges keep polling (in this slow path
 * only) for OSR code. */
static __attribute__((noinline, cold)) void hot(VmThread *t, VmMethod *m, const VmInsn *osr)
{
    Vm *vm = t->vm;
    if (vm->hooks.hot && (!m->prof.hot || (!osr && __atomic_load_n(&m->entry, __ATOMIC_ACQUIRE) == vm_interp_entry))) {
        VM_PROF_SET(m->prof.hot, true);
        vm->hooks.hot(vm, m, osr);
    }
    if (vm->hooks.osr && vm->tun.osr_poll > 0)
        m->prof.hot_countdown = vm->tun.osr_poll;
}

/* A back edge to `to` used up the countdown (pc saved).  Returns the OSR
 * code to continue in when there is some for `to`, after asking the tiers
 * once (the hot hook the first time, the OSR hook on later polls; either
 * may install code synchronously). */
static __attribute__((noinline, cold)) const VmOsr *backedge_hot(VmThread *t, VmMethod *m,
                                                               const VmInsn *to)
{
    Vm *vm = t->vm;
    const VmOsr *o;
    if (m->prof.hot && vm->hooks.osr) {
        o = __atomic_load_n(&m->osr, __ATOMIC_ACQUIRE);
        if (!o || o->pc != to)
            vm->hooks.osr(vm, m, to);
    }
    hot(t, m, to);   /* the hot hook (once); re-arms the countdown */
    o = __atomic_load_n(&m->osr, __ATOMIC_ACQUIRE);
    if (!o || o->pc != to)
        return NULL;
    /* Entering OSR code again means a later call of a method whose
     * ordinary entry the tiers put off until it was called again (entered
     * once when it got hot).  Such a call seldom reaches the hot hook in
     * INVOKE, as its back edges use up the countdown: tell the tiers here. */
    VM_PROF_BUMP(m->prof.osr_entries);
    if (VM_PROF_GET(m->prof.osr_entries) > 1 && vm->hooks.hot &&
        __atomic_load_n(&m->entry, __ATOMIC_ACQUIRE) == vm_interp_entry)
        vm->hooks.hot(vm, m, NULL);
    return o;
}

/* vm.max_steps used up: a run-time error, so an untrusted or generated
 * program that loops forever ends with a message and a trace. */
static _Noreturn __attribute__((noinline, cold)) void out_of_steps(VmThread *t)
{
    vm_raise(t, "step budget exhausted: %lld interpreted calls and back edges (vm.max_steps)",
             (long long)t->vm->tun.max_steps);
}

static _Noreturn __attribute__((noinline, cold)) void raise_bounds(VmThread *t, int64_t i, int64_t n)
{
    vm_raise(t, "index out of bounds: index %lld, length %lld", (long long)i, (long long)n);
}

static _Noreturn __attribute__((noinline, cold)) void raise_f2i(VmThread *t, double d)
{
    char buf[64];
    vm_format_float(d, buf, sizeof buf);
    vm_raise(t, "float to int: %s is out of range", buf);
}

static _Noreturn __attribute__((noinline, cold)) void raise_cast(VmThread *t, const VmMethod *m,
                                                                 const void *obj, const VmType *ty)
{
    char name[256];
    const VmModule *mod = m->module;
    vm_type_format(mod, (uint32_t)(ty - mod->types), name, sizeof name);
    const VmClass *c = ((const VmObject *)obj)->cls;
    vm_raise(t, "failed cast: %s to %s", c && c->name ? c->name : "?", name);
}

/* Class targets (the common case) inline; the rest in object.c. */
static inline bool instance_of(const void *o, const VmType *ty)
{
    if (likely(ty->kind == VM_T_CLASS)) {
        const VmClass *c = ((const VmObject *)o)->cls, *k = ty->cls;
        return k && c->display && c->depth >= k->depth && c->display[k->depth] == k;
    }
    return vm_instance_of(o, ty);
}

/* Receiver profile: the first way usually matches, the rest is rare. */
static __attribute__((noinline)) void site_note_slow(VmCallSite *s, VmClass *c)
{
    for (int i = 1; i < VM_SITE_WAYS; i++) {
        if (s->seen[i].cls == c) {
            VM_PROF_BUMP(s->seen[i].count);
            return;
        }
        if (!s->seen[i].cls) {
            VM_PROF_SET(s->seen[i].count, 1);
            VM_PROF_SET(s->seen[i].cls, c);
            return;
        }
    }
    VM_PROF_BUMP(s->other);
}

static inline void site_note(VmCallSite *s, VmClass *c)
{
    if (likely(s->seen[0].cls == c))
        VM_PROF_BUMP(s->seen[0].count);
    else if (!s->seen[0].cls) {
        VM_PROF_SET(s->seen[0].count, 1);
        VM_PROF_SET(s->seen[0].cls, c);
    } else
        site_note_slow(s, c);
}

/* ---- dispatch macros ----------------------------------------------------- */

#ifdef VM_SWITCH_DISPATCH
#define CASE(name) case VM_OP_##name:
#define DISPATCH() goto dispatch
#else
#define CASE(name) op_##name:
#define DISPATCH() goto *pc->h
#endif
#define NEXT() do { pc++; DISPATCH(); } while (0)

#define RA (R[pc->a])
#define RB (R[pc->b])
#define RC (R[pc->c])

/* Before anything that can raise or call out. */
#define SAVE() (fp->pc = pc)
#define RAISE(...) do { SAVE(); vm_raise(t, __VA_ARGS__); } while (0)
#define CHECK_NULL(p) do { if (unlikely(!(p))) RAISE("null dereference"); } while (0)
/* One unsigned compare covers negative indices too. */
#define CHECK_INDEX(arr, idx)                                                  \
    do {                                                                       \
        if (unlikely((uint64_t)(idx) >= (uint64_t)(arr)->length)) {            \
            SAVE();                                                            \
            raise_bounds(t, (idx), (arr)->length);                             \
        }                                                                      \
    } while (0)

/* A taken jump to `to` at or before pc is a back edge.  With OSR code for
 * `to`, the rest of this activation runs compiled: the code continues from
 * the registers and pops the frame, so it returns like RET does. */
#define BACKEDGE(to)                                                           \
    do {                                                                       \
        VM_PROF_BUMP(m->prof.backedges);                                       \
        if (unlikely(--t->steps_left == 0)) {                                  \
            SAVE();                                                            \
            out_of_steps(t);                                                   \
        }                                                                      \
        if (unlikely(--m->prof.hot_countdown == 0)) {                          \
            SAVE();                                                            \
            const VmOsr *osr_ = backedge_hot(t, m, (to));                      \
            if (osr_) {                                                        \
                ret = osr_->entry(t, m, R);                                    \
                goto do_return;                                                \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Profiled conditional branch to instruction index `target`. */
#define BRANCH(cond, target)                                                   \
    do {                                                                       \
        if (cond) {                                                            \
            VM_PROF_BUMP(br[pc->k.i].taken);                                   \
            const VmInsn *to_ = code + (target);                               \
            if (unlikely(to_ <= pc))                                           \
                BACKEDGE(to_);                                                 \
            pc = to_;                                                          \
        } else {                                                               \
            VM_PROF_BUMP(br[pc->k.i].not_taken);                               \
            pc++;                                                              \
        }                                                                      \
        DISPATCH();                                                            \
    } while (0)

/* Calls cm with arguments R[pc->b]...: interpreted callees get a frame
 * pushed in place, others are called through their entry. */
#define INVOKE(cm_)                                                            \
    do {                                                                       \
        VmMethod *callee_ = (cm_);                                             \
        VmValue *nb = R + m->nregs;                                            \
        VmValue *top = nb + callee_->nregs;                                    \
        SAVE();                                                                \
        if (unlikely(fp + 1 >= t->frames_end || top > t->stack_end))           \
            vm_raise(t, "stack overflow");                                     \
        if (unlikely(--t->steps_left == 0))                                    \
            out_of_steps(t);                                                   \
        if (unlikely(top > t->stack_hwm))                                      \
            t->stack_hwm = top;                                                \
        if (unlikely(--callee_->prof.hot_countdown == 0))                      \
            hot(t, callee_, NULL);                                             \
        /* acquire: pairs with the release that installs compiled code */    \
        VmEntry e_ = __atomic_load_n(&callee_->entry, __ATOMIC_ACQUIRE);       \
        if (likely(e_ == vm_interp_entry)) {                                   \
            VM_PROF_BUMP(callee_->prof.calls); /* compiled code counts itself */\
            if (unlikely(!callee_->code))                                      \
                vm_raise(t, "call of abstract method %s", callee_->name);      \
            const VmValue *args = R + pc->b;                                   \
            uint32_t np = callee_->nparams, nr = callee_->nregs, i_;           \
            for (i_ = 0; i_ < np; i_++)                                        \
                nb[i_] = args[i_];                                             \
            for (; i_ < nr; i_++) { /* a loop, not a memset call */            \
                nb[i_].i = 0;                                                  \
                __asm__("" : "+r"(i_));                                        \
            }                                                                  \
            fp++;                                                              \
            fp->m = callee_;                                                   \
            fp->base = nb;                                                     \
            fp->top = top;                                                     \
            fp->pc = callee_->code;                                            \
            t->fp = fp;                                                        \
            m = callee_;                                                       \
            R = nb;                                                            \
            pc = code = callee_->code;                                         \
            br = callee_->prof.branches;                                       \
            DISPATCH();                                                        \
        }                                                                      \
        VmValue v_ = e_(t, callee_, R + pc->b);                                \
        if (pc->a >= 0)                                                        \
            RA = v_;                                                           \
        NEXT();                                                                \
    } while (0)

/* ---- the interpreter ----------------------------------------------------- */

#ifndef VM_SWITCH_DISPATCH
static const void *const *handler_table;
#endif

/* With t == NULL, only publishes the handler table (labels are local to
 * this function) and returns. */
VmValue vm_interp_entry(VmThread *t, VmMethod *m, VmValue *args)
{
#ifndef VM_SWITCH_DISPATCH
    static const void *const labels[VM_OP_COUNT] = {
#define OP(name, operands, types, summary) [VM_OP_##name] = &&op_##name,
#include "opcodes.def"
#undef OP
    };
    if (unlikely(!t)) {
        handler_table = labels;
        return (VmValue){0};
    }
#endif
    if (unlikely((char *)__builtin_frame_address(0) < t->cstack_limit))
        vm_raise(t, "stack overflow");

    VmFrame *fp = t->fp;
    VmValue *R = fp->top;   /* the sentinel's, below the first frame, is t->stack */
    if (unlikely(fp + 1 >= t->frames_end || R + m->nregs > t->stack_end))
        vm_raise(t, "stack overflow");
    if (unlikely(!m->code || !m->ncode))
        vm_raise(t, "call of abstract method %s", m->name);
    if (R + m->nregs > t->stack_hwm)
        t->stack_hwm = R + m->nregs;
    /* args may alias the new registers (a caller that laid them out there) */
    memmove(R, args, m->nparams * sizeof *R);
    memset(R + m->nparams, 0, (m->nregs - m->nparams) * sizeof *R);
    VM_PROF_BUMP(m->prof.calls);
    if (unlikely(--t->steps_left == 0))
        out_of_steps(t);
    if (unlikely(--m->prof.hot_countdown == 0))
        hot(t, m, NULL);
    fp++;
    fp->m = m;
    fp->base = R;
    fp->top = R + m->nregs;
    fp->pc = m->code;
    t->fp = fp;

    VmFrame *const entry = fp;
    const VmInsn *pc = m->code;
    const VmInsn *code = m->code;
    VmBranchProf *br = m->prof.branches;
    VmValue ret;

#ifdef VM_SWITCH_DISPATCH
dispatch:
    switch ((VmOp)pc->op) {
#else
    DISPATCH();
    {
#endif

    /* moves and constants */
    CASE(NOP) NEXT();
    CASE(MOV) RA = RB; NEXT();
    CASE(LDI) RA.i = pc->k.i; NEXT();
    CASE(LDF) RA.f = pc->k.f; NEXT();
    CASE(LDTRUE) RA.i = 1; NEXT();
    CASE(LDFALSE) RA.i = 0; NEXT();
    CASE(LDNULL) RA.p = NULL; NEXT();
    CASE(LDK) RA.p = pc->k.p; NEXT();
    CASE(LDG) RA = *(VmValue *)pc->k.p; NEXT();
    CASE(STG) *(VmValue *)pc->k.p = RB; NEXT();

    /* int arithmetic wraps: computed in uint64 to stay clear of C's UB */
    CASE(ADD) RA.i = (int64_t)((uint64_t)RB.i + (uint64_t)RC.i); NEXT();
    CASE(SUB) RA.i = (int64_t)((uint64_t)RB.i - (uint64_t)RC.i); NEXT();
    CASE(MUL) RA.i = (int64_t)((uint64_t)RB.i * (uint64_t)RC.i); NEXT();
    CASE(DIV) {
        int64_t d = RC.i;
        if (unlikely(d == 0))
            RAISE("division by zero");
        /* MIN / -1 overflows in C; the wrapped result is MIN = -MIN */
        RA.i = d == -1 ? (int64_t)(0 - (uint64_t)RB.i) : RB.i / d;
        NEXT();
    }
    CASE(MOD) {
        int64_t d = RC.i;
        if (unlikely(d == 0))
            RAISE("division by zero");
        RA.i = d == -1 ? 0 : RB.i % d;
        NEXT();
    }
    CASE(AND) RA.i = RB.i & RC.i; NEXT();
    CASE(OR) RA.i = RB.i | RC.i; NEXT();
    CASE(XOR) RA.i = RB.i ^ RC.i; NEXT();
    CASE(SHL) RA.i = (int64_t)((uint64_t)RB.i << (RC.i & 63)); NEXT();
    CASE(SHR) RA.i = RB.i >> (RC.i & 63); NEXT();  /* gcc: arithmetic */
    CASE(USHR) RA.i = (int64_t)((uint64_t)RB.i >> (RC.i & 63)); NEXT();
    CASE(ADDK) RA.i = (int64_t)((uint64_t)RB.i + (uint64_t)pc->k.i); NEXT();
    CASE(NEG) RA.i = (int64_t)(0 - (uint64_t)RB.i); NEXT();
    CASE(BNOT) RA.i = ~RB.i; NEXT();

    /* float arithmetic */
    CASE(FADD) RA.f = RB.f + RC.f; NEXT();
    CASE(FSUB) RA.f = RB.f - RC.f; NEXT();
    CASE(FMUL) RA.f = RB.f * RC.f; NEXT();
    CASE(FDIV) RA.f = RB.f / RC.f; NEXT();
    CASE(FNEG) RA.f = -RB.f; NEXT();
    CASE(I2F) RA.f = (double)RB.i; NEXT();
    CASE(F2I) {
        double d = RB.f;
        /* NaN fails both compares; the bounds are exact powers of two */
        if (unlikely(!(d >= -0x1p63 && d < 0x1p63))) {
            SAVE();
            raise_f2i(t, d);
        }
        RA.i = (int64_t)d;
        NEXT();
    }

    /* comparisons */
    CASE(EQ) RA.i = RB.i == RC.i; NEXT();
    CASE(NE) RA.i = RB.i != RC.i; NEXT();
    CASE(LT) RA.i = RB.i < RC.i; NEXT();
    CASE(LE) RA.i = RB.i <= RC.i; NEXT();
    CASE(FEQ) RA.i = RB.f == RC.f; NEXT();
    CASE(FNE) RA.i = RB.f != RC.f; NEXT();
    CASE(FLT) RA.i = RB.f < RC.f; NEXT();
    CASE(FLE) RA.i = RB.f <= RC.f; NEXT();
    CASE(BEQ) RA.i = RB.i == RC.i; NEXT();
    CASE(BNE) RA.i = RB.i != RC.i; NEXT();
    CASE(NOT) RA.i = !RB.i; NEXT();
    CASE(REQ) RA.i = RB.p == RC.p; NEXT();
    CASE(RNE) RA.i = RB.p != RC.p; NEXT();
    CASE(SEQ) {
        VmString *x = RB.p, *y = RC.p;
        RA.i = x == y || (x && y && vm_string_equal(x, y));
        NEXT();
    }

    /* strings */
    CASE(SCAT) {
        VmString *x = RB.p, *y = RC.p;
        CHECK_NULL(x && y);
        SAVE();
        RA.p = vm_string_concat(t, x, y);
        NEXT();
    }
    CASE(SLEN) {
        VmString *s = RB.p;
        CHECK_NULL(s);
        RA.i = s->length;
        NEXT();
    }
    CASE(SGET) {
        VmString *s = RB.p;
        int64_t i = RC.i;
        CHECK_NULL(s);
        CHECK_INDEX(s, i);
        RA.i = (uint8_t)s->bytes[i];
        NEXT();
    }

    /* branches */
    CASE(JMP) {
        const VmInsn *to = code + pc->a;
        if (to <= pc) {
            VM_PROF_BUMP(br[pc->k.i].taken);
            BACKEDGE(to);
        }
        pc = to;
        DISPATCH();
    }
    CASE(JT) BRANCH(RA.i, pc->b);
    CASE(JF) BRANCH(!RA.i, pc->b);
    CASE(JNULL) BRANCH(!RA.p, pc->b);
    CASE(JNNULL) BRANCH(RA.p, pc->b);
    CASE(JEQ) BRANCH(RA.i == RB.i, pc->c);
    CASE(JNE) BRANCH(RA.i != RB.i, pc->c);
    CASE(JLT) BRANCH(RA.i < RB.i, pc->c);
    CASE(JLE) BRANCH(RA.i <= RB.i, pc->c);
    CASE(JEQS) BRANCH(RA.i == pc->b, pc->c);
    CASE(JNES) BRANCH(RA.i != pc->b, pc->c);
    CASE(JLTS) BRANCH(RA.i < pc->b, pc->c);
    CASE(JLES) BRANCH(RA.i <= pc->b, pc->c);
    CASE(JGTS) BRANCH(RA.i > pc->b, pc->c);
    CASE(JGES) BRANCH(RA.i >= pc->b, pc->c);
    CASE(FJLT) BRANCH(RA.f < RB.f, pc->c);
    CASE(FJLE) BRANCH(RA.f <= RB.f, pc->c);
    CASE(FJNLT) BRANCH(!(RA.f < RB.f), pc->c);
    CASE(FJNLE) BRANCH(!(RA.f <= RB.f), pc->c);
    CASE(FJEQ) BRANCH(RA.f == RB.f, pc->c);
    CASE(FJNE) BRANCH(RA.f != RB.f, pc->c);
    CASE(LOOP) {
        int64_t i = (int64_t)((uint64_t)RA.i + 1);
        RA.i = i;
        BRANCH(i < RB.i, pc->c);
    }

    /* objects and arrays */
    CASE(NEW) SAVE(); RA.p = vm_new_object(t, pc->k.p); NEXT();
    CASE(GETF) {
        VmObject *o = RB.p;
        CHECK_NULL(o);
        RA = o->fields[pc->k.i];
        NEXT();
    }
    CASE(PUTF) {
        VmObject *o = RA.p;
        CHECK_NULL(o);
        o->fields[pc->k.i] = RC;
        NEXT();
    }
    CASE(NEWA) {
        int64_t n = RB.i;
        if (unlikely(n < 0))
            RAISE("negative array length: %lld", (long long)n);
        SAVE();
        RA.p = vm_new_array(t, pc->k.p, n);
        NEXT();
    }
    CASE(ALEN) {
        VmArray *arr = RB.p;
        CHECK_NULL(arr);
        RA.i = arr->length;
        NEXT();
    }
#define AGET(name, member, dst)                                                \
    CASE(name) {                                                               \
        VmArray *arr = RB.p;                                                   \
        int64_t i = RC.i;                                                      \
        CHECK_NULL(arr);                                                       \
        CHECK_INDEX(arr, i);                                                   \
        RA.dst = arr->data.member[i];                                          \
        NEXT();                                                                \
    }
#define APUT(name, member, src)                                                \
    CASE(name) {                                                               \
        VmArray *arr = RA.p;                                                   \
        int64_t i = RB.i;                                                      \
        CHECK_NULL(arr);                                                       \
        CHECK_INDEX(arr, i);                                                   \
        arr->data.member[i] = RC.src;                                          \
        NEXT();                                                                \
    }
    AGET(AGETI, i, i)
    AGET(AGETF, f, f)
    AGET(AGETB, b, i)
    AGET(AGETR, p, p)
    APUT(APUTI, i, i)
    APUT(APUTF, f, f)
    APUT(APUTB, b, i)
    APUT(APUTR, p, p)
#undef AGET
#undef APUT
    CASE(ISA) {
        void *o = RB.p;
        RA.i = o && instance_of(o, pc->k.p);
        NEXT();
    }
    CASE(CAST) {
        void *o = RB.p;
        if (o && unlikely(!instance_of(o, pc->k.p))) {
            SAVE();
            raise_cast(t, m, o, pc->k.p);
        }
        RA.p = o;
        NEXT();
    }

    /* calls */
    CASE(CALL) INVOKE((VmMethod *)pc->k.p);
    CASE(CALLV) {
        VmObject *o = RB.p;
        CHECK_NULL(o);
        VmCallSite *s = pc->k.p;
        site_note(s, o->cls);
        INVOKE(o->cls->vt[s->target->slot]);
    }
    CASE(CALLI) {
        VmObject *o = RB.p;
        CHECK_NULL(o);
        VmCallSite *s = pc->k.p;
        VmClass *c = o->cls;
        VmMethod *cm;
        if (likely(s->seen[0].cls == c && s->seen[0].m)) {
            VM_PROF_BUMP(s->seen[0].count);
            cm = s->seen[0].m;
        } else {
            SAVE();
            cm = vm_iface_dispatch(t, s, c);
        }
        INVOKE(cm);
    }
    CASE(CALLF) {
        VmClosure *cl = RB.p;
        CHECK_NULL(cl);
        INVOKE(cl->method);
    }
    CASE(CALLN) {
        SAVE();
        VmValue v = vm_native_call(t, pc->k.p, R + pc->b);
        if (pc->a >= 0)
            RA = v;
        NEXT();
    }
    CASE(CLOS) SAVE(); RA.p = vm_new_closure(t, pc->k.p, R + pc->b); NEXT();
    CASE(LDCAP) RA = ((VmClosure *)R[0].p)->caps[pc->b]; NEXT();
    CASE(RET) ret = RA; goto do_return;
    CASE(RETV) ret.i = 0; goto do_return;

#ifdef VM_SWITCH_DISPATCH
    default:
        RAISE("bad opcode %u", (unsigned)pc->op);
#endif
    }

do_return:
    if (fp == entry) {
        t->fp = fp - 1;
        return ret;
    }
    fp--;
    t->fp = fp;
    m = fp->m;
    R = fp->base;
    pc = fp->pc;           /* the call instruction */
    code = m->code;
    br = m->prof.branches;
    if (pc->a >= 0)
        RA = ret;
    NEXT();
}

const void *const *vm_interp_handlers(void)
{
#ifdef VM_SWITCH_DISPATCH
    return NULL;
#else
    if (!handler_table)
        vm_interp_entry(NULL, NULL, NULL);
    return handler_table;
#endif
}

VmValue vm_call(VmThread *t, VmMethod *m, VmValue *args)
{
    return __atomic_load_n(&m->entry, __ATOMIC_ACQUIRE)(t, m, args);
}
