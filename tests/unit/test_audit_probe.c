/* tests/unit/test_audit_probe.c — audit/probe.c: a probe times 1 outermost
 * call in AU_PROBE_EVERY of the code it stands in front of, passes every
 * call through, and puts the code back. */
#include "probe.h"
#include "test.h"

#include <stdlib.h>

static int ran;   /* calls of fake_code */

/* The method's "compiled code": args[0].i more levels of recursion
 * through the method's entry (as the JIT's code calls itself), then
 * returns args[1] + 1. */
static VmValue fake_code(VmThread *t, VmMethod *m, VmValue *args)
{
    ran++;
    if (args[0].i > 0) {
        VmValue inner[2] = {{.i = args[0].i - 1}, args[1]};
        return m->entry(t, m, inner);
    }
    return (VmValue){.i = args[1].i + 1};
}

/* Spins until the cycle counter has moved by args[0].i. */
static VmValue slow_code(VmThread *t, VmMethod *m, VmValue *args)
{
    (void)t;
    (void)m;
    uint64_t start = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - start < (uint64_t)args[0].i)
        ;
    return args[0];
}

TEST(audit_probe_counts_outermost_calls)
{
    VmMethod m = {.entry = fake_code};
    VmThread t = {0};
    AuProbe *p = calloc(1, sizeof *p);
    CHECK(au_probe_install(p, &m));
    CHECK(m.entry == au_probe_entry);
    CHECK(m.tier == p);
    CHECK(!au_probe_install(p, &m));   /* a probe is already there */
    ran = 0;
    VmValue args[2] = {{.i = 0}, {.i = 41}};
    for (int i = 0; i < 4 * AU_PROBE_EVERY; i++)
        CHECK_INT(m.entry(&t, &m, args).i, 42);
    CHECK_INT(ran, 4 * AU_PROBE_EVERY);
    CHECK_INT(au_probe_count(p), 4);
    CHECK_INT(au_probe_calls(p), 4 * AU_PROBE_EVERY);
    /* recursive calls: 6 invocations each, only the outermost counted and
     * timed, with its recursion inside */
    args[0].i = 5;
    for (int i = 0; i < 2 * AU_PROBE_EVERY; i++)
        CHECK_INT(m.entry(&t, &m, args).i, 42);
    CHECK_INT(ran, 4 * AU_PROBE_EVERY + 12 * AU_PROBE_EVERY);
    CHECK_INT(au_probe_count(p), 6);
    CHECK_INT(t.probe_depth, 0);
    CHECK_INT(au_probe_calls(p), 16 * AU_PROBE_EVERY);   /* nested calls count: a dispatcher sees them */
    for (uint32_t i = 0; i < 6; i++)
        CHECK(p->cycles[i] > 0);
    au_probe_remove(p, &m);
    CHECK(m.entry == fake_code);
    /* after the remove, a call runs the code alone */
    CHECK_INT(m.entry(&t, &m, args).i, 42);
    CHECK_INT(au_probe_count(p), 6);
    /* nothing to probe in the interpreter */
    VmMethod interp = {.entry = vm_interp_entry};
    CHECK(!au_probe_install(p, &interp));
    free(p);
}

TEST(audit_probe_reads_the_calls_cycles)
{
    VmMethod m = {.entry = slow_code};
    VmThread t = {0};
    AuProbe *p = calloc(1, sizeof *p);
    CHECK(au_probe_install(p, &m));
    VmValue args[1] = {{.i = 5000}};
    for (int i = 0; i < 40 * AU_PROBE_EVERY; i++)
        m.entry(&t, &m, args);
    au_probe_remove(p, &m);
    CHECK_INT(au_probe_count(p), 40);
    double mean = au_probe_mean(p, au_probe_count(p), 0.1);
    if (!(mean >= 5000 && mean < 50000))
        test_fail(__FILE__, __LINE__, "a 5000-cycle call read %.0f cycles", mean);
    free(p);
}

TEST(audit_probe_mean_trims_the_slowest)
{
    AuProbe *p = calloc(1, sizeof *p);
    for (uint32_t i = 0; i < 100; i++)
        p->cycles[i] = 100 - i;            /* 100, 99, ..., 1 */
    p->n = 100;
    /* the slowest 10 (91..100) dropped: the mean of 1..90 */
    CHECK_INT((long long)(au_probe_mean(p, 100, 0.1) * 10), 455);
    CHECK_INT((long long)au_probe_mean(p, 100, 0), 50);   /* 50.5 */
    /* a sample counted but not yet stored reads 0 and is left out */
    p->cycles[0] = 0;
    CHECK_INT((long long)(au_probe_mean(p, 100, 0) * 10), 500);   /* 1..99 */
    CHECK_INT((long long)au_probe_mean(p, 0, 0.1), 0);
    free(p);
}
