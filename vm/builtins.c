/* vm/builtins.c — the built-in natives (`native ... = builtin "SYMBOL"`).
 *
 * Input: argument registers from CALLN (args[0] first), typed as the
 * signature in the table says; the linker (native.c) has checked the
 * module's declaration against that signature, so a built-in may trust the
 * kinds of its arguments but never their values (null strings, any int).
 * Output: the result register; run-time errors go through vm_raise with
 * the messages of docs/bytecode.md.
 * Invariants: the table below is the only list of built-ins; printing goes
 * through stdio `stdout` (buffered: the command sizes the buffer, and
 * vm_raise / vm_exit flush it), and float text always comes from
 * vm_format_float so every tier prints floats alike.
 */
#include "vm.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- number text -------------------------------------------------------- */

size_t vm_format_float(double d, char *buf, size_t n)
{
    char tmp[40];
    if (isnan(d)) {
        strcpy(tmp, "nan");  /* never "-nan": the sign of a NaN is noise */
    } else if (isinf(d)) {
        strcpy(tmp, d < 0 ? "-inf" : "inf");
    } else {
        /* the fewest significant digits P that read back exactly (reading
         * back is monotone in P, and 17 always works), then Python's repr
         * layout: positional for exponents in [-4, 16), else scientific */
        int lo = 1, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(tmp, sizeof tmp, "%.*e", mid - 1, d);
            if (strtod(tmp, NULL) == d)
                hi = mid;
            else
                lo = mid + 1;
        }
        snprintf(tmp, sizeof tmp, "%.*e", lo - 1, d);
        int exp10 = atoi(strchr(tmp, 'e') + 1);
        if (exp10 >= -4 && exp10 < 16)
            snprintf(tmp, sizeof tmp, "%.*f", lo - 1 - exp10 > 0 ? lo - 1 - exp10 : 0, d);
        if (!strpbrk(tmp, ".e"))
            strcat(tmp, ".0");  /* keeps floats visibly floats: 1.0, -0.0 */
    }
    size_t len = strlen(tmp);
    if (n) {
        size_t k = len < n - 1 ? len : n - 1;
        memcpy(buf, tmp, k);
        buf[k] = 0;
    }
    return len;
}

/* Decimal text of v at the end of buf[24]; returns its first byte.  Hand
 * written because print_int sits in the inner loop of output-heavy code. */
static char *format_int(int64_t v, char buf[24])
{
    char *p = buf + 24;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;  /* INT64_MIN too */
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

/* ---- helpers ------------------------------------------------------------ */

static VmString *new_text(VmThread *t, const char *s)
{
    return vm_new_string(t, s, (int64_t)strlen(s));
}

static VmString *need_string(VmThread *t, VmValue v)
{
    if (!v.p)
        vm_raise(t, "null dereference");
    return v.p;
}

static void put_string(VmValue v)
{
    const VmString *s = v.p;
    if (s)
        fwrite(s->bytes, 1, (size_t)s->length, stdout);  /* may hold NULs */
    else
        fputs("null", stdout);
}

static void put_int(VmValue v)
{
    char buf[24];
    char *p = format_int(v.i, buf);
    fwrite(p, 1, (size_t)(buf + 24 - p), stdout);
}

static void put_float(VmValue v)
{
    char buf[40];
    fwrite(buf, 1, vm_format_float(v.f, buf, sizeof buf), stdout);
}

static void put_bool(VmValue v)
{
    fputs(v.i ? "true" : "false", stdout);
}

/* ---- the built-ins ------------------------------------------------------ */

static const VmValue none = {.i = 0};

#define PRINTERS(T)                                                         \
    static VmValue b_print_##T(VmThread *t, VmValue *args)                  \
    {                                                                       \
        (void)t;                                                            \
        put_##T(args[0]);                                                   \
        return none;                                                        \
    }                                                                       \
    static VmValue b_println_##T(VmThread *t, VmValue *args)                \
    {                                                                       \
        (void)t;                                                            \
        put_##T(args[0]);                                                   \
        putc('\n', stdout);                                                 \
        return none;                                                        \
    }
PRINTERS(int)
PRINTERS(float)
PRINTERS(bool)
PRINTERS(string)
#undef PRINTERS

static VmValue b_println(VmThread *t, VmValue *args)
{
    (void)t, (void)args;
    putc('\n', stdout);
    return none;
}

static VmValue b_str_int(VmThread *t, VmValue *args)
{
    char buf[24];
    char *p = format_int(args[0].i, buf);
    return (VmValue){.p = vm_new_string(t, p, buf + 24 - p)};
}

static VmValue b_str_float(VmThread *t, VmValue *args)
{
    char buf[40];
    size_t n = vm_format_float(args[0].f, buf, sizeof buf);
    return (VmValue){.p = vm_new_string(t, buf, (int64_t)n)};
}

static VmValue b_str_bool(VmThread *t, VmValue *args)
{
    return (VmValue){.p = new_text(t, args[0].i ? "true" : "false")};
}

static VmValue b_chr(VmThread *t, VmValue *args)
{
    char c = (char)(args[0].i & 255);
    return (VmValue){.p = vm_new_string(t, &c, 1)};
}

static VmValue b_substring(VmThread *t, VmValue *args)
{
    VmString *s = need_string(t, args[0]);
    int64_t start = args[1].i, end = args[2].i;
    /* report the first bound that is wrong, like an array index */
    if (start < 0 || start > s->length)
        vm_raise(t, "index out of bounds: index %" PRId64 ", length %" PRId64, start, s->length);
    if (end < start || end > s->length)
        vm_raise(t, "index out of bounds: index %" PRId64 ", length %" PRId64, end, s->length);
    return (VmValue){.p = vm_new_string(t, s->bytes + start, end - start)};
}

static VmValue b_index_of(VmThread *t, VmValue *args)
{
    VmString *s = need_string(t, args[0]), *sub = need_string(t, args[1]);
    const char *hit = memmem(s->bytes, (size_t)s->length, sub->bytes, (size_t)sub->length);
    return (VmValue){.i = hit ? hit - s->bytes : -1};
}

static VmValue b_string_hash(VmThread *t, VmValue *args)
{
    return (VmValue){.i = (int64_t)vm_string_hash(need_string(t, args[0]))};
}

static VmValue b_clock(VmThread *t, VmValue *args)
{
    (void)t, (void)args;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (VmValue){.f = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9};
}

/* The module's string[] type: `args` is declared `() : string[]`, so the
 * linked module has one (its canonical entry is what arrays point to). */
static VmType *string_array_type(VmThread *t)
{
    VmModule *m = t->vm ? t->vm->module : NULL;
    for (uint32_t i = 0; m && i < m->ntypes; i++) {
        VmType *ty = &m->types[i];
        if (ty->kind == VM_T_ARRAY && ty->ref < m->ntypes && m->types[ty->ref].kind == VM_T_STRING)
            return ty->canon ? ty->canon : ty;
    }
    vm_raise(t, "args: the module has no string[] type");
}

static VmValue b_args(VmThread *t, VmValue *args)
{
    (void)args;
    Vm *vm = t->vm;
    int argc = vm && vm->argc > 0 && vm->argv ? vm->argc : 0;
    VmArray *a = vm_new_array(t, string_array_type(t), argc);
    for (int i = 0; i < argc; i++) {
        const char *s = vm->argv[i] ? vm->argv[i] : "";
        a->data.p[i] = new_text(t, s);  /* a stays reachable from this frame */
    }
    return (VmValue){.p = a};
}

static VmValue b_exit(VmThread *t, VmValue *args)
{
    fflush(stdout);
    vm_exit(t, (int)args[0].i);
}

static VmValue b_sqrt(VmThread *t, VmValue *args)
{
    (void)t;
    return (VmValue){.f = sqrt(args[0].f)};
}

static VmValue b_assert(VmThread *t, VmValue *args)
{
    if (!args[0].i) {
        const VmString *msg = args[1].p;
        /* %.*s: stop at the string's length, not at an embedded NUL only */
        vm_raise(t, "assertion failed: %.*s", msg ? (int)msg->length : 4,
                 msg ? msg->bytes : "null");
    }
    return none;
}

/* ---- the table ---------------------------------------------------------- */

/* Signatures in the .tla type syntax as vm_type_format spells it, so the
 * linker compares text with text. */
static const struct {
    const char *symbol;
    const char *signature;
    VmBuiltinFn fn;
} builtins[] = {
    {"print_int", "(int):void", b_print_int},
    {"print_float", "(float):void", b_print_float},
    {"print_bool", "(bool):void", b_print_bool},
    {"print_string", "(string):void", b_print_string},
    {"println_int", "(int):void", b_println_int},
    {"println_float", "(float):void", b_println_float},
    {"println_bool", "(bool):void", b_println_bool},
    {"println_string", "(string):void", b_println_string},
    {"println", "():void", b_println},
    {"str_int", "(int):string", b_str_int},
    {"str_float", "(float):string", b_str_float},
    {"str_bool", "(bool):string", b_str_bool},
    {"chr", "(int):string", b_chr},
    {"substring", "(string,int,int):string", b_substring},
    {"index_of", "(string,string):int", b_index_of},
    {"string_hash", "(string):int", b_string_hash},
    {"clock", "():float", b_clock},
    {"args", "():string[]", b_args},
    {"exit", "(int):void", b_exit},
    {"sqrt", "(float):float", b_sqrt},
    {"assert", "(bool,string):void", b_assert},
};

VmBuiltinFn vm_builtin_lookup(const char *symbol, const char **signature)
{
    for (size_t i = 0; symbol && i < sizeof builtins / sizeof *builtins; i++) {
        if (strcmp(builtins[i].symbol, symbol) == 0) {
            if (signature)
                *signature = builtins[i].signature;
            return builtins[i].fn;
        }
    }
    if (signature)
        *signature = NULL;
    return NULL;
}
