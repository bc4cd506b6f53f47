/* audit/queue.c — which waiting bakeoff record starts next, and in
 * which policy slot.
 *
 * Input: the auditor's records (auditor.h), under AuAuditor.mu: QUEUED
 * (never run), READY (compiled ahead, research.ahead), PAUSED (between
 * turns, audit.quantum_ms), and the per-method call rates scan() keeps.
 * Output: the record to start (au_queue_next, au_queue_take) and its slot
 * (au_queue_free_slot, au_queue_claim); lifecycle.c starts, pauses and ends them.
 * Invariants: at most one bakeoff per method compiles or samples
 * (AuMethodState.busy); a slot bit is held by a record compiling, sampling
 * or reserved ahead; a compiled record (PAUSED, or READY passed over)
 * starts only in the slot compiled into its dispatcher, when that is
 * free. */
#include "auditor.h"

bool au_queue_waiting(const AuBakeoff *c)
{
    return c->rec.phase == AU_PHASE_QUEUED || c->rec.phase == AU_PHASE_READY || c->rec.phase == AU_PHASE_PAUSED;
}

/* Under mu: whether waiting record c could start now, were `freed` (a
 * sampling bakeoff, or NULL) paused first: its method free, and a paused
 * one's own slot (compiled into its dispatcher) free.  A READY one ahead
 * holds its method and slot already; one passed over (au_queue_unreserve)
 * waits as a paused one does. */
static bool startable(const AuAuditor *au, const AuBakeoff *c, const AuBakeoff *freed)
{
    if (c->rec.phase == AU_PHASE_READY && c->ahead)
        return true;
    if (!au_queue_waiting(c))
        return false;
    if (au->ms[c->m->index].busy && !(freed && freed->m == c->m))
        return false;
    if (c->rec.phase == AU_PHASE_QUEUED)
        return true;
    /* paused idle (pause_idle): not until its method is called again,
     * even with the slot free; a method its callers inlined waits to the
     * end, where each turn would have cost 0.3 s of the slot */
    if (c->rec.phase == AU_PHASE_PAUSED && !c->aid && !au->ms[c->m->index].called)
        return false;
    /* paused, or READY passed over: its slot is compiled into its dispatcher */
    return !(au->slots & 1u << c->d->slot) || (freed && freed->slot == (int)c->d->slot);
}

/* Under mu: whether c's method is, lately, called through its entry too
 * rarely for a turn to get samples: at AU_RARE_MARGIN times the rate of the
 * last RATE_PERIOD, futile by rate (au_rate_futile, the probe's verdict
 * "rarely called").  Its phase of the program is over, or its callers
 * inlined it.  Such a record, started, holds the slot for a turn without
 * a timed call (drop_idle), or, never run, is probed and ends FAILED for
 * good, though its phase may come back every iteration. */
bool au_queue_idle(const AuAuditor *au, const AuBakeoff *c)
{
    const AuMethodState *s = &au->ms[c->m->index];
    /* paused idle (pause_idle): its turn found its method not called; it
     * stays idle until the method is called again between the last two
     * scans (10 ms; startable() keeps it out until then), so that its next
     * turn begins inside its phase: by the rate over RATE_PERIOD, it could
     * resume just as its phase ends */
    if (c->rec.phase == AU_PHASE_PAUSED && !c->aid)
        return !s->called;
    return s->rated && au_rate_futile(&au->cfg, s->rate, c->rec.nvariants, AU_RARE_MARGIN, NULL);
}

/* The longest a turn can last, in seconds: audit.quantum_ms and every
 * extra turn audit.extend may add to it. */
double au_queue_longest_turn(const AuAuditor *au)
{
    return au->cfg.quantum * (double)(1 + au->cfg.extend);
}

/* Turns c has had that got timed calls: an idle one (pause_idle)
 * measured nothing, so it does not count in the round robin.  Why:
 * counted, one paused idle after one turn would wait behind the never-run
 * bakeoffs and might never get a second. */
int au_queue_turns_had(const AuBakeoff *c)
{
    return c->rec.turns - c->rec.idled - c->rec.yielded;
}

/* Under mu: whether c, paused, is hopeless (AuBakeoff.hopeless). */
static bool hopeless(const AuBakeoff *c)
{
    return c->rec.phase == AU_PHASE_PAUSED && c->hopeless;
}

/* Under mu: whether c goes before best: one whose method is called now
 * before an idle one (au_queue_idle()); then one without a callee queued in
 * the JIT before one with (AuBakeoff.jit_queued: its samples would go at the
 * install); then one not hopeless() before a hopeless
 * one; then one not deferred (defer()) before a
 * deferred one; then fewest turns first (au_queue_turns_had: idle turns not
 * counted); of those never run (or run idle only), the one compiled
 * ahead (it was chosen by this order when it began
 * to compile), then the most called through its entry lately (its
 * samples come fastest: a method-level test needs min_samples timed
 * calls), then the oldest; of those paused, the one foreseeing its
 * decision soonest (AuBakeoff.foreseen: shortest job first gets the most
 * decisions out of the slot's time), then the least recently run (round
 * robin among those foreseeing none).  Hopeless after deferred: paused
 * bakeoffs with intervals far too wide to decide would otherwise take
 * turn after turn (each cut a quarter in, audit.cut) while deferred ones,
 * with large differences among them, never start. */
static bool before(const AuAuditor *au, const AuBakeoff *c, const AuBakeoff *best)
{
    bool ci = au_queue_idle(au, c), bi = au_queue_idle(au, best);
    if (ci != bi)
        return bi;
    if (c->jit_queued != best->jit_queued)
        return best->jit_queued;
    bool ch = hopeless(c), bh = hopeless(best);
    if (ch != bh)
        return bh;
    if (c->rec.deferred != best->rec.deferred)
        return best->rec.deferred;
    int ct = au_queue_turns_had(c), bt = au_queue_turns_had(best);
    if (ct != bt)
        return ct < bt;
    if (ct == 0 && (c->rec.phase == AU_PHASE_READY) != (best->rec.phase == AU_PHASE_READY))
        return c->rec.phase == AU_PHASE_READY;
    if (ct == 0)
        return au->ms[c->m->index].rate > au->ms[best->m->index].rate;
    if (c->foreseen != best->foreseen)
        return c->foreseen < best->foreseen;
    return c->last_ran < best->last_ran;
}

/* Under mu: the waiting record to start next (before()); NULL when none. */
AuBakeoff *au_queue_next(AuAuditor *au, const AuBakeoff *freed)
{
    while (au->first_waiting < au->nbakes && !au_queue_waiting(au->bakes[au->first_waiting]))
        au->first_waiting++;
    AuBakeoff *best = NULL;
    for (size_t i = au->first_waiting; i < au->nbakes; i++) {
        AuBakeoff *c = au->bakes[i];
        if (!startable(au, c, freed))
            continue;
        if (!best || before(au, c, best))
            best = c;
    }
    return best;
}

/* Under mu: the lowest policy slot not in use, −1 when none; one that no
 * waiting compiled record (paused, or READY passed over) is compiled for
 * if there is one, so that it need not wait for the slot to start. */
int au_queue_free_slot(const AuAuditor *au)
{
    uint32_t held = 0;
    for (size_t i = au->first_waiting; i < au->nbakes; i++) {
        const AuBakeoff *c = au->bakes[i];
        if (au_queue_waiting(c) && c->d && !c->ahead)
            held |= 1u << c->d->slot;
    }
    int any = -1;
    for (int slot = 0; slot < VM_AUDIT_SLOTS; slot++)
        if (!(au->slots & 1u << slot)) {
            if (!(held & 1u << slot))
                return slot;
            if (any < 0)
                any = slot;
        }
    return any;
}

/* Under mu: b holds policy slot `slot` and its method; one never run is
 * COMPILING from now. */
void au_queue_claim(AuAuditor *au, AuBakeoff *b, int slot)
{
    au->slots |= 1u << slot;
    b->slot = slot;
    au->ms[b->m->index].busy = true;
    if (b->rec.phase == AU_PHASE_QUEUED) {
        b->rec.phase = AU_PHASE_COMPILING;
        b->rec.t_started = au_since(au);
    }
}

/* Under mu: the next waiting record, given a slot: COMPILING if it never
 * ran, still PAUSED or READY until start() installs its dispatcher (its
 * method busy meanwhile); NULL when none or no room. */
AuBakeoff *au_queue_take(AuAuditor *au)
{
    if (au->stopping || au->running >= au->concurrent)
        return NULL;
    AuBakeoff *b = au_queue_next(au, NULL);
    if (!b)
        return NULL;
    if (b->rec.phase == AU_PHASE_READY && b->ahead) {   /* its slot is reserved already */
        b->ahead = false;
        au->ahead = NULL;
        au->running++;
        return b;
    }
    int slot = b->d ? (int)b->d->slot : au_queue_free_slot(au);
    if (slot < 0)
        return NULL;
    au_queue_claim(au, b, slot);
    au->running++;
    return b;
}

/* Under mu: b, READY ahead, is no longer the record that would start
 * next (its method went idle, or one that goes before it was queued):
 * its slot is given back, so that the one now next can be compiled ahead,
 * and b waits READY as a paused record does, its slot compiled in
 * (startable()).  Why: an ahead record passed over would hold the one
 * reservation to the end, and every later bakeoff would be compiled
 * while the slot stood empty. */
void au_queue_unreserve(AuAuditor *au, AuBakeoff *b)
{
    au->slots &= ~(1u << b->slot);
    b->slot = -1;
    b->ahead = false;
    au->ahead = NULL;
    au->ms[b->m->index].busy = false;
}
