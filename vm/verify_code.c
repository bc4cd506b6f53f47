/* vm/verify_code.c — the load-time verifier: instructions.
 *
 * Input: one method whose header verify.c accepted (register, capture and
 * return types are valid indices; the tables are consistent).  Output:
 * true, or false with "MODULE: method NAME at offset PC: reason".
 *
 * One linear pass: registers have one type for the whole method, so each
 * instruction is checked alone.  First the operands, generically from the
 * operand string of vm/opcodes.def (register and index ranges, jump
 * targets); then the register types, generically from the types string,
 * or by a case of this file for the opcodes marked "*".  Finally the last
 * instruction must not fall through.
 *
 * Call instructions take their arguments from b, b+1, ...; with zero
 * arguments (CALL, CALLN, CLOS) the base register is not read, so it only
 * has to be at most nregs (a method without registers can still call).
 * Arguments are numbered from 0 in messages, as the callee's parameters.
 */
#include "verify_int.h"

#include <stdarg.h>

#define MOD(v) vm_verify_str((v)->m->name)

static bool fail(VmVerifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(VmVerifier *v, const char *fmt, ...)
{
    char reason[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return vm_fail(v->err, "%s: method %s at offset %u: %s", MOD(v),
                   vm_verify_str(v->meth->name), v->pc, reason);
}

/* Operand slot k (0..2) of an instruction: immediates live in k, not here. */
static int32_t slot(const VmInsn *in, int k)
{
    return k == 0 ? in->a : k == 1 ? in->b : in->c;
}

static const VmType *ty(const VmVerifier *v, uint32_t t)
{
    return &v->m->types[t];
}

/* Register type; r has been range-checked. */
static uint32_t reg(const VmVerifier *v, int32_t r)
{
    return v->meth->regs[r];
}

static bool reg_in_range(const VmVerifier *v, int64_t r)
{
    return r >= 0 && r < v->meth->nregs;
}

static bool bad_reg(VmVerifier *v, int64_t r)
{
    return fail(v, "register r%lld out of range (%u registers)", (long long)r, v->meth->nregs);
}

/* Opcodes whose 'r' operand is a call base, checked with its argument count. */
static bool is_call_base(uint32_t op)
{
    return op == VM_OP_CALL || op == VM_OP_CALLN || op == VM_OP_CLOS;
}

/* Range checks for every operand, from the operand string. */
static bool check_operands(VmVerifier *v, const VmInsn *in)
{
    const VmModule *m = v->m;
    const char *ops = vm_op_info[in->op].operands;
    int k = 0;
    for (const char *p = ops; *p; p++) {
        if (*p == 'i' || *p == 'f')
            continue;
        if (k > 2)
            return fail(v, "too many operands in the opcode table");
        int32_t x = slot(in, k++);
        uint32_t u = (uint32_t)x;
        const char *what = NULL;
        uint32_t limit = 0;
        switch (*p) {
        case 'd':
            if (!reg_in_range(v, x))
                return bad_reg(v, x);
            break;
        case 'r':
            if (!reg_in_range(v, x) && !is_call_base(in->op))
                return bad_reg(v, x);
            break;
        case 'D':
            if (x != -1 && !reg_in_range(v, x))
                return bad_reg(v, x);
            break;
        case 'j':
            if (x < 0 || u >= v->meth->ncode)
                return fail(v, "jump target %d out of range (%u instructions)", x, v->meth->ncode);
            break;
        case 's':
            break;
        case 'u':
            if (x < 0)
                return fail(v, "count %d is negative", x);
            break;
        case 'k': what = "constant"; limit = m->nconsts; break;
        case 'g': what = "global"; limit = m->nglobals; break;
        case 'F': what = "field"; limit = m->nfields; break;
        case 'm': what = "method"; limit = m->nmethods; break;
        case 'n': what = "native"; limit = m->nnatives; break;
        case 't': what = "type"; limit = m->ntypes; break;
        case 'c': what = "class"; limit = m->nclasses; break;
        default:
            return fail(v, "unknown operand kind '%c' in the opcode table", *p);
        }
        if (what && (x < 0 || u >= limit))
            return fail(v, "%s index %d out of range", what, x);
    }
    return true;
}

/* Does register r's type fit the generic type letter?  A destination only
 * needs to accept the value, so a string result may go to an Object. */
static bool letter_fits(const VmVerifier *v, char letter, int32_t r, bool dest)
{
    const VmType *t = ty(v, reg(v, r));
    switch (letter) {
    case 'I': return t->kind == VM_T_INT;
    case 'F': return t->kind == VM_T_FLOAT;
    case 'B': return t->kind == VM_T_BOOL;
    case 'S': return t->kind == VM_T_STRING || (dest && t->kind == VM_T_OBJECT);
    case 'R': return vm_type_is_ref(t);
    case 'A': return t->kind == VM_T_ARRAY;
    default: return false;
    }
}

static const char *letter_name(char letter)
{
    switch (letter) {
    case 'I': return "int";
    case 'F': return "float";
    case 'B': return "bool";
    case 'S': return "string";
    case 'R': return "a reference";
    case 'A': return "an array";
    default: return "?";
    }
}

static bool want_letter(VmVerifier *v, char letter, int32_t r, bool dest)
{
    if (letter_fits(v, letter, r, dest))
        return true;
    return fail(v, "register r%d has type %s, expected %s", r, vm_verify_tname(v, reg(v, r)),
                letter_name(letter));
}

/* Register types from the types string: one letter per d/r operand. */
static bool check_generic(VmVerifier *v, const VmInsn *in)
{
    const char *types = vm_op_info[in->op].types;
    const char *ops = vm_op_info[in->op].operands;
    int k = 0;
    for (const char *p = ops; *p; p++) {
        if (*p == 'i' || *p == 'f')
            continue;
        int32_t x = slot(in, k++);
        if (*p != 'd' && *p != 'r')
            continue;
        if (!*types)
            return fail(v, "types string too short in the opcode table");
        if (!want_letter(v, *types++, x, *p == 'd'))
            return false;
    }
    return true;
}

/* "WHAT: FROM is not assignable to TO" unless it is. */
static bool want_assignable(VmVerifier *v, uint32_t from, uint32_t to, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool want_assignable(VmVerifier *v, uint32_t from, uint32_t to, const char *fmt, ...)
{
    if (vm_type_assignable(v->m, from, to))
        return true;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(v, "%s: %s is not assignable to %s", what, vm_verify_tname(v, from),
                vm_verify_tname(v, to));
}

static bool want_kind(VmVerifier *v, int32_t r, uint8_t kind, const char *name)
{
    if (ty(v, reg(v, r))->kind == kind)
        return true;
    return fail(v, "register r%d has type %s, expected %s", r, vm_verify_tname(v, reg(v, r)), name);
}

/* Argument registers base..base+n-1 against parameter types params[0..n). */
static bool check_args(VmVerifier *v, int32_t base, uint32_t n, const uint32_t *params)
{
    if (n == 0 && (base < 0 || base > (int64_t)v->meth->nregs))
        return bad_reg(v, base);
    for (uint32_t i = 0; i < n; i++) {
        int64_t r = (int64_t)base + i;
        if (!reg_in_range(v, r))
            return bad_reg(v, r);
        if (!want_assignable(v, reg(v, (int32_t)r), params[i], "argument %u", i))
            return false;
    }
    return true;
}

/* Destination `_` iff the callee returns void; else the result must fit. */
static bool check_result(VmVerifier *v, int32_t dest, uint32_t ret)
{
    bool is_void = ty(v, ret)->kind == VM_T_VOID;
    if (is_void && dest != -1)
        return fail(v, "call of a void function has destination r%d", dest);
    if (!is_void && dest == -1)
        return fail(v, "call of a function returning %s has no destination", vm_verify_tname(v, ret));
    return is_void || want_assignable(v, ret, reg(v, dest), "result");
}

/* Array register r has elements of the kind the opcode wants; returns the
 * element type through elem. */
static bool want_array(VmVerifier *v, int32_t r, char elem_kind, uint32_t *elem)
{
    const VmType *t = ty(v, reg(v, r));
    if (t->kind != VM_T_ARRAY)
        return fail(v, "register r%d has type %s, expected an array", r, vm_verify_tname(v, reg(v, r)));
    const VmType *e = ty(v, t->ref);
    bool ok = elem_kind == 'I' ? e->kind == VM_T_INT
            : elem_kind == 'F' ? e->kind == VM_T_FLOAT
            : elem_kind == 'B' ? e->kind == VM_T_BOOL
            : vm_type_is_ref(e);
    if (!ok)
        return fail(v, "register r%d has type %s, expected an array of %s", r,
                    vm_verify_tname(v, reg(v, r)), letter_name(elem_kind));
    *elem = t->ref;
    return true;
}

/* Element kind letter of the AGET/APUT variants. */
static char elem_letter(uint32_t op)
{
    switch (op) {
    case VM_OP_AGETI: case VM_OP_APUTI: return 'I';
    case VM_OP_AGETF: case VM_OP_APUTF: return 'F';
    case VM_OP_AGETB: case VM_OP_APUTB: return 'B';
    default: return 'R';
    }
}

/* A field access on receiver register r: a class type that has the field. */
static bool want_field_owner(VmVerifier *v, int32_t r, const VmField *f)
{
    const VmType *t = ty(v, reg(v, r));
    if (t->kind != VM_T_CLASS || !vm_class_extends(v->m, t->ref, f->owner))
        return fail(v, "register r%d has type %s, which has no field %s", r,
                    vm_verify_tname(v, reg(v, r)), vm_verify_str(f->name));
    return true;
}

static bool want_ref_type(VmVerifier *v, uint32_t t)
{
    if (vm_type_is_ref(ty(v, t)))
        return true;
    return fail(v, "type %s is not a reference type", vm_verify_tname(v, t));
}

/* The opcodes whose types string is "*", and the extra rule for RETV. */
static bool check_special(VmVerifier *v, const VmInsn *in)
{
    const VmModule *m = v->m;
    const VmMethod *self = v->meth;
    int32_t a = in->a, b = in->b, c = in->c;
    switch ((VmOp)in->op) {
    case VM_OP_MOV:
        return want_assignable(v, reg(v, b), reg(v, a), "register r%d", b);
    case VM_OP_LDG:
        return want_assignable(v, m->globals[b].type, reg(v, a), "global %s",
                               vm_verify_str(m->globals[b].name));
    case VM_OP_STG:
        return want_assignable(v, reg(v, b), m->globals[a].type, "global %s",
                               vm_verify_str(m->globals[a].name));
    case VM_OP_NEW: {
        const VmClass *k = &m->classes[b];
        if (k->flags & VM_C_INTERFACE)
            return fail(v, "cannot instantiate interface %s", vm_verify_str(k->name));
        if (k->flags & VM_C_ABSTRACT)
            return fail(v, "cannot instantiate abstract class %s", vm_verify_str(k->name));
        if (!vm_verify_class_fits(m, (uint32_t)b, reg(v, a)))
            return fail(v, "result: %s is not assignable to %s", vm_verify_str(k->name),
                        vm_verify_tname(v, reg(v, a)));
        return true;
    }
    case VM_OP_GETF:
        return want_field_owner(v, b, &m->fields[c])
            && want_assignable(v, m->fields[c].type, reg(v, a), "result");
    case VM_OP_PUTF:
        return want_field_owner(v, a, &m->fields[b])
            && want_assignable(v, reg(v, c), m->fields[b].type, "field %s",
                               vm_verify_str(m->fields[b].name));
    case VM_OP_NEWA:
        if (!want_kind(v, b, VM_T_INT, "int"))
            return false;
        if (ty(v, (uint32_t)c)->kind != VM_T_ARRAY)
            return fail(v, "type %s is not an array type", vm_verify_tname(v, (uint32_t)c));
        return want_assignable(v, (uint32_t)c, reg(v, a), "result");
    case VM_OP_AGETI: case VM_OP_AGETF: case VM_OP_AGETB: case VM_OP_AGETR: {
        uint32_t elem;
        return want_array(v, b, elem_letter(in->op), &elem) && want_kind(v, c, VM_T_INT, "int")
            && want_assignable(v, elem, reg(v, a), "result");
    }
    case VM_OP_APUTI: case VM_OP_APUTF: case VM_OP_APUTB: case VM_OP_APUTR: {
        uint32_t elem;
        return want_array(v, a, elem_letter(in->op), &elem) && want_kind(v, b, VM_T_INT, "int")
            && want_assignable(v, reg(v, c), elem, "element");
    }
    case VM_OP_ISA:
        return want_kind(v, a, VM_T_BOOL, "bool") && want_letter(v, 'R', b, false)
            && want_ref_type(v, (uint32_t)c);
    case VM_OP_CAST:
        return want_letter(v, 'R', b, false) && want_ref_type(v, (uint32_t)c)
            && want_assignable(v, (uint32_t)c, reg(v, a), "result");
    case VM_OP_CALL: case VM_OP_CALLV: case VM_OP_CALLI: {
        const VmMethod *t = &m->methods[c];
        const char *name = vm_verify_str(t->name);
        if (in->op == VM_OP_CALL && (t->flags & VM_M_ABSTRACT))
            return fail(v, "CALL of abstract method %s", name);
        /* a lambda's r0 must be its own closure: only CALLF may enter one */
        if (in->op == VM_OP_CALL && (t->flags & VM_M_LAMBDA))
            return fail(v, "CALL of lambda %s (use CALLF on a closure)", name);
        if (in->op == VM_OP_CALLV && !vm_verify_is_virtual(m, t))
            return fail(v, "CALLV of %s, which is not a virtual method", name);
        if (in->op == VM_OP_CALLI && !vm_verify_is_iface_method(m, t))
            return fail(v, "CALLI of %s, which is not an interface method", name);
        return check_args(v, b, t->nparams, t->regs) && check_result(v, a, t->ret);
    }
    case VM_OP_CALLF: {
        const VmType *f = ty(v, reg(v, b));
        if (f->kind != VM_T_FUNC)
            return fail(v, "register r%d has type %s, expected a function", b,
                        vm_verify_tname(v, reg(v, b)));
        if (f->nparams && !check_args(v, b + 1, f->nparams, f->params))
            return false;
        return check_result(v, a, f->ret);
    }
    case VM_OP_CALLN: {
        const VmNative *n = &m->natives[c];
        return check_args(v, b, n->nparams, n->params) && check_result(v, a, n->ret);
    }
    case VM_OP_CLOS: {
        const VmMethod *t = &m->methods[c];
        if (!(t->flags & VM_M_LAMBDA))
            return fail(v, "CLOS of %s, which is not a lambda", vm_verify_str(t->name));
        if (!vm_type_equal(m, reg(v, a), t->regs[0]))
            return fail(v, "register r%d has type %s, expected %s", a, vm_verify_tname(v, reg(v, a)),
                        vm_verify_tname(v, t->regs[0]));
        if (t->ncaps == 0)
            return check_args(v, b, 0, NULL);
        for (uint32_t i = 0; i < t->ncaps; i++) {
            int64_t r = (int64_t)b + i;
            if (!reg_in_range(v, r))
                return bad_reg(v, r);
            if (!want_assignable(v, reg(v, (int32_t)r), t->caps[i], "capture %u", i))
                return false;
        }
        return true;
    }
    case VM_OP_LDCAP:
        if (!(self->flags & VM_M_LAMBDA))
            return fail(v, "LDCAP outside a lambda");
        if ((uint32_t)b >= self->ncaps)
            return fail(v, "capture index %d out of range (%u captures)", b, self->ncaps);
        if (!vm_type_equal(m, reg(v, a), self->caps[b]))
            return fail(v, "register r%d has type %s, expected capture type %s", a,
                        vm_verify_tname(v, reg(v, a)), vm_verify_tname(v, self->caps[b]));
        return true;
    case VM_OP_RET:
        if (ty(v, self->ret)->kind == VM_T_VOID)
            return fail(v, "RET in a void method (use RETV)");
        return want_assignable(v, reg(v, a), self->ret, "return value");
    case VM_OP_RETV:
        if (ty(v, self->ret)->kind != VM_T_VOID)
            return fail(v, "RETV in a method returning %s", vm_verify_tname(v, self->ret));
        return true;
    default:
        return fail(v, "no verifier rule for opcode %s", vm_op_info[in->op].name);
    }
}

bool vm_verify_code(VmVerifier *v, const VmMethod *mm)
{
    v->meth = mm;
    for (v->pc = 0; v->pc < mm->ncode; v->pc++) {
        const VmInsn *in = &mm->code[v->pc];
        if (in->op >= VM_OP_COUNT)
            return fail(v, "unknown opcode %u", in->op);
        if (!check_operands(v, in))
            return false;
        bool special = vm_op_info[in->op].types[0] == '*' || in->op == VM_OP_RETV;
        if (!(special ? check_special(v, in) : check_generic(v, in)))
            return false;
    }
    v->pc = mm->ncode - 1;
    uint32_t last = mm->code[v->pc].op;
    if (last != VM_OP_JMP && last != VM_OP_RET && last != VM_OP_RETV)
        return fail(v, "execution falls off the end of the method");
    return true;
}
