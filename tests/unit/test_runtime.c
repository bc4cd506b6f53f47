/* tests/unit/test_runtime.c — the heap (object.c), the linker (link.c) and
 * threads (vm.c), on modules built in memory without the assembler.
 *
 * The hierarchy used throughout:
 *   interface I { f }   interface J extends I { g }
 *   class A implements J { x: int }      vtable A.f, A.g
 *   class B extends A    { s: string }   vtable B.f, A.g
 *   class C extends B                    vtable B.f, A.g
 *   class P              { n: int }      (no reference fields)
 * Run-time errors are caught with a jmp_buf of the test's own; the
 * out-of-memory test runs in a child because the heap limit is global.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "test.h"
#include "vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

/* type indices in the test module */
enum { T_VOID, T_INT, T_FLOAT, T_BOOL, T_STRING, T_OBJECT, T_A, T_B, T_C, T_P, T_I, T_J,
       T_INTS, T_FLOATS, T_BOOLS, T_STRINGS, T_AS, T_FN, T_INTS2, T_COUNT };
enum { C_I, C_J, C_A, C_B, C_C, C_P, C_COUNT };
enum { M_IF, M_JG, M_AF, M_AG, M_BF, M_CODE, M_LAMBDA, M_COUNT };

static char *sdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static uint32_t *u32s(int n, ...)
{
    uint32_t *p = calloc(n ? n : 1, sizeof *p);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        p[i] = va_arg(ap, uint32_t);
    va_end(ap);
    return p;
}

static void set_type(VmModule *m, uint32_t i, uint8_t kind, uint32_t ref)
{
    m->types[i] = (VmType){.kind = kind, .ref = ref};
}

static void set_class(VmModule *m, uint32_t i, const char *name, uint32_t flags, uint32_t super,
                      uint32_t nifaces, uint32_t *ifaces, uint32_t nvt, uint32_t *vt)
{
    m->classes[i] = (VmClass){.name = sdup(name), .flags = flags, .super = super,
                              .nifaces = nifaces, .ifaces = ifaces, .nvtable = nvt, .vtable = vt};
}

static void set_method(VmModule *m, uint32_t i, const char *name, uint32_t flags, uint32_t owner,
                       uint32_t self)
{
    VmMethod *mm = &m->methods[i];
    *mm = (VmMethod){.name = sdup(name), .flags = flags, .owner = owner, .nparams = 1,
                     .ret = T_INT, .nregs = 1, .regs = u32s(1, self)};
    if (!(flags & VM_M_ABSTRACT)) {
        mm->ncode = 1;
        mm->code = calloc(1, sizeof *mm->code);
        mm->code[0] = (VmInsn){.op = VM_OP_RET, .a = 0};
    }
}

static VmModule *build_module(void)
{
    VmModule *m = vm_module_new();
    m->name = sdup("rt");
    m->source = sdup("rt.tla");
    m->ntypes = T_COUNT;
    m->types = calloc(T_COUNT, sizeof *m->types);
    set_type(m, T_VOID, VM_T_VOID, 0);
    set_type(m, T_INT, VM_T_INT, 0);
    set_type(m, T_FLOAT, VM_T_FLOAT, 0);
    set_type(m, T_BOOL, VM_T_BOOL, 0);
    set_type(m, T_STRING, VM_T_STRING, 0);
    set_type(m, T_OBJECT, VM_T_OBJECT, 0);
    set_type(m, T_A, VM_T_CLASS, C_A);
    set_type(m, T_B, VM_T_CLASS, C_B);
    set_type(m, T_C, VM_T_CLASS, C_C);
    set_type(m, T_P, VM_T_CLASS, C_P);
    set_type(m, T_I, VM_T_IFACE, C_I);
    set_type(m, T_J, VM_T_IFACE, C_J);
    set_type(m, T_INTS, VM_T_ARRAY, T_INT);
    set_type(m, T_FLOATS, VM_T_ARRAY, T_FLOAT);
    set_type(m, T_BOOLS, VM_T_ARRAY, T_BOOL);
    set_type(m, T_STRINGS, VM_T_ARRAY, T_STRING);
    set_type(m, T_AS, VM_T_ARRAY, T_A);
    m->types[T_FN] = (VmType){.kind = VM_T_FUNC, .ret = T_INT, .nparams = 1, .params = u32s(1, T_INT)};
    set_type(m, T_INTS2, VM_T_ARRAY, T_INT);  /* a duplicate: canon is T_INTS */

    m->nclasses = C_COUNT;
    m->classes = calloc(C_COUNT, sizeof *m->classes);
    set_class(m, C_I, "I", VM_C_INTERFACE, VM_NONE, 0, NULL, 1, u32s(1, M_IF));
    set_class(m, C_J, "J", VM_C_INTERFACE, VM_NONE, 1, u32s(1, C_I), 1, u32s(1, M_JG));
    set_class(m, C_A, "A", 0, VM_NONE, 1, u32s(1, C_J), 2, u32s(2, M_AF, M_AG));
    set_class(m, C_B, "B", 0, C_A, 0, NULL, 2, u32s(2, M_BF, M_AG));
    set_class(m, C_C, "C", 0, C_B, 0, NULL, 2, u32s(2, M_BF, M_AG));
    set_class(m, C_P, "P", 0, VM_NONE, 0, NULL, 0, NULL);

    m->nfields = 3;
    m->fields = calloc(3, sizeof *m->fields);
    /* B's field first in the table: layout must still put A's first */
    m->fields[0] = (VmField){sdup("s"), C_B, T_STRING, 0};
    m->fields[1] = (VmField){sdup("x"), C_A, T_INT, 0};
    m->fields[2] = (VmField){sdup("n"), C_P, T_INT, 0};

    m->nconsts = 2;
    m->consts = calloc(2, sizeof *m->consts);
    m->consts[0] = (VmConst){sdup("hi"), 2};
    m->consts[1] = (VmConst){sdup("hi"), 2};

    m->nglobals = 1;
    m->globals = calloc(1, sizeof *m->globals);
    m->globals[0] = (VmGlobal){sdup("g"), T_INT};

    m->nmethods = M_COUNT;
    m->methods = calloc(M_COUNT, sizeof *m->methods);
    set_method(m, M_IF, "I.f", VM_M_ABSTRACT, C_I, T_I);
    set_method(m, M_JG, "J.g", VM_M_ABSTRACT, C_J, T_J);
    set_method(m, M_AF, "A.f", 0, C_A, T_A);
    set_method(m, M_AG, "A.g", 0, C_A, T_A);
    set_method(m, M_BF, "B.f", 0, C_B, T_B);
    set_method(m, M_CODE, "code", VM_M_STATIC, VM_NONE, T_A);
    set_method(m, M_LAMBDA, "code$1", VM_M_LAMBDA, VM_NONE, T_FN);
    m->methods[M_LAMBDA].ncaps = 2;
    m->methods[M_LAMBDA].caps = u32s(2, T_INT, T_STRING);

    /* profiled branches, call sites and resolved operands */
    VmMethod *c = &m->methods[M_CODE];
    free(c->code);
    c->ncode = 9;
    c->code = calloc(c->ncode, sizeof *c->code);
    c->code[0] = (VmInsn){.op = VM_OP_LDK, .a = 0, .b = 1};
    c->code[1] = (VmInsn){.op = VM_OP_JLT, .a = 0, .b = 0, .c = 4};
    c->code[2] = (VmInsn){.op = VM_OP_JMP, .a = 4};             /* forward: not profiled */
    c->code[3] = (VmInsn){.op = VM_OP_CALLV, .a = -1, .b = 0, .c = M_AF};
    c->code[4] = (VmInsn){.op = VM_OP_GETF, .a = 0, .b = 0, .c = 0};
    c->code[5] = (VmInsn){.op = VM_OP_CALLI, .a = -1, .b = 0, .c = M_IF};
    c->code[6] = (VmInsn){.op = VM_OP_LDG, .a = 0, .b = 0};
    c->code[7] = (VmInsn){.op = VM_OP_JMP, .a = 1};             /* backward: profiled */
    c->code[8] = (VmInsn){.op = VM_OP_NEWA, .a = 0, .b = 0, .c = T_INTS2};
    return m;
}

/* One VM and linked module shared by the tests (GC_INIT is once per process). */
static Vm *vm;
static VmModule *mod;
static VmThread *thr;

static void setup(void)
{
    if (vm)
        return;
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.stack_slots = 1 << 16;
    tun.max_frames = 1000;
    vm = vm_new(&tun);
    mod = build_module();
    VmError err = {{0}};
    bool ok = vm_link(vm, mod, &err);
    if (!ok)
        test_fail(__FILE__, __LINE__, "vm_link: %s", err.msg);
    thr = vm_thread_new(vm);
}

static VmObject *new_of(uint32_t cls)
{
    return vm_new_object(thr, &mod->classes[cls]);
}

TEST(runtime_strings)
{
    setup();
    VmString *a = vm_new_string(thr, "foo", 3), *b = vm_new_string(thr, "bar", 3);
    VmString *ab = vm_string_concat(thr, a, b);
    CHECK_INT(ab->length, 6);
    CHECK_STR(ab->bytes, "foobar");
    CHECK(ab->cls == vm->string_class);
    VmString *ab2 = vm_new_string(thr, "foobar", 6);
    CHECK(vm_string_equal(ab, ab2));
    CHECK(!vm_string_equal(ab, a));
    CHECK(!vm_string_equal(ab, NULL));
    CHECK(!vm_string_equal(NULL, ab));
    CHECK(vm_string_equal(NULL, NULL));
    /* FNV-1a 64 reference values */
    VmString *empty = vm_new_string(thr, "", 0);
    CHECK(vm_string_hash(empty) == 0xcbf29ce484222325ull);
    CHECK(vm_string_hash(vm_new_string(thr, "a", 1)) == 0xaf63dc4c8601ec8cull);
    CHECK(vm_string_hash(ab) == vm_string_hash(ab2));
    CHECK(ab->hash != 0);
    CHECK_INT(empty->bytes[0], 0);
    /* embedded NULs count */
    CHECK(!vm_string_equal(vm_new_string(thr, "a\0b", 3), vm_new_string(thr, "a\0c", 3)));
    /* strings are atomic: not scanned by the collector */
    CHECK(GC_base(ab) == ab);
    CHECK(GC_size(ab) >= offsetof(VmString, bytes) + 7);
}

TEST(runtime_arrays)
{
    setup();
    static const struct { uint32_t type; size_t esz; bool refs; } cases[] = {
        {T_INTS, 8, false}, {T_FLOATS, 8, false}, {T_BOOLS, 1, false},
        {T_STRINGS, 8, true}, {T_AS, 8, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        VmType *t = &mod->types[cases[i].type];
        VmArray *a = vm_new_array(thr, t, 1000);
        CHECK(a->cls == t->cls);
        CHECK_INT(a->length, 1000);
        CHECK(GC_base(a) == a);
        CHECK(GC_size(a) >= offsetof(VmArray, data) + 1000 * cases[i].esz);
        bool zero = true;
        for (size_t k = 0; k < 1000 * cases[i].esz; k++)
            zero &= a->data.b[k] == 0;
        CHECK(zero);
    }
    VmArray *e = vm_new_array(thr, &mod->types[T_INTS], 0);
    CHECK_INT(e->length, 0);
    /* equal types share one runtime class */
    VmArray *d = vm_new_array(thr, &mod->types[T_INTS2], 3);
    CHECK(d->cls == mod->types[T_INTS].cls);
    CHECK(vm_instance_of(d, &mod->types[T_INTS]));
    CHECK_STR(mod->types[T_INTS].cls->name, "int[]");
    CHECK_STR(mod->types[T_FN].cls->name, "fn(int):int");
    CHECK_INT(mod->types[T_INTS].cls->rkind, VM_RK_ARRAY);
    CHECK_INT(mod->types[T_FN].cls->rkind, VM_RK_CLOSURE);
    /* number arrays are atomic, reference arrays are scanned: an array of
     * strings keeps its strings alive across collections */
    VmArray *ss = vm_new_array(thr, &mod->types[T_STRINGS], 64);
    for (int i = 0; i < 64; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "s%d", i);
        ss->data.p[i] = vm_new_string(thr, buf, n);
    }
    for (int i = 0; i < 5; i++) {
        GC_gcollect();
        for (int k = 0; k < 1000; k++)
            vm_new_array(thr, &mod->types[T_INTS], 100);
    }
    char buf[16];
    snprintf(buf, sizeof buf, "s%d", 63);
    CHECK_STR(((VmString *)ss->data.p[63])->bytes, buf);
    CHECK_STR(((VmString *)ss->data.p[0])->bytes, "s0");

    /* negative length raises */
    jmp_buf env;
    thr->escape = &env;
    volatile bool raised = false;
    FILE *saved = stderr, *null = fopen("/dev/null", "w");
    if (null)
        stderr = null;  /* the error message is expected */
    if (setjmp(env) == 0)
        vm_new_array(thr, &mod->types[T_INTS], -3);
    else
        raised = true;
    stderr = saved;
    if (null)
        fclose(null);
    thr->escape = NULL;
    CHECK(raised);
    CHECK_INT(thr->status, 1);
}

TEST(runtime_register_stack_is_root)
{
    setup();
    /* an object referenced only from the register stack survives */
    thr->stack[10].p = vm_new_string(thr, "kept", 4);
    thr->stack_hwm = thr->stack + 10;
    for (int i = 0; i < 3; i++) {
        GC_gcollect();
        for (int k = 0; k < 2000; k++)
            vm_new_string(thr, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 32);
    }
    CHECK_STR(((VmString *)thr->stack[10].p)->bytes, "kept");
    thr->stack_hwm = thr->stack;
}

TEST(runtime_link_layout)
{
    setup();
    VmClass *A = &mod->classes[C_A], *B = &mod->classes[C_B], *C = &mod->classes[C_C];
    VmClass *P = &mod->classes[C_P], *I = &mod->classes[C_I], *J = &mod->classes[C_J];
    CHECK_INT(A->depth, 1);
    CHECK_INT(B->depth, 2);
    CHECK_INT(C->depth, 3);
    CHECK(C->display[0] == vm->object_class && C->display[1] == A && C->display[2] == B);
    CHECK(B->superc == A && A->superc == vm->object_class && I->superc == NULL);
    CHECK_INT(A->rkind, VM_RK_INSTANCE);
    CHECK_INT(I->rkind, VM_RK_IFACE);
    CHECK_INT(A->nfields, 1);
    CHECK_INT(B->nfields, 2);
    CHECK_INT(C->nfields, 2);
    CHECK_INT(mod->fields[1].slot, 0);  /* A.x */
    CHECK_INT(mod->fields[0].slot, 1);  /* B.s after the inherited x */
    CHECK(B->field_types[1] == &mod->types[T_STRING]);
    CHECK(!A->has_refs && B->has_refs && C->has_refs && !P->has_refs);
    CHECK_INT(B->size, sizeof(VmObject) + 2 * sizeof(VmValue));
    CHECK(B->vt[0] == &mod->methods[M_BF] && B->vt[1] == &mod->methods[M_AG]);
    CHECK_INT(mod->methods[M_AF].slot, 0);
    CHECK_INT(mod->methods[M_AG].slot, 1);
    CHECK_INT(mod->methods[M_BF].slot, 0);
    CHECK_INT(mod->methods[M_IF].slot, 0);
    CHECK_INT(mod->methods[M_JG].slot, 0);
    CHECK_INT(mod->methods[M_CODE].slot, -1);
    CHECK(mod->methods[M_AF].ownerc == A && mod->methods[M_CODE].ownerc == NULL);
    CHECK(mod->methods[M_AF].entry == vm_interp_entry);
    CHECK(mod->methods[M_AF].rtype == &mod->types[T_INT]);
    CHECK_INT(mod->methods[M_AF].prof.hot_countdown, vm->tun.hot_threshold);
    CHECK_INT(A->nall_ifaces, 2);
    CHECK_INT(C->nall_ifaces, 2);
    CHECK_INT(J->nall_ifaces, 1);
    CHECK(J->all_ifaces[0] == I);
    CHECK(mod->types[T_INTS2].canon == &mod->types[T_INTS]);
    CHECK(mod->types[T_INTS].elem == &mod->types[T_INT]);
    CHECK(mod->linked && mod->vm == vm && vm->module == mod);
    /* constants: interned, equal ones shared */
    CHECK(mod->cstrings[0] == mod->cstrings[1]);
    CHECK_STR(((VmString *)mod->cstrings[0])->bytes, "hi");
    CHECK_INT(mod->gvals[0].i, 0);

    /* objects: atomic exactly when the class has no reference fields */
    VmObject *b = new_of(C_B), *p = new_of(C_P);
    CHECK(b->cls == B && p->cls == P);
    CHECK(GC_size(b) >= B->size);
    CHECK(b->fields[0].i == 0 && b->fields[1].p == NULL);
}

TEST(runtime_link_code)
{
    setup();
    VmMethod *c = &mod->methods[M_CODE];
    CHECK_INT(c->prof.nbranches, 2);
    CHECK_INT(c->prof.nsites, 2);
    CHECK_INT(c->code[1].k.i, 0);
    CHECK_INT(c->prof.branches[0].pc, 1);
    CHECK_INT(c->code[7].k.i, 1);
    CHECK_INT(c->prof.branches[1].pc, 7);
    CHECK(c->code[0].k.p == mod->cstrings[1]);
    VmCallSite *s0 = c->code[3].k.p, *s1 = c->code[5].k.p;
    CHECK(s0 == &c->prof.sites[0] && s0->target == &mod->methods[M_AF] && s0->pc == 3);
    CHECK(s1 == &c->prof.sites[1] && s1->target == &mod->methods[M_IF] && s1->pc == 5);
    CHECK_INT(c->code[4].k.i, 1);  /* field 0 is B.s, slot 1 */
    CHECK(c->code[6].k.p == &mod->gvals[0]);
    CHECK(c->code[8].k.p == &mod->types[T_INTS2]);
    const void *const *h = vm_interp_handlers();
    CHECK(c->code[0].h == (h ? h[VM_OP_LDK] : NULL));
}

TEST(runtime_instance_of)
{
    setup();
    VmObject *a = new_of(C_A), *b = new_of(C_B), *cc = new_of(C_C), *p = new_of(C_P);
    VmType *t = mod->types;
    CHECK(vm_instance_of(a, &t[T_A]));
    CHECK(!vm_instance_of(a, &t[T_B]));
    CHECK(vm_instance_of(b, &t[T_A]));
    CHECK(vm_instance_of(cc, &t[T_A]) && vm_instance_of(cc, &t[T_B]) && vm_instance_of(cc, &t[T_C]));
    CHECK(!vm_instance_of(p, &t[T_A]));
    CHECK(vm_instance_of(a, &t[T_I]) && vm_instance_of(cc, &t[T_J]));
    CHECK(!vm_instance_of(p, &t[T_I]));
    CHECK(vm_instance_of(p, &t[T_OBJECT]));
    CHECK(!vm_instance_of(NULL, &t[T_OBJECT]));
    VmString *s = vm_new_string(thr, "x", 1);
    CHECK(vm_instance_of(s, &t[T_STRING]) && vm_instance_of(s, &t[T_OBJECT]));
    CHECK(!vm_instance_of(s, &t[T_A]) && !vm_instance_of(a, &t[T_STRING]));
    VmArray *ints = vm_new_array(thr, &t[T_INTS], 2);
    CHECK(vm_instance_of(ints, &t[T_INTS]) && vm_instance_of(ints, &t[T_INTS2]));
    CHECK(!vm_instance_of(ints, &t[T_FLOATS]) && !vm_instance_of(ints, &t[T_A]));
    CHECK(!vm_instance_of(ints, &t[T_I]));
    VmValue caps[2] = {{.i = 7}, {.p = s}};
    VmClosure *cl = vm_new_closure(thr, &mod->methods[M_LAMBDA], caps);
    CHECK(cl->cls == t[T_FN].cls && cl->method == &mod->methods[M_LAMBDA]);
    CHECK(cl->caps[0].i == 7 && cl->caps[1].p == s);
    CHECK(vm_instance_of(cl, &t[T_FN]) && !vm_instance_of(cl, &t[T_INTS]));
}

TEST(runtime_itable)
{
    setup();
    VmClass *A = &mod->classes[C_A], *B = &mod->classes[C_B], *C = &mod->classes[C_C];
    VmClass *I = &mod->classes[C_I], *J = &mod->classes[C_J], *P = &mod->classes[C_P];
    CHECK(vm_itable_lookup(A, I, 0) == &mod->methods[M_AF]);
    CHECK(vm_itable_lookup(A, J, 0) == &mod->methods[M_AG]);
    CHECK(vm_itable_lookup(B, I, 0) == &mod->methods[M_BF]);
    CHECK(vm_itable_lookup(C, I, 0) == &mod->methods[M_BF]);
    CHECK(vm_itable_lookup(C, J, 0) == &mod->methods[M_AG]);
    CHECK(vm_itable_lookup(P, I, 0) == NULL);
    CHECK(vm_itable_lookup(A, I, 1) == NULL);
    CHECK(vm_itable_lookup(A, I, -1) == NULL);
}

static void *volatile oom_chain;

TEST(runtime_out_of_memory)
{
    setup();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* the child: a fresh VM with a small heap limit */
        if (!freopen("/dev/null", "w", stderr))
            _exit(5);
        VmTunables tun = vm->tun;
        tun.gc_max_heap = (int64_t)GC_get_heap_size() + (16 << 20);
        Vm *v = vm_new(&tun);
        VmThread *t = vm_thread_new(v);
        t->stack_hwm = t->stack + 1;
        jmp_buf env;
        t->escape = &env;
        if (setjmp(env) == 0) {
            /* chain 1 MB arrays from a global (a root: a thread without
             * a frame has no live registers) so all stay live: more of
             * them than the limit holds, whatever the earlier tests grew
             * the heap to (the limit is that plus 16 MB) */
            int64_t n = (tun.gc_max_heap >> 20) + 64;
            for (int64_t i = 0; i < n; i++) {
                VmArray *a = vm_new_array(t, &mod->types[T_STRINGS], 1 << 17);
                a->data.p[0] = oom_chain;
                oom_chain = a;
            }
            _exit(3);  /* never ran out */
        }
        _exit(t->status == 1 ? 0 : 4);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 0);
}

/* A heap limit belongs to the VM that set it: Boehm's limit is
 * process-wide, so a VM made later without one must lift it. */
TEST(runtime_heap_limit_not_inherited)
{
    setup();
    VmTunables tun = vm->tun;
    tun.gc_max_heap = (int64_t)GC_get_heap_size() + (16 << 20);
    Vm *limited = vm_new(&tun);
    CHECK(limited != NULL);
    tun.gc_max_heap = 0;
    Vm *v = vm_new(&tun);
    VmThread *t = vm_thread_new(v);
    jmp_buf env;
    t->escape = &env;
    int made = 0;
    if (setjmp(env) == 0) {
        /* 48 MB kept alive through the register stack: over the first VM's limit */
        for (; made < 48; made++) {
            VmArray *a = vm_new_array(t, &mod->types[T_STRINGS], 1 << 17);
            a->data.p[0] = t->stack[0].p;
            t->stack[0].p = a;
        }
    }
    CHECK_INT(made, 48);
    t->stack[0].p = NULL;
    vm_thread_free(t);
    vm_free(v);
    vm_free(limited);
}

TEST(runtime_thread)
{
    setup();
    VmThread *t = vm_thread_new(vm);
    CHECK(t != NULL);
    CHECK(t->fp == t->frames - 1);
    CHECK(t->stack_end - t->stack == vm->tun.stack_slots);
    CHECK(t->frames_end - t->frames == vm->tun.max_frames);
    char here;
    uintptr_t lim = (uintptr_t)t->cstack_limit, top = (uintptr_t)&here;
    /* inside this thread's real stack, below us, with room to work */
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &addr, &size);
        pthread_attr_destroy(&attr);
    }
    CHECK(lim < top && top - lim >= (1u << 20));
    CHECK(!addr || lim > (uintptr_t)addr);
    vm_thread_free(t);
}

/* A module whose main(string[]) exits with its argument count. */
static VmModule *exit_module(const char *symbol)
{
    VmModule *m = vm_module_new();
    m->name = sdup("ex");
    m->ntypes = 4;
    m->types = calloc(4, sizeof *m->types);
    set_type(m, 0, VM_T_VOID, 0);
    set_type(m, 1, VM_T_INT, 0);
    set_type(m, 2, VM_T_STRING, 0);
    set_type(m, 3, VM_T_ARRAY, 2);
    m->nnatives = 1;
    m->natives = calloc(1, sizeof *m->natives);
    m->natives[0] = (VmNative){.name = sdup("exit"), .lib = sdup(""), .symbol = sdup(symbol),
                               .nparams = 1, .params = u32s(1, 1), .ret = 0};
    m->nmethods = 1;
    m->methods = calloc(1, sizeof *m->methods);
    VmMethod *mm = &m->methods[0];
    *mm = (VmMethod){.name = sdup("main"), .flags = VM_M_STATIC, .owner = VM_NONE, .nparams = 1,
                     .ret = 0, .nregs = 2, .regs = u32s(2, 3, 1)};
    mm->ncode = 3;
    mm->code = calloc(3, sizeof *mm->code);
    mm->code[0] = (VmInsn){.op = VM_OP_ALEN, .a = 1, .b = 0};
    mm->code[1] = (VmInsn){.op = VM_OP_CALLN, .a = -1, .b = 1, .c = 0};
    mm->code[2] = (VmInsn){.op = VM_OP_RETV};
    m->main = 0;
    return m;
}

TEST(runtime_run_and_link_errors)
{
    setup();
    VmModule *m = exit_module("exit");
    Vm *v = vm_new(&vm->tun);
    VmError err = {{0}};
    CHECK(vm_link(v, m, &err));
    char *args[] = {"a", "b", "c"};
    CHECK_INT(vm_run(v, 3, args), 3);
    CHECK_INT(vm_run(v, 0, args), 0);
    CHECK(v->main == NULL);
    vm_free(v);
    vm_module_free(m);

    m = exit_module("no_such_builtin");
    v = vm_new(&vm->tun);
    CHECK(!vm_link(v, m, &err));
    CHECK_CONTAINS(err.msg, "ex: native exit: ");
    CHECK(!m->linked);
    vm_free(v);
    vm_module_free(m);
}

/* A second thread registered with the collector: what only its C stack
 * and its register stack reference survives collections it triggers. */
static void *other_thread(void *arg)
{
    int *ok = arg;
    int reg = vm_gc_register_thread();  /* 0 here: GC_pthread_create registered us */
    if (reg < 0)
        return NULL;
    VmThread *t = vm_thread_new(vm);
    VmString *volatile on_stack = vm_new_string(t, "on the C stack", 14);
    t->stack[3].p = vm_new_string(t, "in a register", 13);
    t->stack_hwm = t->stack + 4;
    for (int i = 0; i < 3; i++) {
        GC_gcollect();
        for (int k = 0; k < 5000; k++)
            vm_new_string(t, "garbage garbage garbage garbage", 31);
    }
    *ok = strcmp(on_stack->bytes, "on the C stack") == 0 &&
          strcmp(((VmString *)t->stack[3].p)->bytes, "in a register") == 0;
    vm_thread_free(t);
    if (reg == 1)
        vm_gc_unregister_thread();
    return NULL;
}

TEST(runtime_gc_registered_thread)
{
    setup();
    int ok = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, &ok) == 0);
    pthread_join(th, NULL);
    CHECK(ok);
}
