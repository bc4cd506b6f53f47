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
 *   asm hook (markers will edit here) ─▶ load.c: as + ld -shared + dlopen
 *        ▼
 *   install: m->entry = code (one store); failures leave the method as it was
 *
 * Compiled code has the VM's calling convention (VmEntry): it reads its
 * arguments from args[], pushes a VmFrame so stack traces see it, keeps
 * the frame's pc current before anything that can raise or call out,
 * calls other methods through their current entry, and pops its frame.
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
    int64_t priority;       /* hotness: calls + back edges when queued */
    double t_queued;        /* seconds (clock) when queued */
} JitRequest;

/* What a compile produced and what it cost. */
typedef struct JitResult {
    VmEntry entry;          /* NULL on failure */
    void *unit;             /* the loaded object, kept alive: a dlopen handle
                               (jit.load=as) or a gcc_jit_result * (jit.load=gccjit) */
    size_t code_bytes;
    double us_ir, us_compile, us_assemble;   /* microseconds per phase */
} JitResult;

typedef struct Jit Jit;

/* Creates the tier for vm and wires vm->hooks; mode JIT_OFF wires nothing. */
Jit *jit_new(Vm *vm, JitMode mode, VmError *err);
/* Stops the compile thread (waiting for the compile in progress), unloads nothing
 * that may still run. */
void jit_free(Jit *jit);

/* Compiles one request on the calling thread; on success installs nothing
 * (the caller decides).  Never raises; errors go to err. */
bool jit_compile(Jit *jit, JitRequest *rq, JitResult *out, VmError *err);

/* Parses "off", "on", "eager", "sync". */
bool jit_mode_parse(const char *s, JitMode *out);

#endif
