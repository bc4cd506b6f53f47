/* tests/unit/test_interp.c — the interpreter (interp.c) and run-time errors
 * (error.c), on small .tla programs run end to end.
 *
 * Each program goes through vm_asm, vm_verify, vm_link and vm_run with
 * stdout and stderr redirected into temporary files, so a test sees what
 * the program printed, the error and its stack trace, and the exit status.
 * Opcode tables (arithmetic, comparisons, branches) are generated as text
 * from C rows whose expected values are computed independently here.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "test.h"
#include "vm.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- running programs ---------------------------------------------------- */

typedef struct Run {
    int status;          /* vm_run's result; -1 if the program did not load */
    char out[16384];
    char err[16384];
} Run;

static int hot_calls;
static VmMethod *hot_method;
static const VmInsn *hot_osr;

static void count_hot(Vm *vm, VmMethod *m, const VmInsn *osr)
{
    (void)vm;
    hot_calls++;
    hot_method = m;
    hot_osr = osr;
}

/* Assembles, verifies and links src; NULL (and a test failure) on error. */
static Vm *load(const char *src, int64_t hot_threshold, bool hook)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    if (hot_threshold)
        tun.hot_threshold = hot_threshold;
    Vm *vm = test_load_tla(src, &tun);
    if (vm && hook)
        vm->hooks.hot = count_hot;
    return vm;
}

static void run_vm(Vm *vm, Run *r)
{
    FILE *o, *e;
    int so = test_redirect(1, &o), se = test_redirect(2, &e);
    r->status = vm_run(vm, 0, NULL);
    test_restore(1, so, o, r->out, sizeof r->out);
    test_restore(2, se, e, r->err, sizeof r->err);
}

static void run(const char *src, Run *r)
{
    Vm *vm = load(src, 0, false);
    r->status = -1;
    r->out[0] = r->err[0] = 0;
    if (!vm)
        return;
    run_vm(vm, r);
    test_unload(vm);
}

/* A growable text buffer for generated programs. */
typedef struct Text {
    char *s;
    size_t len, cap;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
        if (t->len == 0)
            t->s[0] = 0;
    }
}

static const char natives[] =
    "native println_int (int) : void = builtin \"println_int\"\n"
    "native println_bool (bool) : void = builtin \"println_bool\"\n"
    "native println_float (float) : void = builtin \"println_float\"\n";

/* ---- arithmetic ---------------------------------------------------------- */

#define MIN INT64_MIN
#define MAX INT64_MAX

static const struct { const char *op; int64_t b, c, want; } int_ops[] = {
    {"ADD", MAX, 1, MIN},          {"ADD", -5, 3, -2},
    {"SUB", MIN, 1, MAX},          {"SUB", 3, 10, -7},
    {"MUL", MAX, 2, -2},           {"MUL", MIN, -1, MIN},   {"MUL", -6, 7, -42},
    {"DIV", 7, 2, 3},              {"DIV", -7, 2, -3},      {"DIV", 7, -2, -3},
    {"DIV", MIN, -1, MIN},         {"DIV", MIN, 1, MIN},    {"DIV", 5, -1, -5},
    {"MOD", 7, 3, 1},              {"MOD", -7, 3, -1},      {"MOD", 7, -3, 1},
    {"MOD", MIN, -1, 0},           {"MOD", MIN, 3, -2},
    {"AND", 12, 10, 8},            {"OR", 12, 10, 14},      {"XOR", 12, 10, 6},
    {"SHL", 1, 63, MIN},           {"SHL", 1, 64, 1},       {"SHL", 1, -1, MIN},
    {"SHL", 3, 65, 6},             {"SHR", -8, 1, -4},      {"SHR", MIN, 63, -1},
    {"SHR", 256, 68, 16},          {"USHR", -1, 63, 1},     {"USHR", -8, 60, 15},
    {"USHR", -8, 64, -8},
    {"EQ", 3, 3, 1},               {"EQ", 3, 4, 0},         {"NE", 3, 4, 1},
    {"LT", -1, 0, 1},              {"LT", 0, 0, 0},         {"LE", 0, 0, 1},
    {"LE", MAX, MIN, 0},
};

TEST(interp_int_ops)
{
    Text t = {0};
    put(&t, "main main\n%s", natives);
    put(&t, "method main () : void static\n  regs int, int, int, bool\n");
    size_t n = sizeof int_ops / sizeof int_ops[0];
    Text want = {0};
    for (size_t i = 0; i < n; i++) {
        bool cmp = int_ops[i].op[0] == 'E' || int_ops[i].op[0] == 'N' || int_ops[i].op[0] == 'L';
        put(&t, "  LDI r0, %" PRId64 "\n  LDI r1, %" PRId64 "\n", int_ops[i].b, int_ops[i].c);
        if (cmp) {
            put(&t, "  %s r3, r0, r1\n  CALLN _, r3, println_bool\n", int_ops[i].op);
            put(&want, "%s\n", int_ops[i].want ? "true" : "false");
        } else {
            put(&t, "  %s r2, r0, r1\n  CALLN _, r2, println_int\n", int_ops[i].op);
            put(&want, "%" PRId64 "\n", int_ops[i].want);
        }
    }
    /* the unary and immediate forms */
    put(&t, "  LDI r0, %" PRId64 "\n  ADDK r2, r0, 1\n  CALLN _, r2, println_int\n", MAX);
    put(&t, "  ADDK r2, r0, -5\n  CALLN _, r2, println_int\n");
    put(&t, "  LDI r0, %" PRId64 "\n  NEG r2, r0\n  CALLN _, r2, println_int\n", MIN);
    put(&t, "  LDI r0, 0\n  BNOT r2, r0\n  CALLN _, r2, println_int\n");
    put(&t, "  LDI r0, 42\n  NEG r2, r0\n  CALLN _, r2, println_int\n");
    put(&want, "%" PRId64 "\n%" PRId64 "\n%" PRId64 "\n-1\n-42\n", MIN, MAX - 5, MIN);
    put(&t, "  RETV\nend\n");

    Run r;
    run(t.s, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, want.s);
    free(t.s);
    free(want.s);
}

TEST(interp_float_ops)
{
    const char *src =
        "main main\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "native println_bool (bool) : void = builtin \"println_bool\"\n"
        "native println_float (float) : void = builtin \"println_float\"\n"
        "method main () : void static\n"
        "  regs float, float, float, int, bool\n"
        "  LDF r0, 1.5\n  LDF r1, 0.25\n"
        "  FADD r2, r0, r1\n  CALLN _, r2, println_float\n"
        "  FSUB r2, r0, r1\n  CALLN _, r2, println_float\n"
        "  FMUL r2, r0, r1\n  CALLN _, r2, println_float\n"
        "  FDIV r2, r0, r1\n  CALLN _, r2, println_float\n"
        "  FNEG r2, r0\n  CALLN _, r2, println_float\n"
        "  LDF r0, -2.9\n  F2I r3, r0\n  CALLN _, r3, println_int\n"
        "  LDF r0, 2.9\n  F2I r3, r0\n  CALLN _, r3, println_int\n"
        "  LDF r0, -9223372036854775808.0\n  F2I r3, r0\n  CALLN _, r3, println_int\n"
        "  LDI r3, -7\n  I2F r2, r3\n  CALLN _, r2, println_float\n"
        "  LDF r0, nan\n  FEQ r4, r0, r0\n  CALLN _, r4, println_bool\n"
        "  FNE r4, r0, r0\n  CALLN _, r4, println_bool\n"
        "  LDF r1, 1.0\n  FLT r4, r0, r1\n  CALLN _, r4, println_bool\n"
        "  FLE r4, r1, r1\n  CALLN _, r4, println_bool\n"
        "  LDF r1, 1.0\n  LDF r2, 0.0\n  FDIV r2, r1, r2\n  CALLN _, r2, println_float\n"
        "  RETV\nend\n";
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "1.75\n1.25\n0.375\n6.0\n-1.5\n-2\n2\n-9223372036854775808\n-7.0\n"
                     "false\ntrue\nfalse\ntrue\ninf\n");
}

/* ---- branches ------------------------------------------------------------ */

/* Operand kinds: I = two int registers, S = int register + immediate,
 * F = two float registers, B = one bool, R = one reference (null or not). */
static const struct { const char *op; char kind; double x, y; int taken; } branches[] = {
    {"JT", 'B', 1, 0, 1},        {"JT", 'B', 0, 0, 0},
    {"JF", 'B', 0, 0, 1},        {"JF", 'B', 1, 0, 0},
    {"JNULL", 'R', 0, 0, 1},     {"JNULL", 'R', 1, 0, 0},
    {"JNNULL", 'R', 1, 0, 1},    {"JNNULL", 'R', 0, 0, 0},
    {"JEQ", 'I', 4, 4, 1},       {"JEQ", 'I', 4, 5, 0},
    {"JNE", 'I', 4, 5, 1},       {"JNE", 'I', 4, 4, 0},
    {"JLT", 'I', -1, 0, 1},      {"JLT", 'I', 0, 0, 0},
    {"JLE", 'I', 0, 0, 1},       {"JLE", 'I', 1, 0, 0},
    {"JEQS", 'S', 7, 7, 1},      {"JEQS", 'S', 7, -7, 0},
    {"JNES", 'S', 7, -7, 1},     {"JNES", 'S', 7, 7, 0},
    {"JLTS", 'S', -8, -7, 1},    {"JLTS", 'S', -7, -7, 0},
    {"JLES", 'S', -7, -7, 1},    {"JLES", 'S', -6, -7, 0},
    {"JGTS", 'S', 3, 2, 1},      {"JGTS", 'S', 2, 2, 0},
    {"JGES", 'S', 2, 2, 1},      {"JGES", 'S', 1, 2, 0},
    {"FJLT", 'F', 1, 2, 1},      {"FJLT", 'F', 2, 2, 0},     {"FJLT", 'F', NAN, 2, 0},
    {"FJLE", 'F', 2, 2, 1},      {"FJLE", 'F', 3, 2, 0},     {"FJLE", 'F', NAN, NAN, 0},
    {"FJNLT", 'F', 2, 2, 1},     {"FJNLT", 'F', 1, 2, 0},    {"FJNLT", 'F', NAN, 2, 1},
    {"FJNLE", 'F', 3, 2, 1},     {"FJNLE", 'F', 2, 2, 0},    {"FJNLE", 'F', 1, NAN, 1},
    {"FJEQ", 'F', 0.0, -0.0, 1}, {"FJEQ", 'F', NAN, NAN, 0},
    {"FJNE", 'F', NAN, NAN, 1},  {"FJNE", 'F', 1, 1, 0},
};

static void put_float(Text *t, int reg, double v)
{
    if (isnan(v))
        put(t, "  LDF r%d, nan\n", reg);
    else
        put(t, "  LDF r%d, %.17g%s\n", reg, v, v == (int64_t)v ? ".0" : "");
}

TEST(interp_branches)
{
    Text t = {0}, want = {0};
    put(&t, "main main\n%s", natives);
    put(&t, "method main () : void static\n"
            "  regs int, int, float, float, bool, int[], int, int\n"
            "  LDI r6, 0\n  LDI r7, 1\n");
    size_t n = sizeof branches / sizeof branches[0];
    for (size_t i = 0; i < n; i++) {
        double x = branches[i].x, y = branches[i].y;
        switch (branches[i].kind) {
        case 'B':
            put(&t, "  %s r4\n  %s r4, T%zu\n", x ? "LDTRUE" : "LDFALSE", branches[i].op, i);
            break;
        case 'R':
            if (x)
                put(&t, "  NEWA r5, r7, int[]\n");
            else
                put(&t, "  LDNULL r5\n");
            put(&t, "  %s r5, T%zu\n", branches[i].op, i);
            break;
        case 'I':
            put(&t, "  LDI r0, %d\n  LDI r1, %d\n  %s r0, r1, T%zu\n", (int)x, (int)y, branches[i].op, i);
            break;
        case 'S':
            put(&t, "  LDI r0, %d\n  %s r0, %d, T%zu\n", (int)x, branches[i].op, (int)y, i);
            break;
        case 'F':
            put_float(&t, 2, x);
            put_float(&t, 3, y);
            put(&t, "  %s r2, r3, T%zu\n", branches[i].op, i);
            break;
        }
        put(&t, "  CALLN _, r6, println_int\n  JMP E%zu\nT%zu:\n  CALLN _, r7, println_int\nE%zu:\n", i, i, i);
        put(&want, "%d\n", branches[i].taken);
    }
    put(&t, "  RETV\nend\n");

    Vm *vm = load(t.s, 0, false);
    if (vm) {
        Run r;
        run_vm(vm, &r);
        CHECK_INT(r.status, 0);
        CHECK_STR(r.out, want.s);
        /* one profile slot per conditional branch (forward JMPs have none),
         * each executed once, in program order */
        VmMethod *m = test_method(vm, "main");
        CHECK_INT(m->prof.nbranches, n);
        for (size_t i = 0; i < n && i < m->prof.nbranches; i++) {
            CHECK_INT(m->prof.branches[i].taken, branches[i].taken);
            CHECK_INT(m->prof.branches[i].not_taken, !branches[i].taken);
        }
        CHECK_INT(m->prof.backedges, 0);
        test_unload(vm);
    }
    free(t.s);
    free(want.s);
}

/* Known loop: the profile counts taken/not-taken exactly, back edges too. */
TEST(interp_branch_profile)
{
    const char *src =
        "main main\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "method main () : void static\n"
        "  regs int, int, int, int\n"
        "  LDI r1, 10\n"
        "top:\n"
        "  JGES r0, 7, skip\n"           /* slot 0: taken 3 times of 10 */
        "  ADDK r2, r2, 1\n"
        "skip:\n"
        "  LOOP r0, r1, top\n"           /* slot 1: taken 9, not 1 */
        "  LDI r0, 0\n"
        "back:\n"
        "  ADDK r0, r0, 1\n"
        "  JGES r0, 5, out\n"            /* slot 2: taken 1, not 4 */
        "  JMP back\n"                   /* slot 3: backward, 4 times */
        "out:\n"
        "  CALLN _, r2, println_int\n"
        "  RETV\nend\n";
    Vm *vm = load(src, 0, false);
    if (!vm)
        return;
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "7\n");
    VmMethod *m = test_method(vm, "main");
    CHECK_INT(m->prof.nbranches, 4);
    if (m->prof.nbranches == 4) {
        CHECK_INT(m->prof.branches[0].taken, 3);
        CHECK_INT(m->prof.branches[0].not_taken, 7);
        CHECK_INT(m->prof.branches[1].taken, 9);
        CHECK_INT(m->prof.branches[1].not_taken, 1);
        CHECK_INT(m->prof.branches[2].taken, 1);
        CHECK_INT(m->prof.branches[2].not_taken, 4);
        CHECK_INT(m->prof.branches[3].taken, 4);
    }
    CHECK_INT(m->prof.backedges, 9 + 4);
    CHECK_INT(m->prof.calls, 1);
    test_unload(vm);
}

/* ---- calls --------------------------------------------------------------- */

static const char calls_src[] =
    "main main\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "interface Shape\n  methods Shape.area\nend\n"
    "method Shape.area (Shape) : int owner Shape abstract\n"
    "class Sq implements Shape\n  field s int\n  vtable Sq.area, Sq.name\nend\n"
    "method Sq.area (Sq) : int owner Sq\n  regs int\n"
    "  GETF r1, r0, Sq.s\n  MUL r1, r1, r1\n  RET r1\nend\n"
    "method Sq.name (Sq) : int owner Sq\n  regs int\n  LDI r1, 100\n  RET r1\nend\n"
    "class Big extends Sq\n  vtable Big.area, Big.name\nend\n"
    "method Big.area (Big) : int owner Big\n  regs int\n  LDI r1, 1000\n  RET r1\nend\n"
    "method Big.name (Big) : int owner Big\n  regs int\n  LDI r1, 200\n  RET r1\nend\n"
    "method add3 (int, int, int) : int static\n  regs int\n"
    "  ADD r3, r0, r1\n  ADD r3, r3, r2\n  RET r3\nend\n"
    "method noop (int) : void static\n  ADDK r0, r0, 1\n  RETV\nend\n"
    "method main$1 (fn(int):int, int) : int lambda\n  caps int\n  regs int\n"
    "  LDCAP r2, 0\n  ADD r2, r2, r1\n  RET r2\nend\n"
    "method main () : void static\n"
    "  regs int, int, int, int, Sq, Shape, fn(int):int, int, Big\n"
    /* CALL: arguments are copied; the caller's registers stay */
    "  LDI r0, 1\n  LDI r1, 20\n  LDI r2, 300\n"
    "  CALL r3, r0, add3\n  CALLN _, r3, println_int\n"
    "  CALLN _, r0, println_int\n"
    "  CALL _, r0, noop\n  CALLN _, r0, println_int\n"
    /* CALLV on two classes, CALLI through the cache and after a miss */
    "  NEW r4, Sq\n  LDI r0, 5\n  PUTF r4, Sq.s, r0\n"
    "  CALLV r3, r4, Sq.name\n  CALLN _, r3, println_int\n"
    "  MOV r5, r4\n  LDI r1, 0\n  LDI r2, 3\n"
    "loop:\n  CALLI r3, r5, Shape.area\n  CALLN _, r3, println_int\n"
    "  NEW r8, Big\n  MOV r5, r8\n  CALLV r3, r8, Sq.name\n  CALLN _, r3, println_int\n"
    "  LOOP r1, r2, loop\n"
    /* CALLF: the closure is r0 of the lambda, its argument follows */
    "  LDI r0, 40\n  CLOS r6, r0, main$1\n  LDI r7, 2\n"
    "  CALLF r3, r6\n  CALLN _, r3, println_int\n"
    "  RETV\nend\n";

TEST(interp_calls)
{
    Vm *vm = load(calls_src, 0, false);
    if (!vm)
        return;
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "321\n1\n1\n100\n25\n200\n1000\n200\n1000\n200\n42\n");
    CHECK_STR(r.err, "");
    VmMethod *m = test_method(vm, "main");
    CHECK_INT(m->prof.nsites, 3);
    if (m->prof.nsites == 3) {
        /* site 0: CALLV Sq.name once on Sq; site 1: CALLI on Sq then Big;
         * site 2: CALLV Sq.name three times on Big */
        CHECK(m->prof.sites[0].seen[0].cls && strcmp(m->prof.sites[0].seen[0].cls->name, "Sq") == 0);
        CHECK_INT(m->prof.sites[0].seen[0].count, 1);
        CHECK_INT(m->prof.sites[1].seen[0].count, 1);
        CHECK_INT(m->prof.sites[1].seen[1].count, 2);
        CHECK(m->prof.sites[1].seen[1].m && strcmp(m->prof.sites[1].seen[1].m->name, "Big.area") == 0);
        CHECK_INT(m->prof.sites[2].seen[0].count, 3);
        CHECK_INT(m->prof.sites[2].other, 0);
    }
    CHECK_INT(test_method(vm, "add3")->prof.calls, 1);
    CHECK_INT(test_method(vm, "Big.area")->prof.calls, 2);
    CHECK_INT(test_method(vm, "main$1")->prof.calls, 1);
    test_unload(vm);
}

static const char recurse_src[] =
    "module \"rec\"\nsource \"rec.tl\"\nmain main\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "method down (int) : int static\n  regs int\n"
    "  line 3\n  JEQS r0, 0, base\n  ADDK r1, r0, -1\n"
    "  line 4\n  CALL r1, r1, down\n  ADDK r1, r1, 1\n  RET r1\n"
    "base:\n  line 5\n  RET r0\nend\n"
    "method forever (int) : int static\n"
    "  line 8\n  CALL r0, r0, forever\n  RET r0\nend\n"
    "method main () : void static\n  regs int\n"
    "  line 11\n  LDI r0, %d\n  CALL r0, r0, %s\n  line 12\n  CALLN _, r0, println_int\n"
    "  RETV\nend\n";

TEST(interp_deep_recursion)
{
    char src[2048];
    snprintf(src, sizeof src, recurse_src, 10000, "down");
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "10000\n");
}

TEST(interp_stack_overflow)
{
    char src[2048];
    snprintf(src, sizeof src, recurse_src, 1, "forever");
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 1);
    CHECK_STR(r.out, "");
    CHECK(strncmp(r.err, "error: stack overflow\n  at forever (rec.tl:8)\n", 46) == 0);
    CHECK_CONTAINS(r.err, "more frames\n");
    /* the outermost frame ends the trace */
    CHECK_CONTAINS(r.err, "  at forever (rec.tl:8)\n  at main (rec.tl:11)\n");
    /* 20 innermost + "..." + 20 outermost */
    int lines = 0;
    for (const char *p = r.err; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 1 + 20 + 1 + 20);
}

/* ---- run-time errors ----------------------------------------------------- */

static void expect_error(const char *regs, const char *body, const char *msg)
{
    char src[4096];
    snprintf(src, sizeof src,
             "module \"e\"\nsource \"e.tl\"\nmain main\n"
             "class K\n  field x int\nend\n"
             "class L\nend\n"
             "method main () : void static\n  regs %s\n  line 7\n%s  RETV\nend\n",
             regs, body);
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 1);
    char want[512];
    snprintf(want, sizeof want, "error: %s\n  at main (e.tl:7)\n", msg);
    CHECK_STR(r.err, want);
}

TEST(interp_errors)
{
    expect_error("int, int", "  LDI r0, 5\n  DIV r0, r0, r1\n", "division by zero");
    expect_error("int, int", "  LDI r0, 5\n  MOD r0, r0, r1\n", "division by zero");
    expect_error("float, int", "  LDF r0, nan\n  F2I r1, r0\n", "float to int: nan is out of range");
    expect_error("float, int", "  LDF r0, 1e19\n  F2I r1, r0\n", "float to int: 1e+19 is out of range");
    expect_error("float, int", "  LDF r0, 9223372036854775808.0\n  F2I r1, r0\n",
                 "float to int: 9.223372036854776e+18 is out of range");
    expect_error("float, int", "  LDF r0, -inf\n  F2I r1, r0\n", "float to int: -inf is out of range");
    expect_error("int[], int", "  LDI r1, 3\n  NEWA r0, r1, int[]\n  LDI r1, 7\n  AGETI r1, r0, r1\n",
                 "index out of bounds: index 7, length 3");
    expect_error("int[], int", "  LDI r1, 3\n  NEWA r0, r1, int[]\n  LDI r1, -1\n  APUTI r0, r1, r1\n",
                 "index out of bounds: index -1, length 3");
    expect_error("int[], int", "  AGETI r1, r0, r1\n", "null dereference");
    expect_error("int[], int", "  ALEN r1, r0\n", "null dereference");
    expect_error("int[], int", "  LDI r1, -3\n  NEWA r0, r1, int[]\n", "negative array length: -3");
    expect_error("K, int", "  GETF r1, r0, K.x\n", "null dereference");
    expect_error("K, int", "  PUTF r0, K.x, r1\n", "null dereference");
    expect_error("string, int", "  SLEN r1, r0\n", "null dereference");
    expect_error("string, int", "  LDK r0, \"abc\"\n  LDI r1, 3\n  SGET r1, r0, r1\n",
                 "index out of bounds: index 3, length 3");
    expect_error("string, string", "  LDK r0, \"abc\"\n  SCAT r0, r0, r1\n", "null dereference");
    expect_error("Object, L", "  NEW r0, K\n  CAST r1, r0, L\n", "failed cast: K to L");
    expect_error("Object, int[]", "  NEW r0, K\n  CAST r1, r0, int[]\n", "failed cast: K to int[]");
}

TEST(interp_strings_objects)
{
    const char *src =
        "main main\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "native println_bool (bool) : void = builtin \"println_bool\"\n"
        "native println_string (string) : void = builtin \"println_string\"\n"
        "class K\n  field x int\nend\n"
        "method main () : void static\n"
        "  regs string, string, string, int, bool, Object, K, bool[], int\n"
        "  LDK r0, \"ab\"\n  LDK r1, \"c\\xff\"\n  SCAT r2, r0, r1\n"
        "  CALLN _, r2, println_string\n  SLEN r3, r2\n  CALLN _, r3, println_int\n"
        "  LDI r3, 3\n  SGET r3, r2, r3\n  CALLN _, r3, println_int\n"
        "  LDK r1, \"abc\\xff\"\n  SEQ r4, r1, r2\n  CALLN _, r4, println_bool\n"
        "  REQ r4, r1, r2\n  CALLN _, r4, println_bool\n"
        "  LDNULL r0\n  SEQ r4, r0, r2\n  CALLN _, r4, println_bool\n"
        "  LDNULL r1\n  SEQ r4, r0, r1\n  CALLN _, r4, println_bool\n"
        "  NEW r6, K\n  MOV r5, r6\n  ISA r4, r5, K\n  CALLN _, r4, println_bool\n"
        "  ISA r4, r5, string\n  CALLN _, r4, println_bool\n"
        "  LDNULL r5\n  ISA r4, r5, K\n  CALLN _, r4, println_bool\n"
        "  CAST r6, r5, K\n  JNULL r6, ok\n  RETV\nok:\n"
        "  LDI r8, 2\n  NEWA r7, r8, bool[]\n  LDI r8, 1\n  LDTRUE r4\n  APUTB r7, r8, r4\n"
        "  AGETB r4, r7, r8\n  CALLN _, r4, println_bool\n"
        "  LDI r8, 0\n  AGETB r4, r7, r8\n  CALLN _, r4, println_bool\n"
        "  RETV\nend\n";
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "abc\xff\n4\n255\ntrue\nfalse\nfalse\ntrue\ntrue\nfalse\nfalse\ntrue\nfalse\n");
}

TEST(interp_globals)
{
    const char *src =
        "main main\ninit init\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "global g int\n"
        "method init () : void static\n  regs int\n  LDI r0, 41\n  STG g, r0\n  RETV\nend\n"
        "method main () : void static\n  regs int\n"
        "  LDG r0, g\n  ADDK r0, r0, 1\n  STG g, r0\n  LDG r0, g\n  CALLN _, r0, println_int\n"
        "  RETV\nend\n";
    Run r;
    run(src, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "42\n");
}

/* ---- hot hook ------------------------------------------------------------ */

TEST(interp_hot_calls)
{
    const char *src =
        "main main\n"
        "method f (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method main () : void static\n  regs int, int, int\n"
        "  LDI r1, 20\n"
        "top:\n  CALL r2, r0, f\n  LOOP r0, r1, top\n  RETV\nend\n";
    hot_calls = 0;
    hot_method = NULL;
    Vm *vm = load(src, 5, true);
    if (!vm)
        return;
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    /* threshold 5: main fires at its 4th back edge (1 call + 4), f at its
     * 5th call; each exactly once */
    VmMethod *f = test_method(vm, "f"), *m = test_method(vm, "main");
    CHECK_INT(hot_calls, 2);
    CHECK(f->prof.hot);
    CHECK(m->prof.hot);
    CHECK_INT(f->prof.calls, 20);
    CHECK_INT(m->prof.backedges, 19);
    test_unload(vm);
}

TEST(interp_hot_once)
{
    const char *src =
        "main main\n"
        "method f (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method main () : void static\n  regs int, int, int\n"
        "  LDI r1, 50\n"
        "top:\n  CALL r2, r0, f\n  ADDK r0, r0, 1\n  JGES r0, 50, out\n  JMP top\nout:\n  RETV\nend\n";
    /* threshold 10: f fires at its 10th call; main (1 call + back edges)
     * at its 9th back edge, with the loop head as osr pc */
    hot_calls = 0;
    Vm *vm = load(src, 10, true);
    if (!vm)
        return;
    VmMethod *f = test_method(vm, "f"), *m = test_method(vm, "main");
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    CHECK_INT(hot_calls, 2);
    CHECK(f->prof.hot && m->prof.hot);
    CHECK_INT(f->prof.calls, 50);
    CHECK_INT(m->prof.backedges, 49);
    test_unload(vm);

    /* only calls: exactly one hook, for f, without osr pc, at call 10 */
    const char *src2 =
        "main main\n"
        "method f (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method main () : void static\n  regs int\n"
        "  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n"
        "  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n"
        "  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n  CALL r0, r0, f\n"
        "  RETV\nend\n";
    hot_calls = 0;
    hot_osr = (const VmInsn *)1;
    vm = load(src2, 10, true);
    if (!vm)
        return;
    run_vm(vm, &r);
    CHECK_INT(hot_calls, 1);
    CHECK(hot_method == test_method(vm, "f"));
    CHECK(hot_osr == NULL);
    CHECK_INT(test_method(vm, "f")->prof.calls, 12);
    test_unload(vm);
}

TEST(interp_hot_osr_pc)
{
    const char *src =
        "main main\n"
        "method main () : void static\n  regs int, int\n"
        "  LDI r1, 100\n  NOP\n"
        "head:\n  ADDK r1, r1, 0\n  LOOP r0, r1, head\n  RETV\nend\n";
    hot_calls = 0;
    hot_osr = NULL;
    Vm *vm = load(src, 3, true);
    if (!vm)
        return;
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    VmMethod *m = test_method(vm, "main");
    CHECK_INT(hot_calls, 1);
    CHECK(hot_method == m);
    CHECK(hot_osr == m->code + 2);
    CHECK_INT(m->prof.backedges, 99);
    test_unload(vm);
}

/* What a higher tier does: on the hot hook, install other code for the
 * method with one store to its entry.  Calls made after the store reach
 * the new entry (here a C function standing in for compiled code, which
 * computes x * 100 instead of x + 1); earlier calls ran the bytecode. */
static VmValue fake_compiled(VmThread *t, VmMethod *m, VmValue *args)
{
    (void)t;
    (void)m;
    return (VmValue){.i = args[0].i * 100};
}

static void install_on_hot(Vm *vm, VmMethod *m, const VmInsn *osr)
{
    (void)vm;
    if (!osr && strcmp(m->name, "f") == 0)
        m->entry = fake_compiled;
}

TEST(interp_entry_install)
{
    const char *src =
        "main main\n"
        "native println_int (int) : void = builtin \"println_int\"\n"
        "method f (int) : int static\n  ADDK r0, r0, 1\n  RET r0\nend\n"
        "method main () : void static\n  regs int, int, int\n"
        "  LDI r2, 5\n"
        "top:\n  CALL r1, r0, f\n  CALLN _, r1, println_int\n  LOOP r0, r2, top\n  RETV\nend\n";
    /* threshold 3: f(0) and f(1) are interpreted; the third call makes f
     * hot before it is dispatched, so it and every later call use the
     * installed entry */
    Vm *vm = load(src, 3, false);
    if (!vm)
        return;
    vm->hooks.hot = install_on_hot;
    Run r;
    run_vm(vm, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.out, "1\n2\n200\n300\n400\n");
    /* the interpreter counts the calls it runs; compiled code counts its
     * own (jit/codegen.c), which this stand-in does not */
    CHECK_INT(test_method(vm, "f")->prof.calls, 2);
    test_unload(vm);
}
