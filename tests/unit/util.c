/* tests/unit/util.c — helpers several unit-test files share: capturing
 * what code under test writes to stdout/stderr, loading programs (.tla or
 * Tally source) into a linked VM and finding their methods, reading the
 * `// NAME:` directives of test programs (the same ones tests/run.sh
 * reads), and walking the corpus of test programs.  Loading failures are
 * test failures, so a caller only has to stop on NULL. */
#include "test.h"

#include "ir.h"

#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Starts sending fd to a fresh temporary file; returns the saved fd. */
int test_redirect(int fd, FILE **tmp)
{
    fflush(fd == 1 ? stdout : stderr);
    *tmp = tmpfile();
    int saved = dup(fd);
    if (*tmp)
        dup2(fileno(*tmp), fd);
    return saved;
}

void test_restore(int fd, int saved, FILE *tmp, char *buf, size_t size)
{
    fflush(fd == 1 ? stdout : stderr);
    dup2(saved, fd);
    close(saved);
    buf[0] = 0;
    if (!tmp)
        return;
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
}

/* Verifies m and links it into a new VM with tun (NULL: the defaults).
 * On failure m is freed and, when report, a test failure recorded: the
 * corpus walkers pass report=false because some programs fail to load on
 * purpose. */
Vm *test_link(VmModule *m, const VmTunables *tun, bool report)
{
    VmError err;
    if (!m)
        return NULL;
    if (!vm_verify(m, &err)) {
        if (report)
            test_fail(__FILE__, __LINE__, "verify: %s", err.msg);
        vm_module_free(m);
        return NULL;
    }
    Vm *vm = vm_new(tun);
    if (!vm || !vm_link(vm, m, &err)) {
        if (report)
            test_fail(__FILE__, __LINE__, "link: %s", vm ? err.msg : "vm_new failed");
        vm_free(vm);
        vm_module_free(m);
        return NULL;
    }
    return vm;
}

/* Assembles src (as "t.tla") and links it. */
Vm *test_load_tla(const char *src, const VmTunables *tun)
{
    VmError err;
    VmModule *m = vm_asm(src, strlen(src), "t.tla", &err);
    if (!m)
        test_fail(__FILE__, __LINE__, "asm: %s", err.msg);
    return test_link(m, tun, true);
}

/* Compiles Tally source src as file `name` (the name run-time error traces
 * show) and links it; diagnostics go to stderr. */
Vm *test_load_tl(const char *name, const char *src, const VmTunables *tun)
{
    TlOptions to = {.stdlib_dir = "stdlib"};
    VmModule *m = tl_compile_source(name, src, strlen(src), &to, stderr, NULL);
    if (!m)
        test_fail(__FILE__, __LINE__, "tl_compile_source %s failed", name);
    return test_link(m, tun, true);
}

/* The module of the test program at path: its .tla text assembled, or its
 * Tally source compiled with diagnostics to diag; NULL if it does not load. */
VmModule *test_module_file(const char *path, FILE *diag)
{
    if (!strstr(path, ".tla")) {
        TlOptions to = {.stdlib_dir = "stdlib"};
        return tl_compile_file(path, &to, diag, NULL);
    }
    VmBuf buf = {0};
    VmError err;
    if (!vm_read_file(path, &buf, &err))
        return NULL;
    VmModule *m = vm_asm((char *)buf.data, buf.len, path, &err);
    vm_buf_free(&buf);
    return m;
}

/* qsort's order of doubles, ascending. */
int test_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

uint32_t test_ir_count_op(const IrFunc *f, int op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++)
            n += f->blocks[i]->insns[k].op == op;
    return n;
}

struct IrInsn *test_ir_first_op(const IrFunc *f, int op)
{
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++)
            if (f->blocks[i]->insns[k].op == op)
                return &f->blocks[i]->insns[k];
    return NULL;
}

/* Frees vm and the module it was linked from (NULL: nothing). */
void test_unload(Vm *vm)
{
    if (!vm)
        return;
    VmModule *m = vm->module;
    vm_free(vm);
    vm_module_free(m);
}

/* The method called `name` of vm's module; a test failure if none. */
VmMethod *test_method(Vm *vm, const char *name)
{
    VmModule *m = vm->module;
    for (uint32_t i = 0; i < m->nmethods; i++)
        if (!strcmp(m->methods[i].name, name))
            return &m->methods[i];
    test_fail(__FILE__, __LINE__, "no method %s", name);
    return NULL;
}

/* The words of every "// NAME: w1 w2" line of text, appended to out[]. */
int test_directive_words(const char *text, const char *name, char **out, int max)
{
    int n = 0;
    char key[64];
    snprintf(key, sizeof key, "// %s:", name);
    for (const char *p = strstr(text, key); p && n < max; p = strstr(p + 1, key)) {
        const char *q = p + strlen(key);
        while (*q && *q != '\n' && n < max) {
            while (*q == ' ')
                q++;
            const char *s = q;
            while (*q && *q != ' ' && *q != '\n')
                q++;
            if (q > s)
                out[n++] = strndup(s, (size_t)(q - s));
        }
    }
    return n;
}

/* Every runnable program of tests/vm/ and tests/lang/, loaded and
 * with its `// flags: -X` tunables and `// args:` parsed, passed to fn.
 * Skipped: programs whose compile or load fails on purpose (nothing to
 * run) and programs that set gc.max_heap (a Boehm heap limit would also
 * bind every program run after it in this process). Returns how many
 * programs fn saw; `only`, if set, keeps paths containing it. */
int test_corpus_each(const char *only, void (*fn)(TestProgram *p, void *ctx), void *ctx)
{
    const char *patterns[] = {"tests/vm/*.tla", "tests/lang/*.tl"};
    int seen = 0;
    for (size_t pi = 0; pi < 2; pi++) {
        glob_t g;
        if (glob(patterns[pi], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *path = g.gl_pathv[i];
            if (only && !strstr(path, only))
                continue;
            VmBuf buf = {0};
            VmError err;
            if (!vm_read_file(path, &buf, &err))
                continue;
            char *text = strndup((char *)buf.data, buf.len);
            vm_buf_free(&buf);
            if (strstr(text, "// expect-error:") || strstr(text, "// expect-exit: 2") ||
                strstr(text, "gc.max_heap")) {
                free(text);
                continue;
            }
            TestProgram p = {.path = path, .text = text};
            FILE *nul = fopen("/dev/null", "w");
            p.m = test_module_file(path, nul);
            if (nul)
                fclose(nul);
            if (p.m) {
                test_tunables_init(&p.tun);
                char *words[32];
                int nw = test_directive_words(text, "flags", words, 32);
                for (int w = 0; w + 1 < nw; w++)
                    if (!strcmp(words[w], "-X"))
                        test_tunables_set(&p.tun, words[w + 1], NULL);
                p.nargs = test_directive_words(text, "args", p.args, 32);
                fn(&p, ctx);
                seen++;
                /* string tunables (vm.natives=…) point into the words */
                for (int w = 0; w < nw; w++)
                    free(words[w]);
                for (int a = 0; a < p.nargs; a++)
                    free(p.args[a]);
            }
            free(text);
        }
        globfree(&g);
    }
    return seen;
}

VmValue test_stub_slow(VmThread *t, VmMethod *m, VmValue *args, void *ctx)
{
    (void)ctx;
    return vm_interp_entry(t, m, args);
}

bool test_stub_sample(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight)
{
    (void)bakeoff, (void)variant, (void)cycles, (void)weight;
    return true;
}

void test_tunables_init(TestTunables *t)
{
    vm_tunables_default(&t->vm);
    ir_options_default(&t->ir);
    jit_tunables_default(&t->jit);
    mk_tunables_default(&t->mk);
    au_config_default(&t->au);
}

bool test_tunables_set(TestTunables *t, const char *assignment, VmError *err)
{
    VmTunSet set = {{&vm_tun_group, &ir_tun_group, &jit_tun_group, &mk_tun_group, &au_tun_group},
                    {&t->vm, &t->ir, &t->jit, &t->mk, &t->au}, 5};
    return vm_tun_set(&set, assignment, err);
}

/* ---- running a program with its output captured or discarded -------------- */

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    if (n < 0)
        n = 0;
    char *s = calloc(1, (size_t)n + 1);
    rewind(f);
    if (s && n && fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = 0;
    return s;
}

TestRun test_run_capture(Vm *vm, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *o = tmpfile(), *e = tmpfile();
    int so = dup(1), se = dup(2), in = dup(0), nul = open("/dev/null", O_RDONLY);
    dup2(fileno(o), 1);
    dup2(fileno(e), 2);
    dup2(nul, 0);
    TestRun r = {0};
    r.status = vm_run(vm, argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    dup2(in, 0);
    close(so), close(se), close(in), close(nul);
    fseek(o, 0, SEEK_END);
    fseek(e, 0, SEEK_END);
    r.out = slurp(o);
    r.err = slurp(e);
    fclose(o);
    fclose(e);
    return r;
}

void test_run_free(TestRun *r)
{
    free(r->out);
    free(r->err);
}

int test_run_quiet(Vm *vm, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2), nul = open("/dev/null", O_WRONLY);
    dup2(nul, 1);
    dup2(nul, 2);
    int status = vm_run(vm, argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so), close(se), close(nul);
    return status;
}
