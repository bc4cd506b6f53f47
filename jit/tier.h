/* jit/tier.h — internals of the JIT tier shared by jit.c (modes, hooks,
 * compile-and-install, logging) and thread.c (the compile queue and the
 * compile thread), plus the hooks the unit tests use.  Not for vm/.
 *
 * Invariants:
 * - Every field below `mu` is guarded by it; the program thread holds it
 *   only to push a request (O(log n)), never across a compile, so the
 *   program never waits for the compiler.
 * - state[i] (per method index of the linked module) moves NEW → QUEUED
 *   → DONE (compiled or failed, or dropped at shutdown); a method has at
 *   most one request queued or compiling, and is requested once, except
 *   for OSR: osr[i] allows up to JIT_OSR_MAX more requests for a method
 *   the interpreter keeps looping in (the OSR hook; none after a failed
 *   compile), and an OSR-only compile is followed by one for the ordinary
 *   entry; those move DONE back to QUEUED.
 * - The compile thread takes up to `batch` requests with the hottest first
 *   into one unit (jit_compile_unit).
 * - install_hook (the auditor's) is called outside mu after an ordinary
 *   entry was installed; hooks_running counts calls in progress so that
 *   unhooking can wait for them (jit_set_install_hook(NULL)).
 */
#ifndef TALLY_JIT_TIER_H
#define TALLY_JIT_TIER_H

#include "jit.h"

#include <pthread.h>

typedef bool (*JitCompileFn)(Jit *jit, JitRequest *rq, JitResult *out, VmError *err);

enum {
    JIT_OSR_MAX = 4,        /* OSR requests per method */
    JIT_OSR_PATIENCE = 16,  /* polls at other headers before OSR code for a new one */
    JIT_BATCH_MAX = 64,     /* jit.batch is clamped to this */
};

/* Process-wide test hooks, read by jit_new (so they apply to the compiles
 * jit_new itself does in eager mode).  NULL/0 fields mean "as normal". */
typedef struct JitTestHooks {
    JitCompileFn compile;    /* instead of jit_compile */
    unsigned delay_us;       /* sleep before each compile (a slow compiler) */
    FILE *log;               /* log here (and log even without jit.log) */
    bool paused;             /* compile thread starts paused (jit_test_pause) */
} JitTestHooks;

void jit_set_test_hooks(const JitTestHooks *h);  /* NULL = none */

enum { JIT_M_NEW, JIT_M_QUEUED, JIT_M_DONE };

typedef struct JitStats {
    uint64_t queued, compiled, failed, dropped;
    uint64_t units;          /* compile units run (a batch is one unit) */
    uint64_t osr_compiled;   /* compiles that installed OSR code */
    uint64_t osr_entries;    /* interpreter → OSR code transfers (from the profiles) */
} JitStats;

/* Per method: its OSR requests (see the invariants above). */
typedef struct JitOsrState {
    uint8_t requests;        /* OSR requests made */
    bool pending;            /* one is queued or compiling */
    bool given_up;           /* a compile failed or gave no OSR code: no more */
    bool entry_deferred;     /* OSR-only code of a method entered once: its
                                ordinary entry waits for another call */
    uint16_t misses;         /* polls at another header since OSR code was installed */
} JitOsrState;

#define JIT_NO_MAKER UINT32_MAX

struct Jit {
    Vm *vm;
    JitMode mode;
    JitCompileFn compile;
    unsigned delay_us;
    FILE *log;               /* NULL = no log */
    double t0;               /* clock at jit_new, for log time stamps */
    JitTunables tun;
    IrOptions ir;            /* the inliner's options of every request */
    const char *optset;      /* default option set of requests */
    uint32_t nmethods;
    uint8_t *state;          /* per method index: JIT_M_* */
    JitOsrState *osr;        /* per method index */
    uint32_t *maker;         /* per method index: for a lambda, the one method
                                whose code makes its closures (CLOS);
                                JIT_NO_MAKER: none, or several */
    uint32_t *made;          /* made[M]: the first lambda only M makes, made[nmethods
                                + L]: the next one after L; JIT_NO_MAKER ends */
    size_t batch;            /* most requests per unit (jit.batch, 1..JIT_BATCH_MAX) */
    uint64_t batch_bytecode; /* and their most bytecode (jit.batch_bytecode; 0 -> no limit) */
    unsigned gather_us;      /* jit.gather_us: see compile_thread */

    pthread_mutex_t mu;
    pthread_cond_t wake;     /* compile thread: work, unpause or stop */
    pthread_cond_t idle;     /* tests: queue drained and nothing compiling */
    JitRequest *heap;        /* max-heap on priority (then lower id) */
    size_t nheap, capheap;
    uint64_t next_id;
    uint64_t attempts;       /* compiles started (fault injection counts these) */
    JitStats stats;
    void **units;            /* loaded objects, kept alive until exit */
    size_t nunits, capunits;
    bool busy;               /* the compile thread is compiling */
    bool paused, stop, thread_started;
    pthread_t thread;
    JitInstallHook install_hook;   /* see jit_set_install_hook */
    void *install_ctx;
    int hooks_running;             /* calls of install_hook in progress */
    pthread_cond_t hook_done;      /* hooks_running went to 0 */
    JitMarkerHooks markers;        /* see jit_set_marker_hooks */
    struct JitCache *cache;        /* jit.cache, NULL: off */
    struct JitPreload *preload;    /* with the cache: this run's list for the next (jit/preload.c) */
    char note_base[40];            /* with the cache: the module's files' name less ".suffix" */
    struct JitChosen *chosen;      /* per method index, NULL until jit_choose_options */
    /* the compile timeline (events.c), under evmu alone: the program's
     * threads never take it */
    pthread_mutex_t evmu;
    struct JitCompileEvent *ev;    /* oldest first, at most jit.compile_events */
    size_t nev, capev;
    uint64_t ev_dropped;           /* compiles past the cap, only counted */
};

/* A method's own request options (jit_choose_options). */
typedef struct JitChosen {
    bool set;
    IrOptions ir;
    char *optset;
} JitChosen;

double jit_now(void);                      /* monotonic seconds */
/* Prints one log line "<ms> jit: <text>" if logging is on. */
void jit_log(Jit *jit, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Calls of the lambdas whose closures m alone makes (Jit.made): the
 * work compiling m inlines, when it inlines them. */
uint64_t jit_lambda_calls(const Jit *jit, const VmMethod *m);
/* Fills a request for m (id, IR options, option set, priority, time). */
void jit_request_init(Jit *jit, JitRequest *rq, VmMethod *m);
/* Compiles rq on the calling thread (fault injection, delay, logging) and
 * installs the result with one release store; false when it failed. */
bool jit_compile_and_install(Jit *jit, JitRequest *rq);
/* The same for n requests compiled as one unit; returns how many were
 * installed.  Updates state[]/osr[] of each (under mu). */
size_t jit_compile_and_install_batch(Jit *jit, JitRequest *rq, size_t n);

/* events.c: the compile timeline, the "compiles" member of --stats. */
#define JIT_COMPILE_KINDS(X)                                                    \
    X(JIT_EV_ENTRY, "entry")       /* a method's entry (with OSR code or not) */ \
    X(JIT_EV_OSR, "osr")           /* OSR code only */                          \
    X(JIT_EV_BAKEOFF, "bakeoff")   /* a bakeoff's variants as one unit */

typedef enum JitCompileKind {
#define X(k, s) k,
    JIT_COMPILE_KINDS(X)
#undef X
    JIT_EV_COUNT
} JitCompileKind;

typedef struct JitCompileEvent {
    uint64_t id;                   /* compile id (#id of --log=jit); a bakeoff's: its bakeoff id */
    const VmMethod *m;
    JitCompileKind kind;
    bool ok, osr_built, same_code, same_ir, cached;
    const char *optset;            /* the request's (a tunable's string, alive for the run); NULL for bakeoffs */
    int64_t osr_pc;                /* the OSR header asked for, −1 none */
    double t_queued, t_started, t_done;   /* seconds since jit->t0; NAN: none */
    double us_ir, us_compile, us_assemble;
    size_t code_bytes;
    uint64_t unit_id;
    uint32_t unit_size;
    int nvariants;                 /* bakeoffs */
    double variant_us[JIT_MAX_VARIANTS];   /* gcc's time per variant (clean and timed code) */
    char failure[160];
} JitCompileEvent;

/* A method's compile ended (jit.c): res NULL or failure non-NULL when it
 * failed.  t_start: when its unit began (jit_now()). */
void jit_event_tier(Jit *jit, const JitRequest *rq, const JitResult *res, double t_start, const char *failure);
/* A bakeoff's compile ended (variants.c); variant_us: per variant. */
void jit_event_bakeoff(Jit *jit, const JitBakeoffRequest *rq, const JitBakeoffTable *out, double t_start,
                       const double *variant_us, const char *failure);
/* VmHooks.stats_jit: `,\n"compiles":[...],\n"compiles_dropped":N`. */
void jit_events_json(Vm *vm, FILE *f, void *jit);

/* thread.c */
bool jit_thread_start(Jit *jit, VmError *err);
/* Queues m (unless it was requested before); never blocks on a compile. */
void jit_enqueue(Jit *jit, VmMethod *m);
/* Under mu: queues a request for m with OSR header osr_pc (NULL = none),
 * whatever state says; false when out of memory or stopping. */
bool jit_push_locked(Jit *jit, VmMethod *m, const VmInsn *osr_pc);
/* Under mu: gives m's queued (not yet compiling) request the OSR header;
 * false when m has no queued request or it has one already. */
bool jit_upgrade_locked(Jit *jit, VmMethod *m, const VmInsn *osr_pc);
/* Under mu: m's queued (not yet compiling) request, if any, goes before
 * every request not urgent (JitRequest.urgent). */
void jit_hurry_locked(Jit *jit, const VmMethod *m);
/* Stops the thread: the compile in progress finishes, the rest is dropped. */
void jit_thread_stop(Jit *jit);

/* Test helpers: hold/release the compile thread; wait until the queue is
 * empty and nothing is compiling; counters. */
void jit_test_pause(Jit *jit, bool paused);
void jit_test_wait_idle(Jit *jit);
JitStats jit_test_stats(Jit *jit);

#endif
