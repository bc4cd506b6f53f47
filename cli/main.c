/* cli/main.c — the `tally` command: run, build, dis, asm; report and lab
 * are scripts of tools/ (cli/tools.c).
 *
 * The only place that decides exit statuses: 0 success, 1 run-time error
 * (or the program's own exit status), 2 bad use, unreadable or malformed
 * input, verification and link errors (a native that vm.natives refuses
 * too), 3 the time limit (vm.max_time: vm/watchdog.c ends the process with
 * VM_EXIT_TIME_LIMIT, from its own thread, as compiled code never polls).
 * Everything that can fail below returns an error; nothing half-written is
 * left behind (outputs go to a temporary file that is renamed only on
 * success).
 */
#include "vm.h"
#include "jit.h"
#include "markers.h"
#include "auditor_api.h"
#include "lang.h"
#include "tools.h"
#include "study.h"

#include <limits.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define STATS_PERIOD_MS 1000   /* --stats is rewritten this often while running */

typedef struct Options {
    /* every tier's tunables, filled by -X through `tunables` */
    VmTunables tun;
    IrOptions ir;
    JitTunables jit_tun;
    AuConfig au;
    MkTunables mk;
    VmTunSet tunables;
    const char *stats;      /* --stats=FILE */
    const char *out;        /* -o FILE */
    bool no_verify;         /* asm --no-verify */
    JitMode jit;            /* --jit=MODE */
    bool sandbox;           /* --sandbox */
    uint32_t given;         /* bit k: -X set sandbox_settings[k]'s tunable */
} Options;

/* What --sandbox sets, for each tunable that no -X sets (in any order):
 * only the standard library's natives, a heap and a time limit
 * (docs/security.md). */
static const char *const sandbox_settings[] = {"vm.natives=builtin", "gc.max_heap=1G", "vm.max_time=60"};
#define NSANDBOX (sizeof sandbox_settings / sizeof *sandbox_settings)

static const char *const commands[] = {"run", "build", "dis", "asm", "report", "lab", "study", "cache"};
static const char *const long_options[] = {"--help", "--version", "--stats", "--no-verify", "--jit", "--log", "--audit",
                                           "--sandbox"};
static const char *const jit_modes[] = {"off", "on", "eager", "sync"};
static const char *const log_topics[] = {"jit", "audit"};

static void usage(FILE *out)
{
    fputs("tally " VM_VERSION_STRING " — a JIT virtual machine that audits its own optimizations\n"
          "\n"
          "usage: tally [options] run FILE [args...]   run a program (.tl, .tla, .tlb)\n"
          "       tally [options] dis FILE             print a module as .tla text\n"
          "       tally [options] asm FILE.tla -o FILE.tlb   assemble (verifies unless --no-verify)\n"
          "       tally [options] build FILE.tl -o FILE.tlb  compile a source file (verified)\n"
          "       tally report STATS.json... -o FILE.html  an HTML report of --stats files\n"
          "       tally lab SPEC [--local|--ssh HOSTS|--slurm]   run an experiment matrix\n"
          "       tally lab merge RESULTS -o TABLE.csv|.json    join its results (docs/workbench.md)\n"
          "       tally study convergence|quality|accuracy ...   offline studies of samples\n"
          "                                            recorded with -X audit.record=FILE\n"
          "       tally [-X jit.cache=DIR] cache stats|clear   the code cache's entries\n"
          "       tally --help | --version\n"
          "\n"
          "options (before or after the command, before FILE):\n"
          "  -X name=value      set a tunable (tally --help=tunables lists them)\n"
          "  --stats=FILE.json  write profiles (and bakeoffs) as JSON every second, at the\n"
          "                     end and on SIGINT/SIGTERM (schema: docs/stats.md); '-', a\n"
          "                     FIFO or a device get one document at the end\n"
          "  -o FILE            output file for asm and build\n"
          "  --no-verify        asm: write the module even if it does not verify\n"
          "  --jit=MODE         off: interpret only; on: compile hot methods in the\n"
          "                     background (default); sync: compile hot methods before\n"
          "                     they continue; eager: compile every method at its first call\n"
          "  --log=TOPICS       log events to stderr, a comma list of: jit (queued,\n"
          "                     compiled, failed), audit (bakeoff events)\n"
          "  --audit=CLIENTS    let differently-optimized versions of hot compiled methods\n"
          "                     compete (bakeoffs), a comma list of clients:\n",
          out);
    au_clients_help(out);
    fputs("  --sandbox          run a module you did not write: only the standard\n"
          "                     library's natives (-X vm.natives=builtin), at most 1G of\n"
          "                     heap (gc.max_heap=1G) and 60 s (vm.max_time=60); -X\n"
          "                     overrides each (docs/security.md)\n"
          "  --help=tunables    list every tunable by owner, with its current value\n"
          "                     (after the -X options before it)\n"
          "\nexit status: 0 ok, 1 run-time error, 2 bad usage or bad/unverifiable module\n"
          "(or a native vm.natives refuses), 3 time limit (vm.max_time) exceeded;\n"
          "a program's exit(n) exits with n.\n",
          out);
}

static int fail_usage(const char *fmt, const char *arg, const char *suggestion)
{
    fputs("tally: ", stderr);
    fprintf(stderr, fmt, arg);
    if (suggestion)
        fprintf(stderr, " (did you mean '%s'?)", suggestion);
    fputs("\ntry 'tally --help'\n", stderr);
    return EXIT_USAGE;
}

/* A bad value of an option that takes one of `choices`. */
static int fail_choice(const char *what, const char *value, const char *const *choices, size_t n)
{
    char msg[256], list[128] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", choices[k]);
    const char *s = vm_suggest(value, choices, n);
    if (s)
        snprintf(msg, sizeof msg, "unknown %s '%%s' (did you mean '%s'? one of: %s)", what, s, list);
    else
        snprintf(msg, sizeof msg, "unknown %s '%%s' (one of: %s)", what, list);
    return fail_usage(msg, value, NULL);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The installation's directory: <directory of the tally executable>/..
 * (its stdlib/, tools/ and bench/); NULL when it cannot be told. */
static const char *root_dir(char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return NULL;
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;                       /* .../bin */
    slash = strrchr(exe, '/');
    if (!slash || slash == exe)
        return NULL;
    *slash = 0;                           /* ... */
    snprintf(buf, n, "%s", exe);
    return buf;
}

/* The standard library directory: -X lang.stdlib=DIR, else
 * <root_dir>/stdlib. */
static const char *stdlib_dir(const Options *o, char *buf, size_t n)
{
    if (o->tun.lang_stdlib && o->tun.lang_stdlib[0])
        return o->tun.lang_stdlib;
    char root[PATH_MAX];
    if (!root_dir(root, sizeof root))
        return "stdlib";
    snprintf(buf, n, "%s/stdlib", root);
    return buf;
}

/* Loads FILE as a module: .tl is compiled, .tla is assembled, anything
 * starting with the binary magic is decoded.  Prints the error and returns
 * NULL on failure; *compiled tells whether the module came from source. */
static VmModule *load(const Options *o, const char *path, bool *compiled)
{
    VmError err = {{0}};
    *compiled = false;
    if (has_suffix(path, ".tl")) {
        char dir[PATH_MAX + 16];
        TlOptions topt = {.stdlib_dir = stdlib_dir(o, dir, sizeof dir), .confine_imports = o->sandbox};
        *compiled = true;
        fflush(stdout);
        return tl_compile_file(path, &topt, stderr, NULL);
    }
    VmBuf buf = {0};
    if (!vm_read_file(path, &buf, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        return NULL;
    }
    VmModule *m;
    bool binary = buf.len >= 4 && memcmp(buf.data, VM_FORMAT_MAGIC, 4) == 0;
    if (binary)
        m = vm_module_read(buf.data, buf.len, &err);
    else if (has_suffix(path, ".tla"))
        m = vm_asm((const char *)buf.data, buf.len, path, &err);  /* errors say file:line */
    else
        m = NULL, vm_fail(&err, "not a tally module (.tl source, .tla text or .tlb binary)");
    vm_buf_free(&buf);
    if (!m) {
        if (has_suffix(path, ".tla") && !binary)
            fprintf(stderr, "error: %s\n", err.msg);
        else
            fprintf(stderr, "error: %s: %s\n", path, err.msg);
    }
    return m;
}

/* A module compiled from source that does not verify is a compiler bug. */
static bool verify(VmModule *m, bool compiled)
{
    VmError err = {{0}};
    if (vm_verify(m, &err))
        return true;
    fprintf(stderr, "error: %s%s\n", compiled ? "internal compiler error: " : "", err.msg);
    return false;
}

static int cmd_run(Options *o, const char *path, int argc, char **argv)
{
    VmError aerr = {{0}};
    int cpu;
    if (!vm_cpu_parse(o->tun.cpu, &cpu, &aerr) || !jit_tunables_check(&o->jit_tun, &aerr))
        return fail_usage("%s", aerr.msg, NULL);
    if (o->au.clients && o->au.clients[0] && !au_check_config(&o->au, o->jit_tun.optset, &o->ir, &aerr))
        return fail_usage("%s", aerr.msg, NULL);
    bool compiled;
    VmModule *m = load(o, path, &compiled);
    if (!m)
        return EXIT_USAGE;
    if (!verify(m, compiled)) {
        vm_module_free(m);
        return EXIT_USAGE;
    }
    if (m->main == VM_NONE) {
        fprintf(stderr, "error: %s: module has no main method\n", path);
        vm_module_free(m);
        return EXIT_USAGE;
    }
    if (o->au.clients && o->au.clients[0] && !au_check_methods(m, o->au.methods, &aerr)) {
        vm_module_free(m);
        return fail_usage("%s", aerr.msg, NULL);
    }
    /* Interpreted frames use no C stack: without compiled code the program
     * stays on the main thread, sparing every collection a thread to stop
     * (about 15% of allocation-heavy runs); vm.cstack is for compiled code. */
    if (o->jit == JIT_OFF)
        o->tun.cstack = 0;
    Vm *vm = vm_new(&o->tun);
    VmError err = {{0}};
    if (!vm_link(vm, m, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        vm_free(vm);
        vm_module_free(m);
        return EXIT_USAGE;
    }
    /* an audited run leaves its methods to the hot hook, where bakeoffs
     * start: preloaded code would never be audited */
    if (o->au.clients && o->au.clients[0])
        o->jit_tun.preload = false;
    Jit *jit = NULL;
    JitMarkerHooks hooks;   /* markers.everywhere */
    MkEverywhereHooks *everywhere =
        o->jit != JIT_OFF ? mk_everywhere_new(&o->mk, jit_dump_has(o->jit_tun.dump, "markers"), &hooks) : NULL;
    if (o->jit != JIT_OFF) {
        jit = jit_new(vm, o->jit, &o->jit_tun, &o->ir, everywhere ? &hooks : NULL, &err);
        if (!jit)  /* not the program's fault: it runs interpreted */
            fprintf(stderr, "tally: warning: %s; running without the JIT\n", err.msg);
    }
    /* --audit: bakeoffs of the compiled code.  Without the JIT there is
     * nothing to audit; said only with --log=audit, so that output stays
     * the same on every tier. */
    o->au.markers = o->mk;
    AuAuditor *au = au_auditor_new(vm, jit, &o->au, &err);
    if (!au && err.msg[0] && o->au.log)
        fprintf(stderr, "tally: warning: %s; not auditing\n", err.msg);
    if (au && !au_auditor_start(au, &err)) {
        fprintf(stderr, "tally: warning: %s; not auditing\n", err.msg);
        au_auditor_free(au);
        au = NULL;
    }
    /* last before the run: the writer thread reads vm->hooks, so every
     * tier must be wired by now; it stops (final write) before jit_free,
     * while whatever its hooks report on is still alive */
    VmStatsWriter *stats = NULL;
    bool ends = o->stats || vm->hooks.at_end;   /* audit.record: complete at a signal too */
    if (ends && !(stats = vm_stats_writer_start(vm, o->stats, STATS_PERIOD_MS, true, &err))) {
        fprintf(stderr, "tally: %s\n", err.msg);
        au_auditor_free(au);
        jit_free(jit);
        mk_everywhere_free(everywhere);
        vm_free(vm);
        vm_module_free(m);
        return EXIT_USAGE;
    }
    /* after the stats writer, stopped before it: its final write is how
     * the time limit ends a run that has --stats */
    VmWatchdog *watchdog = NULL;
    int status;
    if (o->tun.max_time > 0 && !(watchdog = vm_watchdog_start(o->tun.max_time, &err))) {
        /* a limit asked for (--sandbox) is not silently dropped */
        fprintf(stderr, "tally: %s; the program does not run without its time limit\n", err.msg);
        status = EXIT_USAGE;
    } else {
        status = vm_run(vm, argc, argv);
    }
    vm_watchdog_stop(watchdog);
    au_auditor_stop(au);    /* before the final stats: undecided bakeoffs end there */
    if (!au_auditor_recorded(au, &err)) {
        fprintf(stderr, "tally: %s\n", err.msg);
        if (status == 0)
            status = EXIT_USAGE;
    }
    if (stats && !vm_stats_writer_stop(stats, &err)) {
        fprintf(stderr, "tally: %s\n", err.msg);
        if (status == 0)
            status = EXIT_USAGE;
    }
    au_auditor_free(au);
    jit_free(jit);
    mk_everywhere_free(everywhere);
    fflush(stdout);
    vm_free(vm);
    vm_module_free(m);
    return status;
}

/* asm and build: load (assemble or compile), verify, write the binary. */
static int cmd_asm(Options *o, const char *path, const char *cmd)
{
    if (!o->out)
        return fail_usage("%s needs -o FILE.tlb", cmd, NULL);
    bool compiled;
    VmModule *m = load(o, path, &compiled);
    if (!m)
        return EXIT_USAGE;
    if ((compiled || !o->no_verify) && !verify(m, compiled)) {
        vm_module_free(m);
        return EXIT_USAGE;
    }
    VmBuf b = {0};
    vm_module_write(m, &b);
    VmError err = {{0}};
    bool ok = vm_outfile_write(o->out, b.data, b.len, &err);
    if (!ok)
        fprintf(stderr, "tally: %s\n", err.msg);
    vm_buf_free(&b);
    vm_module_free(m);
    return ok ? 0 : EXIT_USAGE;
}

static int cmd_dis(const Options *o, const char *path)
{
    bool compiled;
    VmModule *m = load(o, path, &compiled);
    if (!m)
        return EXIT_USAGE;
    /* modules compiled from source show each line's text; assembly text
     * is its own listing already */
    if (has_suffix(path, ".tla"))
        vm_dis(m, stdout);
    else
        vm_dis_source(m, stdout);
    vm_module_free(m);
    return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

static int parse_option(Options *o, int argc, char **argv, int *i);

static void put_time(const char *label, double t)
{
    char buf[64];
    time_t s = (time_t)t;
    struct tm tm;
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&s, &tm));
    printf("%-12s%s\n", label, buf);
}

/* tally cache stats|clear: the code cache's directory (jit.cache's; its
 * default place when jit.cache is off). */
static int cmd_cache(Options *o, int argc, char **argv)
{
    const char *sub = NULL;
    for (int i = 0; i < argc; i++) {
        int r = parse_option(o, argc, argv, &i);
        if (r > 0)
            return r;
        if (r < 0 && sub)
            return fail_usage("unexpected argument '%s'", argv[i], NULL);
        if (r < 0)
            sub = argv[i];
    }
    static const char *const subs[] = {"stats", "clear"};
    if (!sub)
        return fail_usage("cache needs 'stats' or 'clear'%s", "", NULL);
    if (strcmp(sub, subs[0]) && strcmp(sub, subs[1]))
        return fail_usage("unknown cache command '%s'", sub, vm_suggest(sub, subs, 2));
    const char *spec = o->jit_tun.cache;
    char dir[4096];
    if (!jit_cache_dir(spec && *spec && strcmp(spec, "off") ? spec : "default", dir, sizeof dir))
        return fail_usage("no code cache directory: set -X jit.cache=DIR%s", "", NULL);
    if (access(dir, F_OK) != 0) {
        printf("%-12s%s (none yet)\n%-12s0\n", "directory:", dir, "entries:");
        return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
    }
    VmError err = {{0}};
    if (!strcmp(sub, "clear")) {
        uint64_t n = 0;
        if (!jit_cache_clear(dir, &n, &err)) {
            fprintf(stderr, "tally: %s\n", err.msg);
            return EXIT_USAGE;
        }
        printf("%s: %llu entries removed\n", dir, (unsigned long long)n);
        return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
    }
    JitCacheUsage u;
    if (!jit_cache_usage(dir, &u, &err)) {
        fprintf(stderr, "tally: %s\n", err.msg);
        return EXIT_USAGE;
    }
    printf("%-12s%s\n%-12s%llu\n%-12s%llu (jit.cache_max %lld)\n", "directory:", dir, "entries:",
           (unsigned long long)u.entries, "bytes:", (unsigned long long)u.bytes, (long long)o->jit_tun.cache_max);
    if (u.runs)
        printf("%-12s%llu (modules whose last run's cached code is loaded at start)\n", "preload:",
               (unsigned long long)u.runs);
    if (u.verdicts)
        printf("%-12s%llu (modules whose audited runs' bakeoff verdicts are remembered: audit.remember)\n",
               "verdicts:", (unsigned long long)u.verdicts);
    if (u.entries) {
        put_time("oldest use:", u.oldest);
        put_time("newest use:", u.newest);
    }
    if (u.temps)
        printf("%-12s%llu (writes under way, or left by a crash)\n", "temporary:", (unsigned long long)u.temps);
    return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

/* Parses one option at argv[*i]; returns -1 if argv[*i] is not an option,
 * EXIT_USAGE on a bad one, 0 when consumed. */
static int parse_option(Options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (a[0] != '-' || !a[1])
        return -1;
    VmError err = {{0}};
    if (!strcmp(a, "-X") || !strncmp(a, "-X", 2)) {
        const char *v = a[2] ? a + 2 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v)
            return fail_usage("-X needs name=value%s", "", NULL);
        if (!vm_tun_set(&o->tunables, v, &err) || !mk_tunables_check(&o->mk, &err) ||
            !vm_natives_parse(o->tun.natives, NULL, &err)) {
            fprintf(stderr, "tally: %s\n", err.msg);
            return EXIT_USAGE;
        }
        size_t len = strcspn(v, "=");
        for (size_t k = 0; k < NSANDBOX; k++)
            if (!strncmp(v, sandbox_settings[k], len) && sandbox_settings[k][len] == '=')
                o->given |= 1u << k;
        return 0;
    }
    if (!strcmp(a, "-o")) {
        if (*i + 1 >= argc)
            return fail_usage("-o needs a file name%s", "", NULL);
        o->out = argv[++*i];
        return 0;
    }
    if (!strncmp(a, "--stats=", 8) && a[8]) {
        o->stats = a + 8;
        return 0;
    }
    if (!strcmp(a, "--no-verify")) {
        o->no_verify = true;
        return 0;
    }
    if (!strcmp(a, "--sandbox")) {
        o->sandbox = true;
        return 0;
    }
    if (!strcmp(a, "--jit") || !strcmp(a, "--log"))
        return fail_usage("%s needs a value (--jit=off|on|eager|sync, --log=jit,audit)", a, NULL);
    if (!strncmp(a, "--jit=", 6)) {
        if (jit_mode_parse(a + 6, &o->jit))
            return 0;
        return fail_choice("JIT mode", a + 6, jit_modes, sizeof jit_modes / sizeof *jit_modes);
    }
    if (!strcmp(a, "--audit"))
        return fail_usage("--audit needs a list of clients (--audit=%s)", "inline,optlevel,unroll,vectorize,aa,custom",
                          NULL);
    if (!strncmp(a, "--audit=", 8)) {
        uint32_t mask;
        if (!au_clients_parse(a + 8, &mask, &err))
            return fail_usage("%s", err.msg, NULL);
        if (!mask)
            return fail_usage("--audit needs a list of clients (--audit=%s)",
                              "inline,optlevel,unroll,vectorize,aa,custom", NULL);
        o->au.clients = a + 8;   /* argv outlives the VM */
        return 0;
    }
    if (!strncmp(a, "--log=", 6)) {
        /* a comma-separated list of topics */
        char topics[256];
        snprintf(topics, sizeof topics, "%s", a + 6);
        for (char *save = NULL, *w = strtok_r(topics, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (!strcmp(w, "jit"))
                o->jit_tun.log = true;
            else if (!strcmp(w, "audit"))
                o->au.log = true;
            else
                return fail_choice("log topic", w, log_topics, sizeof log_topics / sizeof *log_topics);
        }
        return 0;
    }
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(a, "="), a);
    return fail_usage("unknown option '%s'", a,
                      vm_suggest(word, long_options, sizeof long_options / sizeof *long_options));
}

/* --sandbox: sets each of sandbox_settings that no -X has set. */
static bool apply_sandbox(Options *o)
{
    for (size_t k = 0; o->sandbox && k < NSANDBOX; k++) {
        VmError err = {{0}};
        if (!(o->given & (1u << k)) && !vm_tun_set(&o->tunables, sandbox_settings[k], &err)) {
            fprintf(stderr, "tally: %s\n", err.msg);
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    Options o = {.jit = JIT_ON};
    vm_tunables_default(&o.tun);
    ir_options_default(&o.ir);
    jit_tunables_default(&o.jit_tun);
    au_config_default(&o.au);
    mk_tunables_default(&o.mk);
    o.tunables = (VmTunSet){{&vm_tun_group, &ir_tun_group, &jit_tun_group, &mk_tun_group, &au_tun_group},
                            {&o.tun, &o.ir, &o.jit_tun, &o.mk, &o.au}, 5};
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);

    int i = 1;
    const char *cmd = NULL;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--help=tunables") || !strcmp(argv[i], "--help=tunables-markdown")) {
            if (!apply_sandbox(&o))
                return EXIT_USAGE;
            vm_tun_list(stdout, &o.tunables, argv[i][15] == '-');
            return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
        }
        if (!strncmp(argv[i], "--help=", 7))
            return fail_usage("unknown help topic '%s' (--help=tunables lists the tunables)", argv[i] + 7, NULL);
        if (!strcmp(argv[i], "--version")) {
            printf("tally %s (bytecode format %u, %s dispatch)\n", VM_VERSION_STRING,
                   VM_FORMAT_VERSION, vm_interp_handlers() ? "threaded" : "switch");
            return 0;
        }
        int r = parse_option(&o, argc, argv, &i);
        if (r > 0)
            return r;
        if (r < 0) {
            cmd = argv[i++];
            break;
        }
    }
    if (!cmd) {
        usage(stderr);
        return EXIT_USAGE;
    }
    size_t ncmd = sizeof commands / sizeof *commands;
    bool known = false;
    for (size_t k = 0; k < ncmd; k++)
        known |= !strcmp(cmd, commands[k]);
    if (!known)
        return fail_usage("unknown command '%s'", cmd, vm_suggest(cmd, commands, ncmd));
    if (cli_is_tool(cmd))   /* its own arguments: the script reads them */
        return cli_tool(cmd, argc - i, argv + i);
    if (!strcmp(cmd, "cache"))   /* its own arguments: stats or clear */
        return cmd_cache(&o, argc - i, argv + i);
    if (!strcmp(cmd, "study")) {   /* its own arguments: audit/study.c */
        char root[PATH_MAX];
        return au_study_main(argc - i, argv + i, root_dir(root, sizeof root) ? root : ".");
    }

    /* options may follow the command, up to the file */
    const char *file = NULL;
    for (; i < argc; i++) {
        int r = parse_option(&o, argc, argv, &i);
        if (r > 0)
            return r;
        if (r < 0) {
            file = argv[i++];
            break;
        }
    }
    if (!file)
        return fail_usage("%s needs a file", cmd, NULL);
    if (strcmp(cmd, "run") != 0) {  /* only run passes trailing arguments on */
        for (; i < argc; i++) {
            int r = parse_option(&o, argc, argv, &i);
            if (r > 0)
                return r;
            if (r < 0)
                return fail_usage("unexpected argument '%s'", argv[i], NULL);
        }
    }
    VmError ferr = {{0}};
    if (!vm_faults_set(o.tun.faults, &ferr))
        return fail_usage("%s", ferr.msg, NULL);
    if (!apply_sandbox(&o))
        return EXIT_USAGE;
    if (!strcmp(cmd, "run"))
        return cmd_run(&o, file, argc - i, argv + i);
    if (!strcmp(cmd, "dis"))
        return cmd_dis(&o, file);
    if (!strcmp(cmd, "asm"))
        return cmd_asm(&o, file, "asm");
    if (!has_suffix(file, ".tl"))
        return fail_usage("build compiles .tl source files, not '%s' (use 'tally asm' for .tla)", file, NULL);
    return cmd_asm(&o, file, "build");
}
