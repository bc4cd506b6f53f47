/* tests/unit/audit_sim.h — synthetic timing streams for the auditor's
 * statistics tests (audit_sim.c).  AUDIT_SIM_VERBOSE=1 prints measured
 * rates; AUDIT_SIM_SPREAD=S scales the streams' delays (see
 * test_audit_stats.c). */
#ifndef AUDIT_SIM_H
#define AUDIT_SIM_H

#include "audit.h"

#include <stdbool.h>
#include <stdint.h>

bool sim_verbose(void);
/* The defaults of the tunables table, with audit.min_effect 0. */
AuConfig sim_config(void);
bool sim_near(double got, double want, double rel);
/* The draw table (once) and AUDIT_SIM_SPREAD; before sim_draw. */
void sim_init(void);
/* The delays' scale: 1500, or AUDIT_SIM_SPREAD's (after sim_init). */
double sim_spread(void);
/* One call's cycles, scaled by factor (see audit_sim.c). */
uint64_t sim_draw(AuRng *r, double factor);

#endif
