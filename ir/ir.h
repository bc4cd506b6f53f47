/* ir/ir.h — the JIT's intermediate representation (prefix ir_ / Ir).
 *
 * Pipeline (ir/pass.c runs it from one flat list; -X jit.dump=ir prints the
 * function after every pass):
 *
 *   linked VmMethod ─build─▶ blocks + typed 3-address insns over locals,
 *        (bytecode+profile)  block/edge counts from vm_block_counts
 *                     ─cfg──▶ succs/preds, unreachable blocks removed,
 *                             blocks in reverse postorder, dominators
 *                     ─inline▶ callees spliced in (IrOptions tunables),
 *                             decisions logged; breaks cfg facts
 *                     ─cfg──▶ (again)
 *                     ─deadstore▶ field stores overwritten unread, and
 *                             the allocations only they held, removed
 *                     ─loops▶ natural loops with nesting, frequencies
 *                     ─escape▶ NEW of objects that never leave the call
 *                             → NEWL (a slot in the frame)
 *
 * The IR is owned by one IrFunc: everything hangs off its arena and
 * ir_free releases it at once.  Nothing in it points into the VM except
 * to linked, immutable data (methods, classes, types, call sites, globals,
 * constants) — the same data VmInsn.k carries after vm_link.  Profiles are
 * read once, at build/inline time; the interpreter may keep counting
 * meanwhile (on another thread), so the numbers are a snapshot and may be
 * slightly inconsistent, never out of bounds.
 *
 * Invariants after ir_compile (ir_check tests them):
 * - blocks[0] is the entry and has no predecessors; every block is
 *   reachable; blocks[] is in reverse postorder (block->id = RPO index).
 * - every block ends in exactly one terminator (IR_OPF_TERM) and has no
 *   other; succs[] are the terminator's targets in order (a BR whose two
 *   targets coincide gives two edges), preds[] lists one entry per edge.
 * - entry->idom == entry; every other block's idom dominates it.
 * - a loop's header dominates all of its blocks; loops[] lists outermost
 *   loops first (by depth, then header RPO); block->loop is the innermost.
 * - freq = count / Σ counts over the function's blocks (all 0 when no
 *   block has a count), so the frequencies sum to 1.
 *
 * Locals: local i < nparams are the parameters (the method's registers
 * 0..nparams-1), then the method's other registers, then each inlined
 * callee's registers (appended, contiguous per inlined call).  Locals that
 * are not parameters start as the zero of their type at function entry,
 * as VM registers do; inlined callees' locals are re-zeroed by explicit
 * ZERO insns on every entry to the inlined body.
 *
 * Calls (CALL, CALLV, CALLI, CALLF, CALLN) and CLOS take their arguments
 * from imm.i consecutive locals src[0], src[0]+1, ... (for CALLV/CALLI the
 * receiver is src[0]; for CALLF the closure is src[0] and counts in imm.i).
 * dst is IR_NONE for void callees.
 *
 * Errors: every insn records origin (the VmMethod its bytecode came from),
 * pc (the bytecode index there) and site (the inline chain, NULL in the
 * compiled method itself), so a back end can raise with a stack trace
 * identical to the interpreter's: innermost frame origin@pc, then
 * site->caller@site->call_pc, and so on outward.
 *
 * Guarded inlining: an inlined virtual/interface call becomes
 *   GUARD_CLASS recv, cls -> inl, slow
 *   inl:  MOV callee params <- args; ZERO callee locals; JMP callee entry
 *         ... callee blocks; each RET x -> MOV dst <- x; JMP cont
 *   slow: CALLV/CALLI (the original call, its site and profile);  JMP cont
 *   cont: the rest of the caller's block
 * A null receiver fails the guard and raises in the real call.
 */
#ifndef TALLY_IR_H
#define TALLY_IR_H

#include "vm.h"

#include <setjmp.h>

#define IR_NONE (-1)           /* no local (dst of void calls, BR vs imm) */
#define IR_MAX_INLINE_DEPTH 64 /* max_depth beyond this is clamped */
#define IR_MAX_INSNS 100000    /* inlining never grows a function beyond this */
#define IR_HOT_SITE_RATIO 10   /* a call site is hot when it runs this many
                                  times per entry of the function (a loop) */
#define IR_TRIVIAL_SIZE 6      /* callee bytecode insns inlined beyond the
                                  growth limit (up to 1.5x; inline.c) */
#define IR_HOT_BUDGET 400      /* IR insns a function may always grow to by
                                  inlining at hot sites (max_growth > 100) */
#define IR_MIN_BUDGET 200      /* ... and at any site: a small method's 4x
                                  is less than one callee with its calls */

enum {                         /* IrOpInfo.flags */
    IR_OPF_TERM = 1u << 0,     /* ends a block; has targets (or returns) */
    IR_OPF_RAISE = 1u << 1,    /* may raise a run-time error: needs origin/pc */
    IR_OPF_CALL = 1u << 2,     /* calls out of the function */
    IR_OPF_SIDE = 1u << 3,     /* effect beyond writing dst */
    IR_OPF_IMM = 1u << 4,      /* uses imm */
    IR_OPF_AUX = 1u << 5,      /* uses aux */
    IR_OPF_VAR = 1u << 6,      /* time grows with an operand (a length) */
    IR_OPF_ARGS = 1u << 7,     /* reads imm.i consecutive locals from src[0] */
};

typedef enum IrOp {
#define IROP(name, ndst, nsrc, cost, flags, summary) IR_##name,
#include "ops.def"
#undef IROP
    IR_OP_COUNT
} IrOp;

typedef enum IrCond {
#define IROP(...)
#define IRCC(name, neg, nsrc, summary) IR_CC_##name,
#include "ops.def"
#undef IRCC
#undef IROP
    IR_CC_COUNT
} IrCond;

typedef struct IrOpInfo {
    const char *name;
    uint8_t ndst, nsrc;
    uint32_t cost;
    uint32_t flags;
    const char *summary;
} IrOpInfo;

typedef struct IrCondInfo {
    const char *name;
    IrCond negation;
    uint8_t nsrc;
    const char *summary;
} IrCondInfo;

extern const IrOpInfo ir_op_info[IR_OP_COUNT];
extern const IrCondInfo ir_cond_info[IR_CC_COUNT];

typedef struct IrBlock IrBlock;
typedef struct IrLoop IrLoop;
typedef struct IrFunc IrFunc;

/* One inlined call: the chain from an insn to the compiled method. */
typedef struct IrInline {
    VmMethod *callee;          /* the inlined method */
    VmMethod *caller;          /* the method whose call was replaced */
    uint32_t call_pc;          /* bytecode pc of the call in caller */
    const struct IrInline *parent;   /* caller's own inline site, NULL = root */
    uint32_t depth;            /* 1 = inlined into the compiled method */
    uint32_t first_local;      /* callee register r maps to local first_local + r */
    VmClass *guard;            /* guarded (virtual/interface) inline: the class */
} IrInline;

typedef struct IrInsn {
    uint16_t op;               /* IrOp */
    uint8_t cc;                /* BR: IrCond */
    uint8_t depth;             /* inline depth, 0 = the compiled method */
    uint32_t mark;             /* scratch for passes (inliner: decided) */
    int32_t dst;               /* local or IR_NONE */
    int32_t src[3];            /* locals or IR_NONE */
    union { int64_t i; double f; } imm;
    void *aux;                 /* see ops.def: VmMethod*, VmCallSite*, ... */
    IrBlock *target[2];        /* terminators: successors in order */
    VmMethod *origin;          /* bytecode origin (for errors and lines) */
    uint32_t pc;               /*   and its index; UINT32_MAX = synthetic */
    const IrInline *site;      /* inline chain, NULL in the compiled method */
} IrInsn;

struct IrBlock {
    uint32_t id;               /* index in func->blocks (= RPO index after cfg) */
    VmMethod *origin;          /* method whose bytecode this block came from */
    uint32_t pc;               /* its first bytecode pc, UINT32_MAX = synthetic */
    IrInsn *insns;
    uint32_t ninsns, capinsns;
    IrBlock *succs[2];
    uint32_t nsuccs;
    uint64_t edge_count[2];    /* profile count of each succ edge */
    IrBlock **preds;
    uint32_t npreds, cappreds;
    uint64_t count;            /* times the block ran (profile, scaled if inlined) */
    double freq;               /* count / Σ counts */
    IrBlock *idom;             /* immediate dominator; entry: itself */
    IrLoop *loop;              /* innermost loop, NULL if none */
    uint32_t depth;            /* inline depth of the block's code */
    uint32_t mark;             /* scratch for passes */
};

typedef struct IrEdge {
    IrBlock *from, *to;
} IrEdge;

struct IrLoop {
    uint32_t id;               /* index in func->loops (outermost first) */
    IrBlock *header;
    IrBlock **blocks;          /* header first, then in RPO order */
    uint32_t nblocks;
    IrBlock **latches;         /* sources of back edges to header */
    uint32_t nlatches;
    IrEdge *exits;             /* edges from a block inside to one outside */
    uint32_t nexits;
    IrLoop *parent;            /* enclosing loop, NULL if outermost */
    IrLoop **children;
    uint32_t nchildren;
    uint32_t depth;            /* 1 = outermost */
};

typedef struct IrLocal {
    VmType *type;              /* never void */
    VmMethod *origin;          /* method owning the register */
    uint32_t reg;              /*   and its number there */
} IrLocal;

/* Per compile request: auditing clients compile the same method with
 * different values, so nothing here is global.  One field per row of
 * ir/ir_tunables.def. */
typedef struct IrOptions {
#define TUNABLE(field, name, kind, deflt, min, max, unit, help) VM_TUN_CTYPE_##kind field;
#include "ir_tunables.def"
#undef TUNABLE
} IrOptions;
extern const VmTunGroup ir_tun_group;

/* Why an inline candidate was (not) inlined. */
typedef struct IrDecision {
    VmMethod *caller;          /* method containing the call (its origin) */
    VmMethod *callee;          /* the inlined/considered method, NULL if none */
    const char *name;          /* callee, native or "closure": for the log */
    uint32_t pc;               /* bytecode pc of the call in caller */
    uint32_t depth;            /* inline depth of the call insn */
    uint8_t op;                /* IR_CALL, IR_CALLV, ... */
    bool yes;
    char reason[96];
} IrDecision;

/* Where a NEW site's objects went (ir/escape.c), for the dumps. */
typedef struct IrSite {
    const char *what;          /* the class, or the lambda of a closure */
    bool closure;
    VmMethod *origin;          /* the NEW's bytecode */
    uint32_t pc;
    bool stack;                /* became NEWL */
    char reason[96];           /* why not, or the slot */
} IrSite;

/* An insn ir/deadstore.c removed, for the dumps. */
typedef struct IrDead {
    uint8_t op;                /* IR_PUTF, IR_NEW or IR_NEWA */
    const char *what;          /* the field, the class or "array" */
    VmMethod *origin;          /* its bytecode */
    uint32_t pc;
    VmMethod *by_origin;       /* PUTF: the store that overwrote it */
    uint32_t by_pc;
} IrDead;

/* Arena chunk (internal). */
typedef struct IrChunk IrChunk;

#define IR_ARGESC_MAX 24       /* origins summarized: parameters + captures */
#define IR_ARGESC_DEPTH 6      /* loads followed; deeper always escapes */

/* What a called method does with its arguments (ir/argesc.c). */
typedef struct IrArgEsc {
    bool known;                /* false: every argument escapes */
    uint32_t norig;            /* nparams, + ncaps for a lambda */
    uint8_t depth[IR_ARGESC_MAX];   /* loads after which it may escape */
    uint32_t invoked;          /* origins called as closures */
} IrArgEsc;

struct IrFunc {
    VmMethod *method;          /* the compiled method */
    VmModule *module;
    IrLocal *locals;
    uint32_t nlocals, caplocals, nparams;
    IrBlock **blocks;          /* blocks[0] = entry */
    uint32_t nblocks, capblocks;
    IrLoop **loops;            /* outermost first */
    uint32_t nloops;
    IrInline **inlines;        /* every inlined call, in order */
    uint32_t ninlines, capinlines;
    IrDecision *decisions;     /* the inliner's log, in decision order */
    uint32_t ndecisions, capdecisions;
    uint32_t nslots;           /* NEWL slots (ir/escape.c) */
    IrSite *sites;             /* ir/escape.c's verdict per NEW site */
    uint32_t nsites;
    IrDead *dead;              /* ir/deadstore.c's removals */
    uint32_t ndead, capdead;
    uint32_t ninsns_built;     /* insns after build (the growth baseline) */
    bool irreducible;          /* a retreating edge that is not a back edge */
    bool has_counts;           /* some block count is non-zero */
    /* internal */
    IrChunk *arena;
    IrFunc *arena_of;          /* allocate from this function's arena instead
                                  (callee IR built by the inliner) */
    jmp_buf *oom;              /* allocation failure unwinds here */
    struct IrArgEscMemo *argesc;   /* ir/argesc.c's summaries, this compile */
};

/* ---- func.c: allocation, construction helpers, invariants, cost -------- */

IrFunc *ir_func_new(VmMethod *m);
void ir_free(IrFunc *f);
/* Zeroed memory from f's arena (longjmps to f->oom when out of memory). */
void *ir_alloc(IrFunc *f, size_t size);
/* arr (n used of *cap elements of elem bytes, in f's arena) with room for
 * one more: itself, or a copy twice as large (*cap updated) */
void *ir_grow(IrFunc *f, void *arr, uint32_t n, uint32_t *cap, size_t elem);
IrBlock *ir_block_new(IrFunc *f, VmMethod *origin, uint32_t pc);
IrInsn *ir_append(IrFunc *f, IrBlock *b, IrOp op);   /* dst/src = IR_NONE */
uint32_t ir_local_new(IrFunc *f, VmType *type, VmMethod *origin, uint32_t reg);
IrInsn *ir_terminator(const IrBlock *b);             /* NULL if missing */
uint32_t ir_count_insns(const IrFunc *f);
/* Checks the invariants above; false with a message naming the block. */
bool ir_check(const IrFunc *f, VmError *err);
/* Σ over blocks of freq × Σ static op costs: the expected cost of one
 * average pass through the function, in cost units (see ops.def). */
double ir_cost(const IrFunc *f);
/* Σ static op costs over all insns, unweighted. */
uint64_t ir_static_cost(const IrFunc *f);
/* True when no call of f can cost more than *bound cost units: f has no
 * loop, no call (IR_OPF_CALL) and no op whose time grows with its
 * operands (IR_OPF_VAR), so each insn runs at most once a call and
 * *bound = ir_static_cost(f).  False (and *bound unchanged) otherwise. */
bool ir_cost_bound(const IrFunc *f, uint64_t *bound);
bool ir_dominates(const IrBlock *a, const IrBlock *b);
/* Whether a and b (of one method, built with different IrOptions) are the
 * same code: equal locals, frame slots, blocks in the same order with the
 * same successors and insns, every field the back end reads (ops,
 * operands, immediates, aux pointers, targets, origin/pc and the content
 * of inline chains) equal.  Profile annotations (counts, frequencies,
 * edge counts), derived facts (preds, dominators, loops) and the logs
 * (decisions, sites) are not compared: the back end (jit/codegen.c) reads
 * none of them to generate code, so the same code under the same gcc
 * options compiles to the same machine code. */
bool ir_same_code(const IrFunc *a, const IrFunc *b);

/* ---- build.c / cfg.c / inline.c / pass.c --------------------------------- */

/* Bytecode to IR for a linked method with code; false + err otherwise. */
bool ir_build(IrFunc *f, VmError *err);
/* succs/preds, unreachable blocks, RPO, dominators. */
void ir_cfg(IrFunc *f);
/* Natural loops, nesting, exits; block frequencies. */
void ir_loops(IrFunc *f);
void ir_frequencies(IrFunc *f);
/* The inliner; needs ir_cfg facts, leaves them stale (run ir_cfg after). */
void ir_inline(IrFunc *f, const IrOptions *o);
/* Overwritten field stores and the allocations only they read; needs preds. */
void ir_dead_stores(IrFunc *f);
/* NEW of objects that never leave the call -> NEWL; needs ir_cfg facts. */
void ir_escape(IrFunc *f);
/* argesc.c: the summary of m, memoized in f's arena (never NULL) */
const IrArgEsc *ir_argesc(IrFunc *f, VmMethod *m);
/* What an argument passed to param p of any of t[0..n) may meet there: the
 * least depth and whether a callee calls it.  False: not known. */
bool ir_argesc_param(IrFunc *f, VmMethod *const *t, uint32_t n, uint32_t p, int *depth, bool *inv);
/* The methods a CALL, CALLV or CALLI may run (class-hierarchy analysis); false
 * if not known or more than max. */
bool ir_call_targets(const IrFunc *f, const IrInsn *in, VmMethod **t, uint32_t max, uint32_t *n);

/* The rows' defaults. */
void ir_options_default(IrOptions *o);
/* Every field equal: the same options build the same IR from the same
 * profile (field by field, from the rows: the struct has padding). */
bool ir_options_same(const IrOptions *a, const IrOptions *b);
/* Runs every pass (pass.c); dumps after each pass to `dump` if non-NULL.
 * NULL (and err) when the method cannot be compiled (abstract, no code,
 * not linked, out of memory). */
IrFunc *ir_compile(VmMethod *m, const IrOptions *o, FILE *dump, VmError *err);
IrFunc *ir_compile_request(VmMethod *m, const IrOptions *o, FILE *dump);

/* ---- dump.c -------------------------------------------------------------- */

void ir_dump(const IrFunc *f, const char *pass, FILE *out);
void ir_dump_insn(const IrFunc *f, const IrInsn *in, FILE *out);
const char *ir_local_type_name(const IrFunc *f, int32_t local, char *buf, size_t size);

#endif
