/* tests/unit/audit_sim.c — synthetic timing streams and the default
 * configuration shared by the auditor's statistics tests
 * (test_audit_stats.c, test_audit_confirm.c). */
#include "audit_sim.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool sim_verbose(void)
{
    return getenv("AUDIT_SIM_VERBOSE") != NULL;
}

/* The defaults of the tunables table, as the VM would configure them. */
AuConfig sim_config(void)
{
    AuConfig cfg;
    VmError err;
    au_config_default(&cfg);
    if (!au_config_check(&cfg, &err))
        test_fail(__FILE__, __LINE__, "default audit config rejected: %s", err.msg);
    cfg.min_effect = 0;   /* the tests here measure the test itself: any difference */
    return cfg;
}

bool sim_near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want) + 1e-300;
}

/* −ln u at the midpoints of 2^16 bins: an exponential variate per 16 bits. */
static double neglog[1 << 16];
static double spread = 1500;

void sim_init(void)
{
    if (neglog[0] != 0)
        return;
    for (int i = 0; i < 1 << 16; i++)
        neglog[i] = -log((i + 0.5) / 65536.0);
    const char *s = getenv("AUDIT_SIM_SPREAD");
    if (s && atof(s) > 0 && atof(s) <= 2500)
        spread = atof(s);
}

/* One call's cycles: a base cost plus a gamma(2) delay (mean 3000, skewed),
 * and in 2% of calls an interruption that multiplies the call by 2–33.
 * The whole is scaled by `factor` (a variant x% faster: 1 − x), so the
 * ratio of (trimmed) means is exactly the factor.  Trimmed CV ≈ 0.33
 * (0.59 with AUDIT_SIM_SPREAD=2500). */
uint64_t sim_draw(AuRng *r, double factor)
{
    uint64_t u = au_rng_next(r);
    double c = 5000 - 2 * spread + spread * (neglog[u & 0xffff] + neglog[(u >> 16) & 0xffff]);
    if ((u >> 32 & 0xffff) < 1311)                       /* 2% */
        c *= 2 + 31 * ((u >> 48) / 65536.0);
    return (uint64_t)(c * factor + 0.5);
}

double sim_spread(void)
{
    return spread;
}
