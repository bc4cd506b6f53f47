/* audit/probe.c — timing a method's installed code before a bakeoff
 * compiles anything (probe.h).
 *
 * Input: a method running compiled code.  Output: cycles of its timed
 * calls, read the way a dispatcher's timed wrapper reads them (fenced
 * cycle counter before and after the call; calls of the method nested in
 * a timed call run untimed and count in it).
 *
 * Invariants:
 * - m->tier holds m's probe from its first install on (nothing else uses
 *   that field: vm.h gives it to the higher tiers); the probe entry finds
 *   its probe there, so one C function serves every method.
 * - A probe is never freed or reused while the program runs: a thread
 *   that loaded m->entry before the remove may still be inside.  Its
 *   samples then land in the probe's own array, after the reader looked.
 * - The program's threads take no lock here; the countdown is shared and
 *   updated without a read-modify-write, so two threads may time the
 *   same window twice or skip one: a sample moves, none is corrupted.
 */
#include "probe.h"
#include "audit.h"

#include <stdlib.h>
#include <string.h>

VmValue au_probe_entry(VmThread *t, VmMethod *m, VmValue *args)
{
    AuProbe *p = __atomic_load_n((AuProbe **)&m->tier, __ATOMIC_ACQUIRE);
    __atomic_store_n(&p->calls, __atomic_load_n(&p->calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    if (t->probe_depth++ == 0) {
        int32_t left = __atomic_load_n(&p->countdown, __ATOMIC_RELAXED) - 1;
        __atomic_store_n(&p->countdown, left > 0 ? left : AU_PROBE_EVERY, __ATOMIC_RELAXED);
        if (left <= 0) {
            uint64_t c0 = au_cycles();
            VmValue r = p->code(t, m, args);
            uint64_t c1 = au_cycles();
            t->probe_depth--;
            uint32_t i = __atomic_fetch_add(&p->n, 1, __ATOMIC_RELAXED);
            if (i < AU_PROBE_MAX)
                __atomic_store_n(&p->cycles[i], c1 - c0 > UINT32_MAX ? UINT32_MAX : (uint32_t)(c1 - c0),
                                 __ATOMIC_RELAXED);
            return r;
        }
    }
    VmValue r = p->code(t, m, args);
    t->probe_depth--;
    return r;
}

bool au_probe_install(AuProbe *p, VmMethod *m)
{
    VmEntry found = __atomic_load_n(&m->entry, __ATOMIC_ACQUIRE);
    if (found == vm_interp_entry || found == au_probe_entry)
        return false;
    p->code = found;
    __atomic_store_n(&p->countdown, AU_PROBE_EVERY, __ATOMIC_RELAXED);
    __atomic_store_n(&p->n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->calls, 0, __ATOMIC_RELAXED);
    void *before = __atomic_exchange_n(&m->tier, p, __ATOMIC_RELEASE);
    if (__atomic_compare_exchange_n(&m->entry, &found, au_probe_entry, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        return true;
    __atomic_store_n(&m->tier, before, __ATOMIC_RELAXED);   /* p was never reachable: the caller may free it */
    return false;
}

bool au_probe_remove(AuProbe *p, VmMethod *m)
{
    VmEntry expect = au_probe_entry;
    return __atomic_compare_exchange_n(&m->entry, &expect, p->code, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

uint32_t au_probe_count(const AuProbe *p)
{
    uint32_t n = __atomic_load_n(&p->n, __ATOMIC_RELAXED);
    return n < AU_PROBE_MAX ? n : AU_PROBE_MAX;
}

uint64_t au_probe_calls(const AuProbe *p)
{
    return __atomic_load_n(&p->calls, __ATOMIC_RELAXED);
}

static int by_cycles(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

double au_probe_mean(const AuProbe *p, uint32_t count, double drop)
{
    if (count > AU_PROBE_MAX)
        count = AU_PROBE_MAX;
    uint32_t v[AU_PROBE_MAX], got = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = __atomic_load_n(&p->cycles[i], __ATOMIC_RELAXED);
        if (c)   /* 0: counted, not yet stored (no timed call reads 0) */
            v[got++] = c;
    }
    if (got == 0)
        return 0;
    count = got;
    qsort(v, count, sizeof v[0], by_cycles);
    uint32_t keep = count - (uint32_t)(drop * count);
    if (keep == 0)
        keep = 1;
    double sum = 0;
    for (uint32_t i = 0; i < keep; i++)
        sum += v[i];
    return sum / keep;
}
