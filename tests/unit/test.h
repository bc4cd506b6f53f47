/* tests/unit/test.h — a minimal unit-test harness.
 *
 * TEST(name) { ... } defines and registers a test; CHECK* record failures
 * and carry on, so one run reports every broken expectation.  The runner
 * (runner.c) prints one line per failing check and ends with
 * "unit: N passed, N failed" (tests, not checks).
 */
#ifndef TALLY_TEST_H
#define TALLY_TEST_H

#include <stdint.h>
#include <string.h>

void test_register(const char *name, void (*fn)(void));
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(name)                                                              \
    static void test_##name(void);                                              \
    __attribute__((constructor)) static void test_reg_##name(void)              \
    {                                                                           \
        test_register(#name, test_##name);                                      \
    }                                                                           \
    static void test_##name(void)

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond))                                                            \
            test_fail(__FILE__, __LINE__, "%s", #cond);                         \
    } while (0)

#define CHECK_INT(got, want)                                                    \
    do {                                                                        \
        long long g_ = (long long)(got), w_ = (long long)(want);                \
        if (g_ != w_)                                                           \
            test_fail(__FILE__, __LINE__, "%s = %lld, want %lld", #got, g_, w_); \
    } while (0)

#define CHECK_STR(got, want)                                                    \
    do {                                                                        \
        const char *g_ = (got), *w_ = (want);                                   \
        if (!g_ || strcmp(g_, w_) != 0)                                         \
            test_fail(__FILE__, __LINE__, "%s = \"%s\", want \"%s\"", #got,     \
                      g_ ? g_ : "(null)", w_);                                  \
    } while (0)

/* CHECK_CONTAINS: `want` occurs in `got`. */
#define CHECK_CONTAINS(got, want)                                               \
    do {                                                                        \
        const char *g_ = (got), *w_ = (want);                                   \
        if (!g_ || !strstr(g_, w_))                                             \
            test_fail(__FILE__, __LINE__, "%s = \"%s\" lacks \"%s\"", #got,     \
                      g_ ? g_ : "(null)", w_);                                  \
    } while (0)

/* util.c: fd (1 or 2) goes to a fresh temporary file until test_restore,
 * which puts it back and copies what was written into buf. */
#include <stdio.h>
int test_redirect(int fd, FILE **tmp);
void test_restore(int fd, int saved, FILE *tmp, char *buf, size_t size);
/* Words of the "// NAME: ..." directive lines of text (strdup'ed). */
int test_directive_words(const char *text, const char *name, char **out, int max);

#include "lang.h"
#include "vm.h"
#include "ir.h"
#include "jit.h"
#include "markers.h"
#include "audit.h"
/* Loading programs (util.c): test_link verifies and links m (freed on
 * failure; tun NULL = defaults; report: failures are test failures);
 * test_load_tla/test_load_tl assemble or compile src first.  test_unload
 * frees the VM and its module; test_method finds a method by name (a test
 * failure if there is none). */
Vm *test_link(VmModule *m, const VmTunables *tun, bool report);
Vm *test_load_tla(const char *src, const VmTunables *tun);
Vm *test_load_tl(const char *name, const char *src, const VmTunables *tun);
void test_unload(Vm *vm);
VmMethod *test_method(Vm *vm, const char *name);
/* The module of a .tla or .tl file (NULL if it does not load). */
VmModule *test_module_file(const char *path, FILE *diag);
/* A bakeoff compiled outside the auditor (jit_compile_bakeoff): a slow
 * path that runs the interpreter, a sample sink that drops the sample. */
VmValue test_stub_slow(VmThread *t, VmMethod *m, VmValue *args, void *ctx);
bool test_stub_sample(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight);
/* qsort comparison of doubles, ascending. */
int test_cmp_double(const void *a, const void *b);
/* How many insns of the JIT IR function f have op (an IrOp). */
struct IrFunc;
uint32_t test_ir_count_op(const struct IrFunc *f, int op);
struct IrInsn;
struct IrInsn *test_ir_first_op(const struct IrFunc *f, int op);   /* in block order; NULL: none */

/* Every tier's tunables, as the command holds them (vm/main.c). */
typedef struct TestTunables {
    VmTunables vm;
    IrOptions ir;
    JitTunables jit;
    MkTunables mk;
    AuConfig au;
} TestTunables;
void test_tunables_init(TestTunables *t);
/* Runs vm's program (stdin /dev/null): status, stdout and stderr captured
 * (test_run_free frees them), or both discarded (test_run_quiet). */
typedef struct TestRun {
    int status;
    char *out, *err;
} TestRun;
TestRun test_run_capture(Vm *vm, int argc, char **argv);
void test_run_free(TestRun *r);
int test_run_quiet(Vm *vm, int argc, char **argv);
/* "name=value" into whichever tier's table has the name; false + err. */
bool test_tunables_set(TestTunables *t, const char *assignment, VmError *err);

/* A program of the test corpus (see test_corpus_each in util.c); the
 * module is the callee's to link and free. */
typedef struct {
    const char *path;
    const char *text;
    VmModule *m;
    TestTunables tun; /* defaults plus the program's `// flags: -X` */
    int nargs;
    char *args[32];
} TestProgram;
int test_corpus_each(const char *only, void (*fn)(TestProgram *p, void *ctx), void *ctx);

#endif
