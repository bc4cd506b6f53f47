/* audit/auditor_api.h — bakeoff records: the contract between the bakeoff
 * lifecycle (audit/lifecycle.c, with the JIT: variants, dispatcher, timers,
 * install) and the reports built from it (audit/report.c: the bakeoffs[]
 * of --stats JSON, --log=audit lines).
 *
 * A record is created when a client starts a bakeoff for a method, updated
 * by the analysis thread after every look (result), and final once its
 * outcome is not AU_RUNNING.  Readers never see a half-written record: they
 * take copies with au_bakeoffs_snapshot, under the registry's lock.
 */
#ifndef TALLY_AUDIT_AUDITOR_API_H
#define TALLY_AUDIT_AUDITOR_API_H

#include "audit.h"

#include <stdio.h>

#define AU_NAME_MAX 128
#define AU_OPTIONS_MAX 256

/* One competing version of the method: a gcc option set (a name from
 * jit/options.c or raw options) plus the inliner's per-request tunables. */
typedef struct AuVariantSpec {
    char name[32];                 /* "default", "O3", "inline4x", "a", "b", ... */
    char optset[AU_OPTIONS_MAX];   /* as jit.optset takes it */
    int32_t inline_max_callee_size;
    int32_t inline_max_depth;
    int32_t inline_max_growth;
} AuVariantSpec;

#define AU_PHASES(X)                                                                         \
    X(AU_PHASE_QUEUED, "queued")       /* never started; waiting for a slot (audit.concurrent) */ \
    X(AU_PHASE_COMPILING, "compiling") /* variants and dispatcher being compiled */              \
    X(AU_PHASE_READY, "ready")         /* compiled ahead (research.ahead); waiting for a slot */    \
    X(AU_PHASE_SAMPLING, "sampling")   /* dispatcher installed, analysis running */              \
    X(AU_PHASE_PAUSED, "paused")       /* between turns (audit.quantum_ms): old code back */     \
    X(AU_PHASE_DONE, "done")           /* decided (result.outcome) and installed */              \
    X(AU_PHASE_FAILED, "failed")       /* a compile failed: method kept its code */

typedef enum AuPhase {
#define X(p, s) p,
    AU_PHASES(X)
#undef X
} AuPhase;

typedef struct AuBakeoffRecord {
    uint32_t id;                   /* stable, ≥ 1, also in --log=audit */
    char method[AU_NAME_MAX];
    char client[32];               /* "inline", "optlevel", "aa", "custom", ... */
    AuPhase phase;
    int nvariants;
    AuVariantSpec variants[JIT_MAX_VARIANTS];
    AuResult result;               /* latest look; final in AU_PHASE_DONE */
    int installed;                 /* variant whose clean code is installed; -1 none */
    double t_queued, t_started, t_decided;   /* seconds since the VM started; 0 = not yet */
    char failure[160];             /* AU_PHASE_FAILED: why */
    /* added for the reports (report.c, docs/stats.md): */
    double t_sampling;             /* dispatcher installed, timing began; 0 = not yet */
    bool oracle;                   /* audit.oracle: one fixed-sample look at max_samples */
    int copies;                    /* audit.copies: of each variant's code */
    int turns;                     /* turns it has sampled (audit.quantum_ms), the current one included */
    int extended;                  /* extra turns given to turns foreseen to decide (audit.extend), summed */
    int cut;                       /* turns ended early, foreseen to end undecided (audit.cut) */
    int idled;                     /* turns paused without a timed call: its method not called then */
    int yielded;                   /* turns ended early, a method its variants call queued in the JIT (research.wait_jit) */
    double sampled;                /* seconds its dispatcher was installed, turns summed (to the last pause or end) */
    double probe_cycles;           /* audit.probe: the installed code's timed call before compiling; 0 = no reading */
    uint32_t probe_samples;        /* timed calls that reading is from */
    double probe_rate;             /* calls a second through its entry while the probe stood; 0 = not probed */
    bool deferred;                 /* research.defer: put back into the queue once, as its probe read cheap */
    bool same_code;                /* research.same_code: its variants compiled to the same code; DONE untimed */
    bool same_ir;                  /* research.same_ir: ... known from their IR: not probed, variant 0 alone compiled */
    /* audit.timing: loop timings from code markers (npoints > 0) or method timings */
    uint32_t npoints;              /* timing points (markers) */
    uint32_t point_pc[JIT_MAX_POINTS];   /* each the bytecode pc of a block of the method */
    uint32_t point_line[JIT_MAX_POINTS]; /* its source line; 0 = no line information */
    double entry_freq;             /* the method's entry block's share of its block counts */
    char timing_reason[128];       /* npoints 0: why method timings */
    uint32_t marker_sites;         /* marker writes the rewrites found, over every variant and copy */
    uint32_t markers_refused;      /* markers whose address gcc took: their events dropped */
    double marker_overhead;        /* cycles taken off each marker event: a stub's (au_loops_calibrate) */
    const struct AuMarkerSites *marker_map;   /* [k · npoints + K] where gcc left each marker (loops.h); NULL: none */
} AuBakeoffRecord;

/* Copies of every bakeoff record so far (at most max), oldest first;
 * returns how many there are in all (may exceed max).  Thread-safe. */
typedef struct AuAuditor AuAuditor;
size_t au_bakeoffs_snapshot(AuAuditor *au, AuBakeoffRecord *out, size_t max);

/* audit/report.c: the records as the JSON array value of "bakeoffs"
 * (schema: docs/stats.md), and one --log=audit line per event. */
void au_report_json(FILE *f, const AuBakeoffRecord *r, size_t n, const char *indent);
const char *au_phase_name(AuPhase p);

/* --log=audit (tunable audit.log): one line per event of a bakeoff, as
 *   [<ms since VM start>ms] audit: <event> #<id> <method> client=<client> ...
 * written with one fputs and flushed, so lines of several threads never
 * interleave.  The lifecycle calls it at each event with the record as it
 * is after the event (phase, result, timestamps updated first). */
#define AU_EVENTS(X)                                                           \
    X(AU_EV_QUEUED, "queued")       /* a client asked; waiting for a slot */  \
    X(AU_EV_DEFERRED, "deferred")   /* probed cheap-looking: queued again, last */ \
    X(AU_EV_COMPILED, "compiled")   /* variants + dispatcher compiled */      \
    X(AU_EV_SAMPLING, "sampling")   /* dispatcher installed: timing begins */ \
    X(AU_EV_EXTENDED, "extended")   /* turn over, one more: it foresees a decision */ \
    X(AU_EV_PAUSED, "paused")       /* turn over, another waits: old code */  \
    X(AU_EV_CUT, "cut")             /* paused early: foreseen undecided */    \
    X(AU_EV_YIELDED, "yielded")     /* paused early: a callee queued in the JIT */ \
    X(AU_EV_IDLE, "idle")           /* paused: no timed call this turn */     \
    X(AU_EV_RESUMED, "resumed")     /* next turn: dispatcher back */          \
    X(AU_EV_DECIDED, "decided")     /* winner / no-difference / timeout */    \
    X(AU_EV_FAILED, "failed")       /* compile or install failed: failure */  \
    X(AU_EV_CANCELLED, "cancelled") /* dropped undecided (program ended) */

typedef enum AuEvent {
#define X(e, s) e,
    AU_EVENTS(X)
#undef X
} AuEvent;

const char *au_event_name(AuEvent e);
/* t: seconds since the VM started (the records' time base). */
void au_log_event(FILE *f, double t, const AuBakeoffRecord *r, AuEvent ev);

/* ---- the --stats hook ----------------------------------------------------
 * Writes `,\n"bakeoffs":[...]` from snapshot(au) (report.c takes no link
 * dependency on the lifecycle: the snapshot comes as a function).  The
 * lifecycle wires it where it creates the auditor, with the VM at hand:
 *
 *     vm->hooks.stats_extra = au_stats_extra;
 *     vm->hooks.stats_ctx = auditor;
 *
 * The stats writer calls it from its own thread while the program runs,
 * and once more after vm_run returns (cli/main.c: before jit_free), so the
 * auditor must stay alive until vm_stats_writer_stop() has returned (or
 * clear the two fields before freeing it). */
typedef size_t (*AuSnapshotFn)(AuAuditor *au, AuBakeoffRecord *out, size_t max);
void au_report_stats(FILE *f, AuSnapshotFn snapshot, AuAuditor *au);

struct Vm;
static inline void au_stats_extra(struct Vm *vm, FILE *f, void *auditor)
{
    (void)vm;
    au_report_stats(f, au_bakeoffs_snapshot, (AuAuditor *)auditor);
}

/* ---- clients (audit/clients.c) --------------------------------------------
 * A client names the variants of its bakeoffs; variant 0 is the default
 * (installed on no-difference and timeout).  --audit=LIST / audit.clients. */
#define AU_CLIENTS(X)                                                                      \
    X(AU_CLIENT_INLINE, "inline", "default inliner vs audit.inline_scale x callee size")   \
    X(AU_CLIENT_OPTLEVEL, "optlevel", "the option sets of audit.optlevel (O2 vs O3)")      \
    X(AU_CLIENT_UNROLL, "unroll", "jit.optset vs unroll (-O3 -funroll-loops)")             \
    X(AU_CLIENT_VECTORIZE, "vectorize", "jit.optset vs vectorize (-O3 -ftree-vectorize)")  \
    X(AU_CLIENT_AA, "aa", "two identical variants: measures false positives")             \
    X(AU_CLIENT_CUSTOM, "custom", "the raw gcc option strings of audit.custom (';' between)")

typedef enum AuClient {
#define X(e, s, h) e,
    AU_CLIENTS(X)
#undef X
    AU_NCLIENTS
} AuClient;

const char *au_client_name(AuClient c);
/* The client names, NULL-terminated (for usage messages). */
const char *const *au_client_names(void);
/* "inline,aa" → a bit per AuClient; false + err (with a suggestion) on an
 * unknown or repeated name.  "" gives 0. */
bool au_clients_parse(const char *list, uint32_t *mask, struct VmError *err);
/* The variants of client c (n ≥ 2) from the auditor's settings, the JIT's
 * option set (jit.optset) and its inliner options, or 0 + err when its
 * tunables are bad (an unknown option set, fewer than two). */
struct IrOptions;
int au_client_variants(AuClient c, const AuConfig *cfg, const char *jit_optset, const struct IrOptions *ir,
                       AuVariantSpec out[JIT_MAX_VARIANTS], struct VmError *err);
/* Checks cfg as au_config_check does, then the clients and their variants
 * (the command's usage check, before anything runs). */
bool au_check_config(AuConfig *cfg, const char *jit_optset, const struct IrOptions *ir, struct VmError *err);
/* Whether every name in list (audit.methods: comma separated) is a
 * method of mod; checked before the run, whatever the tier. */
struct VmModule;
bool au_check_methods(const struct VmModule *mod, const char *list, struct VmError *err);
void au_clients_help(FILE *out);

/* ---- the lifecycle (audit/lifecycle.c) -------------------------------------
 * au_auditor_new: NULL with err.msg empty when audit.clients is empty,
 * NULL with a message when a tunable is bad or the JIT is off.  start:
 * the bakeoff thread (trigger scan, FIFO queue, compiles, installs) and
 * the analysis thread.  stop: joins both (a compile in progress finishes;
 * running bakeoffs are cancelled, their dispatchers stay installed: the
 * program has ended).  free: after the stats writer has stopped. */
struct Jit;
AuAuditor *au_auditor_new(struct Vm *vm, struct Jit *jit, const AuConfig *cfg, struct VmError *err);
bool au_auditor_start(AuAuditor *au, struct VmError *err);
void au_auditor_stop(AuAuditor *au);
void au_auditor_free(AuAuditor *au);
/* After stop: false + err when audit.record's file could not be
 * completed (a failed write: the disk full); true without audit.record. */
bool au_auditor_recorded(AuAuditor *au, struct VmError *err);

/* Tests: one round of the bakeoff thread on the calling thread (scan,
 * start queued bakeoffs, refresh results; no probes, which wait for the
 * program's calls: audit/probe.h), the analysis, and the compiler
 * (jit_compile_bakeoff unless replaced; NULL restores it). */
void au_auditor_poll(AuAuditor *au);
AuAnalysis *au_auditor_analysis(AuAuditor *au);
struct JitBakeoffRequest;
struct JitBakeoffTable;
typedef bool (*AuCompileFn)(struct Jit *jit, const struct JitBakeoffRequest *rq, struct JitBakeoffTable *out,
                            struct VmError *err);
void au_auditor_set_compiler(AuAuditor *au, AuCompileFn fn);

#endif
