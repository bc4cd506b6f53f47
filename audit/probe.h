/* audit/probe.h — what one call of a method's installed code costs,
 * measured before any variant of it is compiled (audit/probe.c).
 *
 * A probe stands in front of the method's code for a moment: one entry
 * store puts au_probe_entry there, every AU_PROBE_EVERY-th call is timed
 * (the cycle counter around the call, its recursion included and untimed,
 * as a dispatcher's timed call), and one store puts the code back.  The
 * bakeoff thread asks it before compiling: a method whose installed code
 * reads below audit.min_cycles would end "too cheap to time" after its
 * variants had compiled (0.1-0.3 s of the bakeoff thread each) and
 * sampled, so it ends before.
 */
#ifndef TALLY_AUDIT_PROBE_H
#define TALLY_AUDIT_PROBE_H

#include "audit.h"
#include "vm.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    AU_PROBE_EVERY = 16,    /* 1 outermost call in this many is timed while a probe stands */
};

typedef struct AuProbe {
    VmEntry code;           /* the code it stands in front of */
    int32_t countdown;      /* calls until the next timed one (threads share it: a lost update only moves a sample) */
    uint32_t n;             /* timed calls so far (may pass AU_PROBE_MAX: only that many are kept) */
    uint64_t calls;         /* calls through the entry, nested ones too (counted without a read-modify-write: a few may be lost) */
    uint32_t cycles[AU_PROBE_MAX];
} AuProbe;

/* Puts p in front of m's installed code (compiled code, not a dispatcher
 * of a running bakeoff: the caller knows), one entry store.  False when
 * m runs in the interpreter or its code changed meanwhile.  p is m's for
 * good: a thread may still be in au_probe_entry after au_probe_remove, so
 * p must not be freed or given to another method while the program runs. */
bool au_probe_install(AuProbe *p, VmMethod *m);
/* m's code back, unless something replaced the probe meanwhile (the
 * JIT installed new code): false then, and the calls after that went
 * past the probe. */
bool au_probe_remove(AuProbe *p, VmMethod *m);
/* Timed calls kept so far. */
uint32_t au_probe_count(const AuProbe *p);
/* Calls through the entry so far, nested ones included: what a
 * dispatcher in its place would see. */
uint64_t au_probe_calls(const AuProbe *p);
/* Mean cycles of a timed call over the first `count` kept, the slowest
 * share `drop` of them left out (audit.trim_drop / audit.trim_window: the
 * analysis's share); 0 when count is 0. */
double au_probe_mean(const AuProbe *p, uint32_t count, double drop);

/* The entry a probe installs (tests call it through m->entry). */
VmValue au_probe_entry(VmThread *t, VmMethod *m, VmValue *args);

#endif
