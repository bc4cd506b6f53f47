/* jit/jit_int.h — internals shared by the JIT's code generator (codegen.c),
 * the unit compiler (unit.c), its run-time helpers (runtime.c), the loader
 * (loader.c) and the option sets (options.c).  Not part of the contract
 * (jit.h); nothing outside jit/ includes it.
 *
 * A compile is a "unit": a list of requests turned into one gccjit context,
 * one assembly text, one loaded object (jit_compile_unit, unit.c).
 */
#ifndef TALLY_JIT_INT_H
#define TALLY_JIT_INT_H

#include "jit.h"

#include <libgccjit.h>

/* ---- runtime.c: what compiled code calls ------------------------------- */

/* Where an instruction of compiled code is, as the interpreter's frames
 * would show it: lv[0] is the compiled method at the pc of the outermost
 * inlined call (or of the instruction itself when n == 1), lv[n-1] the
 * innermost inlined callee at the instruction's pc.  Lives as long as the
 * code that refers to it (forever: compiled code is never unloaded). */
typedef struct JitWhere {
    uint32_t n;
    struct { VmMethod *m; uint32_t pc; } lv[];
} JitWhere;

/* Sets the compiled frame's pc and pushes one synthetic frame per inlined
 * level, so traces and interpreted callees see the interpreter's frames;
 * raises "stack overflow" where the interpreter's call would have. */
void jit_rt_push_chain(VmThread *t, const JitWhere *w);
_Noreturn void jit_rt_raise_null(VmThread *t, const JitWhere *w);
_Noreturn void jit_rt_raise_div0(VmThread *t, const JitWhere *w);
_Noreturn void jit_rt_raise_bounds(VmThread *t, const JitWhere *w, int64_t i, int64_t n);
_Noreturn void jit_rt_raise_f2i(VmThread *t, const JitWhere *w, double d);
_Noreturn void jit_rt_raise_cast(VmThread *t, const JitWhere *w, const void *obj, const VmType *ty);
_Noreturn void jit_rt_raise_overflow(VmThread *t);
/* Interface dispatch beyond the site's first way (the interpreter's slow path). */
int64_t jit_rt_seq(const VmString *a, const VmString *b);
int64_t jit_rt_instance_of(const void *obj, const VmType *ty);
/* Allocation from inlined code (and the slow path of inline allocation):
 * only when it fails is the chain pushed, for the trace of the "out of
 * memory" (or negative length), then popped again. */
void *jit_rt_new_object_at(VmThread *t, const JitWhere *w, VmClass *c);
void *jit_rt_new_array_at(VmThread *t, const JitWhere *w, VmType *ty, int64_t n);
void *jit_rt_concat_at(VmThread *t, const JitWhere *w, VmString *a, VmString *b);
void *jit_rt_closure_at(VmThread *t, const JitWhere *w, VmMethod *lam, const VmValue *caps);

/* ---- codegen.c: a method's functions in a unit's context ---------------- */

/* The descriptors compiled code points at, collected per unit: freed when
 * the unit does not load, kept forever when it does. */
typedef struct JitWheres {
    JitWhere **v;
    uint32_t n, cap;
} JitWheres;

/* A compiled function's address constants, in slot order: slot k is the
 * static `void *` global `<sym>_L<k>` of the loaded object, which the
 * loader sets to v[k] through the exported `<sym>_link(v)`
 * (jit_links_fill) before the code can run.  So the code holds no address
 * of the process that compiled it: what the code cache needs, for one
 * more load per address (about a quarter of the time of call-heavy code),
 * so only compiles with the cache on use them. */
typedef struct JitLinks {
    char sym[136];
    const void **v;
    uint32_t n, cap;
} JitLinks;
void jit_links_free(JitLinks *l);

/* The types shared by the functions of one context. */
typedef struct JitCodegen JitCodegen;
JitCodegen *jit_codegen_new(gcc_jit_context *ctx);
void jit_codegen_free(JitCodegen *cg);
/* The code markers of the next function cg builds (markers/markers.h):
 * `<symbol>_mk<K> += 1` at the start of every block b with at[b->id] =
 * K ≥ 0, on an INTERNAL, non-volatile long per marker; pinned: as an asm
 * gcc cannot move or merge.  NULL: none.  Cleared after each function. */
void jit_codegen_marks(JitCodegen *cg, const JitMarks *marks);
/* The next function cg builds reads its address constants from link
 * slots, recorded in links (reset first); NULL: immediates.  Cleared after
 * each function. */
void jit_codegen_links(JitCodegen *cg, JitLinks *links);
/* Adds f's method to cg's context as the exported VmEntry `name` and, when
 * osr_head (a block of f at inline depth 0) is given, the exported
 * VmOsrEntry `osr_name` that enters at it (only that one with osr_only:
 * the code the ordinary entry alone reaches is left out).  The code's JitWhere
 * descriptors are appended to wheres, also on failure.  False + err on
 * failure; the context may then hold a half-built function and must not
 * be compiled. */
bool jit_codegen_method(JitCodegen *cg, IrFunc *f, const IrBlock *osr_head, bool osr_only, const char *name,
                        const char *osr_name, JitWheres *wheres, VmError *err);

/* A bakeoff's variant: f's method as `name` (no OSR entry); with
 * self_direct its calls of the method itself call `name` directly, not
 * through the method's entry, so that a timed call's recursion stays in
 * the variant timed (and off the dispatcher).  Calls of other methods go
 * through their entries as ever. */
bool jit_codegen_variant(JitCodegen *cg, IrFunc *f, const char *name, bool self_direct, JitWheres *wheres,
                         VmError *err);
/* The dispatcher of a bakeoff (jit/variants.c): its countdown slot in
 * VmThread.audit and the slow path taking the calls below zero. */
typedef struct JitDispatch {
    uint32_t slot;
    JitSlowPath slow;
    void *slow_ctx;
} JitDispatch;
/* f's method as `name` with the dispatch prologue before the ordinary
 * one (no OSR entry); d NULL: without it. */
bool jit_codegen_dispatcher(JitCodegen *cg, IrFunc *f, const JitDispatch *d, const char *name, JitWheres *wheres,
                            VmError *err);
/* `name`: with k = t->audit[slot].timing, time tab->clean[k] (with
 * enter: enter(enter_ctx, tab->bakeoff, k) first, then tab->marked[k])
 * between two cycle-counter reads, report to sample(tab->bakeoff, k,
 * cycles, w): w = 1, or with tab->weighted the calls of m the timed call
 * made (m->prof.calls before and after). */
bool jit_codegen_timed(JitCodegen *cg, const char *name, JitBakeoffTable *tab, VmMethod *m, uint32_t slot,
                       JitSampleFn sample, JitTimedEnter enter, void *enter_ctx, VmError *err);

/* ---- same.c: whether two variants compiled to the same code ------------- */

/* A character of an assembler identifier (symbols, .L labels). */
static inline bool jit_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '$';
}

/* One context's assembly as jit_asm_same compares it. */
typedef struct JitAsmView {
    const char *text;
    size_t len;
    const char *self;                  /* the variant's own symbol */
    const char *skip[2];               /* functions left out (or NULL) */
    JitWhere *const *wheres;           /* the descriptors its code made */
    uint32_t nwheres;
} JitAsmView;
/* a and b are the same code up to label names, their own symbols and
 * their descriptors' addresses (descriptors at equal indices equal). */
bool jit_asm_same(const JitAsmView *a, const JitAsmView *b);

/* ---- options.c ----------------------------------------------------------- */

/* Applies an option set (a name of the table, or raw gcc options starting
 * with '-') plus the fixed options (-fno-math-errno, -mno-red-zone, -march)
 * to ctx.  False + err for an unknown name. */
bool jit_options_apply(gcc_jit_context *ctx, const char *optset, VmError *err);
/* The -march value chosen for this host ("x86-64-v3", ...). */
const char *jit_options_march(void);
/* Names of the option sets, NULL-terminated. */
const char *const *jit_options_names(void);

/* ---- loader.c ------------------------------------------------------------ */

/* Edits the assembly text in place (may realloc *text); markers will. */
typedef bool (*JitAsmEdit)(void *ctx, char **text, size_t *len);

typedef enum JitLoadRoute {
    JIT_LOAD_ELF,     /* as + the object loaded in-process (elfload.c), outside libgccjit's lock */
    JIT_LOAD_AS,      /* as + ld -shared + dlopen, outside libgccjit's lock */
    JIT_LOAD_GCCJIT,  /* gcc_jit_context_add_top_level_asm + compile */
} JitLoadRoute;

/* A loaded unit: the handle and how to find symbols in it. */
typedef struct JitLoaded {
    JitLoadRoute route;
    void *handle;             /* JitElf *, dlopen handle or gcc_jit_result * */
} JitLoaded;

/* Compiles ctx to assembly in dir, runs the edit hook, assembles and loads.
 * asm_dump (if non-NULL) receives the final assembly text.  Phase times
 * in microseconds.  False + err on any failure (nothing loaded). */
bool jit_load_unit(gcc_jit_context *ctx, const char *dir, JitLoadRoute route, JitAsmEdit edit,
                   void *edit_ctx, FILE *asm_dump, JitLoaded *out, double *us_compile,
                   double *us_assemble, VmError *err);
/* The two halves of jit_load_unit: ctx → assembly text (malloc'd, also
 * left in spath); text → assembled and loaded (through dir/unit.s). */
bool jit_compile_asm(gcc_jit_context *ctx, const char *spath, char **text, size_t *len, VmError *err);
bool jit_load_text(const char *dir, const char *text, size_t len, JitLoadRoute route, JitLoaded *out,
                   VmError *err);
void *jit_load_symbol(const JitLoaded *u, const char *name, size_t *size);
/* Sets l's link slots in u to their addresses (none when l was not used:
 * its sym is empty); false + err if the setter is missing (then the code
 * must not run). */
bool jit_links_fill(const JitLoaded *u, const JitLinks *l, VmError *err);
/* The process's temporary directory, made at the first call (loader.c):
 * libgccjit's and the units' files go there and go at exit or SIGINT. */
void jit_tmp_init(void);
/* A fresh private directory (mkdtemp) for a unit's files: in the process's
 * directory, or in $TMPDIR when kept (jit.dump=units); its removal with
 * contents. */
bool jit_tmpdir(char *buf, size_t size, bool keep, VmError *err);
void jit_rmdir(const char *dir);
/* A unit's directory when it is loaded (or failed): removed, or with
 * jit.dump=units kept and named on stderr ("=== jit unit: WHAT: DIR"),
 * because once its files are gone perf cannot name the code in them. */
void jit_keep_or_remove(const JitTunables *tun, const char *dir, const char *what);
double jit_now_us(void);
/* unit.c, shared with variants.c: the load route the jit.load tunable
 * asks for. */
JitLoadRoute jit_load_route(const JitTunables *tun);

/* ---- cache.c: the persistent code cache -------------------------------- */

typedef struct JitCache JitCache;
typedef struct JitCacheKey {
    uint64_t hi, lo;
} JitCacheKey;
/* The names an entry's symbols had when stored: the entry, the OSR entry
 * ("" if none), the link slots' prefix. */
typedef struct JitCacheSyms {
    char entry[136], osr[136], link[136];
} JitCacheSyms;
/* Opens the cache in dir, creating it 0700; NULL + err when it is not the
 * user's own, is open to others, or cannot be made. */
JitCache *jit_cache_open(const char *dir, VmError *err);
void jit_cache_close(JitCache *c);
const char *jit_cache_path(const JitCache *c);
JitCacheStats jit_cache_stats(JitCache *c);
/* The key of the code in ctx: one item's functions alone, built with link
 * slots; self its symbol (the OSR entry's and the slots' names start with
 * it).  False: no key (counted as an error). */
bool jit_cache_key(JitCache *c, gcc_jit_context *ctx, const char *self, const char *optset, JitCacheKey *key);
/* A hit: the entry's object loaded, its symbol names in syms.  False: a
 * miss (none, or a bad entry, ignored). */
bool jit_cache_load(JitCache *c, const JitCacheKey *key, JitLoaded *out, JitCacheSyms *syms);
/* Stores obj (a unit's object file, as's output, holding the item's symbols syms)
 * under key; false if it could not be written (counted). */
bool jit_cache_store(JitCache *c, const JitCacheKey *key, const void *obj, size_t len, const JitCacheSyms *syms);
/* A module's files (its preload list, jit/preload.c, suffix "run"; its
 * bakeoffs' verdicts, audit/, "won"): a file's name (the hash of tally's
 * build id, the module's bytes and the configuration text that decides its
 * code, "." suffix), written whole under a temporary name with a
 * checksum, and read back checked (false: none, or damaged, counted bad). */
void jit_cache_module_name(const JitCache *c, const void *module, size_t len, const char *config, const char *suffix,
                           char *buf, size_t size);
bool jit_cache_put_note(JitCache *c, const char *name, const void *data, size_t len);
bool jit_cache_get_note(JitCache *c, const char *name, VmBuf *out);
void jit_cache_count_preloaded(JitCache *c);

/* ---- elfload.c: a relocatable object loaded without ld or dlopen --------- */

typedef struct JitElf JitElf;
/* Maps, relocates and protects the object's sections (the bytes are the
 * caller's, not kept); NULL + err when it holds what is not supported. */
JitElf *jit_elf_load(const void *obj, size_t len, VmError *err);
/* A symbol defined in it, and its size (0 if none); NULL if none. */
void *jit_elf_symbol(const JitElf *e, const char *name, size_t *size);
/* Unmaps an object none of whose code has run or will run (tests). */
void jit_elf_free(JitElf *e);

/* ---- preload.c: cached code before the program starts ------------------- */

typedef struct JitPreload JitPreload;
/* An item loaded, to install: its entry and/or OSR entry at osr_pc. */
typedef struct JitPreloaded {
    VmMethod *m;
    VmEntry entry;                /* NULL: OSR code only */
    VmOsrEntry osr_entry;         /* NULL: none */
    const VmInsn *osr_pc;
    void *unit;                   /* its loaded object */
    size_t code_bytes;
    double us;                    /* reading, resolving and loading it */
} JitPreloaded;
/* The recorder of mod's run, its list the cache file name (NULL without
 * a cache, or out of memory). */
JitPreload *jit_preload_new(VmModule *mod, JitCache *cache, const char *name);
/* An item found in the cache or stored there, with its slots l and error
 * sites w: listed for the next run when every slot can be described. */
void jit_preload_note(JitPreload *pl, const JitCacheKey *key, const VmMethod *m, const VmInsn *osr_pc, bool osr_only,
                      const JitLinks *l, const JitWheres *w);
/* Loads the items the last run listed and calls install for each that
 * loads, then sets the listed profile of each method whose entry was
 * installed; returns how many loaded.  Call before the program starts. */
size_t jit_preload_run(JitPreload *pl, void (*install)(void *ctx, const JitPreloaded *x), void *ctx);
/* Writes this run's list (none noted: the last one stays). */
bool jit_preload_save(JitPreload *pl);
void jit_preload_free(JitPreload *pl);

#endif
