/* vm/profile.c — what the profile says about a method, and its JSON dump.
 *
 * Input: linked methods with the counters the interpreter keeps (calls,
 * backedges, branch slots, call sites; see docs/bytecode.md "Profiles").
 * Output: vm_block_counts derives per-basic-block execution counts from
 * those counters; vm_stats_write dumps every method's profile as JSON.
 * Invariants: only a few counters exist (entry, branches, backward jumps),
 * so block counts are derived, not counted: every edge into a block is
 * either a forward edge (its count known once its source block is done, in
 * instruction order) or a backward edge (which owns a counter).  One pass in
 * instruction order therefore suffices.  The JSON file is written with
 * vm_outfile_write (a regular file through a temporary file renamed over
 * it, so a reader never sees half a file); the periodic
 * writer (vm_stats_writer_*) rewrites a regular file every second while the program
 * runs, and on SIGINT/SIGTERM before the signal ends the process (after
 * the cleanups other modules registered, vm_at_fatal_signal); a time
 * limit (vm_stats_exit, from vm/watchdog.c) ends the process the same way,
 * with its own exit status instead of a signal.  Dumps
 * taken while the program runs are snapshots: each counter is read once
 * (atomically), counters may be from slightly different instants, and
 * only pointers fixed at link time (profile arrays, names, classes) are
 * followed.  Schema: docs/stats.md.
 */
#include "vm.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- control flow from the opcode table --------------------------------- */

/* Position of the 'j' operand in the opcode's operand string, or -1. */
static int target_pos(uint32_t op)
{
    if (op >= VM_OP_COUNT)
        return -1;
    const char *j = strchr(vm_op_info[op].operands, 'j');
    return j ? (int)(j - vm_op_info[op].operands) : -1;
}

/* The jump target of a branch instruction (the a/b/c of its 'j' operand). */
static int64_t branch_target(const VmInsn *in)
{
    switch (target_pos(in->op)) {
    case 0: return in->a;
    case 1: return in->b;
    case 2: return in->c;
    default: return -1;
    }
}

static bool is_return(uint32_t op)
{
    return op == VM_OP_RET || op == VM_OP_RETV;
}

/* Does control leave the block after this instruction? */
static bool ends_block(uint32_t op)
{
    return target_pos(op) >= 0 || is_return(op);
}

static const VmBranchProf *slot_of(const VmMethod *m, const VmInsn *in)
{
    if (in->k.i < 0 || (uint64_t)in->k.i >= m->prof.nbranches || !m->prof.branches)
        return NULL;
    return &m->prof.branches[in->k.i];
}

static uint64_t taken(const VmMethod *m, const VmInsn *in)
{
    const VmBranchProf *b = slot_of(m, in);
    return b ? VM_PROF_GET(b->taken) : 0;
}

static uint64_t not_taken(const VmMethod *m, const VmInsn *in)
{
    const VmBranchProf *b = slot_of(m, in);
    return b ? VM_PROF_GET(b->not_taken) : 0;
}

/* Block index of the block starting at pc (a leader), by binary search. */
static uint32_t block_at(const uint32_t *starts, uint32_t n, uint32_t pc)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- block counts ------------------------------------------------------- */

uint32_t vm_block_counts(const VmMethod *m, uint32_t *starts, uint64_t *counts)
{
    uint32_t n = m->ncode;
    if (!n || !m->code)
        return 0;
    /* leaders, marked in counts (scratch until the blocks are known) */
    memset(counts, 0, n * sizeof *counts);
    counts[0] = 1;
    for (uint32_t pc = 0; pc < n; pc++) {
        const VmInsn *in = &m->code[pc];
        int64_t tgt = branch_target(in);
        if (tgt >= 0 && tgt < n)
            counts[tgt] = 1;
        if (ends_block(in->op) && pc + 1 < n)
            counts[pc + 1] = 1;
    }
    uint32_t nb = 0;
    for (uint32_t pc = 0; pc < n; pc++)
        if (counts[pc])
            starts[nb++] = pc;
    memset(counts, 0, n * sizeof *counts);

    /* backward edges first: each owns a counter, so no order is needed */
    for (uint32_t pc = 0; pc < n; pc++) {
        const VmInsn *in = &m->code[pc];
        int64_t tgt = branch_target(in);
        if (tgt >= 0 && tgt <= pc)
            counts[block_at(starts, nb, (uint32_t)tgt)] += taken(m, in);
    }
    counts[0] += VM_PROF_GET(m->prof.calls);

    /* forward edges in instruction order: a block's count is final once
     * every earlier block has pushed its edges */
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t last = (b + 1 < nb ? starts[b + 1] : n) - 1;
        const VmInsn *in = &m->code[last];
        int64_t tgt = branch_target(in);
        bool has_next = b + 1 < nb;
        if (is_return(in->op))
            continue;
        if (in->op == VM_OP_JMP) {
            if (tgt > last && tgt < n)
                counts[block_at(starts, nb, (uint32_t)tgt)] += counts[b];
        } else if (tgt >= 0) {
            if (tgt > last && tgt < n)
                counts[block_at(starts, nb, (uint32_t)tgt)] += taken(m, in);
            if (has_next)
                counts[b + 1] += not_taken(m, in);
        } else if (has_next) {
            counts[b + 1] += counts[b];
        }
    }
    return nb;
}

/* ---- JSON ---------------------------------------------------------------- */

/* A dump taken while the program runs reads each counter once (VM_PROF_GET),
 * but not all at the same instant. */
#define LOAD(x) VM_PROF_GET(x)

static void write_method(FILE *f, const VmMethod *m, uint32_t *starts, uint64_t *counts)
{
    const VmProfile *p = &m->prof;
    fputs("{\"name\":", f);
    vm_json_string(f, m->name, SIZE_MAX);
    fprintf(f, ",\"calls\":%" PRIu64 ",\"backedges\":%" PRIu64 ",\"hot\":%s,\"branches\":[",
            LOAD(p->calls), LOAD(p->backedges), LOAD(p->hot) ? "true" : "false");
    for (uint32_t i = 0; p->branches && i < p->nbranches; i++) {
        const VmBranchProf *b = &p->branches[i];
        fprintf(f, "%s{\"pc\":%" PRIu32 ",\"taken\":%" PRIu64 ",\"not_taken\":%" PRIu64 "}",
                i ? "," : "", b->pc, LOAD(b->taken), LOAD(b->not_taken));
    }
    fputs("],\"sites\":[", f);
    for (uint32_t i = 0; p->sites && i < p->nsites; i++) {
        const VmCallSite *s = &p->sites[i];
        fprintf(f, "%s{\"pc\":%" PRIu32 ",\"target\":", i ? "," : "", s->pc);
        vm_json_string(f, s->target ? s->target->name : "", SIZE_MAX);
        fputs(",\"receivers\":[", f);
        bool first = true;
        for (int w = 0; w < VM_SITE_WAYS; w++) {
            /* a class, once seen, lives as long as the VM: reading the
             * pointer once is enough */
            const VmClass *cls = LOAD(s->seen[w].cls);
            if (!cls)
                continue;
            fprintf(f, "%s{\"class\":", first ? "" : ",");
            vm_json_string(f, cls->name, SIZE_MAX);
            fprintf(f, ",\"count\":%" PRIu64 "}", LOAD(s->seen[w].count));
            first = false;
        }
        fprintf(f, "],\"other\":%" PRIu64 "}", LOAD(s->other));
    }
    fputs("],\"blocks\":[", f);
    uint32_t nb = vm_block_counts(m, starts, counts);
    for (uint32_t i = 0; i < nb; i++)
        fprintf(f, "%s{\"start\":%" PRIu32 ",\"count\":%" PRIu64 "}", i ? "," : "", starts[i],
                counts[i]);
    fputs("]}", f);
}

/* Layout (docs/stats.md): line-oriented for shell tools — the header line,
 * then one method object per line, then the members of stats_jit (one
 * compile per line) and stats_extra (one bakeoff per line).  Whitespace only between values: plain JSON. */
bool vm_stats_json(Vm *vm, char **out, size_t *outlen, VmError *err)
{
    const VmModule *mod = vm ? vm->module : NULL;
    uint32_t maxcode = 1;
    for (uint32_t i = 0; mod && i < mod->nmethods; i++)
        if (mod->methods[i].ncode > maxcode)
            maxcode = mod->methods[i].ncode;
    uint32_t *starts = malloc(maxcode * sizeof *starts);
    uint64_t *counts = malloc(maxcode * sizeof *counts);
    char *text = NULL;
    size_t len = 0;
    FILE *f = starts && counts ? open_memstream(&text, &len) : NULL;
    if (!f) {
        free(starts), free(counts);
        return vm_fail(err, "out of memory");
    }
    fputs("{\"version\":1,\"module\":", f);
    vm_json_string(f, mod ? mod->name : "", SIZE_MAX);
    fputs(",\"methods\":[", f);
    for (uint32_t i = 0; mod && i < mod->nmethods; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_method(f, &mod->methods[i], starts, counts);
    }
    VmGcStats gc = vm_gc_stats();
    fprintf(f,
            "],\n\"gc\":{\"collections\":%" PRIu64 ",\"bytes_allocated\":%" PRIu64 ",\"heap_bytes\":%" PRIu64
            ",\"collect_ms\":%" PRIu64 ",\"mark_us\":%" PRIu64 ",\"reclaim_us\":%" PRIu64 "}",
            gc.collections, gc.bytes_allocated, gc.heap_bytes, gc.collect_ms, gc.mark_us, gc.reclaim_us);
    if (vm)
        fprintf(f, ",\n\"stats_writes_failed\":%" PRIu64,
                (uint64_t)__atomic_load_n(&vm->stats_failed, __ATOMIC_RELAXED));
    if (vm_faults_any()) {
        fputs(",\n\"faults_injected\":{", f);
        for (int i = 0; i < VM_FAULT_COUNT; i++)
            fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", vm_fault_name(i), vm_fault_injected(i));
        fputc('}', f);
    }
    if (vm && vm->hooks.stats_jit)
        vm->hooks.stats_jit(vm, f, vm->hooks.stats_jit_ctx);
    if (vm && vm->hooks.stats_extra)
        vm->hooks.stats_extra(vm, f, vm->hooks.stats_ctx);
    fputs("}\n", f);
    bool bad = ferror(f);
    bool ok = fclose(f) == 0 && !bad;
    free(starts), free(counts);
    if (!ok) {
        free(text);
        return vm_fail(err, "out of memory");
    }
    *out = text;
    *outlen = len;
    return true;
}

bool vm_stats_write(Vm *vm, const char *path, VmError *err)
{
    char *text;
    size_t len;
    if (!vm_stats_json(vm, &text, &len, err))
        return false;
    bool ok = vm_outfile_write(path, text, len, err);
    free(text);
    return ok;
}

/* ---- the periodic writer ------------------------------------------------ */

/* One thread per writer waits on `wake` with a deadline: a timeout means
 * "rewrite now"; a post means stop, or a signal arrived.  The signal
 * handler only records the signal and posts (both async-signal-safe); the
 * writing happens on the thread, outside the handler.  The thread never
 * touches the collected heap (profiles and names are malloc'd at link
 * time), so it is not registered with the collector. */
struct VmStatsWriter {
    Vm *vm;
    char *path;
    int period_ms;
    pthread_mutex_t lock;          /* one write at a time */
    sem_t own;
    sem_t *wake;                   /* &own, or signal_sem when catching */
    int stop;                      /* atomic */
    bool thread_started;
    pthread_t thread;
    bool catching;                 /* our handlers are installed */
    struct sigaction old_int, old_term;
};

/* The writer that catches signals (at most one per process) waits on
 * signal_sem, which is never destroyed: a handler running on another
 * thread just as that writer stops posts to a live semaphore. */
static sem_t signal_sem;
static pthread_once_t signal_once = PTHREAD_ONCE_INIT;
/* set by the handler, read by the writer thread: atomic accesses (lock-free,
 * so async-signal-safe) */
static volatile sig_atomic_t signal_caught;
static int signal_owner;           /* a writer catches signals (atomic) */
/* signal_caught's value for "end with exit_status" (vm_stats_exit): the
 * time limit takes the signals' path, but no signal number is its own */
#define END_BY_EXIT (-1)
static volatile sig_atomic_t exit_status;

static void signal_sem_init(void)
{
    sem_init(&signal_sem, 0, 0);
}

static struct timespec signal_first;   /* when signal_caught was set */

/* Cleanups to run before a signal or the time limit ends the process
 * (vm_at_fatal_signal): async-signal-safe functions, in the order given. */
#define FATAL_CLEANUPS 4
static void (*fatal_cleanup[FATAL_CLEANUPS])(void);
static int nfatal;                 /* slots filled (atomic) */

static void run_fatal_cleanups(void)
{
    int n = __atomic_load_n(&nfatal, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < FATAL_CLEANUPS; i++)
        if (fatal_cleanup[i])
            fatal_cleanup[i]();
}

/* SIGINT and SIGTERM when no stats writer catches them: the cleanups,
 * then the default action. */
static void on_fatal_signal(int sig)
{
    run_fatal_cleanups();
    signal(sig, SIG_DFL);
    raise(sig);
}

bool vm_at_fatal_signal(void (*fn)(void))
{
    int k = __atomic_load_n(&nfatal, __ATOMIC_ACQUIRE);
    if (k >= FATAL_CLEANUPS)
        return false;
    fatal_cleanup[k] = fn;
    __atomic_store_n(&nfatal, k + 1, __ATOMIC_RELEASE);
    /* a disposition someone chose (ignored, a handler) stays theirs */
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_fatal_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
    }
    return true;
}

static void on_signal(int sig)
{
    int saved = errno;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);   /* async-signal-safe */
    int caught = __atomic_load_n(&signal_caught, __ATOMIC_RELAXED);
    if (caught) {
        /* the same signal again within a second is one signal delivered
         * twice (timeout(1) sends it to the child and to its process
         * group), not the user: keep writing.  Otherwise the user
         * insists; end now with the last complete file */
        long ms = (now.tv_sec - signal_first.tv_sec) * 1000L + (now.tv_nsec - signal_first.tv_nsec) / 1000000L;
        if (sig == caught && ms < 1000) {
            errno = saved;
            return;
        }
        run_fatal_cleanups();
        signal(sig, SIG_DFL);
        raise(sig);
    } else {
        signal_first = now;
        __atomic_store_n(&signal_caught, sig, __ATOMIC_RELAXED);
        sem_post(&signal_sem);
    }
    errno = saved;
}

/* The signal's default action, which for SIGINT and SIGTERM ends the
 * process: the exit status the parent sees is the one the signal would
 * have given without us (a shell reports 128 + signal). */
static _Noreturn void die_by(int sig)
{
    run_fatal_cleanups();
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);   /* not reached: the default action of both signals terminates */
}

/* Ends the process as signal_caught asks, after the final write. */
static _Noreturn void end_as_asked(int sig)
{
    if (sig == END_BY_EXIT) {
        run_fatal_cleanups();
        _exit(__atomic_load_n(&exit_status, __ATOMIC_RELAXED));
    }
    die_by(sig);
}

/* A failed periodic write leaves the last complete file; it is counted
 * (the final file says how many) and the first one is said. */
static void write_locked(VmStatsWriter *w, VmError *err)
{
    pthread_mutex_lock(&w->lock);
    if (w->path && !vm_stats_write(w->vm, w->path, err) &&
        __atomic_fetch_add(&w->vm->stats_failed, 1, __ATOMIC_RELAXED) == 0)
        fprintf(stderr, "tally: warning: %s; the stats file keeps its last complete version\n", err->msg);
    pthread_mutex_unlock(&w->lock);
}

static void *writer_main(void *arg)
{
    VmStatsWriter *w = arg;
    struct timespec next;
    pthread_setname_np(pthread_self(), "tally-stats");
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        int r;
        if (w->period_ms > 0) {
            next.tv_sec += w->period_ms / 1000;
            next.tv_nsec += (long)(w->period_ms % 1000) * 1000000L;
            if (next.tv_nsec >= 1000000000L)
                next.tv_sec++, next.tv_nsec -= 1000000000L;
            while ((r = sem_clockwait(w->wake, CLOCK_MONOTONIC, &next)) != 0 && errno == EINTR)
                ;
        } else {
            while ((r = sem_wait(w->wake)) != 0 && errno == EINTR)
                ;
        }
        if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
            return NULL;
        VmError err = {{0}};
        int sig = __atomic_load_n(&signal_caught, __ATOMIC_ACQUIRE);
        if (sig && w->catching) {
            if (w->vm->hooks.at_end)   /* other files first: the stats describe them */
                w->vm->hooks.at_end(w->vm, w->vm->hooks.end_ctx);
            write_locked(w, &err);
            end_as_asked(sig);
        }
        if (r != 0) {   /* the deadline: a periodic snapshot */
            write_locked(w, &err);
            /* a write slower than the period: skip, do not catch up */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
                next = now;
        } else if (w->period_ms > 0) {
            /* a post that was neither stop nor signal: keep the schedule */
            long ns = (long)(w->period_ms % 1000) * 1000000L;
            next.tv_sec -= w->period_ms / 1000;
            next.tv_nsec -= ns;
            if (next.tv_nsec < 0)
                next.tv_sec--, next.tv_nsec += 1000000000L;
        }
    }
}

/* Installs on_signal for sig unless the signal is ignored (a background
 * job of a shell without job control ignores SIGINT: keep it so). */
static void catch_signal(int sig, struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, NULL, old) == 0 && old->sa_handler != SIG_IGN)
        sigaction(sig, &sa, NULL);
}

VmStatsWriter *vm_stats_writer_start(Vm *vm, const char *path, int period_ms, bool catch_signals,
                                     VmError *err)
{
    if (path && !*path) {
        vm_fail(err, "--stats needs a file name");
        return NULL;
    }
    VmStatsWriter *w = calloc(1, sizeof *w);
    if (!w || (path && !(w->path = strdup(path)))) {
        free(w);
        vm_fail(err, "out of memory");
        return NULL;
    }
    w->vm = vm;
    /* a FIFO, a device or standard output gets one document, at the end */
    w->period_ms = path && period_ms > 0 && vm_outfile_replaceable(path) ? period_ms : 0;
    pthread_mutex_init(&w->lock, NULL);
    sem_init(&w->own, 0, 0);
    w->wake = &w->own;
    int free_slot = 0;
    if (catch_signals &&
        __atomic_compare_exchange_n(&signal_owner, &free_slot, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        pthread_once(&signal_once, signal_sem_init);
        while (sem_trywait(&signal_sem) == 0)   /* posts left by an earlier writer */
            ;
        __atomic_store_n(&signal_caught, 0, __ATOMIC_RELAXED);
        w->wake = &signal_sem;
        catch_signal(SIGINT, &w->old_int);
        catch_signal(SIGTERM, &w->old_term);
        w->catching = true;
    }
    if (w->period_ms > 0 || w->catching)
        w->thread_started = !vm_fault(VM_FAULT_THREAD) && pthread_create(&w->thread, NULL, writer_main, w) == 0;
    if ((w->period_ms > 0 || w->catching) && !w->thread_started)
        fprintf(stderr, "tally: warning: cannot start the stats writer's thread; %s is written at exit only\n",
                w->path ? w->path : "nothing");
    if (w->catching && !w->thread_started) {
        /* nobody would act on a signal before the program ends: leave
         * signals alone; the final write still happens */
        sigaction(SIGINT, &w->old_int, NULL);
        sigaction(SIGTERM, &w->old_term, NULL);
        w->wake = &w->own;
        w->catching = false;
        __atomic_store_n(&signal_owner, 0, __ATOMIC_RELEASE);
    }
    return w;
}

bool vm_stats_writer_stop(VmStatsWriter *w, VmError *err)
{
    if (!w)
        return true;
    if (w->thread_started) {
        __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
        sem_post(w->wake);
        pthread_join(w->thread, NULL);
    }
    /* handlers stay until the final file is complete: a signal meanwhile
     * is only recorded, and acted upon below */
    pthread_mutex_lock(&w->lock);
    bool ok = !w->path || vm_stats_write(w->vm, w->path, err);
    pthread_mutex_unlock(&w->lock);
    int sig = 0;
    if (w->catching) {
        sigaction(SIGINT, &w->old_int, NULL);
        sigaction(SIGTERM, &w->old_term, NULL);
        sig = __atomic_load_n(&signal_caught, __ATOMIC_ACQUIRE);
        __atomic_store_n(&signal_owner, 0, __ATOMIC_RELEASE);
    }
    sem_destroy(&w->own);
    pthread_mutex_destroy(&w->lock);
    free(w->path);
    free(w);
    if (sig)
        end_as_asked(sig);
    return ok;
}

void vm_stats_exit(int status)
{
    if (__atomic_load_n(&signal_owner, __ATOMIC_ACQUIRE)) {
        /* as a signal would: the writer's thread writes the final file
         * and ends the process; a signal that came first ends it instead */
        __atomic_store_n(&exit_status, status, __ATOMIC_RELAXED);   /* published by the CAS below */
        int none = 0;
        if (__atomic_compare_exchange_n((int *)&signal_caught, &none, END_BY_EXIT, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            sem_post(&signal_sem);
        for (;;)
            pause();
    }
    run_fatal_cleanups();
    _exit(status);
}
