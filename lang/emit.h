/* lang/emit.h — internals shared by emit.c (module layout, methods,
 * statements) and emit_expr.c (expressions and conditions).
 *
 * A TlEm is one method being generated: its code, line table, typed
 * registers and labels.  Registers have one VM type for the whole method;
 * free registers are kept per type, so a register is only ever reused for
 * a value of the same type.  Temporaries sit on a stack (TlEm.temps): an
 * expression releases its operands' temporaries right before it picks
 * the register of its result, so the result may land in a dead operand
 * (an instruction reads all operands before writing; a call copies its
 * arguments before its result is written).  Whatever is left is released
 * at the end of the statement; locals live until the end of their block.
 * Marks (E->ntemps values) are always taken after every register the
 * caller still needs was allocated, so a release never frees a live value.
 */
#ifndef TALLY_LANG_EMIT_H
#define TALLY_LANG_EMIT_H

#include "ast.h"

typedef struct TlEm TlEm;

typedef struct TlEmLoop {
    int32_t brk, cont;      /* labels */
} TlEmLoop;

typedef struct TlEmFree {
    int32_t *regs;
    uint32_t n, cap;
} TlEmFree;

/* Program-wide emitter state. */
typedef struct TlEmProg {
    TlCompiler *c;
    VmModule *m;
    uint32_t capmethods, capconsts;
    uint32_t *ctab;         /* constant hash table: index + 1 */
    size_t ccap;
    TlMap natives;          /* (NULL, interned symbol) -> index + 1 */
    TlMap adapters;         /* (from + 1, to + 1) -> method index + 1 */
    uint32_t nadapters;
    uint32_t vt_void, vt_int, vt_float, vt_bool, vt_string, vt_object;
} TlEmProg;

struct TlEm {
    TlEmProg *p;
    TlCompiler *c;
    const char *name;       /* VM name of this method (naming lambdas) */
    uint32_t nlambdas;
    TlFile *file;
    uint32_t depth;         /* lambda nesting (TlLocal.fdepth of own locals) */
    TlLambda *lambda;
    int32_t *capregs;       /* lambda: register holding each capture */
    TlType *ret;            /* language return type */
    uint32_t vm_ret;
    VmInsn *code;
    uint32_t ncode, capcode;
    VmLine *lines;
    uint32_t nlines, caplines;
    uint32_t line;          /* source line of the code being emitted */
    uint32_t *regs;         /* VM type per register */
    uint8_t *busy;
    uint32_t nregs, capregs_, capbusy;
    TlEmFree *free;         /* by VM type index */
    uint32_t nfree;
    int32_t *temps;
    uint32_t ntemps, captemps;
    int32_t *labels;        /* label -> pc, -1 until placed */
    uint32_t nlabels, caplabels;
    uint32_t *fix;          /* pcs of instructions whose target is a label */
    uint32_t nfix, capfix;
    TlEmLoop *loops;
    uint32_t nloops, caploops;
    TlLocal **locals;       /* locals in scope, for release at block end */
    uint32_t nlocals, caplocals;
};

/* emit.c */
uint32_t tl_em_vmtype(TlEmProg *p, TlType *t);          /* of the erasure of t */
uint32_t tl_em_const(TlEmProg *p, const char *bytes, uint32_t len);
uint32_t tl_em_native(TlEmProg *p, const char *symbol, const char *lib, const uint32_t *params,
                      uint32_t nparams, uint32_t ret);
uint32_t tl_em_new_method(TlEmProg *p);
void tl_em_set_header(TlEmProg *p, uint32_t index, const char *name, uint32_t flags, uint32_t owner,
                      const uint32_t *params, uint32_t nparams, uint32_t ret);
void tl_em_finish_method(TlEm *E, uint32_t index);
void tl_em_init(TlEm *E, TlEmProg *p, const char *name, TlFile *file);
void tl_em_free(TlEm *E);
void tl_em_emit_lambda_body(TlEm *E, TlLambda *lam, uint32_t index);

uint32_t tl_em_op(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t c);
uint32_t tl_em_opk(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t c, int64_t k);
uint32_t tl_em_opf(TlEm *E, VmOp op, int32_t a, double f);
int32_t tl_em_label(TlEm *E);
void tl_em_place(TlEm *E, int32_t label);
/* Emits a jump (any opcode whose operand `slot` is a target) to label. */
void tl_em_jump(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t label);
bool tl_em_terminated(TlEm *E);     /* control cannot reach the current position */

int32_t tl_em_new_reg(TlEm *E, uint32_t type);
int32_t tl_em_temp(TlEm *E, uint32_t type);
bool tl_em_take(TlEm *E, int32_t r, uint32_t type);
int32_t tl_em_local_reg(TlEm *E, uint32_t type);
void tl_em_release(TlEm *E, int32_t r);
int32_t tl_em_block(TlEm *E, const uint32_t *types, uint32_t n);
uint32_t tl_em_regtype(TlEm *E, int32_t r);
bool tl_em_assignable(TlEm *E, uint32_t from, uint32_t to);

/* emit_expr.c */
int32_t tl_em_expr(TlEm *E, TlExpr *e, int32_t dst);
void tl_em_cond(TlEm *E, TlExpr *e, bool when, int32_t label);
/* Value of register r as VM type t: r itself, or a cast/adapted copy. */
int32_t tl_em_coerce(TlEm *E, int32_t r, uint32_t t);
void tl_em_coerce_into(TlEm *E, int32_t src, int32_t dst);
int32_t tl_em_local_of(TlEm *E, TlLocal *l, int32_t cap);
/* a op b into dst (or a temporary); the temporaries above mark (the
 * operands') are released first, so the result may reuse one of them. */
int32_t tl_em_binop_regs(TlEm *E, int op, TlType *t, int32_t a, int32_t b, int32_t dst, uint32_t mark);
uint32_t tl_em_lambda_method(TlEm *E, TlLambda *lam);

#endif
