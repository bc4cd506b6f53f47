/* tests/unit/test_natives.c — float text, the built-in table, and binding
 * and calling natives (built-ins and libffi externs into libm and libc).
 *
 * Natives are bound against a small hand-built module; calls that would
 * allocate or raise need a running VM and are left to the program tests.
 */
#include "test.h"
#include "vm.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *ffmt(double d)
{
    static char buf[64];
    vm_format_float(d, buf, sizeof buf);
    return buf;
}

TEST(natives_format_float)
{
    CHECK_STR(ffmt(1.0), "1.0");
    CHECK_STR(ffmt(0.1), "0.1");
    CHECK_STR(ffmt(1e300), "1e+300");
    CHECK_STR(ffmt(100.0), "100.0");
    CHECK_STR(ffmt(-0.0), "-0.0");
    CHECK_STR(ffmt(INFINITY), "inf");
    CHECK_STR(ffmt(-INFINITY), "-inf");
    CHECK_STR(ffmt(NAN), "nan");
    CHECK_STR(ffmt(-NAN), "nan");
    CHECK_STR(ffmt(1.0 / 3.0), "0.3333333333333333");
    CHECK_STR(ffmt(9007199254740992.0), "9007199254740992.0");
    CHECK_STR(ffmt(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(ffmt(-2.5), "-2.5");
    CHECK_STR(ffmt(1e-7), "1e-07");
    /* truncation keeps the full length as the result */
    char small[4];
    CHECK_INT(vm_format_float(12345.0, small, sizeof small), 7);
    CHECK_STR(small, "123");
}

TEST(natives_builtin_lookup)
{
    const char *sig = NULL;
    CHECK(vm_builtin_lookup("substring", &sig) != NULL);
    CHECK_STR(sig, "(string,int,int):string");
    CHECK(vm_builtin_lookup("println", &sig) != NULL);
    CHECK_STR(sig, "():void");
    CHECK(vm_builtin_lookup("args", &sig) != NULL);
    CHECK_STR(sig, "():string[]");
    CHECK(vm_builtin_lookup("assert", &sig) != NULL);
    CHECK_STR(sig, "(bool,string):void");
    CHECK(vm_builtin_lookup("no_such_builtin", &sig) == NULL);
    CHECK(sig == NULL);
    CHECK(vm_builtin_lookup("print_int", NULL) != NULL);
}

/* A module with the primitive types, for declaring natives against. */
typedef struct Types {
    VmModule *m;
    uint32_t v, i, f, b, s, o, ia, sa;
} Types;

static Types make_types(void)
{
    Types t = {.m = vm_module_new()};
    t.v = vm_module_add_type(t.m, &(VmType){.kind = VM_T_VOID});
    t.i = vm_module_add_type(t.m, &(VmType){.kind = VM_T_INT});
    t.f = vm_module_add_type(t.m, &(VmType){.kind = VM_T_FLOAT});
    t.b = vm_module_add_type(t.m, &(VmType){.kind = VM_T_BOOL});
    t.s = vm_module_add_type(t.m, &(VmType){.kind = VM_T_STRING});
    t.o = vm_module_add_type(t.m, &(VmType){.kind = VM_T_OBJECT});
    t.ia = vm_module_add_type(t.m, &(VmType){.kind = VM_T_ARRAY, .ref = t.i});
    t.sa = vm_module_add_type(t.m, &(VmType){.kind = VM_T_ARRAY, .ref = t.s});
    return t;
}

/* A native declared on the stack; the caller frees n.cif. */
static VmNative native(const char *lib, const char *sym, uint32_t np, uint32_t *params, uint32_t ret)
{
    return (VmNative){.name = (char *)sym, .lib = (char *)lib, .symbol = (char *)sym,
                      .nparams = np, .params = params, .ret = ret};
}

TEST(natives_bind_builtin)
{
    Types t = make_types();
    VmError err = {{0}};
    uint32_t p3[] = {t.s, t.i, t.i};
    VmNative n = native("", "substring", 3, p3, t.s);
    CHECK(vm_native_bind(NULL, t.m, &n, &err));
    CHECK(n.builtin == vm_builtin_lookup("substring", NULL));

    VmNative a = native("", "args", 0, NULL, t.sa);
    CHECK(vm_native_bind(NULL, t.m, &a, &err));

    uint32_t pi[] = {t.i};
    VmNative bad = native("", "sqrt", 1, pi, t.i);
    CHECK(!vm_native_bind(NULL, t.m, &bad, &err));
    CHECK_STR(err.msg, "built-in 'sqrt' has signature (float):float, declared (int):int");

    VmNative none = native("", "print_int", 0, NULL, t.v);
    CHECK(!vm_native_bind(NULL, t.m, &none, &err));
    CHECK_STR(err.msg, "built-in 'print_int' has signature (int):void, declared ():void");

    VmNative unknown = native("", "frobnicate", 0, NULL, t.v);
    CHECK(!vm_native_bind(NULL, t.m, &unknown, &err));
    CHECK_STR(err.msg, "unknown built-in 'frobnicate'");

    /* a built-in is called directly */
    VmString *hay = calloc(1, sizeof *hay + 8), *needle = calloc(1, sizeof *needle + 8);
    memcpy(hay->bytes, "abcabc", 7), hay->length = 6;
    memcpy(needle->bytes, "ca", 3), needle->length = 2;
    uint32_t pss[] = {t.s, t.s};
    VmNative idx = native("", "index_of", 2, pss, t.i);
    CHECK(vm_native_bind(NULL, t.m, &idx, &err));
    VmValue args[] = {{.p = hay}, {.p = needle}};
    CHECK_INT(vm_native_call(NULL, &idx, args).i, 2);
    needle->length = 0;
    CHECK_INT(vm_native_call(NULL, &idx, args).i, 0);
    memcpy(needle->bytes, "x", 2), needle->length = 1;
    CHECK_INT(vm_native_call(NULL, &idx, args).i, -1);
    free(hay), free(needle);

    VmNative sq = native("", "sqrt", 1, (uint32_t[]){t.f}, t.f);
    CHECK(vm_native_bind(NULL, t.m, &sq, &err));
    CHECK(vm_native_call(NULL, &sq, (VmValue[]){{.f = 2.25}}).f == 1.5);
    vm_module_free(t.m);
}

TEST(natives_extern_calls)
{
    Types t = make_types();
    VmError err = {{0}};
    uint32_t pf[] = {t.f};
    VmNative cbrt_n = native("libm.so.6", "cbrt", 1, pf, t.f);
    CHECK(vm_native_bind(NULL, t.m, &cbrt_n, &err));
    CHECK(cbrt_n.fn != NULL && cbrt_n.cif != NULL);
    VmValue a = {.f = 27.0};
    CHECK(fabs(vm_native_call(NULL, &cbrt_n, &a).f - 3.0) < 1e-12);  /* libm's cbrt may be 1 ulp off */
    a.f = -8.0;
    CHECK(fabs(vm_native_call(NULL, &cbrt_n, &a).f + 2.0) < 1e-12);

    /* the library is opened once: a second bind finds the same symbol */
    VmNative again = native("libm.so.6", "cbrt", 1, pf, t.f);
    CHECK(vm_native_bind(NULL, t.m, &again, &err));
    CHECK(again.fn == cbrt_n.fn);

    uint32_t ps[] = {t.s};
    VmNative len = native("libc.so.6", "strlen", 1, ps, t.i);
    CHECK(vm_native_bind(NULL, t.m, &len, &err));
    VmString *s = calloc(1, sizeof *s + 16);
    memcpy(s->bytes, "hello, tally", 13), s->length = 12;
    VmValue sv = {.p = s};
    CHECK_INT(vm_native_call(NULL, &len, &sv).i, 12);

    /* int -> sint64 both ways; bool result is 0/1 */
    uint32_t pi[] = {t.i};
    VmNative labs_n = native("libc.so.6", "labs", 1, pi, t.i);
    CHECK(vm_native_bind(NULL, t.m, &labs_n, &err));
    CHECK_INT(vm_native_call(NULL, &labs_n, (VmValue[]){{.i = -5000000000}}).i, 5000000000);
    VmNative isdig = native("libc.so.6", "isdigit", 1, pi, t.b);
    CHECK(vm_native_bind(NULL, t.m, &isdig, &err));
    CHECK_INT(vm_native_call(NULL, &isdig, (VmValue[]){{.i = '7'}}).i, 1);
    CHECK_INT(vm_native_call(NULL, &isdig, (VmValue[]){{.i = 'x'}}).i, 0);

    free(s);
    free(cbrt_n.cif), free(again.cif), free(len.cif), free(labs_n.cif), free(isdig.cif);
    vm_module_free(t.m);
}

TEST(natives_extern_errors)
{
    Types t = make_types();
    VmError err = {{0}};
    uint32_t pf[] = {t.f};
    VmNative nolib = native("libnosuch_tally.so", "f", 1, pf, t.f);
    CHECK(!vm_native_bind(NULL, t.m, &nolib, &err));
    CHECK_CONTAINS(err.msg, "cannot open library 'libnosuch_tally.so': ");
    CHECK_CONTAINS(err.msg, "libnosuch_tally.so");

    VmNative nosym = native("libm.so.6", "no_such_fn", 1, pf, t.f);
    CHECK(!vm_native_bind(NULL, t.m, &nosym, &err));
    CHECK_STR(err.msg, "symbol 'no_such_fn' not found in 'libm.so.6'");
    CHECK(nosym.cif == NULL);

    uint32_t po[] = {t.o};
    VmNative obj = native("libm.so.6", "cbrt", 1, po, t.f);
    CHECK(!vm_native_bind(NULL, t.m, &obj, &err));
    CHECK_CONTAINS(err.msg, "type Object cannot cross the native boundary");

    VmNative arr_ret = native("libm.so.6", "cbrt", 1, pf, t.ia);
    CHECK(!vm_native_bind(NULL, t.m, &arr_ret, &err));
    CHECK_CONTAINS(err.msg, "type int[] cannot cross the native boundary");

    uint32_t psa[] = {t.sa};
    VmNative sarr = native("libm.so.6", "cbrt", 1, psa, t.f);
    CHECK(!vm_native_bind(NULL, t.m, &sarr, &err));
    CHECK_CONTAINS(err.msg, "type string[] cannot cross the native boundary");

    VmNative vparam = native("libm.so.6", "cbrt", 1, (uint32_t[]){t.v}, t.f);
    CHECK(!vm_native_bind(NULL, t.m, &vparam, &err));
    CHECK_CONTAINS(err.msg, "type void cannot cross the native boundary");
    vm_module_free(t.m);
}

/* vm.natives: which externs bind (docs/security.md).  The policy is
 * checked before the library is opened (dlopen runs its constructors):
 * a library that does not exist is refused, not looked for. */
TEST(natives_policy)
{
    Types t = make_types();
    VmError err = {{0}};
    Vm vm = {0};
    vm_tunables_default(&vm.tun);
    CHECK_STR(vm.tun.natives, "all");
    VmNativesPolicy p;
    CHECK(vm_natives_parse("builtin", &p, &err) && p == VM_NATIVES_BUILTIN);
    CHECK(vm_natives_parse("none", &p, &err) && p == VM_NATIVES_NONE);
    CHECK(!vm_natives_parse("libm", &p, &err));
    CHECK_STR(err.msg, "vm.natives: 'libm' is none of none, builtin, all");

    uint32_t pf[] = {t.f}, pff[] = {t.f, t.f}, pi[] = {t.i};
    VmNative labs_n = native("libc.so.6", "labs", 1, pi, t.i);
    CHECK(vm_native_bind(&vm, t.m, &labs_n, &err));   /* all: any library */
    free(labs_n.cif);

    vm.tun.natives = "builtin";
    VmNative libc = native("libc.so.6", "labs", 1, pi, t.i);
    CHECK(!vm_native_bind(&vm, t.m, &libc, &err));
    CHECK_STR(err.msg, "extern 'labs' from 'libc.so.6' refused: vm.natives=builtin allows only the standard "
                       "library's C functions (docs/security.md)");
    CHECK(libc.fn == NULL && libc.cif == NULL);
    VmNative nolib = native("libnosuch_tally.so", "cbrt", 1, pf, t.f);
    CHECK(!vm_native_bind(&vm, t.m, &nolib, &err));
    CHECK_CONTAINS(err.msg, "extern 'cbrt' from 'libnosuch_tally.so' refused");
    /* the standard library's, with its own signature only */
    VmNative pw = native("libm.so.6", "pow", 2, pff, t.f);
    CHECK(vm_native_bind(&vm, t.m, &pw, &err));
    CHECK(vm_native_call(NULL, &pw, (VmValue[]){{.f = 2.0}, {.f = 10.0}}).f == 1024.0);
    free(pw.cif);
    VmNative cos_s = native("libm.so.6", "cos", 1, pf, t.s);
    CHECK(!vm_native_bind(&vm, t.m, &cos_s, &err));
    CHECK_STR(err.msg, "extern 'cos' from 'libm.so.6' refused: declared (float):string, vm.natives=builtin "
                       "allows it only as (float):float");
    /* built-ins are the VM's own code: every policy binds them */
    vm.tun.natives = "none";
    VmNative sq = native("", "sqrt", 1, pf, t.f);
    CHECK(vm_native_bind(&vm, t.m, &sq, &err));
    VmNative sin_n = native("libm.so.6", "sin", 1, pf, t.f);
    CHECK(!vm_native_bind(&vm, t.m, &sin_n, &err));
    CHECK_CONTAINS(err.msg, "extern 'sin' from 'libm.so.6' refused: vm.natives=none allows no C function");
    vm.tun.natives = "bogus";
    CHECK(!vm_native_bind(&vm, t.m, &sin_n, &err));
    CHECK_STR(err.msg, "vm.natives: 'bogus' is none of none, builtin, all");
    vm_module_free(t.m);
}

/* ---- built-ins on a real VM (allocation, run-time errors) --------------- */

static Vm *rt_vm;
static VmThread *rt_thread;
static Types rt_types;

static VmThread *runtime(void)
{
    if (!rt_thread) {
        rt_vm = vm_new(NULL);
        rt_thread = rt_vm ? vm_thread_new(rt_vm) : NULL;
        rt_types = make_types();
    }
    return rt_thread;
}

/* Calls built-in `sym` (bound against `sig`'s types) on the test thread. */
static VmValue call_builtin(const char *sym, uint32_t np, uint32_t *params, uint32_t ret, VmValue *args)
{
    VmNative n = native("", sym, np, params, ret);
    VmError err = {{0}};
    if (!vm_native_bind(NULL, rt_types.m, &n, &err)) {
        test_fail(__FILE__, __LINE__, "bind %s: %s", sym, err.msg);
        return (VmValue){0};
    }
    return vm_native_call(runtime(), &n, args);
}

static VmValue str_value(const char *s)
{
    return (VmValue){.p = vm_new_string(runtime(), s, (int64_t)strlen(s))};
}

static const char *str_of(VmValue v)
{
    return v.p ? ((VmString *)v.p)->bytes : "(null)";
}

/* Runs a call that must raise; returns the "error: ..." line it printed. */
static const char *raised(const char *sym, uint32_t np, uint32_t *params, uint32_t ret, VmValue *args)
{
    static char line[256];
    VmThread *t = runtime();
    fflush(stderr);
    int saved = dup(2);
    FILE *cap = tmpfile();
    dup2(fileno(cap), 2);
    jmp_buf escape;
    t->escape = &escape;
    bool unwound = true;
    if (setjmp(escape) == 0) {
        call_builtin(sym, np, params, ret, args);
        unwound = false;
    }
    t->escape = NULL;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    line[0] = 0;
    if (!fgets(line, sizeof line, cap))
        line[0] = 0;
    fclose(cap);
    line[strcspn(line, "\n")] = 0;
    return unwound ? line : "(returned)";
}

TEST(natives_builtin_runtime)
{
    if (!runtime()) {
        test_fail(__FILE__, __LINE__, "no VM");
        return;
    }
    Types *t = &rt_types;
    CHECK_STR(str_of(call_builtin("str_int", 1, (uint32_t[]){t->i}, t->s, (VmValue[]){{.i = INT64_MIN}})),
              "-9223372036854775808");
    CHECK_STR(str_of(call_builtin("str_int", 1, (uint32_t[]){t->i}, t->s, (VmValue[]){{.i = 0}})), "0");
    CHECK_STR(str_of(call_builtin("str_float", 1, (uint32_t[]){t->f}, t->s, (VmValue[]){{.f = 2.0}})), "2.0");
    CHECK_STR(str_of(call_builtin("str_bool", 1, (uint32_t[]){t->b}, t->s, (VmValue[]){{.i = 1}})), "true");
    CHECK_STR(str_of(call_builtin("chr", 1, (uint32_t[]){t->i}, t->s, (VmValue[]){{.i = 256 + 'A'}})), "A");

    uint32_t sii[] = {t->s, t->i, t->i};
    VmValue sub[] = {str_value("abcdef"), {.i = 1}, {.i = 4}};
    CHECK_STR(str_of(call_builtin("substring", 3, sii, t->s, sub)), "bcd");
    sub[1].i = 6, sub[2].i = 6;
    CHECK_STR(str_of(call_builtin("substring", 3, sii, t->s, sub)), "");
    sub[1].i = 2, sub[2].i = 7;
    CHECK_STR(raised("substring", 3, sii, t->s, sub), "error: index out of bounds: index 7, length 6");
    sub[1].i = -1;
    CHECK_STR(raised("substring", 3, sii, t->s, sub), "error: index out of bounds: index -1, length 6");
    sub[1].i = 4, sub[2].i = 3;
    CHECK_STR(raised("substring", 3, sii, t->s, sub), "error: index out of bounds: index 3, length 6");
    sub[0].p = NULL;
    CHECK_STR(raised("substring", 3, sii, t->s, sub), "error: null dereference");

    uint32_t ss[] = {t->s, t->s};
    CHECK_STR(raised("index_of", 2, ss, t->i, (VmValue[]){{.p = NULL}, str_value("x")}),
              "error: null dereference");
    uint32_t bs[] = {t->b, t->s};
    CHECK_STR(raised("assert", 2, bs, t->v, (VmValue[]){{.i = 0}, str_value("x < 3")}),
              "error: assertion failed: x < 3");
    CHECK_STR(raised("assert", 2, bs, t->v, (VmValue[]){{.i = 1}, str_value("fine")}), "(returned)");

    /* FNV-1a 64 of "a" */
    VmValue h = call_builtin("string_hash", 1, (uint32_t[]){t->s}, t->i, (VmValue[]){str_value("a")});
    CHECK(h.i == (int64_t)0xaf63dc4c8601ec8cull);

    double c0 = call_builtin("clock", 0, NULL, t->f, NULL).f;
    double c1 = call_builtin("clock", 0, NULL, t->f, NULL).f;
    CHECK(c0 > 0 && c1 >= c0);

    /* exit unwinds with the status */
    VmThread *th = runtime();
    jmp_buf escape;
    th->escape = &escape;
    th->status = 0;
    if (setjmp(escape) == 0)
        call_builtin("exit", 1, (uint32_t[]){t->i}, t->v, (VmValue[]){{.i = 7}});
    th->escape = NULL;
    CHECK_INT(th->status, 7);

    /* an extern returning a string: copied; NULL gives null */
    VmNative genv = native("libc.so.6", "getenv", 1, (uint32_t[]){t->s}, t->s);
    VmError err = {{0}};
    CHECK(vm_native_bind(NULL, t->m, &genv, &err));
    setenv("TALLY_UNIT_VAR", "tally!", 1);
    CHECK_STR(str_of(vm_native_call(th, &genv, (VmValue[]){str_value("TALLY_UNIT_VAR")})), "tally!");
    CHECK(vm_native_call(th, &genv, (VmValue[]){str_value("TALLY_NO_SUCH_VAR")}).p == NULL);
    free(genv.cif);
}
