/* audit/remember.h — bakeoff verdicts kept in the code cache for the next
 * run (audit/remember.c; prefix au_remember_). */
#ifndef AU_REMEMBER_H
#define AU_REMEMBER_H

#include "auditor.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct AuVerdicts AuVerdicts;

/* Before the program runs, with au's clients, variants and methods set:
 * reads the module's verdicts; each that applies gives its method its
 * installed variant's compile options and marks its client asked.  NULL
 * when audit.remember is off (or a research mode: audit.oracle,
 * audit.verify) or out of memory; an empty table without a cache. */
AuVerdicts *au_remember_load(AuAuditor *au);
/* b, just ended DONE: its verdict, if a decision, for the next run. */
void au_remember_note(AuVerdicts *t, const AuAuditor *au, const AuBakeoff *b);
/* Writes the module's verdicts if this run decided any; false when that
 * failed (the cache off, a full disk). */
bool au_remember_save(AuVerdicts *t, AuAuditor *au);
/* --stats: `,\n"remembered":[...]`, the verdicts this run applied. */
void au_remember_json(FILE *f, AuVerdicts *t, const AuAuditor *au);
void au_remember_free(AuVerdicts *t);

#endif
