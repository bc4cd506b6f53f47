/* tests/unit/test_verify.c — the verifier on modules built in memory.
 *
 * Covers what the assembler cannot produce (indices out of range, cyclic
 * hierarchies, bad D operands, empty code, forward type references) and a
 * few valid modules that must pass.  Each module is built with the small
 * builder below; every test checks the exact message of vm_verify.
 */
#include "test.h"
#include "vm.h"

#include <stdlib.h>
#include <string.h>

/* ---- builder ------------------------------------------------------------ */

typedef struct B {
    VmModule *m;
    uint32_t tvoid, tint, tfloat, tbool, tstring, tobject, tstrarr, tintarr;
} B;

static void *grow_table(void *p, uint32_t n, size_t elem)
{
    void *q = realloc(p, (n + 1) * elem);
    if (!q)
        abort();
    memset((char *)q + n * elem, 0, elem);
    return q;
}

static uint32_t prim(VmModule *m, uint8_t kind)
{
    return vm_module_add_type(m, &(VmType){.kind = kind});
}

static uint32_t ref_type(VmModule *m, uint8_t kind, uint32_t ref)
{
    return vm_module_add_type(m, &(VmType){.kind = kind, .ref = ref});
}

static uint32_t fn_type(VmModule *m, uint32_t ret, uint32_t n, const uint32_t *params)
{
    return vm_module_add_type(m, &(VmType){.kind = VM_T_FUNC, .ret = ret, .nparams = n,
                                           .params = (uint32_t *)params});
}

static B mk(void)
{
    B b = {.m = vm_module_new()};
    b.m->name = strdup("t");
    b.tvoid = prim(b.m, VM_T_VOID);
    b.tint = prim(b.m, VM_T_INT);
    b.tfloat = prim(b.m, VM_T_FLOAT);
    b.tbool = prim(b.m, VM_T_BOOL);
    b.tstring = prim(b.m, VM_T_STRING);
    b.tobject = prim(b.m, VM_T_OBJECT);
    b.tstrarr = ref_type(b.m, VM_T_ARRAY, b.tstring);
    b.tintarr = ref_type(b.m, VM_T_ARRAY, b.tint);
    return b;
}

static uint32_t *dup_u32(uint32_t n, const uint32_t *xs)
{
    if (!n)
        return NULL;
    uint32_t *p = malloc(n * sizeof *p);
    memcpy(p, xs, n * sizeof *p);
    return p;
}

static uint32_t add_class(B *b, const char *name, uint32_t flags, uint32_t super)
{
    VmModule *m = b->m;
    m->classes = grow_table(m->classes, m->nclasses, sizeof *m->classes);
    VmClass *c = &m->classes[m->nclasses];
    c->name = strdup(name);
    c->flags = flags;
    c->super = super;
    return m->nclasses++;
}

static void set_ifaces(B *b, uint32_t c, uint32_t n, const uint32_t *ifs)
{
    b->m->classes[c].nifaces = n;
    b->m->classes[c].ifaces = dup_u32(n, ifs);
}

static void set_vtable(B *b, uint32_t c, uint32_t n, const uint32_t *ms)
{
    b->m->classes[c].nvtable = n;
    b->m->classes[c].vtable = dup_u32(n, ms);
}

static uint32_t add_field(B *b, const char *name, uint32_t owner, uint32_t type)
{
    VmModule *m = b->m;
    m->fields = grow_table(m->fields, m->nfields, sizeof *m->fields);
    m->fields[m->nfields] = (VmField){.name = strdup(name), .owner = owner, .type = type};
    return m->nfields++;
}

static uint32_t add_global(B *b, const char *name, uint32_t type)
{
    VmModule *m = b->m;
    m->globals = grow_table(m->globals, m->nglobals, sizeof *m->globals);
    m->globals[m->nglobals] = (VmGlobal){.name = strdup(name), .type = type};
    return m->nglobals++;
}

static uint32_t add_native(B *b, const char *name, uint32_t ret, uint32_t n, const uint32_t *params)
{
    VmModule *m = b->m;
    m->natives = grow_table(m->natives, m->nnatives, sizeof *m->natives);
    m->natives[m->nnatives] = (VmNative){.name = strdup(name), .lib = strdup(""),
                                         .symbol = strdup(name), .nparams = n,
                                         .params = dup_u32(n, params), .ret = ret};
    return m->nnatives++;
}

/* A method with nregs registers of the given types, the first nparams
 * being the parameters. */
static uint32_t add_method(B *b, const char *name, uint32_t flags, uint32_t owner, uint32_t nparams,
                           uint32_t ret, uint32_t nregs, const uint32_t *regs)
{
    VmModule *m = b->m;
    m->methods = grow_table(m->methods, m->nmethods, sizeof *m->methods);
    VmMethod *mm = &m->methods[m->nmethods];
    mm->name = strdup(name);
    mm->flags = flags;
    mm->owner = owner;
    mm->nparams = nparams;
    mm->ret = ret;
    mm->nregs = nregs;
    mm->regs = dup_u32(nregs, regs);
    return m->nmethods++;
}

static void set_caps(B *b, uint32_t mi, uint32_t n, const uint32_t *caps)
{
    b->m->methods[mi].ncaps = n;
    b->m->methods[mi].caps = dup_u32(n, caps);
}

static void emit_k(B *b, uint32_t mi, VmOp op, int32_t x, int32_t y, int32_t z, int64_t k)
{
    VmMethod *mm = &b->m->methods[mi];
    mm->code = grow_table(mm->code, mm->ncode, sizeof *mm->code);
    mm->code[mm->ncode++] = (VmInsn){.op = op, .a = x, .b = y, .c = z, .k.i = k};
}

static void emit(B *b, uint32_t mi, VmOp op, int32_t x, int32_t y, int32_t z)
{
    emit_k(b, mi, op, x, y, z, 0);
}

static void add_line(B *b, uint32_t mi, uint32_t pc, uint32_t line)
{
    VmMethod *mm = &b->m->methods[mi];
    mm->lines = grow_table(mm->lines, mm->nlines, sizeof *mm->lines);
    mm->lines[mm->nlines++] = (VmLine){pc, line};
}

/* Static void main() { RETV } with a few int registers. */
static uint32_t add_main(B *b, uint32_t nregs)
{
    uint32_t regs[16];
    for (uint32_t i = 0; i < nregs; i++)
        regs[i] = b->tint;
    uint32_t mi = add_method(b, "main", VM_M_STATIC, VM_NONE, 0, b->tvoid, nregs, regs);
    b->m->main = mi;
    return mi;
}

/* Runs the verifier; returns its message, or "" when it accepted. */
static const char *verify(B *b)
{
    static VmError err;
    err.msg[0] = 0;
    if (vm_verify(b->m, &err))
        strcpy(err.msg, "");
    else if (!err.msg[0])
        strcpy(err.msg, "(false without a message)");
    return err.msg;
}

#define EXPECT(b, want)                                                         \
    do {                                                                        \
        CHECK_STR(verify(&(b)), want);                                          \
        vm_module_free((b).m);                                                  \
    } while (0)

/* ---- valid modules ------------------------------------------------------ */

TEST(verify_minimal_ok)
{
    B b = mk();
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "");
}

TEST(verify_empty_module_ok)
{
    B b = mk();
    EXPECT(b, "");
}

/* Shape (interface) <- Rect <- Square, an abstract Base, a lambda, arrays. */
TEST(verify_rich_module_ok)
{
    B b = mk();
    VmModule *m = b.m;
    uint32_t shape = add_class(&b, "Shape", VM_C_INTERFACE, VM_NONE);
    uint32_t rect = add_class(&b, "Rect", 0, VM_NONE);
    uint32_t square = add_class(&b, "Square", 0, rect);
    uint32_t tshape = ref_type(m, VM_T_IFACE, shape);
    uint32_t trect = ref_type(m, VM_T_CLASS, rect);
    uint32_t tsq = ref_type(m, VM_T_CLASS, square);
    uint32_t fi = fn_type(m, b.tint, 1, (uint32_t[]){b.tint});
    set_ifaces(&b, rect, 1, (uint32_t[]){shape});
    uint32_t w = add_field(&b, "w", rect, b.tfloat);
    add_field(&b, "side", square, b.tfloat);
    uint32_t g = add_global(&b, "count", b.tint);
    uint32_t pi = add_native(&b, "print_int", b.tvoid, 1, (uint32_t[]){b.tint});

    uint32_t s_area = add_method(&b, "Shape.area", VM_M_ABSTRACT, shape, 1, b.tfloat, 1, (uint32_t[]){tshape});
    set_vtable(&b, shape, 1, (uint32_t[]){s_area});
    uint32_t r_area = add_method(&b, "Rect.area", 0, rect, 1, b.tfloat, 2, (uint32_t[]){trect, b.tfloat});
    emit(&b, r_area, VM_OP_GETF, 1, 0, (int32_t)w);
    emit(&b, r_area, VM_OP_RET, 1, 0, 0);
    uint32_t q_area = add_method(&b, "Square.area", 0, square, 1, b.tfloat, 2, (uint32_t[]){tsq, b.tfloat});
    emit(&b, q_area, VM_OP_GETF, 1, 0, (int32_t)w);
    emit(&b, q_area, VM_OP_RET, 1, 0, 0);
    set_vtable(&b, rect, 1, (uint32_t[]){r_area});
    set_vtable(&b, square, 1, (uint32_t[]){q_area});

    uint32_t lam = add_method(&b, "main$1", VM_M_LAMBDA, VM_NONE, 2, b.tint, 3,
                              (uint32_t[]){fi, b.tint, b.tint});
    set_caps(&b, lam, 1, (uint32_t[]){b.tint});
    emit(&b, lam, VM_OP_LDCAP, 2, 0, 0);
    emit(&b, lam, VM_OP_ADD, 2, 2, 1);
    emit(&b, lam, VM_OP_RET, 2, 0, 0);

    /* r0 args, r1 Square, r2 Shape, r3 float, r4 int, r5 fn, r6 int,
     * r7 int[], r8 Object */
    uint32_t mn = add_method(&b, "main", VM_M_STATIC, VM_NONE, 1, b.tvoid, 9,
                             (uint32_t[]){b.tstrarr, tsq, tshape, b.tfloat, b.tint, fi, b.tint,
                                          b.tintarr, b.tobject});
    m->main = mn;
    emit(&b, mn, VM_OP_NEW, 1, (int32_t)square, 0);
    emit(&b, mn, VM_OP_MOV, 2, 1, 0);
    emit(&b, mn, VM_OP_MOV, 8, 2, 0);
    emit(&b, mn, VM_OP_CALLV, 3, 1, (int32_t)r_area);
    emit(&b, mn, VM_OP_CALLI, 3, 2, (int32_t)s_area);
    emit(&b, mn, VM_OP_PUTF, 1, (int32_t)w, 3);
    emit_k(&b, mn, VM_OP_LDI, 4, 0, 0, 5);
    emit(&b, mn, VM_OP_CLOS, 5, 4, (int32_t)lam);
    emit(&b, mn, VM_OP_CALLF, 4, 5, 0);
    emit(&b, mn, VM_OP_NEWA, 7, 4, (int32_t)b.tintarr);
    emit(&b, mn, VM_OP_APUTI, 7, 4, 6);
    emit(&b, mn, VM_OP_AGETI, 4, 7, 6);
    emit(&b, mn, VM_OP_STG, (int32_t)g, 4, 0);
    emit(&b, mn, VM_OP_CALLN, -1, 4, (int32_t)pi);
    emit(&b, mn, VM_OP_JNULL, 8, 16, 0);
    emit(&b, mn, VM_OP_CAST, 1, 8, (int32_t)tsq);
    emit(&b, mn, VM_OP_RETV, 0, 0, 0);
    add_line(&b, mn, 0, 3);
    add_line(&b, mn, 5, 4);
    EXPECT(b, "");
}

/* A zero-argument call from a method without registers. */
TEST(verify_call_without_registers_ok)
{
    B b = mk();
    uint32_t f = add_method(&b, "f", VM_M_STATIC, VM_NONE, 0, b.tvoid, 0, NULL);
    emit(&b, f, VM_OP_RETV, 0, 0, 0);
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, VM_OP_CALL, -1, 0, (int32_t)f);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "");
}

/* ---- indices out of range ----------------------------------------------- */

TEST(verify_method_index_out_of_range)
{
    B b = mk();
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_CALL, -1, 0, 99);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: method index 99 out of range");
}

TEST(verify_negative_method_index)
{
    B b = mk();
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_CLOS, 0, 0, -1);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: method index -1 out of range");
}

TEST(verify_register_type_out_of_range)
{
    B b = mk();
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 1, (uint32_t[]){50});
    b.m->main = mm;
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main: register r0: type index 50 out of range");
}

TEST(verify_return_type_out_of_range)
{
    B b = mk();
    uint32_t mm = add_method(&b, "f", VM_M_STATIC, VM_NONE, 0, 77, 0, NULL);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method f: return type index 77 out of range");
}

TEST(verify_class_index_out_of_range)
{
    B b = mk();
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_NEW, 0, 3, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: class index 3 out of range");
}

TEST(verify_field_index_out_of_range)
{
    B b = mk();
    uint32_t c = add_class(&b, "P", 0, VM_NONE);
    uint32_t tp = ref_type(b.m, VM_T_CLASS, c);
    add_field(&b, "x", c, b.tint);
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 2, (uint32_t[]){tp, b.tint});
    emit(&b, mm, VM_OP_GETF, 1, 0, 1);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: field index 1 out of range");
}

TEST(verify_const_index_out_of_range)
{
    B b = mk();
    vm_module_add_const(b.m, "hi", 2);
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 1, (uint32_t[]){b.tstring});
    emit(&b, mm, VM_OP_LDK, 0, 1, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: constant index 1 out of range");
}

TEST(verify_global_and_native_index_out_of_range)
{
    B b = mk();
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_LDG, 0, 0, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: global index 0 out of range");

    b = mk();
    mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_CALLN, -1, 0, 4);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: native index 4 out of range");
}

TEST(verify_type_operand_out_of_range)
{
    B b = mk();
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 2,
                             (uint32_t[]){b.tintarr, b.tint});
    emit(&b, mm, VM_OP_NEWA, 0, 1, 1000);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: type index 1000 out of range");
}

TEST(verify_main_index_out_of_range)
{
    B b = mk();
    b.m->main = 99;
    EXPECT(b, "t: main: method index 99 out of range");
}

TEST(verify_vtable_method_out_of_range)
{
    B b = mk();
    uint32_t c = add_class(&b, "A", 0, VM_NONE);
    set_vtable(&b, c, 1, (uint32_t[]){42});
    EXPECT(b, "t: class A: vtable slot 0: method index 42 out of range");
}

TEST(verify_super_out_of_range)
{
    B b = mk();
    add_class(&b, "A", 0, 9);
    EXPECT(b, "t: class A: superclass index 9 out of range");
}

TEST(verify_type_refs)
{
    B b = mk();
    VmModule *m = b.m;
    m->types = realloc(m->types, (m->ntypes + 1) * sizeof *m->types);
    m->types[m->ntypes++] = (VmType){.kind = VM_T_ARRAY, .ref = 8};   /* itself */
    EXPECT(b, "t: type #8: element type index 8 out of range");

    b = mk();
    ref_type(b.m, VM_T_CLASS, 0);
    EXPECT(b, "t: type #8: class index 0 out of range");

    b = mk();
    ref_type(b.m, VM_T_ARRAY, b.tvoid);
    EXPECT(b, "t: type #8: array of void");

    b = mk();
    b.m->types[3].kind = 42;
    EXPECT(b, "t: type #3: unknown type kind 42");

    b = mk();
    uint32_t c = add_class(&b, "I", VM_C_INTERFACE, VM_NONE);
    ref_type(b.m, VM_T_CLASS, c);
    EXPECT(b, "t: type #8: class type names interface I");
}

/* ---- registers and operands --------------------------------------------- */

TEST(verify_register_out_of_range)
{
    B b = mk();
    uint32_t mm = add_main(&b, 2);
    emit(&b, mm, VM_OP_ADD, 0, 1, 9);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: register r9 out of range (2 registers)");
}

TEST(verify_bad_d_operand)
{
    B b = mk();
    uint32_t f = add_method(&b, "f", VM_M_STATIC, VM_NONE, 0, b.tint, 1, (uint32_t[]){b.tint});
    emit(&b, f, VM_OP_RET, 0, 0, 0);
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_CALL, -5, 0, (int32_t)f);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: register r-5 out of range (1 registers)");

    b = mk();
    f = add_method(&b, "f", VM_M_STATIC, VM_NONE, 0, b.tint, 1, (uint32_t[]){b.tint});
    emit(&b, f, VM_OP_RET, 0, 0, 0);
    mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_CALL, -1, 0, (int32_t)f);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: call of a function returning int has no destination");
}

TEST(verify_argument_registers_out_of_range)
{
    B b = mk();
    uint32_t f = add_method(&b, "f", VM_M_STATIC, VM_NONE, 2, b.tvoid, 2, (uint32_t[]){b.tint, b.tint});
    emit(&b, f, VM_OP_RETV, 0, 0, 0);
    uint32_t mm = add_main(&b, 3);
    emit(&b, mm, VM_OP_CALL, -1, 2, (int32_t)f);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: register r3 out of range (3 registers)");
}

TEST(verify_jump_out_of_range)
{
    B b = mk();
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, VM_OP_JMP, 40, 0, 0);
    EXPECT(b, "t: method main at offset 0: jump target 40 out of range (1 instructions)");
}

TEST(verify_unknown_opcode)
{
    B b = mk();
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, (VmOp)200, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: unknown opcode 200");
}

TEST(verify_empty_code)
{
    B b = mk();
    add_main(&b, 0);
    EXPECT(b, "t: method main: method has no code");
}

TEST(verify_falls_off_end)
{
    B b = mk();
    uint32_t mm = add_main(&b, 1);
    emit_k(&b, mm, VM_OP_LDI, 0, 0, 0, 1);
    emit_k(&b, mm, VM_OP_JEQS, 0, 1, 0, 0);
    EXPECT(b, "t: method main at offset 1: execution falls off the end of the method");
}

TEST(verify_generic_types)
{
    B b = mk();
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 3,
                             (uint32_t[]){b.tint, b.tfloat, b.tint});
    b.m->main = mm;
    emit(&b, mm, VM_OP_ADD, 0, 1, 2);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: register r1 has type float, expected int");
}

TEST(verify_line_table)
{
    B b = mk();
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    add_line(&b, mm, 3, 10);
    EXPECT(b, "t: method main: line table entry 0: pc 3 out of range (1 instructions)");
}

/* ---- hierarchy and tables ----------------------------------------------- */

TEST(verify_cyclic_classes)
{
    B b = mk();
    add_class(&b, "A", 0, 1);
    add_class(&b, "B", 0, 0);
    EXPECT(b, "t: class A: cyclic class hierarchy");

    b = mk();
    add_class(&b, "A", 0, 0);
    EXPECT(b, "t: class A: cyclic class hierarchy");
}

TEST(verify_cyclic_interfaces)
{
    B b = mk();
    uint32_t i = add_class(&b, "I", VM_C_INTERFACE, VM_NONE);
    uint32_t j = add_class(&b, "J", VM_C_INTERFACE, VM_NONE);
    set_ifaces(&b, i, 1, (uint32_t[]){j});
    set_ifaces(&b, j, 1, (uint32_t[]){i});
    EXPECT(b, "t: class I: cyclic interface hierarchy");
}

TEST(verify_class_names)
{
    B b = mk();
    add_class(&b, "A", 0, VM_NONE);
    add_class(&b, "A", 0, VM_NONE);
    EXPECT(b, "t: class A: duplicate class name");

    b = mk();
    add_class(&b, "string", 0, VM_NONE);
    EXPECT(b, "t: class string: reserved name");
}

TEST(verify_fields_grouping)
{
    B b = mk();
    add_class(&b, "A", 0, VM_NONE);
    add_class(&b, "B", 0, VM_NONE);
    add_field(&b, "x", 1, b.tint);
    add_field(&b, "y", 0, b.tint);
    EXPECT(b, "t: field y: fields are not grouped by owner class");

    b = mk();
    add_class(&b, "A", 0, VM_NONE);
    add_field(&b, "x", 0, b.tint);
    add_field(&b, "x", 0, b.tfloat);
    EXPECT(b, "t: field x: duplicate field name in class A");
}

TEST(verify_virtual_not_in_vtable)
{
    B b = mk();
    uint32_t a = add_class(&b, "A", 0, VM_NONE);
    uint32_t ta = ref_type(b.m, VM_T_CLASS, a);
    uint32_t f = add_method(&b, "A.f", 0, a, 1, b.tvoid, 1, (uint32_t[]){ta});
    emit(&b, f, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method A.f: listed 0 times in the vtable of A, expected once");
}

TEST(verify_missing_interface_method)
{
    B b = mk();
    uint32_t i = add_class(&b, "I", VM_C_INTERFACE, VM_NONE);
    uint32_t a = add_class(&b, "A", 0, VM_NONE);
    uint32_t ti = ref_type(b.m, VM_T_IFACE, i);
    set_ifaces(&b, a, 1, (uint32_t[]){i});
    uint32_t f = add_method(&b, "I.f", VM_M_ABSTRACT, i, 1, b.tint, 1, (uint32_t[]){ti});
    set_vtable(&b, i, 1, (uint32_t[]){f});
    EXPECT(b, "t: class A: does not implement I.f");
}

TEST(verify_abstract_in_concrete_vtable)
{
    B b = mk();
    uint32_t a = add_class(&b, "A", 0, VM_NONE);
    uint32_t ta = ref_type(b.m, VM_T_CLASS, a);
    uint32_t f = add_method(&b, "A.f", VM_M_ABSTRACT, a, 1, b.tint, 1, (uint32_t[]){ta});
    set_vtable(&b, a, 1, (uint32_t[]){f});
    EXPECT(b, "t: class A: abstract method A.f in the vtable of a non-abstract class");
}

TEST(verify_override_signature)
{
    B b = mk();
    uint32_t a = add_class(&b, "A", VM_C_ABSTRACT, VM_NONE);
    uint32_t c = add_class(&b, "C", 0, a);
    uint32_t ta = ref_type(b.m, VM_T_CLASS, a), tc = ref_type(b.m, VM_T_CLASS, c);
    uint32_t f = add_method(&b, "A.f", VM_M_ABSTRACT, a, 1, b.tint, 1, (uint32_t[]){ta});
    uint32_t g = add_method(&b, "C.f", 0, c, 1, b.tfloat, 2, (uint32_t[]){tc, b.tfloat});
    emit(&b, g, VM_OP_RET, 1, 0, 0);
    set_vtable(&b, a, 1, (uint32_t[]){f});
    set_vtable(&b, c, 1, (uint32_t[]){g});
    EXPECT(b, "t: class C: vtable slot 0: C.f does not match the signature of A.f");
}

TEST(verify_receiver_type)
{
    B b = mk();
    uint32_t a = add_class(&b, "A", 0, VM_NONE);
    uint32_t f = add_method(&b, "A.f", 0, a, 1, b.tvoid, 1, (uint32_t[]){b.tint});
    emit(&b, f, VM_OP_RETV, 0, 0, 0);
    set_vtable(&b, a, 1, (uint32_t[]){f});
    EXPECT(b, "t: method A.f: receiver r0 has type int, expected A");
}

TEST(verify_lambda_signature_and_captures)
{
    B b = mk();
    uint32_t fi = fn_type(b.m, b.tint, 1, (uint32_t[]){b.tint});
    uint32_t lam = add_method(&b, "l", VM_M_LAMBDA, VM_NONE, 2, b.tfloat, 2, (uint32_t[]){fi, b.tint});
    emit(&b, lam, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method l: closure r0 has type fn(int):int, which does not match the lambda's signature");

    b = mk();
    uint32_t mm = add_main(&b, 1);
    emit(&b, mm, VM_OP_LDCAP, 0, 0, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: LDCAP outside a lambda");
}

TEST(verify_globals_natives)
{
    B b = mk();
    add_global(&b, "g", b.tint);
    add_global(&b, "g", b.tint);
    EXPECT(b, "t: global g: duplicate global name");

    b = mk();
    add_global(&b, "g", 123);
    EXPECT(b, "t: global g: type index 123 out of range");

    b = mk();
    add_native(&b, "n", b.tvoid, 1, (uint32_t[]){b.tvoid});
    EXPECT(b, "t: native n: parameter 0 has type void");
}

TEST(verify_main_signature)
{
    B b = mk();
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 1, b.tvoid, 1, (uint32_t[]){b.tint});
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    b.m->main = mm;
    EXPECT(b, "t: method main: main takes no parameters or one string[]");
}

TEST(verify_new_abstract_and_call_abstract)
{
    B b = mk();
    uint32_t a = add_class(&b, "A", VM_C_ABSTRACT, VM_NONE);
    uint32_t ta = ref_type(b.m, VM_T_CLASS, a);
    uint32_t f = add_method(&b, "A.f", VM_M_ABSTRACT, a, 1, b.tvoid, 1, (uint32_t[]){ta});
    set_vtable(&b, a, 1, (uint32_t[]){f});
    uint32_t mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 1, (uint32_t[]){ta});
    emit(&b, mm, VM_OP_CALL, -1, 0, (int32_t)f);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: CALL of abstract method A.f");

    b = mk();
    a = add_class(&b, "A", VM_C_ABSTRACT, VM_NONE);
    ta = ref_type(b.m, VM_T_CLASS, a);
    mm = add_method(&b, "main", VM_M_STATIC, VM_NONE, 0, b.tvoid, 1, (uint32_t[]){ta});
    emit(&b, mm, VM_OP_NEW, 0, (int32_t)a, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    EXPECT(b, "t: method main at offset 0: cannot instantiate abstract class A");
}

TEST(verify_null_names_do_not_crash)
{
    B b = mk();
    uint32_t mm = add_main(&b, 0);
    emit(&b, mm, VM_OP_RETV, 0, 0, 0);
    free(b.m->name);
    b.m->name = NULL;
    free(b.m->methods[mm].name);
    b.m->methods[mm].name = NULL;
    EXPECT(b, "?: method ?: missing name");
}
