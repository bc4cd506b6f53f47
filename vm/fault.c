/* vm/fault.c — fault injection for tests (-X vm.faults).
 *
 * Input: a spec "NAME[:N],..." naming points of vm/faults.def.  Output:
 * vm_fault(P) is true on every Nth call for a named point (then the caller
 * fails as it would for real), and counts what it injected.
 * Invariants: the state is process-wide, as the points are (threads,
 * files, the compiler): set once before the VM starts, read and counted
 * atomically from any thread afterwards.  Unnamed points never fail, at
 * the cost of one load.
 */
#include "vm.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[VM_FAULT_COUNT] = {
#define FAULT(id, name, help) [VM_FAULT_##id] = name,
#include "faults.def"
#undef FAULT
};

static struct {
    uint64_t every;      /* 0: never */
    uint64_t calls, injected;
} points[VM_FAULT_COUNT];

const char *vm_fault_name(VmFault f)
{
    return f < VM_FAULT_COUNT ? names[f] : "?";
}

bool vm_faults_set(const char *spec, VmError *err)
{
    uint64_t every[VM_FAULT_COUNT] = {0};
    for (const char *p = spec ? spec : ""; *p;) {
        size_t n = strcspn(p, ",:");
        int f = 0;
        while (f < VM_FAULT_COUNT && (strlen(names[f]) != n || strncmp(names[f], p, n)))
            f++;
        if (f == VM_FAULT_COUNT) {
            char list[256] = "";
            for (int i = 0; i < VM_FAULT_COUNT; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
            return vm_fail(err, "tunable 'vm.faults': unknown fault point '%.*s' (one of %s)", (int)n, p, list);
        }
        p += n;
        every[f] = 1;
        if (*p == ':') {
            char *end;
            unsigned long long v = strtoull(p + 1, &end, 10);
            if (end == p + 1 || v == 0 || (*end && *end != ','))
                return vm_fail(err, "tunable 'vm.faults': '%s' needs a count of 1 or more after ':'", names[f]);
            every[f] = v;
            p = end;
        }
        if (*p == ',')
            p++;
    }
    for (int f = 0; f < VM_FAULT_COUNT; f++) {
        __atomic_store_n(&points[f].calls, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&points[f].injected, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&points[f].every, every[f], __ATOMIC_RELEASE);
    }
    return true;
}

bool vm_fault(VmFault f)
{
    uint64_t every = __atomic_load_n(&points[f].every, __ATOMIC_ACQUIRE);
    if (!every)
        return false;
    if (__atomic_add_fetch(&points[f].calls, 1, __ATOMIC_RELAXED) % every)
        return false;
    __atomic_add_fetch(&points[f].injected, 1, __ATOMIC_RELAXED);
    return true;
}

uint64_t vm_fault_injected(VmFault f)
{
    return __atomic_load_n(&points[f].injected, __ATOMIC_RELAXED);
}

bool vm_faults_any(void)
{
    for (int f = 0; f < VM_FAULT_COUNT; f++)
        if (__atomic_load_n(&points[f].every, __ATOMIC_RELAXED))
            return true;
    return false;
}
