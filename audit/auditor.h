/* audit/auditor.h — the auditor's records and state, private to
 * audit/lifecycle.c (the lifecycle: trigger, compile, install, turns,
 * decision) and audit/queue.c (which waiting record gets which policy
 * slot next).  Everything here is guarded by AuAuditor.mu unless a field
 * says otherwise. */
#ifndef AU_AUDITOR_H
#define AU_AUDITOR_H

#include "auditor_api.h"
#include "jit.h"
#include "probe.h"
#include "vm.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What one bakeoff's generated code reaches: the table (first, its
 * address is compiled into the code) and the slow path's parameters. */
typedef struct AuDispatch {
    JitBakeoffTable tab;
    const AuPolicyParams *params;
    uint32_t slot;
    int nvariants;
    int arms;                  /* variants × copies: what the policy rotates over */
    int32_t warmup;            /* a burst's first calls not estimated */
    struct AuLoopCode *loops;  /* loop timings: the markers' points (NULL: method timings) */
} AuDispatch;

typedef struct AuBakeoff {
    AuBakeoffRecord rec;
    VmMethod *m;
    AuClient client;
    uint32_t aid;          /* the analysis's id of the bakeoff, 0 = none yet */
    int slot;              /* policy slot while compiling or sampling, −1 */
    AuDispatch *d;         /* once compiled */
    VmEntry prev;          /* the code the dispatcher replaced */
    double turn_start;     /* au_since(): the current turn's dispatcher installed */
    double last_ran;       /* au_since(): its last turn ended; 0 = never ran */
    double sampled;        /* seconds of the turns before the current one */
    int extra;             /* turns the current one was extended by (audit.extend) */
    double foreseen;       /* when paused: sampling seconds to its decision (au_stats_to_decide) */
    bool hopeless;         /* when paused: it foresaw (it had enough samples to) no decision within
                            * the longest turn it could get, audit.extend's included; before() */
    bool ahead;            /* compiling or READY ahead (research.ahead): holds its slot, not counted in running */
    bool beside;           /* sampling with loop timings: holds its policy slot, not counted in running,
                            * never paused for turns (set_beside) */
    bool jit_queued;       /* sampling or paused: a method its variants call is queued or compiling
                            * in the JIT (mark_jit_queued, research.wait_jit): its samples until that
                            * install go at the restart; rotate(), yields(), before() */
} AuBakeoff;

enum {
    AU_IDLE_ROUNDS = 100,   /* analysis intervals without a sample before drop_idle gives up */
    AU_PROBE_MIN = 64,      /* timed calls a probe needs for a verdict */
    AU_RARE_MARGIN = 2,     /* probed_useless: futile even at this many times the rate */
};

typedef struct AuMethodState {
    bool excluded;         /* not in audit.methods: never audited */
    bool seen;             /* compiled code seen; calls count from base */
    bool busy;             /* one of its bakeoffs compiles or samples */
    uint64_t base;
    uint32_t asked;        /* clients whose bakeoff was queued, a bit each */
    uint64_t mark;         /* calls at mark_t */
    double mark_t;         /* au_since(): when rate was last measured */
    double rate;           /* calls a second through its entry, over the last RATE_PERIOD */
    bool rated;            /* rate is from a whole RATE_PERIOD */
    uint64_t last;         /* calls at the last scan */
    bool called;           /* called through its entry between the last two scans */
    /* the bakeoff thread's alone (probed_cheap), not under mu: */
    AuProbe *probe;        /* its probe once probed (never freed while the program runs) */
    double probe_cycles;   /* what the probe read; 0 = no verdict (not probed, too few calls) */
    uint32_t probe_samples;
    double probe_rate;     /* calls a second through the entry while it stood */
    bool rate_known;       /* probe_rate is from a whole window (see probe) */
} AuMethodState;

struct AuAuditor {
    Vm *vm;
    struct Jit *jit;
    AuConfig cfg;
    uint32_t clients;
    int nvariants[AU_NCLIENTS];
    AuVariantSpec variants[AU_NCLIENTS][JIT_MAX_VARIANTS];
    uint64_t hot_threshold;
    int concurrent;
    AuAnalysis *an;
    AuCompileFn compile;
    FILE *log;
    double t0;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    /* guarded by mu */
    bool stopping;
    AuBakeoff **bakes;     /* every record, bakes[id − 1] */
    size_t nbakes, capbakes;
    size_t first_waiting;  /* no QUEUED or PAUSED record before this index */
    AuMethodState *ms;     /* per method index */
    uint32_t nmethods;
    int running;           /* compiling or sampling in a slot (ahead ones not counted) */
    uint32_t slots;        /* a bit per policy slot in use, reserved ahead included */
    AuBakeoff *ahead;      /* the one record compiling or READY ahead of a slot, or NULL */
    struct AuRecorder *rec; /* audit.record, or NULL; its own lock */
    struct AuVerdicts *verdicts; /* audit.remember (remember.c), or NULL; its own lock */
    bool rec_ok;           /* its file was completed (au_auditor_recorded) */
    VmError rec_err;       /* else why not */
};

static inline double au_since(const AuAuditor *au)
{
    double t = au_now() - au->t0;
    return t > 1e-9 ? t : 1e-9;   /* 0 means "not yet" in a record */
}

/* ---- queue.c: which waiting record starts next, in which slot --------- */

/* QUEUED, READY or PAUSED. */
bool au_queue_waiting(const AuBakeoff *c);
/* c's method is, lately, called too rarely for a turn to get samples. */
bool au_queue_idle(const AuAuditor *au, const AuBakeoff *c);
/* The longest a turn can last, audit.extend's extra turns included (s). */
double au_queue_longest_turn(const AuAuditor *au);
/* Turns c has had that got timed calls. */
int au_queue_turns_had(const AuBakeoff *c);
/* The waiting record to start next, given that `freed` (or NULL) gives
 * up its slot and method; NULL when none. */
AuBakeoff *au_queue_next(AuAuditor *au, const AuBakeoff *freed);
/* The policy slot a record never compiled gets, −1 when none. */
int au_queue_free_slot(const AuAuditor *au);
/* b holds policy slot `slot` and its method (QUEUED: COMPILING now). */
void au_queue_claim(AuAuditor *au, AuBakeoff *b, int slot);
/* The next record, given a slot (claimed; running counted); NULL when
 * none or no room. */
AuBakeoff *au_queue_take(AuAuditor *au);
/* b, READY ahead, passed over: its slot back, no longer ahead. */
void au_queue_unreserve(AuAuditor *au, AuBakeoff *b);

/* config.c: audit.methods applied: every method but those it names
 * excluded (none when it is empty); false and a message for a name the
 * program lacks. */
bool au_select_methods(AuAuditor *au, const char *list, VmError *err);

#endif
