/* jit/jit.h — the JIT tier: IR → libgccjit → assembly → loaded code
 * (prefix jit_ / Jit).
 *
 *   hot hook (vm/) ─▶ queue (thread.c, hottest first) ─▶ compile thread
 *        │ sync/eager modes compile on the calling thread instead
 *        ▼
 *   ir_compile_request (ir/)            IR per request (inline tunables)
 *        ▼
 *   codegen.c: IR → gccjit function     typed locals, exact semantics,
 *        ▼                              checks that raise like the VM
 *   gcc_jit_context_compile_to_file(ASSEMBLER, option set)
 *        ▼
 *   asm hook (markers will edit here) ─▶ loader.c: as + ld -shared + dlopen
 *        ▼
 *   install: m->entry = code (one store); failures leave the method as it was
 *
 * A unit may hold several requests (the compile thread batches up to
 * jit.batch of the hottest: one gcc run, one as/ld/dlopen for all); one
 * failing method never costs the others their code.
 *
 * OSR: a request with osr_pc (a loop header the interpreter is looping
 * at) also gets a VmOsrEntry (vm.h) that continues an interpreted
 * activation at that header; install publishes m->osr.
 *
 * Compiled code has the VM's calling convention (VmEntry): it reads its
 * arguments from args[], counts the call (m->prof.calls), pushes a
 * VmFrame so stack traces see it, keeps the frame's pc current before
 * anything that can raise or call out, calls other methods through their
 * current entry, and pops its frame.
 *
 * Bakeoffs (for the auditor, audit/): jit_compile_bakeoff builds N
 * variants of a method, a timed wrapper of each and a dispatcher as one
 * unit (jit/variants.c); the auditor installs and replaces them.
 */
#ifndef TALLY_JIT_H
#define TALLY_JIT_H

#include "ir.h"
#include "vm.h"

typedef enum JitMode {
    JIT_OFF,     /* interpreter only */
    JIT_ON,      /* hot methods compiled on the background thread (default) */
    JIT_EAGER,   /* every method compiled (synchronously) before its first call */
    JIT_SYNC,    /* hot methods compiled synchronously on the hot path */
} JitMode;

/* One compile: a method, the IR options (inlining) and a gcc option set
 * (a name from the table in options.c, or raw gcc options). */
typedef struct JitRequest {
    uint64_t id;            /* stable compile id, for logs */
    VmMethod *m;
    IrOptions ir;
    const char *optset;     /* "O2", "O3", "unroll", ... or "-O3 -funroll-loops" */
    int64_t priority;       /* when queued: hotness (calls + back edges); in the
                               queue: recent interpreter work (jit/thread.c) */
    double t_queued;        /* seconds (clock) when queued */
    int64_t seen;           /* hotness at the last refresh of priority */
    double t_seen;          /*   and when */
    uint64_t lam_seen;      /* jit_lambda_calls at the last refresh */
    const VmInsn *osr_pc;   /* OSR: also an entry at this loop header; NULL = none */
    bool osr_only;          /*   and only that one (JitResult.entry stays NULL) */
    bool urgent;            /* first in the queue, whatever its priority (jit_bakeoff_waits) */
} JitRequest;

/* What a compile produced and what it cost. */
typedef struct JitResult {
    VmEntry entry;          /* NULL on failure (and for OSR-only requests) */
    void *unit;             /* the loaded object, kept alive: a dlopen handle
                               (jit.load=as) or a gcc_jit_result * (jit.load=gccjit) */
    size_t code_bytes;
    double us_ir, us_compile, us_assemble;   /* microseconds per phase; compile
                                                and assemble are the unit's */
    const VmOsr *osr;       /* OSR entry for rq->osr_pc, NULL if none (kept
                               forever once installed) */
    const char *osr_none;   /* why an OSR request got no OSR entry, or NULL */
    uint64_t unit_id;       /* the unit's id (its first request's id) */
    uint32_t unit_size;     /* requests compiled in the unit */
    bool cached;            /* loaded from the code cache, not compiled */
} JitResult;

typedef struct Jit Jit;

/* The code cache's counts (jit.cache): items found and loaded, not found,
 * stored, entries found damaged (ignored), other failures, and items
 * loaded before the program started (jit.preload). */
typedef struct JitCacheStats {
    uint64_t hits, misses, stored, bad, errors, preloaded;
} JitCacheStats;

/* The code cache's directory as a whole (jit/cache.c; `tally cache`). */
typedef struct JitCacheUsage {
    uint64_t entries, bytes, temps;   /* temps: files of writes under way, or of a crash */
    uint64_t runs;                    /* modules' preload lists (jit.preload), not counted in entries */
    uint64_t verdicts;                /* modules' remembered bakeoff verdicts (audit.remember), nor these */
    double oldest, newest;            /* the entries' last use, seconds since the epoch */
} JitCacheUsage;
/* The directory jit.cache names ("off" or "": none, false; "default":
 * $XDG_CACHE_HOME/tally, else $HOME/.cache/tally). */
bool jit_cache_dir(const char *spec, char *buf, size_t size);
bool jit_cache_usage(const char *dir, JitCacheUsage *u, VmError *err);
/* Removes least recently used entries until they take at most max_bytes. */
bool jit_cache_trim(const char *dir, uint64_t max_bytes, uint64_t *removed, VmError *err);
/* Removes every entry and temporary file. */
bool jit_cache_clear(const char *dir, uint64_t *removed, VmError *err);

/* Naive loop timings (the thesis's strawman): a call at each timing point,
 * put in before gcc optimizes, with the point's index. */
typedef void (*JitNaiveTimer)(uint32_t point);

/* Code markers to insert into one function (markers/ chooses them):
 * at[b] = K ≥ 0 puts marker K at the start of block b of its IR (n
 * entries, one per block), −1 none; nmarkers = 1 + the largest K. */
typedef struct JitMarks {
    const int32_t *at;
    uint32_t n;
    uint32_t nmarkers;
    bool pinned;
    JitNaiveTimer naive;       /* not NULL: a call of naive(K) at each point instead */
} JitMarks;

/* The JIT's tunables, one field per row of jit/jit_tunables.def. */
typedef struct JitTunables {
#define TUNABLE(field, name, kind, deflt, min, max, unit, help) VM_TUN_CTYPE_##kind field;
#define TUNABLE_STR(field, name, deflt, help) const char *field;
#include "jit_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
} JitTunables;
extern const VmTunGroup jit_tun_group;
void jit_tunables_default(JitTunables *tun);

/* Checks what the table's bounds cannot: jit.load names a route.  False
 * + err (a usage error) otherwise. */
bool jit_tunables_check(const JitTunables *tun, VmError *err);

/* Creates the tier for vm and wires vm->hooks; mode JIT_OFF wires nothing.
 * tun and ir (the inliner's options of every request) may be NULL: the
 * defaults; both are copied.  markers (NULL: none): code markers in every
 * unit (JitMarkerHooks, below), set before the first compile (--jit=eager
 * compiles the entry methods here). */
typedef struct JitMarkerHooks JitMarkerHooks;
Jit *jit_new(Vm *vm, JitMode mode, const JitTunables *tun, const IrOptions *ir, const JitMarkerHooks *markers,
             VmError *err);
/* What jit was created with (the defaults when jit is NULL). */
const JitTunables *jit_tunables(const Jit *jit, JitTunables *def);
const IrOptions *jit_ir_options(const Jit *jit, IrOptions *def);
/* The clock (CLOCK_MONOTONIC seconds) at jit_new, just before the program
 * starts: the time base of --log=jit, of the compile timeline and of the
 * auditor's records; 0 without a JIT. */
double jit_t0(const Jit *jit);
/* Stops the compile thread (waiting for the compile in progress), unloads nothing
 * that may still run. */
void jit_free(Jit *jit);

/* Compiles one request on the calling thread; on success installs nothing
 * (the caller decides).  Never raises; errors go to err.  jit may be NULL. */
bool jit_compile(Jit *jit, JitRequest *rq, JitResult *out, VmError *err);
/* Compiles n requests as one unit: out[i] and err[i] belong to rq[i]
 * (out[i].entry and .osr both NULL when it failed).  A failing method does not make
 * the others fail: its function is left out (or, when the unit as a whole
 * does not assemble, each method is compiled alone).  Returns the number
 * compiled. */
size_t jit_compile_unit(Jit *jit, JitRequest *rq, size_t n, JitResult *out, VmError *err);

/* Called after compiled code for m's ordinary entry was installed, on the
 * thread that compiled it (the program's in sync and eager modes, the
 * compile thread in on mode), outside the JIT's lock: the auditor starts
 * bakeoffs here.  NULL unhooks, returning only when no call of the
 * previous hook is still running. */
typedef void (*JitInstallHook)(void *ctx, VmMethod *m);
void jit_set_install_hook(Jit *jit, JitInstallHook fn, void *ctx);

/* The options every compile of m uses from now on instead of the tier's
 * (the auditor's remembered winners, audit/remember.c); call before the
 * program runs.  False: out of memory. */
bool jit_choose_options(Jit *jit, const VmMethod *m, const IrOptions *ir, const char *optset);

/* A note on the module in the code cache (jit.cache on), kind its file's
 * suffix ("won": the auditor's verdicts), one file per module bytes,
 * tally build and code-deciding configuration: written whole or not at
 * all, read back checked.  False: the cache is off, there is none, it is
 * damaged, or it could not be written. */
bool jit_note_get(Jit *jit, const char *kind, VmBuf *out);
bool jit_note_put(Jit *jit, const char *kind, const void *data, size_t len);

/* Code markers in the JIT's own units (markers.everywhere; markers/
 * provides them; jit_new takes them): for each method's IR, plan chooses
 * its markers (true with out->at malloc'ed, which the JIT frees; false:
 * none), and edit rewrites each unit's assembly before it is assembled
 * (false fails the unit). */
struct JitMarkerHooks {
    bool (*plan)(void *ctx, const IrFunc *f, JitMarks *out);
    bool (*edit)(void *ctx, char **text, size_t *len);
    void *ctx;
};

/* Assembles, links and loads hand-written assembly text (as, ld -shared,
 * dlopen; kept loaded) and returns the address of symbol, or NULL + err. */
void *jit_load_asm(const char *text, size_t len, const char *symbol, VmError *err);

/* Whether the comma list spec (jit.dump) names what. */
bool jit_dump_has(const char *spec, const char *what);

/* Parses "off", "on", "eager", "sync". */
bool jit_mode_parse(const char *s, JitMode *out);

/* ---- bakeoffs (the auditor: audit/lifecycle.c) ----------------------------
 * N variants of one method (IR options and an option set each, one gccjit
 * context each), a timed wrapper per variant and a dispatcher, compiled
 * as one unit: the contexts' assembly concatenated, one as/ld/dlopen
 * (jit/variants.c).  The code reaches the auditor only through the table
 * and the two function pointers of the request (jit/ includes nothing of
 * audit/). */
#define JIT_MAX_VARIANTS 8      /* variants of one bakeoff */
#define JIT_MAX_COPIES 2        /* copies of each variant's code (audit.copies) */
#define JIT_MAX_CALLEES 64
#define JIT_MAX_POINTS 64       /* timing points (code markers) of one bakeoff */

typedef struct JitBakeoffTable {
    /* clean[c·N + k]: copy c of variant k, untimed (N = nvariants; copy 0
     * is the one installed, the others exist to be timed: copies) */
    VmEntry clean[JIT_MAX_VARIANTS * JIT_MAX_COPIES];
    /* The timed wrapper, one for all variants, so that only the
     * variants' own code differs between their timed calls: k =
     * t->audit[slot].timing (set by the slow path), then
     * clean[k] between two cycle-counter reads; k is reported as is, so a
     * sample's "variant" is c·N + k. */
    VmEntry timed;
    /* With loop timings (JitBakeoffRequest.npoints): marked[c·N + k] is
     * copy c of variant k's code with its timing points reporting, which
     * the timed wrapper calls instead of clean[k]; NULL otherwise. */
    VmEntry marked[JIT_MAX_VARIANTS * JIT_MAX_COPIES];
    VmEntry dispatcher;                /* variant 0 behind the countdown prologue */
    uint32_t bakeoff;                  /* the id timed code reports samples under;
                                          set before the dispatcher is installed */
    /* Nonzero for a recursive method (every variant keeps calls of the
     * method itself): a timed call's weight is then its number of
     * invocations of the method (m->prof.calls, which counts unrolled
     * levels too: IR_COUNT), the same unit in every variant. */
    uint32_t weighted;
    /* Every variant compiled to the same machine code as variant 0 (up to
     * labels, symbols and descriptor addresses: jit_asm_same), so its
     * timings could only differ by placement.  With the request's
     * end_if_same, variant 0's code alone is loaded (every clean[] entry
     * is it) and no dispatcher is compiled; otherwise all of it. */
    bool same_code;
    /* Known before gcc ran: equal option sets and the same IR code
     * (jit_bakeoff_same_ir).  With the request's end_if_same_ir only
     * variant 0 compiled, and same_code is set from this; otherwise every
     * variant compiled, and a same_ir without same_code (the --log=jit
     * line says "same-ir" alone) is gcc placing an error-site
     * descriptor's address as an offset from another constant, which the
     * text comparison cannot see through — or code generation reading
     * something ir_same_code does not compare: a bug. */
    bool same_ir;
    /* The methods the variants' code calls rather than inlines: static
     * targets, virtual and interface calls' named targets and the
     * methods their sites have seen receivers run (collect_callees).
     * ncallees > JIT_MAX_CALLEES: more than the array holds, any method
     * may be one.  A closure's target is not known, nor a callee's
     * callees. */
    VmMethod *callees[JIT_MAX_CALLEES];
    uint32_t ncallees;
    void *unit;                        /* the loaded object (kept) */
    size_t code_bytes;                 /* clean, timed and dispatcher code */
    double us_ir, us_compile, us_assemble;
} JitBakeoffTable;

/* Whether m is one of tab's callees (true for any m past JIT_MAX_CALLEES). */
bool jit_bakeoff_calls(const JitBakeoffTable *tab, const VmMethod *m);
/* Whether one of tab's listed callees is queued or compiling in jit (its
 * entry not yet installed): the auditor holds the bakeoff's decision
 * until it is (research.wait_jit).  With hurry, those still queued go first
 * in the queue (research.hurry_jit).  False without a JIT. */
bool jit_bakeoff_waits(Jit *jit, const JitBakeoffTable *tab, bool hurry);

/* Loop timings: variant part `part` (c·N + k) of a bakeoff, its marked
 * assembly rewritten to timed code (a stub after every marker write
 * reports the event); appended to out.  False + err: the bakeoff fails
 * (nothing loads). */
typedef bool (*JitMarkRewrite)(void *ctx, int part, const char *text, size_t len, VmBuf *out, VmError *err);
/* A timed call of a bakeoff with loop timings begins (the callee reads
 * the cycle counter: the first timing region starts there); its end is
 * the JitSampleFn's call. */
typedef void (*JitTimedEnter)(void *ctx, uint32_t bakeoff, uint32_t part);


/* The dispatcher's slow path: its countdown went below zero. */
typedef VmValue (*JitSlowPath)(VmThread *t, VmMethod *m, VmValue *args, void *ctx);
/* Timed code's report of one call: (table->bakeoff, k, cycles, weight):
 * weight 1, or the calls a recursive method's timed call made. */
typedef bool (*JitSampleFn)(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight);

typedef struct JitBakeoffRequest {
    VmMethod *m;
    uint32_t id;                       /* names the symbols and log lines */
    int nvariants;                     /* 2..JIT_MAX_VARIANTS; 0 is the default */
    /* 1..JIT_MAX_COPIES (0 = 1): each variant's code this many times in
     * the unit, identical but for its symbol, each on a page of its own,
     * copy 1 in reverse order after the others: the timed calls spread
     * over copies, so where a copy happens to fall weighs less */
    int copies;
    IrOptions ir[JIT_MAX_VARIANTS];
    const char *optset[JIT_MAX_VARIANTS];
    uint32_t slot;                     /* the dispatcher decrements t->audit[slot].countdown */
    /* the dispatcher without its countdown prologue, variant 0's clean
     * code alone (research.prologue=0: the baseline that measures the
     * prologue; slow is never called) */
    bool no_prologue;
    /* The caller ends the bakeoff untimed when its variants compile to
     * the same code (research.same_code): then no dispatcher is compiled
     * (JitBakeoffTable.dispatcher NULL), a third of the gcc time. */
    bool end_if_same;
    /* ... and also when their IR is the same code (jit_bakeoff_same_ir;
     * research.same_ir): then variant 0 alone is compiled and loaded, one
     * copy, every clean[] entry its code, no dispatcher. */
    bool end_if_same_ir;
    JitSlowPath slow;                  /* called with slow_ctx below zero */
    void *slow_ctx;
    JitSampleFn sample;
    /* Loop timings (markers/; npoints 0: method timings).  Each variant
     * is compiled a second time with marker K at the start of the block
     * of its IR that begins at bytecode pc point_pc[K] of the method
     * itself (inline depth 0): the same source point in each variant,
     * whatever it inlines.  That text, per copy, goes through rewrite
     * into timed code (a stub reports each marker event: the marked[]
     * code, which the timed wrapper calls after enter(enter_ctx,
     * table->bakeoff, k)).  The clean[] code and the dispatcher have no
     * markers. */
    uint32_t npoints;
    uint32_t point_pc[JIT_MAX_POINTS];
    bool pinned;                       /* markers gcc cannot move (markers.kind=pinned) */
    JitMarkRewrite rewrite;
    void *rewrite_ctx;
    JitTimedEnter enter;
    void *enter_ctx;
    /* audit.timing=naive: no markers; the timed copies are compiled
     * again with a call of naive(K) at each point (rewrite unused), which
     * gcc optimizes around, and the clean code without anything */
    JitNaiveTimer naive;
} JitBakeoffRequest;

/* Whether rq's variants, whose IR is ir[k] (ir_compile with rq->ir[k];
 * NULL: false), are the same code before gcc compiles any: every option
 * set equal to variant 0's and every IR the same code as variant 0's
 * (ir_same_code).  Then they compile to the same machine code, and a
 * bakeoff of them can compile variant 0 alone (research.same_ir). */
bool jit_bakeoff_same_ir(const JitBakeoffRequest *rq, IrFunc *const ir[JIT_MAX_VARIANTS]);

/* Compiles a bakeoff into *out, which must stay at its address as long as
 * the code may run (timed code reads clean[k] and bakeoff from it).
 * Installs nothing.  False + err when any part fails (nothing loaded). */
bool jit_compile_bakeoff(Jit *jit, const JitBakeoffRequest *rq, JitBakeoffTable *out, VmError *err);
/* An option set's name is known, or it is raw options ("-O3 ..."). */
bool jit_optset_check(const char *optset, VmError *err);

#endif
