/* jit/events.c — the compile timeline: one event per compile the JIT ran
 * (a method's entry or OSR code, a bakeoff's variants), written as the
 * "compiles" member of the --stats JSON (schema: docs/stats.md).
 *
 * Input: the compile-and-install path (jit.c: jit_event_tier) and the
 * bakeoff compiler (variants.c: jit_event_bakeoff), on the thread that
 * compiled.  Output: JSON text on the stats writer's thread
 * (jit_events_json, through VmHooks.stats_jit).
 *
 * Invariants:
 * - Bounded: at most jit.compile_events events are kept (oldest first);
 *   later ones are only counted (dropped), so a long run costs a fixed
 *   amount of memory.  Recording is an append under evmu, which no
 *   program thread ever takes: the program never waits for it.
 * - The writer copies the events under evmu and formats the copy, so a
 *   compile finishing meanwhile waits for a memcpy, never for a format.
 * - Times are seconds since jit->t0 (jit_new, just before the program
 *   starts), the time base of --log=jit and of the auditor's records.
 * - An event names its method by pointer: methods live as long as the
 *   module, which outlives the stats writer (cli/main.c).
 */
#include "jit_int.h"
#include "tier.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define X(k, s) [k] = s,
    JIT_COMPILE_KINDS(X)
#undef X
};

/* Appends ev (under evmu); counts it as dropped when the cap is reached
 * or memory runs out. */
static void record(Jit *jit, const JitCompileEvent *ev)
{
    size_t cap = jit->tun.compile_events > 0 ? (size_t)jit->tun.compile_events : 0;
    pthread_mutex_lock(&jit->evmu);
    if (jit->nev == jit->capev && jit->capev < cap) {
        size_t want = jit->capev ? jit->capev * 2 : 64;
        if (want > cap)
            want = cap;
        JitCompileEvent *e = realloc(jit->ev, want * sizeof *e);
        if (e) {
            jit->ev = e;
            jit->capev = want;
        }
    }
    if (jit->nev < jit->capev)
        jit->ev[jit->nev++] = *ev;
    else
        jit->ev_dropped++;
    pthread_mutex_unlock(&jit->evmu);
}

static double since(const Jit *jit, double t)
{
    return t > 0 ? t - jit->t0 : NAN;
}

void jit_event_tier(Jit *jit, const JitRequest *rq, const JitResult *res, double t_start, const char *failure)
{
    if (!jit || !rq || !rq->m)
        return;
    JitCompileEvent ev = {
        .id = rq->id,
        .m = rq->m,
        .kind = rq->osr_only ? JIT_EV_OSR : JIT_EV_ENTRY,
        .ok = failure == NULL,
        .optset = rq->optset,
        .osr_pc = rq->osr_pc ? (int64_t)(rq->osr_pc - rq->m->code) : -1,
        .t_queued = since(jit, rq->t_queued),
        .t_started = since(jit, t_start),
        .t_done = jit_now() - jit->t0,
    };
    if (res) {
        ev.us_ir = res->us_ir;
        ev.us_compile = res->us_compile;
        ev.us_assemble = res->us_assemble;
        ev.code_bytes = res->code_bytes;
        ev.unit_id = res->unit_id;
        ev.unit_size = res->unit_size;
        ev.osr_built = res->osr != NULL;
        ev.cached = res->cached;
    }
    if (failure)
        snprintf(ev.failure, sizeof ev.failure, "%s", failure);
    record(jit, &ev);
}

void jit_event_bakeoff(Jit *jit, const JitBakeoffRequest *rq, const JitBakeoffTable *out, double t_start,
                       const double *variant_us, const char *failure)
{
    if (!jit || !rq || !rq->m)
        return;
    JitCompileEvent ev = {
        .id = rq->id,
        .m = rq->m,
        .kind = JIT_EV_BAKEOFF,
        .ok = failure == NULL,
        .osr_pc = -1,
        .t_queued = NAN,   /* a bakeoff waits in the auditor's queue, not the JIT's */
        .t_started = since(jit, t_start),
        .t_done = jit_now() - jit->t0,
        .nvariants = rq->nvariants,
    };
    if (out && !failure) {
        ev.us_ir = out->us_ir;
        ev.us_compile = out->us_compile;
        ev.us_assemble = out->us_assemble;
        ev.code_bytes = out->code_bytes;
        ev.same_code = out->same_code;
        ev.same_ir = out->same_ir;
    }
    for (int k = 0; variant_us && k < rq->nvariants && k < JIT_MAX_VARIANTS; k++)
        ev.variant_us[k] = variant_us[k];
    if (failure)
        snprintf(ev.failure, sizeof ev.failure, "%s", failure);
    record(jit, &ev);
}

/* A number, or null when it is not finite. */
static void num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.6f", x);
    else
        fputs("null", f);
}

static void write_event(FILE *f, const JitCompileEvent *e)
{
    bool bakeoff = e->kind == JIT_EV_BAKEOFF;
    /* a bakeoff has no JIT compile id: its line still starts {"compile": */
    if (bakeoff)
        fputs("{\"compile\":null", f);
    else
        fprintf(f, "{\"compile\":%" PRIu64, e->id);
    fputs(",\"method\":", f);
    vm_json_string(f, e->m->name ? e->m->name : "", SIZE_MAX);
    fprintf(f, ",\"kind\":\"%s\",\"bakeoff\":", (unsigned)e->kind < JIT_EV_COUNT ? kind_names[e->kind] : "unknown");
    if (bakeoff)
        fprintf(f, "%" PRIu64, e->id);
    else
        fputs("null", f);
    fputs(",\"optset\":", f);
    if (e->optset)
        vm_json_string(f, e->optset, SIZE_MAX);
    else
        fputs("null", f);
    fputs(",\"osr_pc\":", f);
    if (e->osr_pc >= 0)
        fprintf(f, "%" PRId64, e->osr_pc);
    else
        fputs("null", f);
    fputs(",\"t_queued\":", f);
    num(f, e->t_queued);
    fputs(",\"t_started\":", f);
    num(f, e->t_started);
    fputs(",\"t_done\":", f);
    num(f, e->t_done);
    fprintf(f, ",\"ir_us\":%.0f,\"compile_us\":%.0f,\"assemble_us\":%.0f,\"code_bytes\":%zu", e->us_ir, e->us_compile,
            e->us_assemble, e->code_bytes);
    if (bakeoff) {
        fprintf(f, ",\"unit\":null,\"unit_size\":null,\"variants\":%d,\"variant_compile_us\":[", e->nvariants);
        for (int k = 0; k < e->nvariants && k < JIT_MAX_VARIANTS; k++)
            fprintf(f, "%s%.0f", k ? "," : "", e->variant_us[k]);
        fprintf(f, "],\"same_code\":%s,\"same_ir\":%s", e->same_code ? "true" : "false", e->same_ir ? "true" : "false");
    } else {
        fprintf(f, ",\"unit\":%" PRIu64 ",\"unit_size\":%u,\"variants\":null,\"variant_compile_us\":null", e->unit_id,
                e->unit_size);
        fputs(",\"same_code\":false,\"same_ir\":false", f);
    }
    fprintf(f, ",\"cached\":%s", e->cached ? "true" : "false");
    fprintf(f, ",\"ok\":%s,\"failure\":", e->ok ? "true" : "false");
    if (e->ok)
        fputs("null", f);
    else
        vm_json_string(f, e->failure, sizeof e->failure);
    fputc('}', f);
}

void jit_events_json(Vm *vm, FILE *f, void *ctx)
{
    (void)vm;
    Jit *jit = ctx;
    if (!jit)
        return;
    pthread_mutex_lock(&jit->evmu);
    size_t n = jit->nev;
    uint64_t dropped = jit->ev_dropped;
    JitCompileEvent *copy = n ? malloc(n * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, jit->ev, n * sizeof *copy);
    pthread_mutex_unlock(&jit->evmu);
    fputs(",\n\"compiles\":", f);
    if (n && !copy) {
        fputs("null", f);   /* out of memory: never a partial list */
    } else {
        fputc('[', f);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ",\n" : "\n", f);
            write_event(f, &copy[i]);
        }
        fputs(n ? "\n]" : "]", f);
    }
    fprintf(f, ",\n\"compiles_dropped\":%" PRIu64, dropped);
    free(copy);
    if (jit->cache) {
        JitCacheStats c = jit_cache_stats(jit->cache);
        fputs(",\n\"code_cache\":{\"dir\":", f);
        vm_json_string(f, jit_cache_path(jit->cache), SIZE_MAX);
        fprintf(f, ",\"hits\":%" PRIu64 ",\"misses\":%" PRIu64 ",\"stored\":%" PRIu64 ",\"bad\":%" PRIu64
                   ",\"errors\":%" PRIu64 ",\"preloaded\":%" PRIu64 "}",
                c.hits, c.misses, c.stored, c.bad, c.errors, c.preloaded);
    }
}
