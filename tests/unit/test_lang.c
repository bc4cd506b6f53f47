/* tests/unit/test_lang.c — the tally front end (lang/): lexer tokens and
 * literal edge cases, parser precedence, exact error messages, and small
 * programs compiled in memory, verified and run on the interpreter with
 * stdout and stderr captured.
 */
#include "test.h"

#include "ast.h"
#include "lang.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

/* Lexes src; returns the token kinds (up to n) and their count. */
static uint32_t lex(const char *src, TlToken *out, uint32_t n, int *errors)
{
    TlCompiler c = {.diag = NULL, .max_errors = 20};
    TlFile *f = tl_alloc(&c, sizeof *f);
    f->path = "t.tl";
    f->text = src;
    f->len = strlen(src);
    *TL_PUSH(&c, c.files, c.nfiles, c.capfiles) = f;
    tl_lex(&c, f);
    uint32_t k = f->ntoks < n ? f->ntoks : n;
    memcpy(out, f->toks, k * sizeof *out);
    for (uint32_t i = 0; i < k; i++)
        out[i].s = NULL;   /* arena memory is freed below */
    *errors = c.nerrors;
    tl_compiler_free(&c);
    return k;
}

/* Compiles src; the diagnostics go to diag (NUL-terminated). */
static VmModule *compile(const char *src, char *diag, size_t n, int *nerrors)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *d = open_memstream(&buf, &len);
    TlOptions opt = {.stdlib_dir = "stdlib"};
    VmModule *m = tl_compile_source("t.tl", src, strlen(src), &opt, d, nerrors);
    fclose(d);
    snprintf(diag, n, "%s", buf ? buf : "");
    free(buf);
    return m;
}

typedef struct Run {
    int status;
    char out[8192], err[4096], diag[4096];
} Run;


/* Compiles, verifies, links and runs src; status -1 if it did not get
 * that far (diag and err say why). */
static void run(const char *src, Run *r)
{
    int nerr = 0;
    r->status = -1;
    r->out[0] = r->err[0] = 0;
    VmModule *m = compile(src, r->diag, sizeof r->diag, &nerr);
    if (!m)
        return;
    VmError err = {{0}};
    if (!vm_verify(m, &err)) {
        snprintf(r->err, sizeof r->err, "verify: %s", err.msg);
        vm_module_free(m);
        return;
    }
    VmTunables tun;
    vm_tunables_default(&tun);
    Vm *vm = vm_new(&tun);
    if (!vm_link(vm, m, &err)) {
        snprintf(r->err, sizeof r->err, "link: %s", err.msg);
        vm_free(vm);
        vm_module_free(m);
        return;
    }
    FILE *o, *e;
    int so = test_redirect(1, &o), se = test_redirect(2, &e);
    r->status = vm_run(vm, 0, NULL);
    test_restore(1, so, o, r->out, sizeof r->out);
    test_restore(2, se, e, r->err, sizeof r->err);
    vm_free(vm);
    vm_module_free(m);
}

#define CHECK_RUN(src, want)                                                    \
    do {                                                                        \
        Run r_;                                                                 \
        run(src, &r_);                                                          \
        if (r_.status != 0)                                                     \
            test_fail(__FILE__, __LINE__, "status %d: %s%s", r_.status,        \
                      r_.diag, r_.err);                                         \
        CHECK_STR(r_.out, want);                                                \
    } while (0)

/* The first diagnostic line of compiling src. */
#define CHECK_ERROR(src, want)                                                  \
    do {                                                                        \
        char d_[4096];                                                          \
        int n_ = 0;                                                             \
        VmModule *m_ = compile(src, d_, sizeof d_, &n_);                        \
        CHECK(m_ == NULL);                                                      \
        vm_module_free(m_);                                                     \
        char *nl_ = strchr(d_, '\n');                                           \
        if (nl_)                                                                \
            *nl_ = 0;                                                           \
        CHECK_STR(d_, want);                                                    \
    } while (0)

/* ---- lexer --------------------------------------------------------------- */

TEST(lang_lex_tokens)
{
    TlToken t[32];
    int errors;
    uint32_t n = lex("fn f(x: int) { return x >>> 2 >= 1..3; } // c\n/* b */ 'a'", t, 32, &errors);
    CHECK_INT(errors, 0);
    TlTok want[] = {TK_FN, TK_IDENT, TK_LPAREN, TK_IDENT, TK_COLON, TK_IDENT, TK_RPAREN, TK_LBRACE,
                    TK_RETURN, TK_IDENT, TK_USHR, TK_INT, TK_GE, TK_INT, TK_DOTDOT, TK_INT, TK_SEMI,
                    TK_RBRACE, TK_CHAR, TK_EOF};
    CHECK_INT(n, sizeof want / sizeof *want);
    for (uint32_t i = 0; i < n && i < sizeof want / sizeof *want; i++)
        if (t[i].kind != want[i])
            test_fail(__FILE__, __LINE__, "token %u: kind %d, want %d", i, t[i].kind, want[i]);
    CHECK_INT(t[18].v.u, 'a');
    CHECK_INT(t[18].pos.line, 2);
    CHECK_INT(t[18].pos.col, 9);
}

TEST(lang_lex_numbers)
{
    TlToken t[8];
    int errors;
    lex("0xff 1_000_000 9223372036854775807 9223372036854775808", t, 8, &errors);
    CHECK_INT(errors, 0);
    CHECK_INT(t[0].v.u, 255);
    CHECK_INT(t[1].v.u, 1000000);
    CHECK_INT(t[2].v.u, INT64_MAX);
    CHECK(!t[2].overflow);
    CHECK(t[3].overflow);   /* 2^63: only valid after unary minus */
    lex("1.5 2.0e-3 1e9 3", t, 8, &errors);
    CHECK_INT(errors, 0);
    CHECK(t[0].kind == TK_FLOAT && t[0].v.f == 1.5);
    CHECK(t[1].kind == TK_FLOAT && t[1].v.f == 2.0e-3);
    CHECK(t[2].kind == TK_FLOAT && t[2].v.f == 1e9);
    CHECK(t[3].kind == TK_INT);
    lex("18446744073709551616", t, 8, &errors);
    CHECK_INT(errors, 1);
    lex("12ab", t, 8, &errors);
    CHECK_INT(errors, 1);
    lex("1e", t, 8, &errors);
    CHECK_INT(errors, 1);
}

TEST(lang_lex_strings)
{
    TlToken t[4];
    int errors;
    lex("\"a\\n\\t\\x41\\0\\\"\"", t, 4, &errors);
    CHECK_INT(errors, 0);
    CHECK_INT(t[0].slen, 6);
    lex("\"abc", t, 4, &errors);
    CHECK_INT(errors, 1);
    lex("'\\q'", t, 4, &errors);
    CHECK_INT(errors, 1);
    lex("''", t, 4, &errors);
    CHECK_INT(errors, 1);
    lex("/* open", t, 4, &errors);
    CHECK_INT(errors, 1);
    /* a backslash ending the line is part of the unterminated literal: one error */
    lex("\"abc\\\n", t, 4, &errors);
    CHECK_INT(errors, 1);
    CHECK(t[0].kind == TK_ERROR && t[0].cut);
    /* `1.` is a float missing its fraction; `1..2` and `1.x` are not */
    lex("1. ", t, 4, &errors);
    CHECK_INT(errors, 1);
    CHECK(t[0].kind == TK_ERROR);
    TlToken u[8];
    lex("1..2 1.x", u, 8, &errors);
    CHECK_INT(errors, 0);
    CHECK(u[0].kind == TK_INT && u[1].kind == TK_DOTDOT && u[3].kind == TK_INT && u[4].kind == TK_DOT);
}

TEST(lang_lex_error_shows_line)
{
    /* lexical errors show the source line and caret like all others */
    char d[4096];
    int n = 0;
    VmModule *m = compile("fn main() {\n  let x = 1 @ 2;\n}\n", d, sizeof d, &n);
    CHECK(m == NULL);
    CHECK_INT(n, 1);
    CHECK_STR(d, "t.tl:2:13: error: unexpected character '@'\n      let x = 1 @ 2;\n                ^\n");
}

/* ---- parser and operators ------------------------------------------------ */

TEST(lang_precedence)
{
    CHECK_RUN("fn main() {\n"
              "  println(1 + 2 * 3);\n"
              "  println(7 - 2 - 1);\n"
              "  println(1 << 2 + 1);\n"
              "  println(6 & 3 | 8 ^ 1);\n"
              "  println(true || false && false);\n"
              "  println(-2 * 3 % 4);\n"
              "  println(!(1 < 2) == false);\n"
              "  println(-9223372036854775808);\n"
              "  println(-8 >> 1);\n"
              "  println(-8 >>> 60);\n"
              "}\n",
              "7\n4\n8\n11\ntrue\n-2\ntrue\n-9223372036854775808\n-4\n15\n");
}

TEST(lang_int_semantics)
{
    CHECK_RUN("fn main() {\n"
              "  let m = -9223372036854775807 - 1;\n"
              "  println(m / -1); println(m % -1); println(-7 / 2); println(-7 % 2);\n"
              "  println(9223372036854775807 + 1);\n"
              "}\n",
              "-9223372036854775808\n0\n-3\n-1\n-9223372036854775808\n");
}

TEST(lang_float_compare_nan)
{
    CHECK_RUN("fn main() {\n"
              "  let n = 0.0 / 0.0;\n"
              "  if n < 1.0 { println(1); } else { println(2); }\n"
              "  if !(n >= 1.0) { println(3); }\n"
              "  if n != n { println(4); }\n"
              "  println(n == n);\n"
              "}\n",
              "2\n3\n4\nfalse\n");
}

/* ---- errors -------------------------------------------------------------- */

TEST(lang_errors)
{
    CHECK_ERROR("fn main() {\n  let x: int = \"s\";\n}\n",
                "t.tl:2:16: error: type mismatch: expected 'int', found 'string'");
    CHECK_ERROR("fn main() {\n  println(y);\n}\n", "t.tl:2:11: error: undefined name 'y'");
    CHECK_ERROR("fn main() {\n  let a = 1 + true;\n}\n",
                "t.tl:2:13: error: operator '+' cannot be applied to 'int' and 'bool'");
    CHECK_ERROR("fn f(): int {\n  if true { return 1; }\n}\nfn main() {}\n", "t.tl:1:4: error: missing return");
    CHECK_ERROR("fn main() {\n  let x = 1;\n  x = 2;\n}\n",
                "t.tl:3:3: error: cannot assign to 'x', which is declared with 'let'");
    CHECK_ERROR("fn main() {\n  let x = (1 + ;\n}\n", "t.tl:2:16: error: expected an expression, found ';'");
    CHECK_ERROR("fn main() {\n  let f = 1.5 % 2.0;\n}\n",
                "t.tl:2:15: error: operator '%' cannot be applied to 'float' and 'float'");
    CHECK_ERROR("fn main() {\n  let x = 9223372036854775808;\n}\n",
                "t.tl:2:11: error: integer literal '9223372036854775808' is out of range");
    CHECK_ERROR("fn main() {\n  var k = 0;\n  let f = fn() { k = 1; };\n}\n",
                "t.tl:3:18: error: cannot assign to captured variable 'k' inside a lambda");
}

TEST(lang_errors_no_cascade)
{
    char d[4096];
    int n = 0;
    VmModule *m = compile("fn main() {\n  let a = nope + 1;\n  let b = a * 2;\n  println(nope);\n}\n",
                          d, sizeof d, &n);
    CHECK(m == NULL);
    CHECK_INT(n, 1);
    CHECK_CONTAINS(d, "    ^");
}

TEST(lang_errors_one_each)
{
    /* one message per mistake: no cascade after an unterminated string
     * (which took the `;` and `}`), a float without digits or a member
     * access without a name */
    static const char *const srcs[] = {
        "fn main() {\n  let s = \"abc; }\n",
        "fn main() {\n  let s = \"abc\\\n}\n",
        "fn main() {\n  let x = 1.;\n}\n",
        "fn main() {\n  let x = 3;\n  x.;\n}\n",
        "fn main() {\n  println(\"a);\n  let x = 1;\n  println(x);\n}\n",
    };
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        char d[4096];
        int n = 0;
        VmModule *m = compile(srcs[i], d, sizeof d, &n);
        CHECK(m == NULL);
        if (n != 1)
            test_fail(__FILE__, __LINE__, "source %zu: %d errors: %s", i, n, d);
    }
}

TEST(lang_erased_arrays)
{
    CHECK_ERROR("import \"collections\";\n"
                "fn f(a: string[]) {}\n"
                "fn main() {\n  let v = Vector<string>();\n  f(v.toArray());\n}\n",
                "t.tl:5:7: error: an array of a type parameter is 'Object[]' at run time and cannot be "
                "used as 'string[]'");
    CHECK_RUN("import \"collections\";\n"
              "fn main() {\n  let v = Vector<string>();\n  v.append(\"a\");\n"
              "  let a = v.toArray();\n  a[0] = a[0] + \"b\";\n"
              "  println(str(a.length) + a[0] + v.toArray()[0]);\n}\n",
              "1aba\n");
}

TEST(lang_nesting_capped)
{
    /* deep nesting is an error, not a stack overflow */
    size_t depth = 100000;
    char *src = malloc(depth * 2 + 64);
    strcpy(src, "fn main() { let x = ");
    size_t k = strlen(src);
    for (size_t i = 0; i < depth; i++)
        src[k++] = '(';
    src[k++] = '1';
    for (size_t i = 0; i < depth; i++)
        src[k++] = ')';
    strcpy(src + k, "; }\n");
    char d[4096];
    int n = 0;
    VmModule *m = compile(src, d, sizeof d, &n);
    CHECK(m == NULL);
    CHECK_CONTAINS(d, "nesting too deep");
    free(src);
}

/* ---- programs ------------------------------------------------------------ */

TEST(lang_run_classes)
{
    CHECK_RUN("interface Shape { fn area(): float; }\n"
              "class Rect implements Shape {\n"
              "  w: float; h: float;\n"
              "  init(w: float, h: float) { self.w = w; self.h = h; }\n"
              "  fn area(): float { return self.w * self.h; }\n"
              "}\n"
              "class Square extends Rect {\n"
              "  init(s: float) { super(s, s); }\n"
              "  fn area(): float { return super.area() + 1.0; }\n"
              "}\n"
              "fn main() {\n"
              "  let s: Shape[] = [Rect(2.0, 3.0), Square(2.0)];\n"
              "  for i in 0..s.length { println(s[i].area()); }\n"
              "  let o: Object = s[1];\n"
              "  println(o is Square);\n"
              "  println((o as Rect).w);\n"
              "}\n",
              "6.0\n5.0\ntrue\n2.0\n");
}

TEST(lang_run_generics_lambdas)
{
    CHECK_RUN("class Box<T> {\n"
              "  item: T;\n"
              "  init(item: T) { self.item = item; }\n"
              "  fn get(): T { return self.item; }\n"
              "  fn map(f: fn(T): T): Box<T> { return Box<T>(f(self.item)); }\n"
              "}\n"
              "interface Cmp<T> { fn compare(o: T): int; }\n"
              "class N implements Cmp<N> { v: int; init(v: int) { self.v = v; }\n"
              "  fn compare(o: N): int { return self.v - o.v; } }\n"
              "fn twice(x: int): int { return 2 * x; }\n"
              "fn apply(f: fn(int): int, x: int): int { return f(x); }\n"
              "fn main() {\n"
              "  let b = Box<string>(\"ab\");\n"
              "  println(b.map(fn(s: string): string { return s + s; }).get().length);\n"
              "  let k = 5;\n"
              "  println(apply(fn(x: int): int { return x + k; }, 1));\n"
              "  println(apply(twice, 21));\n"
              "  let c: Cmp<N> = N(7);\n"
              "  println(c.compare(N(3)));\n"
              "}\n",
              "4\n6\n42\n4\n");
}

TEST(lang_run_globals_strings)
{
    CHECK_RUN("var count = 1;\n"
              "let NAMES = [\"x\", \"yz\"];\n"
              "fn bump() { count += 1; }\n"
              "fn main() {\n"
              "  bump(); bump();\n"
              "  println(count);\n"
              "  println(NAMES[1] + str(NAMES.length));\n"
              "  let s = \"hello\";\n"
              "  println(s.substring(1, 3) + chr(s[0]) + str(s.indexOf(\"lo\")));\n"
              "  println(s == \"hel\" + \"lo\");\n"
              "  println(str(1.5) + str(true) + str(int(2.9)) + str(float(3)));\n"
              "  var w = 0;\n"
              "  while true { w += 1; if w > 3 { break; } }\n"
              "  println(w);\n"
              "}\n",
              "3\nyz2\nelh3\ntrue\n1.5true23.0\n4\n");
}

TEST(lang_run_error_trace)
{
    Run r;
    run("fn f(a: int[]): int {\n"
        "  return a[3];\n"
        "}\n"
        "fn main() {\n"
        "  println(f([1, 2]));\n"
        "}\n",
        &r);
    CHECK_INT(r.status, 1);
    CHECK_CONTAINS(r.err, "error: index out of bounds: index 3, length 2");
    CHECK_CONTAINS(r.err, "at f (t.tl:2)");
    CHECK_CONTAINS(r.err, "at main (t.tl:5)");
}

/* ---- code shape ---------------------------------------------------------- */

/* The disassembly of method `name` of the compiled src, from its `method`
 * line to `end`, without `line` directives and source comments (so the
 * expectations show registers and instructions only).  Caller frees. */
static char *dis_method(const char *src, const char *name)
{
    char diag[4096];
    int nerr = 0;
    VmModule *m = compile(src, diag, sizeof diag, &nerr);
    if (!m)
        return strdup(diag);
    VmError err = {{0}};
    bool ok = vm_verify(m, &err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    vm_dis(m, f);
    fclose(f);
    vm_module_free(m);
    if (!ok) {
        free(buf);
        return strdup(err.msg);
    }
    char head[256];
    snprintf(head, sizeof head, "method %s ", name);
    char *out = malloc(len + 1), *o = out;
    bool in = false;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!in && strncmp(line, head, strlen(head)) == 0)
            in = true;
        if (in && strncmp(line, "  //", 4) != 0 && strncmp(line, "  line ", 7) != 0) {
            memcpy(o, line, n);
            o += n;
        }
        if (in && strncmp(line, "end", 3) == 0)
            break;
        line += n;
    }
    *o = 0;
    free(buf);
    return out;
}

#define CHECK_DIS(src, name, want)                                              \
    do {                                                                        \
        char *d_ = dis_method(src, name);                                       \
        CHECK_STR(d_, want);                                                    \
        free(d_);                                                               \
    } while (0)

TEST(lang_code_fib_regs)
{
    /* the call result lands in its dead argument register, the sum in a
     * dead operand: two registers besides n, as in bench/micro/fib.tla */
    CHECK_DIS("fn fib(n: int): int {\n  if n < 2 {\n    return n;\n  }\n"
              "  return fib(n - 1) + fib(n - 2);\n}\nfn main() { println(fib(10)); }\n",
              "fib",
              "method fib (int) : int static\n"
              "  regs int, int\n"
              "  JGES r0, 2, L2\n"
              "  RET r0\n"
              "L2:\n"
              "  ADDK r1, r0, -1\n"
              "  CALL r1, r1, fib\n"
              "  ADDK r2, r0, -2\n"
              "  CALL r2, r2, fib\n"
              "  ADD r1, r1, r2\n"
              "  RET r1\n"
              "end\n");
}

TEST(lang_code_operand_reuse)
{
    CHECK_DIS("fn f(a: int, b: int, c: int): int { return a * b + c; }\nfn main() {}\n", "f",
              "method f (int, int, int) : int static\n"
              "  regs int\n"
              "  MUL r3, r0, r1\n"
              "  ADD r3, r3, r2\n"
              "  RET r3\n"
              "end\n");
    CHECK_DIS("fn step(x: int, i: int): int { return (x ^ i) + 3; }\nfn main() {}\n", "step",
              "method step (int, int) : int static\n"
              "  regs int\n"
              "  XOR r2, r0, r1\n"
              "  ADDK r2, r2, 3\n"
              "  RET r2\n"
              "end\n");
    /* per type: the float temporaries reuse each other, never an int */
    CHECK_DIS("fn g(x: float, y: float): float { return (x * y + x) * (y - x); }\nfn main() {}\n", "g",
              "method g (float, float) : float static\n"
              "  regs float, float\n"
              "  FMUL r2, r0, r1\n"
              "  FADD r2, r2, r0\n"
              "  FSUB r3, r1, r0\n"
              "  FMUL r2, r2, r3\n"
              "  RET r2\n"
              "end\n");
    CHECK_DIS("fn h(a: string, b: string): string { return a + b + a; }\nfn main() {}\n", "h",
              "method h (string, string) : string static\n"
              "  regs string\n"
              "  SCAT r2, r0, r1\n"
              "  SCAT r2, r2, r0\n"
              "  RET r2\n"
              "end\n");
}

TEST(lang_code_call_chain)
{
    CHECK_DIS("fn inc(x: int): int { return x + 1; }\n"
              "fn chain(x: int): int { return inc(inc(inc(x))); }\nfn main() {}\n",
              "chain",
              "method chain (int) : int static\n"
              "  regs int\n"
              "  CALL r1, r0, inc\n"
              "  CALL r1, r1, inc\n"
              "  CALL r1, r1, inc\n"
              "  RET r1\n"
              "end\n");
    /* the outer argument window r1, r2 stays reserved while the inner
     * calls use a window of their own (r3, r4, reused by the second) */
    CHECK_DIS("fn add(a: int, b: int): int { return a + b; }\n"
              "fn chain2(x: int): int { return add(add(x, 1), add(x, 2)); }\nfn main() {}\n",
              "chain2",
              "method chain2 (int) : int static\n"
              "  regs int, int, int, int\n"
              "  MOV r3, r0\n"
              "  LDI r4, 1\n"
              "  CALL r1, r3, add\n"
              "  MOV r3, r0\n"
              "  LDI r4, 2\n"
              "  CALL r2, r3, add\n"
              "  CALL r1, r1, add\n"
              "  RET r1\n"
              "end\n");
}

TEST(lang_code_break_fused)
{
    /* `if c { break; }` is one jump to the loop exit, not a branch over a JMP */
    CHECK_DIS("fn find(n: int): int {\n  var i = 0;\n  while true {\n"
              "    if i * i > n { break; }\n    i += 1;\n  }\n  return i;\n}\nfn main() {}\n",
              "find",
              "method find (int) : int static\n"
              "  regs int, int\n"
              "  LDI r1, 0\n"
              "L1:\n"
              "  MUL r2, r1, r1\n"
              "  JLT r0, r2, L5\n"
              "  ADDK r1, r1, 1\n"
              "  JMP L1\n"
              "L5:\n"
              "  RET r1\n"
              "end\n");
    CHECK_DIS("fn skip(n: int): int {\n  var s = 0;\n  for i in 0..n {\n"
              "    if i % 3 == 0 { continue; }\n    s += i;\n  }\n  return s;\n}\nfn main() {}\n",
              "skip",
              "method skip (int) : int static\n"
              "  regs int, int, int, int\n"
              "  LDI r1, 0\n"
              "  LDI r2, 0\n"
              "  MOV r3, r0\n"
              "  JLES r3, 0, L9\n"
              "L4:\n"
              "  LDI r4, 3\n"
              "  MOD r4, r2, r4\n"
              "  JEQS r4, 0, L8\n"
              "  ADD r1, r1, r2\n"
              "L8:\n"
              "  LOOP r2, r3, L4\n"
              "L9:\n"
              "  RET r1\n"
              "end\n");
}
