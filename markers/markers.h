/* markers/markers.h — lightweight code markers (prefix mk_ / Mk): loop
 * timings that stay comparable across differently-optimized variants.
 *
 *   IR after inlining (ir/) ─select.c─▶ MkPlan: timing points, each the
 *        │                              start of one of the method's own
 *        │                              blocks (a bytecode pc)
 *        ▼ jit/codegen.c: `S_mkK += 1` at each point, S_mkK an INTERNAL,
 *          non-volatile long per marker K of function S; gcc optimizes
 *   assembly text ─scan.c─▶ MkMap: every instruction that writes a
 *        │                  marker, where it sits in the optimized code
 *        │ rewrite.c
 *        ├─▶ clean text: every marker write deleted (dispatcher's body,
 *        │               installed winner, the JIT's code under
 *        │               markers.everywhere)
 *        └─▶ timed text: after every marker write `call S_mkK_stub`; the
 *                        stub saves flags and the registers it touches,
 *                        weight = S_mkK − its value at K's previous event,
 *                        reads the cycle counter and calls the sink
 *
 * Why keep the writes in timed code: gcc moves, duplicates and merges a
 * marker (a store of old + n after a call-free loop, a register
 * accumulator stored behind a flag, one copy per unrolled iteration), but
 * keeps the global's value right at every store; so the weight read after
 * each store is the exact number of source-level executions it stands for.
 *
 * markers/ sits between jit/ and audit/: it may use ir/, jit/ and vm/;
 * audit/ uses it; jit/ reaches it only through hooks it is handed.
 */
#ifndef TALLY_MARKERS_H
#define TALLY_MARKERS_H

#include "ir.h"
#include "jit.h"
#include "vm.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- tunables (markers/markers_tunables.def) ---------------------------- */

typedef struct MkTunables {
#define TUNABLE(field, name, kind, deflt, min, max, unit, help) VM_TUN_CTYPE_##kind field;
#define TUNABLE_STR(field, name, deflt, help) const char *field;
#include "markers_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
} MkTunables;
extern const VmTunGroup mk_tun_group;
void mk_tunables_default(MkTunables *t);
/* Checks the string rows (kind, everywhere); false + err naming the tunable. */
bool mk_tunables_check(const MkTunables *t, VmError *err);

typedef enum MkEverywhere { MK_EVERY_OFF, MK_EVERY_LOOPS, MK_EVERY_BLOCKS } MkEverywhere;
MkEverywhere mk_everywhere(const MkTunables *t);
bool mk_pinned(const MkTunables *t);

/* ---- select.c: where to time (thesis Fig. III.15) ----------------------- */

typedef struct MkPoint {
    uint32_t block;            /* its block's id in the IR it was chosen on */
    uint32_t pc;               /* the block's first bytecode pc, in its origin */
    uint32_t depth;            /* the block's inline depth (0: the method's own) */
    int32_t loop;              /* the loop it times (index in f->loops), −1: none */
    double freq;               /* the block's normalized frequency */
} MkPoint;

typedef struct MkPlan {
    MkPoint *v;                /* malloc'ed; marker K is v[K] */
    uint32_t n;
    double entry_freq;         /* the entry block's normalized frequency */
    /* n == 0: why the method keeps method timings ("called often for its
     * loops' work", "no loop", "every loop too tight", ...) */
    char reason[128];
} MkPlan;

/* Timing points of f (ir_compile'd: cfg, loops and frequencies), only at
 * the method's own blocks (depth 0), which every variant of a bakeoff has
 * whatever it inlines.  Unless forced, a method whose entry frequency is
 * at least tun->entry_freq gets none.  Loops outermost first: a loop
 * qualifies while its header's frequency exceeds the remaining target
 * (tun->target); in it the block whose frequency is closest to the target
 * and whose shortest static-cost distance (ops.def costs, Dijkstra) to
 * itself around the loop and to every chosen point is at least
 * tun->min_cost is chosen, its frequency subtracted from the target; until
 * the target is met, tun->max_points are chosen or nothing qualifies.
 * False only without memory (out->reason says so). */
bool mk_select(const IrFunc *f, const MkTunables *tun, bool forced, MkPlan *out);
/* markers.everywhere: every loop header (blocks = false) or every block
 * (true) of f, at any inline depth.  False only without memory. */
bool mk_select_every(const IrFunc *f, bool blocks, MkPlan *out);
void mk_plan_free(MkPlan *p);
/* The static-cost distance of the shortest path from block a to block b
 * (a == b: around a cycle back to a) within f, counting the costs of the
 * blocks left on the way (a's own, not b's); UINT64_MAX when b cannot be
 * reached (or without memory).  Edge weights (profile counts) are ignored. */
uint64_t mk_cost_distance(const IrFunc *f, uint32_t a, uint32_t b);

/* ---- scan.c: the marker map of optimized assembly ----------------------- */

/* The symbol of marker k of the function whose symbol is fn: "<fn>_mk<k>". */
void mk_symbol(char *buf, size_t size, const char *fn, uint32_t k);

typedef enum MkWhere {
    MK_IN_LOOP,                /* inside a loop of the optimized code */
    MK_LOOP_EXIT,              /* after a loop it stands for (a hoisted
                                  store: one write weighs many iterations) */
    MK_STRAIGHT,               /* in no loop and after none */
} MkWhere;

typedef struct MkSite {
    uint32_t line;             /* 0-based line of the writing instruction */
    uint32_t marker;           /* index in MkMap.markers */
    MkWhere where;
    bool rmw;                  /* a read-modify-write (addq $1, S_mkK(%rip)) */
    bool guarded;              /* behind a conditional branch that skips it
                                  on a path where the marker did not move
                                  (a store after a loop, behind a flag) */
    uint32_t copy;             /* 0 for the marker's first site in the text,
                                  1, 2, ... for copies (duplication, unrolling,
                                  peeled or remainder loops) */
} MkSite;

typedef struct MkMarker {
    char sym[160];             /* S_mkK */
    char fn[144];              /* S, the function it belongs to */
    uint32_t k;
    uint32_t nsites;           /* instructions that write it */
    bool refused;              /* referenced other than as an (%rip) operand
                                  (lea, @GOTPCREL, ...): its address may be
                                  taken, so its writes cannot all be found */
    char why[96];              /* refused: the offending instruction */
} MkMarker;

typedef struct MkMap {
    MkMarker *markers;         /* every symbol S_mkK the text defines */
    uint32_t nmarkers;
    MkSite *sites;             /* in text order */
    uint32_t nsites;
} MkMap;

/* The marker map of gcc's assembly text (x86-64, AT&T syntax, one or more
 * functions).  A marker is a symbol named <fn>_mk<digits> that the text
 * defines (.comm, .lcomm, or a label in .bss/.data); its writes are the
 * instructions with it as a memory destination (mov, add, sub, inc, ...).
 * Where a site sits comes from a CFG of the function's instructions
 * (labels, jumps, fall-through; a loop is a cycle).  False + err only on
 * malformed text or no memory. */
bool mk_scan(const char *text, size_t len, MkMap *out, VmError *err);
void mk_map_free(MkMap *m);
/* The map as text, one line per marker and per site (-X jit.dump=markers). */
void mk_map_dump(const MkMap *m, FILE *out);
/* The index of marker sym in m, or -1. */
int mk_map_find(const MkMap *m, const char *sym);

/* ---- rewrite.c: clean and timed code ------------------------------------ */

/* What a stub calls, with the SysV ABI: ctx (an address the caller chose
 * for this marker), the event's weight and the cycle counter (rdtsc).  It
 * must touch no register but the general ones (compiled with
 * __attribute__((target("general-regs-only")))) and call nothing that
 * does: the stub saves only flags and the general caller-saved registers. */
typedef void (*MkSink)(const void *ctx, uint64_t weight, uint64_t tsc);

typedef struct MkStubSpec {
    MkSink sink;
    /* > 1: of a marker's events of weight 1 (it stayed in its loop), only
     * every `every`-th calls the sink, its weight covering the skipped
     * ones; the others cost a few instructions that touch no flags.
     * 0 or 1: every event. */
    uint32_t every;
    /* the ctx of marker i of the map (NULL: its writes are deleted, as in
     * clean code) */
    const void *(*ctx_of)(void *arg, const MkMap *map, uint32_t i);
    void *arg;
} MkStubSpec;

/* Clean code: text with every instruction that writes a marker deleted
 * (loads and the definitions stay: harmless).  Appends to out. */
bool mk_rewrite_clean(const char *text, size_t len, const MkMap *map, VmBuf *out, VmError *err);
/* Timed code: text with `call <sym>_stub` after every write of each
 * marker whose ctx_of is not NULL (others deleted, refused ones too), and
 * the stubs and their shadows appended (local symbols, in .text/.bss).
 * Every compile has -mno-red-zone, so a plain call is safe; the stub
 * assumes no stack alignment.  Appends to out. */
bool mk_rewrite_timed(const char *text, size_t len, const MkMap *map, const MkStubSpec *spec, VmBuf *out,
                      VmError *err);
/* Whether text (a clean rewrite) still writes any marker. */
bool mk_writes_any(const char *text, size_t len);

/* ---- everywhere.c: markers.everywhere ----------------------------------- */

/* A marker in every loop header (markers.everywhere=loops) or every block
 * (=blocks) of every method the JIT compiles, removed from each unit's
 * assembly before it loads (dump: print each unit's marker map): *hooks
 * filled for jit_new.  NULL when the tunable is off (or no memory). */
typedef struct MkEverywhereHooks MkEverywhereHooks;
MkEverywhereHooks *mk_everywhere_new(const MkTunables *tun, bool dump, JitMarkerHooks *hooks);
/* Units edited, markers and write sites they held. */
void mk_everywhere_counts(const MkEverywhereHooks *h, uint64_t *units, uint64_t *markers, uint64_t *sites);
/* After the JIT is freed. */
void mk_everywhere_free(MkEverywhereHooks *h);

#endif
