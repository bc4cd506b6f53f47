/* audit/study.h — `tally study`: the thesis's offline studies on samples
 * recorded with -X audit.record (audit/record.h).
 *
 *   convergence  Lau's thesis III.B.4 (Fig. III.4): one method's timings
 *                split at random into A and B, B made exactly X% faster;
 *                misprediction rate at fixed sample sizes, and for each
 *                decision test (the auditor's own: au_stats_test,
 *                au_stats_confirm) the converged fraction, wrong decisions
 *                and samples to converge
 *   quality      III.C.3: converge and perturb scores (au_score_*) per
 *                method and timing mode (method, markers, naive)
 *   accuracy     Fig. III.13: runs bench/audit-eval with the arguments
 * Output: tables on stdout; with -o DIR, CSV files there and SVG plots
 * drawn from them by tools/study-plot.py.
 */
#ifndef TALLY_AUDIT_STUDY_H
#define TALLY_AUDIT_STUDY_H

#include <stdio.h>

/* argv[0] is the study's name.  root: the installation's directory (the
 * tally binary's bin/..), where tools/ and bench/ are.  Returns the exit
 * status: 0, or 2 on bad use or an unreadable file (said on stderr). */
int au_study_main(int argc, char **argv, const char *root);
/* The usage text of `tally study`. */
void au_study_usage(FILE *out);

#endif
