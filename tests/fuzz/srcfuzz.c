/* tests/fuzz/srcfuzz.c — the source fuzz test: valid .tl programs, randomly
 * broken, through the compiler, the verifier and the VM.
 *
 * usage: srcfuzz [--runs N] [--seed S] [--save DIR] [--timeout-ms MS]
 *                [--compile-ms MS] [--stdlib DIR] [--replay] FILE.tl...
 *
 * Each run takes one seed source file, applies 1–3 random mutations (byte
 * flips, deleted spans, inserted tally tokens, duplicated, deleted or
 * swapped lines, an identifier replaced by another one of the file, a
 * number replaced by an extreme one, an operator, keyword or type swapped
 * for a similar one, a truncation) and, in a forked child
 * with stdout/stderr discarded, compiles the mutant with tl_compile_source
 * (named like its seed, so relative imports still resolve).  A mutant that
 * compiles must pass vm_verify and is then linked and run under the time
 * limit.  Fine outcomes: a compile error, exit status 0, 1, 2 or any
 * exit(n) of the program, or the run's time limit (a mutated loop may run
 * forever).  Failures, each saved to DIR as <kind>-<run>.tl:
 *   invalid   the compiler accepted the mutant but emitted a module the
 *             verifier rejects ("compiler emitted invalid bytecode")
 *   ccrash    the compiler died of a signal
 *   chang     the compiler did not finish within --compile-ms of CPU time
 *   crash     the verified program died of a signal while running
 * The child tells the parent how far it got through a pipe (one line per
 * phase, and the verifier's message), so a signal or time limit is blamed
 * on the right phase.  Prints a summary line; exit status 1 if any run
 * failed, 2 on bad usage.
 *
 * Seeds named on the command line that are directories are skipped (a
 * glob over tests/lang/lib may catch one).  --stdlib (default
 * "stdlib", relative to the working directory) is where `import "name"`
 * looks.  --replay runs every FILE once, unmutated (to reproduce a saved
 * failure: copy it next to its seed if it uses relative imports).
 * Invariant: deterministic for a given --seed and seed files.
 */
#include "vm.h"
#include "../../lang/lang.h"
#include "../xorshift.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rng_state;

static uint64_t rnd(void)
{
    return xorshift64s(&rng_state);   /* deterministic per --seed */
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* What a mutation may insert: tally's tokens, plus a few names, types and
 * literals so that insertions often still parse and reach the checker. */
static const char *const tokens[] = {
    "fn", "let", "var", "if", "else", "while", "for", "in", "break", "continue", "return",
    "class", "interface", "extends", "implements", "init", "self", "super", "new", "null",
    "true", "false", "as", "is", "import", "extern", "static", "abstract",
    "int", "float", "bool", "string", "Object", "main", "x", "T", "length",
    "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<<", ">>", ">>>",
    "==", "!=", "<", "<=", ">", ">=", "&&", "||", "=", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=", "<<=", ">>=", ">>>=", "..",
    "(", ")", "{", "}", "[", "]", "<", ">", ",", ";", ":", ".",
    "0", "1", "-1", "7", "0x7fffffffffffffff", "1_000", "1.5", "0.0", "1e308", "'a'", "'\\n'",
    "\"\"", "\"s\"", "\"\\x00\"", "//", "/*", "*/", "\"", "'", "\n", "{ }", "()", "[]",
};
#define NTOKENS (sizeof tokens / sizeof tokens[0])

static const char *const numbers[] = {
    "0", "1", "-1", "2", "63", "64", "-9223372036854775808", "9223372036854775807",
    "9223372036854775808", "0xffffffffffffffff", "1e308", "-0.0", "1e-320", "0.1",
    "100000000", "-100000000",
};
#define NNUMBERS (sizeof numbers / sizeof numbers[0])

/* Tokens that can stand for each other: swapping one for another of its
 * group mostly keeps the program parsing, so the mutant reaches the type
 * checker and the code generator instead of stopping at a syntax error. */
static const char *const groups[][12] = {
    {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", ">>>"},
    {"<", "<=", ">", ">=", "==", "!="},
    {"&&", "||"},
    {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "="},
    {"let", "var"},
    {"int", "float", "bool", "string", "Object", "int[]"},
    {"break", "continue"},
    {"while", "if"},
    {"true", "false", "null", "self"},
    {"is", "as"},
    {"self.", "super.", ""},
    {"extends", "implements"},
};
#define NGROUPS (sizeof groups / sizeof groups[0])

static bool is_ident(int c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Replaces out[at, at+del) by ins[0, inslen); false when it does not fit. */
static bool replace_span(uint8_t *out, size_t *n, size_t cap, size_t at, size_t del, const void *ins,
                   size_t inslen)
{
    if (at > *n || del > *n - at || *n - del + inslen > cap)
        return false;
    memmove(out + at + inslen, out + at + del, *n - at - del);
    memcpy(out + at, ins, inslen);
    *n = *n - del + inslen;
    return true;
}

/* The line containing byte `at`: [*start, *end), the end including '\n'. */
static void line_at(const uint8_t *s, size_t n, size_t at, size_t *start, size_t *end)
{
    size_t a = at, b = at;
    while (a > 0 && s[a - 1] != '\n')
        a--;
    while (b < n && s[b] != '\n')
        b++;
    if (b < n)
        b++;
    *start = a;
    *end = b;
}

/* Finds the run of bytes satisfying `pred` at or after `from`; false if none. */
static bool find_word(const uint8_t *s, size_t n, size_t from, bool number, size_t *start,
                      size_t *end)
{
    for (size_t i = from; i < n; i++) {
        bool ok = number ? is_digit(s[i]) && (i == 0 || !is_ident(s[i - 1], false))
                         : is_ident(s[i], true) && (i == 0 || !is_ident(s[i - 1], false));
        if (!ok)
            continue;
        size_t j = i;
        while (j < n && (number ? (is_digit(s[j]) || s[j] == '.' || s[j] == '_' || s[j] == 'x' ||
                                   s[j] == 'e')
                                : is_ident(s[j], false)))
            j++;
        *start = i;
        *end = j;
        return true;
    }
    return false;
}

static void mutate_once(uint8_t *out, size_t *n, size_t cap, uint8_t *tmp)
{
    size_t len = *n;
    switch (rnd() % 12) {
    case 10:
    case 11: { /* swap a token for another of its group */
        const char *const *g = groups[rnd() % NGROUPS];
        int ng = 0;
        while (ng < 12 && g[ng])
            ng++;
        const char *from = g[rnd() % (uint64_t)ng], *to = g[rnd() % (uint64_t)ng];
        size_t fl = strlen(from), start = rnd_below(len);
        if (!fl)
            return;
        const uint8_t *hit = memmem(out + start, len - start, from, fl);
        if (!hit)
            hit = memmem(out, len, from, fl);
        if (hit)
            replace_span(out, n, cap, (size_t)(hit - out), fl, to, strlen(to));
        return;
    }
    case 0: /* truncate */
        *n = rnd_below(len);
        return;
    case 1: /* flip bits in, or set, 1..4 bytes */
        for (int k = 1 + (int)(rnd() % 4); k > 0 && len; k--) {
            size_t at = rnd_below(len);
            if (rnd() & 1)
                out[at] ^= (uint8_t)(1u << (rnd() % 8));
            else
                out[at] = (uint8_t)(" ;{}()[]<>.,:=+-\"'\\0\n\x80\xff"[rnd() % 24]);
        }
        return;
    case 2: { /* delete a span */
        if (len < 2)
            return;
        size_t at = rnd_below(len), max = len - at < 24 ? len - at : 24;
        replace_span(out, n, cap, at, 1 + rnd_below(max), "", 0);
        return;
    }
    case 3:
    case 4: { /* insert a token, sometimes spaced */
        const char *t = tokens[rnd() % NTOKENS];
        char buf[64];
        int k = snprintf(buf, sizeof buf, (rnd() & 1) ? " %s " : "%s", t);
        replace_span(out, n, cap, rnd_below(len + 1), 0, buf, (size_t)k);
        return;
    }
    case 5: { /* duplicate a line before another line */
        if (!len)
            return;
        size_t a, b, c, d;
        line_at(out, len, rnd_below(len), &a, &b);
        line_at(out, len, rnd_below(len), &c, &d);
        memcpy(tmp, out + a, b - a);
        replace_span(out, n, cap, c, 0, tmp, b - a);
        return;
    }
    case 6: { /* delete a line */
        if (!len)
            return;
        size_t a, b;
        line_at(out, len, rnd_below(len), &a, &b);
        replace_span(out, n, cap, a, b - a, "", 0);
        return;
    }
    case 7: { /* swap two lines (move one before another) */
        if (!len)
            return;
        size_t a, b, c, d;
        line_at(out, len, rnd_below(len), &a, &b);
        size_t l = b - a;
        memcpy(tmp, out + a, l);
        replace_span(out, n, cap, a, l, "", 0);
        if (*n == 0) {
            replace_span(out, n, cap, 0, 0, tmp, l);
            return;
        }
        line_at(out, *n, rnd_below(*n), &c, &d);
        replace_span(out, n, cap, c, 0, tmp, l);
        return;
    }
    case 8: { /* replace an identifier by another identifier of the file */
        size_t a, b, c, d;
        if (!find_word(out, len, rnd_below(len), false, &a, &b) ||
            !find_word(out, len, rnd_below(len), false, &c, &d))
            return;
        memcpy(tmp, out + c, d - c);
        replace_span(out, n, cap, a, b - a, tmp, d - c);
        return;
    }
    default: { /* replace a number by an extreme one */
        size_t a, b;
        if (!find_word(out, len, rnd_below(len), true, &a, &b))
            return;
        const char *v = numbers[rnd() % NNUMBERS];
        replace_span(out, n, cap, a, b - a, v, strlen(v));
        return;
    }
    }
}

static size_t mutate(const VmBuf *seed, uint8_t *out, size_t cap, uint8_t *tmp)
{
    size_t n = seed->len;
    memcpy(out, seed->data, n);
    uint64_t r = rnd() % 20;   /* mostly one mutation: fewer hopeless mutants */
    for (int k = r < 12 ? 1 : r < 17 ? 2 : 3; k > 0; k--)
        mutate_once(out, &n, cap, tmp);
    return n;
}

static void say(int fd, const char *s)
{
    size_t len = strlen(s);
    while (len) {
        ssize_t w = write(fd, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

/* CPU-time limit through SIGPROF (ms resolution; the collector does not
 * use it), with a generous wall-clock alarm behind it. */
static void set_limit(long ms)
{
    struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
    setitimer(ITIMER_PROF, &it, NULL);
    alarm((unsigned)(ms * 10 / 1000 + 2));
}

static const char *stdlib_dir = "stdlib";
static long compile_ms = 5000, run_ms = 1000;

/* The child: compile, verify, link, run; reports its phase on `fd`. */
static int run_child(int fd, const char *path, uint8_t *text, size_t len)
{
    TlOptions opt = {.stdlib_dir = stdlib_dir, .max_errors = 0};
    FILE *diag = fopen("/dev/null", "w");
    int nerrors = 0;
    set_limit(compile_ms);
    say(fd, "compile\n");
    VmModule *m = tl_compile_source(path, (const char *)text, len, &opt, diag, &nerrors);
    if (!m) {
        say(fd, nerrors > 0 ? "rejected\n" : "rejected-silently\n");
        return 2;
    }
    VmError err = {{0}};
    if (!vm_verify(m, &err)) {
        say(fd, "invalid ");
        for (char *p = err.msg; *p; p++)
            if (*p == '\n')
                *p = ' ';
        say(fd, err.msg);
        say(fd, "\n");
        return 2;
    }
    if (m->main == VM_NONE) {
        say(fd, "no-main\n");
        return 2;
    }
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.gc_max_heap = 256 << 20;   /* a mutated size must not eat the machine */
    Vm *vm = vm_new(&tun);
    if (!vm_link(vm, m, &err)) {
        say(fd, "link-error\n");   /* e.g. a mutated extern library name */
        return 2;
    }
    set_limit(run_ms);
    say(fd, "run\n");
    return vm_run(vm, 0, NULL);
}

/* The last complete line the child wrote, into `line`. */
static void last_line(const char *buf, char *line, size_t cap)
{
    const char *end = buf + strlen(buf), *p;
    while (end > buf && end[-1] == '\n')
        end--;
    for (p = end; p > buf && p[-1] != '\n'; p--)
        ;
    size_t n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
    memcpy(line, p, n);
    line[n] = 0;
}

static void save_mutant(const char *dir, const char *kind, long r, const uint8_t *buf,
                        size_t len, const char *seed, const char *why)
{
    fprintf(stderr, "srcfuzz: run %ld (seed %s): %s\n", r, seed, why);
    if (!dir)
        return;
    mkdir(dir, 0777);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%ld.tl", dir, kind, r);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(buf, 1, len, f);
        fclose(f);
        fprintf(stderr, "srcfuzz: saved %s\n", path);
    }
}

int main(int argc, char **argv)
{
    long runs = 10000;
    uint64_t seed = 0x7a11ull;
    const char *save = NULL;
    bool replay = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--save") && i + 1 < argc)
            save = argv[++i];
        else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
            run_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "--compile-ms") && i + 1 < argc)
            compile_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "--stdlib") && i + 1 < argc)
            stdlib_dir = argv[++i];
        else if (!strcmp(argv[i], "--replay"))
            replay = true;
        else {
            fprintf(stderr, "srcfuzz: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    int nseeds = argc - i;
    if (nseeds <= 0 || runs < 0 || run_ms <= 0 || compile_ms <= 0) {
        fprintf(stderr, "usage: srcfuzz [--runs N] [--seed S] [--save DIR] [--timeout-ms MS] "
                        "[--compile-ms MS] [--stdlib DIR] [--replay] FILE.tl...\n");
        return 2;
    }
    /* seeds: every regular file named (a glob may also catch a directory
     * that a test names on purpose: skipped) */
    char **names = calloc((size_t)nseeds, sizeof *names);
    VmBuf *seeds = calloc((size_t)nseeds, sizeof *seeds);
    size_t maxlen = 0;
    int kept = 0;
    for (int k = 0; k < nseeds; k++) {
        struct stat st;
        if (stat(argv[i + k], &st) == 0 && S_ISDIR(st.st_mode))
            continue;
        VmError err;
        if (!vm_read_file(argv[i + k], &seeds[kept], &err)) {
            fprintf(stderr, "srcfuzz: %s\n", err.msg);
            return 2;
        }
        names[kept] = argv[i + k];
        if (seeds[kept].len > maxlen)
            maxlen = seeds[kept].len;
        kept++;
    }
    nseeds = kept;
    if (nseeds == 0) {
        fprintf(stderr, "srcfuzz: no seed files\n");
        return 2;
    }
    /* room for growth by insertions and duplicated lines, and a NUL */
    size_t cap = 2 * maxlen + 4096;
    uint8_t *buf = malloc(cap + 1), *tmp = malloc(cap + 1);
    rng_state = seed | 1;
    if (replay)
        runs = nseeds;

    long rejected = 0, silent = 0, nomain = 0, linkerr = 0, status_count[3] = {0}, other = 0,
         timeouts = 0;
    long invalid = 0, ccrash = 0, chang = 0, crash = 0;
    for (long r = 0; r < runs; r++) {
        int which = replay ? (int)r : (int)(rnd() % (uint64_t)nseeds);
        const VmBuf *s = &seeds[which];
        size_t len;
        if (replay) {
            memcpy(buf, s->data, s->len);
            len = s->len;
        } else {
            len = mutate(s, buf, cap, tmp);
        }
        buf[len] = 0;   /* the way tl_compile_file hands over a file */
        int fds[2];
        if (pipe(fds) < 0) {
            perror("pipe");
            return 2;
        }
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            close(fds[0]);
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            struct rlimit cpu = {(rlim_t)((compile_ms + run_ms) / 1000 + 3),
                                 (rlim_t)((compile_ms + run_ms) / 1000 + 3)};
            setrlimit(RLIMIT_CPU, &cpu);   /* last resort: SIGKILL */
            int st = run_child(fds[1], names[which], buf, len);
            fflush(stdout);
            _exit(st);
        }
        close(fds[1]);
        char report[2048];
        size_t got = 0;
        for (;;) {
            ssize_t k = read(fds[0], report + got, sizeof report - 1 - got);
            if (k <= 0)
                break;
            got += (size_t)k;
            if (got == sizeof report - 1)
                break;
        }
        report[got] = 0;
        close(fds[0]);
        int ws;
        while (waitpid(pid, &ws, 0) < 0)
            ;
        char phase[1024];
        last_line(report, phase, sizeof phase);
        bool compiling = !strcmp(phase, "compile") || phase[0] == 0;
        char why[1200];
        if (!strncmp(phase, "invalid ", 8)) {
            invalid++;
            snprintf(why, sizeof why, "compiler emitted invalid bytecode: %s", phase + 8);
            save_mutant(save, "invalid", r, buf, len, names[which], why);
        } else if (WIFEXITED(ws)) {
            int st = WEXITSTATUS(ws);
            if (!strcmp(phase, "rejected"))
                rejected++;
            else if (!strcmp(phase, "rejected-silently"))
                silent++, rejected++;
            else if (!strcmp(phase, "no-main"))
                nomain++;
            else if (!strcmp(phase, "link-error"))
                linkerr++;
            else if (st <= 2)
                status_count[st]++;
            else
                other++;   /* exit(n) of a mutated program: fine */
        } else if (WIFSIGNALED(ws) &&
                   (WTERMSIG(ws) == SIGALRM || WTERMSIG(ws) == SIGPROF ||
                    WTERMSIG(ws) == SIGXCPU || WTERMSIG(ws) == SIGKILL)) {
            if (compiling) {
                chang++;
                snprintf(why, sizeof why, "compiler hang (time limit %ld ms while compiling)",
                         compile_ms);
                save_mutant(save, "chang", r, buf, len, names[which], why);
            } else {
                timeouts++;
            }
        } else {
            int sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : -1;
            if (compiling) {
                ccrash++;
                snprintf(why, sizeof why, "compiler died of signal %d (%s)", sig,
                         strsignal(sig));
                save_mutant(save, "ccrash", r, buf, len, names[which], why);
            } else {
                crash++;
                snprintf(why, sizeof why, "program died of signal %d (%s) while %s", sig,
                         strsignal(sig), phase);
                save_mutant(save, "crash", r, buf, len, names[which], why);
            }
        }
        if ((r + 1) % 2000 == 0)
            fprintf(stderr, "srcfuzz: %ld/%ld runs\n", r + 1, runs);
    }
    long failures = invalid + ccrash + chang + crash;
    printf("srcfuzz: %ld runs from %d files: compile errors: %ld (%ld without a diagnostic), "
           "no main: %ld, link errors: %ld; ran: exit 0: %ld, exit 1: %ld, exit 2: %ld, "
           "other exit: %ld, time limit: %ld; FAILURES: invalid bytecode: %ld, "
           "compiler crashes: %ld, compiler hangs: %ld, program crashes: %ld\n",
           runs, nseeds, rejected, silent, nomain, linkerr, status_count[0], status_count[1],
           status_count[2], other, timeouts, invalid, ccrash, chang, crash);
    free(buf);
    free(tmp);
    free(names);
    return failures ? 1 : 0;
}
