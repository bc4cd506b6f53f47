/* vm/vm.h — the tally virtual machine: module format, runtime objects, API.
 *
 * One header for everything the VM exports (prefix vm_ / Vm).  Life of a
 * program:
 *
 *   .tla text ──vm_asm──▶ VmModule ◀──vm_module_read── .tlb bytes
 *                           │  ▲vm_module_write / vm_dis (back to bytes / text)
 *                           ▼
 *                      vm_verify        types, indices, targets, returns
 *                           ▼
 *                      vm_link          runtime classes, vtables, itables,
 *                           │           natives (dlopen+ffi), constants,
 *                           ▼           threaded code, profile counters
 *                      vm_run           interpreter; hooks to higher tiers
 *
 * A VmModule is the decoded, in-memory form of a module: the assembler
 * builds one, the reader decodes one, the writer and disassembler print
 * one.  Cross references are indices until vm_link resolves them to
 * pointers (VmInsn.k.p, VmType.cls, ...).  Nothing executes before
 * vm_verify accepted the module.
 */
#ifndef TALLY_VM_H
#define TALLY_VM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tunables.h"

#define VM_VERSION_STRING "0.1.0"
#define VM_FORMAT_MAGIC "TLB\x1a"     /* 4 bytes at the start of a .tlb */
#define VM_FORMAT_VERSION 3u          /* bumped on any incompatible change */
#define VM_NONE UINT32_MAX            /* "no index" in module tables */
#define VM_AUDIT_SLOTS 16             /* VmThread.audit: the auditor's policy slots */

typedef struct Vm Vm;
typedef struct VmThread VmThread;
typedef struct VmModule VmModule;
typedef struct VmType VmType;
typedef struct VmClass VmClass;
typedef struct VmMethod VmMethod;
typedef struct VmNative VmNative;

/* ---- errors returned by library code (never exit()) -------------------- */

typedef struct VmError {
    char msg[1024];
} VmError;

/* Formats into err (if non-NULL) and returns false, for `return vm_fail(...)`. */
bool vm_fail(VmError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- opcodes ------------------------------------------------------------ */

typedef enum VmOp {
#define OP(name, operands, types, summary) VM_OP_##name,
#include "opcodes.def"
#undef OP
    VM_OP_COUNT
} VmOp;

typedef struct VmOpInfo {
    const char *name;      /* "ADD" */
    const char *operands;  /* "drr" */
    const char *types;     /* "III" or "*" */
    const char *summary;
} VmOpInfo;

extern const VmOpInfo vm_op_info[VM_OP_COUNT];
int vm_op_lookup(const char *name, size_t len);  /* -1 if unknown */

/* ---- values and decoded instructions ------------------------------------ */

/* One register, one field, one global: 8 bytes, typed statically. */
typedef union VmValue {
    int64_t i;      /* int, and bool as 0/1 */
    double f;
    void *p;        /* any reference; NULL is null */
} VmValue;

/* A decoded instruction.  Operands fill a, b, c in order of the opcode's
 * operand string; `i`/`f` immediates go to k.  vm_link fills `h` with the
 * handler address (threaded dispatch) and k.p / k.i with resolved data:
 *   conditional branches, backward JMP, LOOP: k.i = branch profile slot
 *   CALL: k.p = VmMethod*     CALLV/CALLI: k.p = VmCallSite*
 *   CALLN: k.p = VmNative*    CLOS: k.p = VmMethod*
 *   NEW: k.p = VmClass*       NEWA/ISA/CAST: k.p = VmType*
 *   LDK: k.p = VmString*      LDG/STG: k.p = VmValue* (the global)
 *   GETF/PUTF: k.i = field slot index in the object
 * D operands hold -1 for "none". */
typedef struct VmInsn {
    const void *h;
    uint32_t op;
    int32_t a, b, c;
    union { int64_t i; double f; void *p; } k;
} VmInsn;

/* ---- types -------------------------------------------------------------- */

typedef enum VmTypeKind {
    VM_T_VOID,     /* only as a return type */
    VM_T_INT,
    VM_T_FLOAT,
    VM_T_BOOL,
    VM_T_STRING,
    VM_T_OBJECT,   /* the root reference type */
    VM_T_CLASS,    /* ref = class index */
    VM_T_IFACE,    /* ref = class index of an interface */
    VM_T_ARRAY,    /* ref = element type index (< own index) */
    VM_T_FUNC,     /* ret + params: type indices (< own index) */
    VM_T_COUNT
} VmTypeKind;

struct VmType {
    uint8_t kind;
    uint32_t ref;          /* CLASS/IFACE: class index; ARRAY: element type */
    uint32_t ret;          /* FUNC: return type index */
    uint32_t nparams;      /* FUNC */
    uint32_t *params;      /* FUNC: parameter type indices */
    /* filled by vm_link */
    VmClass *cls;          /* CLASS/IFACE: the class; ARRAY/FUNC: the runtime
                              class of such arrays / closures */
    VmType *elem;          /* ARRAY: element type */
    VmType *canon;         /* the first structurally equal type in the module */
};

static inline bool vm_type_is_ref(const VmType *t) { return t->kind >= VM_T_STRING; }

/* ---- module tables ------------------------------------------------------ */

enum {                      /* VmClass.flags */
    VM_C_ABSTRACT = 1u << 0,
    VM_C_INTERFACE = 1u << 1,
};

enum {                      /* VmMethod.flags */
    VM_M_STATIC = 1u << 0,   /* no receiver */
    VM_M_ABSTRACT = 1u << 1, /* no code (interface or abstract method) */
    VM_M_LAMBDA = 1u << 2,   /* register 0 is the closure; ncaps captures */
};

typedef struct VmField {
    char *name;
    uint32_t owner;        /* class index */
    uint32_t type;         /* type index */
    uint32_t slot;         /* filled by vm_link: index among the object's fields */
} VmField;

typedef struct VmLine {
    uint32_t pc;           /* first instruction index with this line */
    uint32_t line;
} VmLine;

typedef enum VmRuntimeKind {   /* VmClass.rkind: what instances look like */
    VM_RK_OBJECT,   /* the root class Object (never instantiated) */
    VM_RK_INSTANCE, /* a class of the module */
    VM_RK_IFACE,    /* an interface (no instances) */
    VM_RK_STRING,
    VM_RK_ARRAY,
    VM_RK_CLOSURE,
} VmRuntimeKind;

/* A class or interface of the module; vm_link also makes runtime-only
 * classes for Object, string, each array type and each function type. */
struct VmClass {
    char *name;
    uint32_t flags;        /* VM_C_* */
    uint32_t super;        /* class index, VM_NONE = Object */
    uint32_t nifaces;      /* declared interfaces (class) / super-interfaces */
    uint32_t *ifaces;      /* class indices */
    uint32_t nvtable;      /* class: vtable = method indices, inherited slots */
    uint32_t *vtable;      /*   first;  interface: its methods in slot order */
    uint32_t nimap;        /* class: explicit interface-method bindings, */
    uint32_t *imap;        /*   2*nimap method indices: (interface method,
                              implementing vtable method) pairs; they win
                              over the short-name rule, subclasses inherit
                              them (docs/bytecode.md "Itables") */
    /* filled by vm_link */
    uint8_t rkind;         /* VmRuntimeKind */
    uint32_t index;
    VmClass *superc;       /* NULL for Object and interfaces */
    uint32_t depth;        /* Object = 0 */
    VmClass **display;     /* display[d] = ancestor at depth d (d <= depth) */
    uint32_t nfields;      /* all fields, inherited first */
    VmType **field_types;
    size_t size;           /* bytes of an instance */
    bool has_refs;         /* false: allocate atomic */
    VmMethod **vt;         /* resolved vtable */
    uint32_t nall_ifaces;  /* every interface implemented, transitively */
    VmClass **all_ifaces;
    VmMethod ***itables;   /* itables[i][slot] for all_ifaces[i] */
    VmType *type;          /* ARRAY/CLOSURE classes: their type */
};

/* Profile counters are written by the program's thread without locks and
 * read by the compile and auditor threads while it runs: relaxed atomic
 * loads and stores (plain moves on x86-64, no locked increment), so that a
 * reader sees a value the counter really had and the accesses are no data
 * race in C11's terms (nor in ThreadSanitizer's).  An increment is a load
 * and a store: only the program's thread writes a counter. */
#define VM_PROF_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define VM_PROF_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define VM_PROF_BUMP(x) VM_PROF_SET(x, VM_PROF_GET(x) + 1)

/* Per conditional branch (and backward jump): execution counts. */
typedef struct VmBranchProf {
    uint64_t taken;
    uint64_t not_taken;
    uint32_t pc;
} VmBranchProf;

#define VM_SITE_WAYS 4
/* Per virtual/interface call site: the receiver classes seen (the profile)
 * double as the interpreter's polymorphic inline cache for interface
 * dispatch (seen[i].m); cache_cls/cache_m serve receivers beyond the ways. */
typedef struct VmCallSite {
    VmMethod *target;      /* the statically named method */
    uint32_t pc;
    VmClass *cache_cls;
    VmMethod *cache_m;
    struct { VmClass *cls; uint64_t count; VmMethod *m; } seen[VM_SITE_WAYS];
    uint64_t other;        /* calls whose receiver class did not fit */
} VmCallSite;

typedef struct VmProfile {
    uint64_t calls;        /* invocations */
    uint64_t backedges;    /* backward jumps taken */
    int64_t hot_countdown; /* calls + backedges left until the hot hook */
    bool hot;              /* the hot hook has been called */
    uint32_t nbranches;
    VmBranchProf *branches;
    uint32_t nsites;
    VmCallSite *sites;
    uint64_t osr_entries;  /* times the interpreter entered OSR code (m->osr) */
} VmProfile;

/* How a method is entered: the interpreter's entry, or compiled code.
 * args points at the caller's argument registers (param 0 first). */
typedef VmValue (*VmEntry)(VmThread *t, VmMethod *m, VmValue *args);

/* On-stack replacement: compiled code entered by the interpreter in the
 * middle of a running activation of m, at the loop header `pc`, when a
 * back edge jumps there.  The interpreter's frame for m is t->fp and its
 * registers are regs (== t->fp->base); the code loads them, continues
 * from the header, and at the end pops that frame as a return does
 * (t->fp = the frame below) and returns the method's result.  Immutable
 * once published: a tier replaces m->osr with one release store. */
typedef VmValue (*VmOsrEntry)(VmThread *t, VmMethod *m, VmValue *regs);
typedef struct VmOsr {
    const VmInsn *pc;      /* the loop header (an instruction of m->code) */
    VmOsrEntry entry;
} VmOsr;

struct VmMethod {
    VmEntry entry;         /* current entry: one store installs new code */
    char *name;            /* "Class.name", "name" for functions */
    uint32_t flags;        /* VM_M_* */
    uint32_t owner;        /* class index, VM_NONE for functions */
    uint32_t nparams;      /* registers 0..nparams-1 are the parameters */
    uint32_t ret;          /* type index (VM_T_VOID type for none) */
    uint32_t nregs;
    uint32_t *regs;        /* type index of each register */
    uint32_t ncaps;        /* LAMBDA: capture types */
    uint32_t *caps;
    uint32_t ncode;
    VmInsn *code;
    uint32_t nlines;       /* sorted by pc */
    VmLine *lines;
    uint32_t file;         /* source file of the lines: 0 = the module's
                              `source`, k = files[k - 1] (imports) */
    /* filled by vm_link */
    uint32_t index;
    VmModule *module;
    VmClass *ownerc;
    int32_t slot;          /* vtable or interface slot, -1 if none */
    VmType *rtype;         /* resolved return type */
    VmProfile prof;
    void *tier;            /* owned by the higher tiers (jit/, audit/) */
    const VmOsr *osr;      /* OSR code, NULL if none (load with acquire) */
};

typedef VmValue (*VmBuiltinFn)(VmThread *t, VmValue *args);

struct VmNative {
    char *name;            /* name the module calls it by */
    char *lib;             /* "" = built-in; else a dlopen() name */
    char *symbol;
    uint32_t nparams;
    uint32_t *params;      /* type indices */
    uint32_t ret;          /* type index */
    /* filled by vm_link */
    VmBuiltinFn builtin;   /* built-ins */
    void *fn;              /* extern: the symbol's address */
    void *cif;             /* extern: ffi_cif * */
};

typedef struct VmGlobal {
    char *name;
    uint32_t type;
} VmGlobal;

typedef struct VmConst {   /* the constant pool holds strings */
    char *bytes;           /* NUL-terminated copy; may contain NULs */
    uint32_t len;
} VmConst;

struct VmModule {
    char *name;            /* module name */
    char *source;          /* source file named in stack traces */
    uint32_t nfiles;       /* further source files (VmMethod.file) */
    char **files;
    uint32_t nconsts;   VmConst *consts;
    uint32_t ntypes;    VmType *types;
    uint32_t nclasses;  VmClass *classes;     /* classes and interfaces */
    uint32_t nfields;   VmField *fields;
    uint32_t nmethods;  VmMethod *methods;
    uint32_t nnatives;  VmNative *natives;
    uint32_t nglobals;  VmGlobal *globals;
    uint32_t main;         /* method index, VM_NONE if the module has none */
    uint32_t init;         /* method run before main (global initializers) */
    /* filled by vm_link */
    Vm *vm;
    VmValue *gvals;        /* global values (a GC root) */
    void **cstrings;       /* VmString* per constant (a GC root) */
    bool linked;
};

/* module.c: allocation and type helpers */
VmModule *vm_module_new(void);
void vm_module_free(VmModule *m);
/* Appends a zeroed entry to a module table and returns its index. */
uint32_t vm_module_add_type(VmModule *m, const VmType *t);  /* dedups */
uint32_t vm_module_add_const(VmModule *m, const char *bytes, uint32_t len);
bool vm_type_equal(const VmModule *m, uint32_t a, uint32_t b);
/* Is a value of type `from` usable where `to` is expected (no cast)? */
bool vm_type_assignable(const VmModule *m, uint32_t from, uint32_t to);
/* Class relations by index: c is target or a subclass of it; c or a
 * superclass implements iface (through super-interfaces too); interface i
 * is target or extends it. */
bool vm_class_extends(const VmModule *m, uint32_t c, uint32_t target);
bool vm_class_implements(const VmModule *m, uint32_t c, uint32_t iface);
bool vm_iface_extends(const VmModule *m, uint32_t i, uint32_t target);
/* Writes the .tla spelling of a type ("int[]", "fn(int,Rect):bool"). */
void vm_type_print(const VmModule *m, uint32_t t, FILE *out);
size_t vm_type_format(const VmModule *m, uint32_t t, char *buf, size_t size);

/* ---- loading, writing, text form, verification -------------------------- */

/* Growable byte buffer. */
typedef struct VmBuf {
    uint8_t *data;
    size_t len, cap;
} VmBuf;
void vm_buf_put(VmBuf *b, const void *p, size_t n);
void vm_buf_free(VmBuf *b);

/* Reads a file whole; false with a message on failure. */
bool vm_read_file(const char *path, VmBuf *out, VmError *err);

/* load.c: decodes .tlb bytes; never trusts them.  NULL + err on failure. */
VmModule *vm_module_read(const uint8_t *data, size_t len, VmError *err);
/* write.c: encodes a module to .tlb bytes. */
void vm_module_write(const VmModule *m, VmBuf *out);
/* asm.c: assembles .tla text; errors are "file:line: message". */
VmModule *vm_asm(const char *text, size_t len, const char *filename, VmError *err);
/* dis.c: prints the canonical .tla text of a module. */
void vm_dis(const VmModule *m, FILE *out);
/* The same text with a `// N: <source line>` comment after each `line N`
 * directive, taken from the method's source file when it can be read. */
void vm_dis_source(const VmModule *m, FILE *out);
/* verify.c: the load-time verifier.  Messages are
 * "module: method NAME at offset PC: reason" (or name the table entry). */
bool vm_verify(const VmModule *m, VmError *err);

/* ---- runtime objects ---------------------------------------------------- */

/* Every heap object starts with its class. */
typedef struct VmObject {
    VmClass *cls;
    VmValue fields[];
} VmObject;

typedef struct VmString {
    VmClass *cls;
    int64_t length;
    uint64_t hash;         /* 0 = not computed yet */
    char bytes[];          /* length bytes + NUL */
} VmString;

typedef struct VmArray {
    VmClass *cls;
    int64_t length;
    union {                /* element storage by element type */
        int64_t i[1];
        double f[1];
        uint8_t b[1];      /* bool */
        void *p[1];
    } data;
} VmArray;

typedef struct VmClosure {
    VmClass *cls;
    VmMethod *method;
    VmValue caps[];
} VmClosure;

/* object.c: allocation (raises "out of memory" through t) and type tests */
void *vm_alloc(VmThread *t, size_t size, bool atomic);
VmObject *vm_new_object(VmThread *t, VmClass *c);
VmArray *vm_new_array(VmThread *t, VmType *type, int64_t length);
VmString *vm_new_string(VmThread *t, const char *bytes, int64_t len);
VmString *vm_string_concat(VmThread *t, VmString *a, VmString *b);
bool vm_string_equal(const VmString *a, const VmString *b);
uint64_t vm_string_hash(VmString *s);
VmClosure *vm_new_closure(VmThread *t, VmMethod *lambda, const VmValue *caps);
/* The same allocations returning NULL instead of raising (compiled code
 * retries with the raising one after pushing its inline frames). */
VmObject *vm_try_new_object(VmThread *t, VmClass *c);
VmArray *vm_try_new_array(VmThread *t, VmType *type, int64_t length);
VmString *vm_try_string_concat(VmThread *t, VmString *a, VmString *b);
VmClosure *vm_try_new_closure(VmThread *t, VmMethod *lambda, const VmValue *caps);
/* The layout compiled code allocates inline with (jit/codegen.c): an
 * object of `size` bytes is popped off t->gc_fl[vm_gc_fl_index(size)], or
 * t->gc_fl_atomic[...] if it holds no references (-1 = no free list for
 * that size; the index is (size + VM_GC_SLACK) / VM_GC_GRANULE), then gets
 * the header the vm_new_* functions write.  A pointer-holding object comes
 * zeroed but for its first word (the link); a pointer-free one not at all. */
#define VM_GC_GRANULE 16   /* == GC_GRANULE_BYTES of 64-bit Boehm GC */
/* sizes round up to whole granules, with no extra byte for pointers just
 * past the end (object.c: the heap recognizes only pointers to the start) */
#define VM_GC_SLACK (VM_GC_GRANULE - 1)
int vm_gc_fl_index(size_t size);
size_t vm_object_size(const VmClass *c);
size_t vm_array_elem_size(const VmType *type, bool *refs);   /* type: the array type */
/* Bytes of an array of `length` (0 <= length, small enough not to overflow). */
size_t vm_array_size(const VmType *type, int64_t length);
VmClass *vm_array_class(const VmType *type);
size_t vm_closure_size(const VmMethod *lambda);
VmClass *vm_closure_class(const VmMethod *lambda);
/* Dynamic type test of a non-null reference against a resolved type. */
bool vm_instance_of(const void *obj, const VmType *type);
VmMethod *vm_itable_lookup(VmClass *c, VmClass *iface, int32_t slot);
/* Interface dispatch at call site s for receiver class c, when the site's
 * first way does not match: updates the site's profile and caches. */
VmMethod *vm_iface_dispatch(VmThread *t, VmCallSite *s, VmClass *c);

/* ---- tunables (the engine: tunables.h) ---------------------------------- */

/* The VM's own tunables (vm/vm_tunables.def). */
typedef struct VmTunables {
#define TUNABLE(field, name, kind, deflt, min, max, unit, help) VM_TUN_CTYPE_##kind field;
#define TUNABLE_STR(field, name, deflt, help) const char *field;
#include "vm_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
} VmTunables;
extern const VmTunGroup vm_tun_group;
void vm_tunables_default(VmTunables *tun);
/* "name=value" for a VM tunable only (tests, embedders). */
bool vm_tunables_set(VmTunables *tun, const char *assignment, VmError *err);
/* Closest of `candidates` to `word` by edit distance, or NULL if none is close. */
const char *vm_suggest(const char *word, const char *const *candidates, size_t n);

/* ---- the VM, threads, hooks -------------------------------------------- */

/* How the interpreter reaches higher tiers; the command wires these up. */
typedef struct VmHooks {
    void *ctx;
    /* A method became hot.  osr_pc is NULL when invocations made it hot,
     * else the loop header whose back edge did. */
    void (*hot)(Vm *vm, VmMethod *m, const VmInsn *osr_pc);
    /* After the hot hook, while m->osr does not match: m is still looping
     * in the interpreter at `header`.  Called every vm.osr_poll back edges
     * (a countdown slow path: ordinary back edges pay nothing); NULL = the
     * interpreter does not poll. */
    void (*osr)(Vm *vm, VmMethod *m, const VmInsn *header);
    /* --stats: called by every write of the stats JSON (profile.c), also
     * from the periodic writer thread while the program runs, after the
     * "methods" member; writes zero or more further top-level members,
     * each as `,\n"name":value` (audit/: "bakeoffs").  NULL = none.  It
     * must read only what another thread cannot free meanwhile (copies
     * taken under a lock).  stats_ctx is its own context, not ctx. */
    void (*stats_extra)(Vm *vm, FILE *f, void *stats_ctx);
    void *stats_ctx;
    /* --stats: the same, for the JIT's members (jit/: "compiles"), written
     * before stats_extra's.  NULL = none. */
    void (*stats_jit)(Vm *vm, FILE *f, void *stats_jit_ctx);
    void *stats_jit_ctx;
    /* A signal or the time limit ends the process now: called once on the
     * stats writer's thread before its final write, to complete files
     * another tier writes (audit.record).  NULL = none. */
    void (*at_end)(Vm *vm, void *end_ctx);
    void *end_ctx;
} VmHooks;

/* One active call.  Compiled code keeps one too, so stack traces see it;
 * its locals live on the C stack, so its register window is empty (top ==
 * base) and needs no clearing. */
typedef struct VmFrame {
    VmMethod *m;
    const VmInsn *pc;      /* current instruction (for lines) */
    VmValue *base;         /* registers */
    VmValue *top;          /* end of its registers: the next frame's base */
} VmFrame;

/* Per-thread free lists, one per 16-byte size class up to 1 KB: past
 * Boehm's own 25 tiny classes (400 bytes), so that AWFY's 50-slot vector
 * storage (416 bytes, Havlak's most allocated object) is popped inline
 * too instead of taking the collector's lock. */
#define VM_GC_FL 65
/* a head at most this is no object: empty (NULL) or, on the 25 lists
 * Boehm's gc_inline.h fills, one of its counts */
#define VM_GC_FL_EMPTY 26

/* The auditor's dispatch state of one thread for one policy slot
 * (audit/policy.c); zero is a valid start.  A dispatcher decrements
 * countdown, a timed wrapper reads timing (jit/codegen.c). */
typedef struct VmAuditSlot {
    int32_t countdown;
    int32_t variant;
    uint32_t rng;              /* xorshift32 of the gaps and the order; 0: not seeded */
    int32_t timing;            /* the variant the timed wrapper runs (slow path) */
    int32_t done;              /* bit k: variant k timed this cycle of the rotation */
} VmAuditSlot;

struct VmThread {
    Vm *vm;
    VmValue *stack, *stack_end;   /* register stack */
    VmValue *stack_hwm;           /* highest register ever used (GC scans below) */
    VmFrame *frames, *frames_end; /* frame stack */
    VmFrame *fp;                  /* top frame; the sentinel frames - 1 (top = stack) when none */
    char *cstack_limit;           /* lowest safe C stack address */
    jmp_buf *escape;              /* where vm_raise / vm_exit unwind to */
    int status;                   /* exit status after unwinding */
    int64_t steps_left;           /* interpreted calls + back edges left (vm.max_steps) */
    /* The auditor's dispatch state of this thread, one VmAuditSlot per slot;
     * zero is a valid start.  In the thread, not thread-local storage, so
     * that a dispatcher reaches its countdown from its t argument with one
     * decrement of memory, whichever thread calls it. */
    VmAuditSlot audit[VM_AUDIT_SLOTS];
    /* Calls of a probed method on this thread's stack (audit/probe.c):
     * only the outermost is timed, as a dispatcher times only calls from
     * outside the method. */
    uint32_t probe_depth;
    /* Small objects come from these per-thread free lists (one per
     * 16-byte size class, refilled a block at a time by Boehm's
     * GC_generic_malloc_many; object.c): no lock, no TLS lookup.  gc_fl
     * holds pointer-holding objects, gc_fl_atomic
     * pointer-free ones (strings, number arrays, objects without
     * reference fields).  Both are kept alive by the register-stack root
     * callback: the first through its heads (the links are traced), the
     * second object by object (atomic objects are never scanned). */
    void *gc_fl[VM_GC_FL];
    void *gc_fl_atomic[VM_GC_FL];
};

/* Built-in runtime classes (rkind OBJECT, STRING). */
struct Vm {
    VmTunables tun;
    VmHooks hooks;
    uint64_t stats_failed;        /* periodic --stats writes that failed (atomic) */
    VmModule *module;
    VmThread *main;
    int argc;                     /* program arguments (after the file) */
    char **argv;
    VmClass *object_class;
    VmClass *string_class;
    double start_time;
    /* link.c: runtime classes of array and function types, and the
     * uncollectable tables (module globals, constants); vm_free frees both */
    uint32_t nrtclasses;
    VmClass **rtclasses;
    uint32_t nroots;
    void **roots;
};

/* vm.c */
Vm *vm_new(const VmTunables *tun);
void vm_free(Vm *vm);
/* link.c: prepares a verified module for execution in vm. */
bool vm_link(Vm *vm, VmModule *m, VmError *err);
/* Runs init then main with the program arguments; returns the exit status
 * (0, the status given to exit(), or 1 after a runtime error, which has
 * been printed to stderr with its stack trace). */
int vm_run(Vm *vm, int argc, char **argv);
/* vm.cpu's value → *cpu (−1: empty, not pinned); false + err when it is
 * not a CPU this process may run on. */
bool vm_cpu_parse(const char *s, int *cpu, VmError *err);

/* vm.c: a thread's register stack and frame stack (a GC root up to
 * stack_hwm).  The main thread is made by vm_run. */
VmThread *vm_thread_new(Vm *vm);
void vm_thread_free(VmThread *t);

/* interp.c: the interpreter's entry (the initial VmMethod.entry).  The new
 * frame's registers start right after the top frame's (fp->base +
 * fp->m->nregs), or at the stack bottom when there is no frame. */
VmValue vm_interp_entry(VmThread *t, VmMethod *m, VmValue *args);
/* Handler address per opcode for threaded code (VmInsn.h), or NULL in the
 * switch-dispatch build (VM_SWITCH_DISPATCH), where h stays unused. */
const void *const *vm_interp_handlers(void);
/* Calls m through its current entry; used by natives and higher tiers. */
VmValue vm_call(VmThread *t, VmMethod *m, VmValue *args);

/* error.c: run-time errors.  Print "error: <msg>" and the stack trace, then
 * unwind to vm_run (status 1).  vm_exit unwinds with a given status. */
_Noreturn void vm_raise(VmThread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void vm_exit(VmThread *t, int status);
int vm_line_of(const VmMethod *m, const VmInsn *pc);

/* gc glue (object.c) */
void vm_gc_init(Vm *vm);
/* For threads other than main that touch the heap: 1 = registered by this
 * call (pair it with vm_gc_unregister_thread), 0 = the collector already
 * knew the thread (GC_pthread_create made it; do not unregister), -1 = failed. */
int vm_gc_register_thread(void);
void vm_gc_unregister_thread(void);
/* Adds/removes a thread's register stack to/from the GC roots (vm_thread_new
 * and vm_thread_free call these). */
bool vm_gc_add_thread(VmThread *t);
void vm_gc_remove_thread(VmThread *t);
/* The collector's counters, process-wide since it started (--stats "gc"). */
typedef struct VmGcStats {
    uint64_t collections;      /* collections so far */
    uint64_t bytes_allocated;  /* bytes allocated so far */
    uint64_t heap_bytes;       /* the heap's current size */
    uint64_t collect_ms;       /* time in collections (mark and the eager part of sweep) */
    uint64_t mark_us;          /* of which marking */
    uint64_t reclaim_us;       /* of which the sweep's eager part */
} VmGcStats;
VmGcStats vm_gc_stats(void);

/* builtins.c / native.c */
VmBuiltinFn vm_builtin_lookup(const char *symbol, const char **signature);
/* Binds n; with a VM, an extern first passes the VM's vm.natives policy
 * (vm NULL: every extern may bind, for tests). */
bool vm_native_bind(Vm *vm, VmModule *m, VmNative *n, VmError *err);
/* vm.natives: which externs (C functions through libffi) may bind;
 * built-ins always may. */
typedef enum VmNativesPolicy {
    VM_NATIVES_NONE,      /* none */
    VM_NATIVES_BUILTIN,   /* those of vm/natives_allowed.def: the standard library's */
    VM_NATIVES_ALL        /* any function of any library */
} VmNativesPolicy;
/* vm.natives's value ("none", "builtin", "all") → *policy (may be NULL). */
bool vm_natives_parse(const char *s, VmNativesPolicy *policy, VmError *err);
VmValue vm_native_call(VmThread *t, VmNative *n, VmValue *args);
/* Writes the shortest text that reads back as d ("1.0", "0.1", "1e+300",
 * "-inf", "nan") into buf (NUL-terminated, truncated to n) and returns its
 * full length.  Every tier formats floats with it (str, print, F2I errors). */
size_t vm_format_float(double d, char *buf, size_t n);

/* profile.c */
/* Splits m's code into basic blocks in instruction order and derives each
 * block's execution count from the profile.  Returns the block count;
 * starts[i] = first pc of block i, counts[i] = its count.  Both arrays need
 * m->ncode entries. */
uint32_t vm_block_counts(const VmMethod *m, uint32_t *starts, uint64_t *counts);
/* outfile.c: bytes to a file the user named: a regular file (or none)
 * through a new PATH.tmpPID.N renamed over it, "-" standard output, a FIFO, device
 * or symlink written in place and never replaced, anything else an error. */
bool vm_outfile_write(const char *path, const void *data, size_t len, VmError *err);
/* Whether path is a regular file or absent (and not "-"): one that can be
 * rewritten again and again, each time whole. */
bool vm_outfile_replaceable(const char *path);
/* All of data to fd, on EINTR again; false with errno (ENOSPC when the
 * `write` fault point fails it on purpose: vm/faults.def). */
bool vm_write_all(int fd, const void *data, size_t len);

/* fault.c: failures on purpose at the points of faults.def
 * (-X vm.faults=NAME[:N],...: every Nth time NAME is reached), for tests.
 * vm_faults_set replaces the whole spec (NULL or "" = none) and zeroes the
 * counts; vm_fault is true when the caller must fail this time. */
typedef enum VmFault {
#define FAULT(id, name, help) VM_FAULT_##id,
#include "faults.def"
#undef FAULT
    VM_FAULT_COUNT
} VmFault;
bool vm_faults_set(const char *spec, VmError *err);
bool vm_fault(VmFault f);
bool vm_faults_any(void);
uint64_t vm_fault_injected(VmFault f);
const char *vm_fault_name(VmFault f);

/* The profiles of every method as JSON (schema: docs/stats.md), in a
 * malloc'ed *out of *outlen bytes.  Safe while the program runs: counters
 * are read as they are (a snapshot, possibly torn between counters),
 * nothing that can change is followed. */
bool vm_stats_json(Vm *vm, char **out, size_t *outlen, VmError *err);
/* json.c: s (its first max bytes, up to its NUL) as a JSON string;
 * always valid UTF-8, invalid bytes written as U+FFFD. */
void vm_json_string(FILE *f, const char *s, size_t max);
/* vm_stats_json, written with vm_outfile_write. */
bool vm_stats_write(Vm *vm, const char *path, VmError *err);
/* --stats while the program runs: a thread rewrites PATH every period_ms
 * (0, or a PATH that is not vm_outfile_replaceable: only at the end) and,
 * with catch_signals, on SIGINT and SIGTERM,
 * after which the signal takes its default effect (the process ends as it
 * would have; hooks.at_end first).  PATH NULL: no file, the signals only
 * (for hooks.at_end).  NULL with err on a bad path or no memory. */
typedef struct VmStatsWriter VmStatsWriter;
VmStatsWriter *vm_stats_writer_start(Vm *vm, const char *path, int period_ms, bool catch_signals,
                                     VmError *err);
/* Stops the thread, writes the final file, restores the signal handlers,
 * frees w; if a signal arrived meanwhile, re-raises it (does not return).
 * False with err when the final write failed. */
bool vm_stats_writer_stop(VmStatsWriter *w, VmError *err);
/* Registers fn (async-signal-safe) to run before SIGINT, SIGTERM or the
 * time limit ends the process, and catches SIGINT and SIGTERM for it where
 * their action is the default; false when the few slots are taken.  Called
 * once per module (pthread_once), before its threads start. */
bool vm_at_fatal_signal(void (*fn)(void));
/* Ends the process with `status` from any thread (vm/watchdog.c's time
 * limit): when a writer catches signals, the way SIGINT and SIGTERM do,
 * on its thread after the final write; else at once.  Does not return. */
_Noreturn void vm_stats_exit(int status);

/* watchdog.c: vm.max_time.  A thread that, unless stopped first, ends the
 * process after `seconds` of wall-clock time with "error: time limit
 * exceeded" and VM_EXIT_TIME_LIMIT, through vm_stats_exit (so --stats is
 * still written), whether the program is interpreted or compiled: compiled
 * code never polls.  NULL when seconds <= 0 (no limit) or with err. */
#define VM_EXIT_TIME_LIMIT 3
typedef struct VmWatchdog VmWatchdog;
VmWatchdog *vm_watchdog_start(int64_t seconds, VmError *err);
/* Stops and frees w (NULL: nothing); once it returns, the limit can no
 * longer end the process. */
void vm_watchdog_stop(VmWatchdog *w);

#endif
