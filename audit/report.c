/* audit/report.c — what the auditor tells the outside world: the
 * "bakeoffs" member of the --stats JSON and the --log=audit lines.
 *
 * Input: bakeoff records (audit/auditor_api.h), copies taken by the lifecycle
 * under its lock, so nothing here races with the analysis thread.
 * Output: JSON text (schema: docs/stats.md) and log lines on a FILE.
 * Invariants: the JSON is valid whatever the records hold — strings are
 * escaped and read only up to their array's size (a record whose string
 * lacks its NUL is still bounded), bytes that are not UTF-8 become U+FFFD,
 * NaN and ±inf become null, out-of-range variant indexes become null.
 * One bakeoff object per line (variants last on the line), so shell tools
 * (bench/audit-eval) can read the file with grep and awk.  Nothing here
 * depends on the lifecycle's code (no link dependency: the snapshot comes
 * as a function), so the unit tests and the TSan build link it alone.
 */
#include "auditor_api.h"
#include "loops.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_names[] = {
#define X(p, s) [p] = s,
    AU_PHASES(X)
#undef X
};

const char *au_phase_name(AuPhase p)
{
    if ((unsigned)p < sizeof phase_names / sizeof *phase_names && phase_names[p])
        return phase_names[p];
    return "unknown";
}

static const char *const event_names[] = {
#define X(e, s) [e] = s,
    AU_EVENTS(X)
#undef X
};

const char *au_event_name(AuEvent e)
{
    if ((unsigned)e < sizeof event_names / sizeof *event_names)
        return event_names[e];
    return "unknown";
}

/* au_outcome_name for any value (a record is data: it may hold garbage) */
static const char *outcome_name(AuOutcome o)
{
    return (unsigned)o <= AU_TIMEOUT ? au_outcome_name(o) : "unknown";
}

static const char *test_name(AuTest t)
{
    return (unsigned)t <= AU_TEST_PAPER ? au_test_name(t) : "unknown";
}

/* ---- JSON values ------------------------------------------------------- */

/* A number, or null when it is not finite. */
static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.10g", x);
    else
        fputs("null", f);
}

/* A timestamp: seconds, or null when not yet (0) or not finite. */
static void json_time(FILE *f, double t)
{
    if (isfinite(t) && t > 0)
        fprintf(f, "%.6f", t);
    else
        fputs("null", f);
}

static void json_interval(FILE *f, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        fputs("null", f);
        return;
    }
    fputc('[', f);
    json_num(f, lo);
    fputc(',', f);
    json_num(f, hi);
    fputc(']', f);
}

static int nvariants(const AuBakeoffRecord *r)
{
    int n = r->nvariants;
    return n < 0 ? 0 : n > JIT_MAX_VARIANTS ? JIT_MAX_VARIANTS : n;
}

/* The name of variant k, or null when k names none. */
static void json_variant_name(FILE *f, const AuBakeoffRecord *r, int k)
{
    if (k >= 0 && k < nvariants(r))
        vm_json_string(f, r->variants[k].name, sizeof r->variants[k].name);
    else
        fputs("null", f);
}

static void write_variant(FILE *f, const AuBakeoffRecord *r, int k)
{
    const AuVariantSpec *s = &r->variants[k];
    const AuResult *res = &r->result;
    const AuVariantResult *v = &res->v[k];
    bool known = k < res->nvariants;   /* the analysis has reported on it */
    fputs("{\"name\":", f);
    vm_json_string(f, s->name, sizeof s->name);
    fputs(",\"options\":", f);
    vm_json_string(f, s->optset, sizeof s->optset);
    fprintf(f, ",\"inline_max_callee_size\":%" PRId32 ",\"inline_max_depth\":%" PRId32
               ",\"inline_max_growth\":%" PRId32,
            s->inline_max_callee_size, s->inline_max_depth, s->inline_max_growth);
    fprintf(f, ",\"samples\":%" PRIu64 ",\"received\":%" PRIu64 ",\"outliers_dropped\":%" PRIu64,
            known ? v->samples : 0, known ? v->received : 0, known ? v->trimmed : 0);
    fprintf(f, ",\"warmups\":%" PRIu64 ",\"warmup_cycles\":", known ? v->warmups : 0);
    json_num(f, known && v->warmups ? v->warmup_cycles : NAN);
    fputs(",\"weight\":", f);
    json_num(f, known ? v->weight : 0);
    fputs(",\"timed_call_cycles\":", f);
    json_num(f, known && v->samples ? v->cycles : NAN);
    fputs(",\"mean_cycles\":", f);
    json_num(f, known && v->samples ? v->mean : NAN);
    fputs(",\"stddev_cycles\":", f);
    json_num(f, known && v->samples > 1 ? v->stddev : NAN);
    /* per copy of its code (audit.copies), in copy order */
    int copies = r->copies < 1 ? 1 : r->copies > JIT_MAX_COPIES ? JIT_MAX_COPIES : r->copies;
    fputs(",\"copy_samples\":[", f);
    for (int c = 0; c < copies; c++)
        fprintf(f, "%s%" PRIu64, c ? "," : "", known ? v->copy_samples[c] : 0);
    fputs("],\"copy_mean_cycles\":[", f);
    for (int c = 0; c < copies; c++) {
        fputs(c ? "," : "", f);
        json_num(f, known && v->copy_samples[c] && v->copy_mean[c] > 0 ? v->copy_mean[c] : NAN);   /* loop timings: 0 until estimable */
    }
    fputs("]", f);
    /* relative to the best: 0 for the best itself, null before a best */
    bool rel = known && res->best >= 0 && res->best < res->nvariants;
    bool self = rel && k == res->best;
    fputs(",\"relative_to_best\":", f);
    json_num(f, !rel ? NAN : self ? 0 : v->rel);
    fputs(",\"relative_to_best_interval\":", f);
    if (!rel)
        fputs("null", f);
    else if (self)
        fputs("[0,0]", f);
    else
        json_interval(f, v->rel_lo, v->rel_hi);
    fprintf(f, ",\"slower\":%s}", rel && !self && v->slower ? "true" : "false");
}

/* audit.verify: the online test's decision, or null (not verifying, or
 * not decided yet).  The record's own outcome and estimate are then the
 * oracle's look at the samples after it. */
static void write_online(FILE *f, const AuBakeoffRecord *r)
{
    const AuOnline *o = &r->result.online;
    if (o->outcome == AU_RUNNING) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"outcome\":\"%s\",\"winner\":", outcome_name(o->outcome));
    json_variant_name(f, r, o->outcome == AU_WINNER ? o->install : -1);
    fputs(",\"installs\":", f);
    json_variant_name(f, r, o->install);
    fputs(",\"relative_difference\":", f);
    json_num(f, o->rel);
    fputs(",\"relative_difference_interval\":", f);
    json_interval(f, o->rel_lo, o->rel_hi);
    fputs(",\"sampled\":", f);
    json_num(f, o->elapsed);
    fprintf(f, ",\"samples\":%" PRIu64 "}", o->samples);
}

/* A float of a look: six digits, its own precision. */
static void json_float(FILE *f, float x)
{
    if (isfinite(x))
        fprintf(f, "%.6g", (double)x);
    else
        fputs("null", f);
}

/* A float of the region costs: nine digits, enough to give it back
 * exactly (its sums checked against mean_cycles, docs/stats.md). */
static void json_float9(FILE *f, float x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", (double)x);
    else
        fputs("null", f);
}

/* Region i of the loop timings' costs (AuRegionCosts): its weight, or
 * null where the result has none (method timings, an older look). */
static double region_weight(const AuBakeoffRecord *r, uint32_t i)
{
    const AuRegionCosts *c = &r->result.regions;
    return r->result.loops && i < c->nregions && i < AU_REGIONS_MAX ? c->weight[i] : NAN;
}

/* Variant v's "cycles" and "share" in region i (nulls without them). */
static void write_region_cost(FILE *f, const AuBakeoffRecord *r, uint32_t i, int v)
{
    const AuRegionCosts *c = &r->result.regions;
    bool known = r->result.loops && i < c->nregions && i < AU_REGIONS_MAX && v >= 0 && v < JIT_MAX_VARIANTS &&
                 v < r->result.nvariants;
    fputs("\"cycles\":", f);
    json_float9(f, known ? c->cycles[v][i] : NAN);
    fputs(",\"share\":", f);
    json_float9(f, known ? c->share[v][i] : NAN);
}

static void write_look(FILE *f, const AuLook *l, int n)
{
    fputc('[', f);
    json_float(f, l->t);
    fprintf(f, ",%" PRIu32 ",", l->n);
    if (l->best >= 0 && l->best < n)
        fprintf(f, "%d", l->best);
    else
        fputs("null", f);
    fputc(',', f);
    if (l->runner_up >= 0 && l->runner_up < n)
        fprintf(f, "%d", l->runner_up);
    else
        fputs("null", f);
    fputc(',', f);
    json_float(f, l->rel);
    fputc(',', f);
    json_float(f, l->lo);
    fputc(',', f);
    json_float(f, l->hi);
    fputc(']', f);
}

/* The decision's trajectory (AuTrajectory), last on the line: the looks
 * kept, then the latest when thinning did not keep it. */
static void write_trajectory(FILE *f, const AuBakeoffRecord *r)
{
    const AuTrajectory *t = &r->result.trajectory;
    uint32_t kept = t->n < AU_TRAJECTORY_MAX ? t->n : AU_TRAJECTORY_MAX;
    uint32_t every = t->every ? t->every : 1;
    fprintf(f, ",\"looks\":%" PRIu64 ",\"trajectory\":[", t->looks);
    for (uint32_t i = 0; i < kept; i++) {
        fputs(i ? "," : "", f);
        write_look(f, &t->look[i], nvariants(r));
    }
    if (t->looks > 0 && (t->looks - 1) % every != 0) {   /* the latest was thinned out */
        fputs(kept ? "," : "", f);
        write_look(f, &t->last, nvariants(r));
    }
    fputc(']', f);
}

static void write_record(FILE *f, const AuBakeoffRecord *r)
{
    const AuResult *res = &r->result;
    bool has_best = res->best >= 0 && res->best < nvariants(r);
    fprintf(f, "{\"id\":%" PRIu32 ",\"method\":", r->id);
    vm_json_string(f, r->method, sizeof r->method);
    fputs(",\"client\":", f);
    vm_json_string(f, r->client, sizeof r->client);
    fprintf(f, ",\"phase\":\"%s\",\"outcome\":\"%s\",\"winner\":", au_phase_name(r->phase),
            outcome_name(res->outcome));
    json_variant_name(f, r, res->outcome == AU_WINNER ? res->install : -1);
    fputs(",\"installed\":", f);
    json_variant_name(f, r, r->installed);
    fputs(",\"best\":", f);
    json_variant_name(f, r, has_best ? res->best : -1);
    fputs(",\"runner_up\":", f);
    json_variant_name(f, r, has_best ? res->runner_up : -1);
    fprintf(f, ",\"test\":\"%s\",\"oracle\":%s,\"futile\":%s,\"placement\":%s,\"between\":%s,\"no_winner\":%s,\"confidence\":",
            test_name(res->test), r->oracle ? "true" : "false", res->futile ? "true" : "false",
            res->placement ? "true" : "false", res->between ? "true" : "false",
            res->no_winner ? "true" : "false");
    json_num(f, has_best ? res->confidence : NAN);
    fputs(",\"sample_every\":", f);
    json_num(f, res->sample_every > 0 ? (double)res->sample_every : NAN);
    fputs(",\"relative_difference\":", f);
    json_num(f, has_best ? res->rel : NAN);
    fputs(",\"relative_difference_interval\":", f);
    if (has_best)
        json_interval(f, res->rel_lo, res->rel_hi);
    else
        fputs("null", f);
    fputs(",\"t_queued\":", f);
    json_time(f, r->t_queued);
    fputs(",\"t_started\":", f);
    json_time(f, r->t_started);
    fputs(",\"t_sampling\":", f);
    json_time(f, r->t_sampling);
    fputs(",\"t_decided\":", f);
    json_time(f, r->t_decided);
    fputs(",\"duration\":", f);
    bool timed = r->t_sampling > 0 && r->t_decided >= r->t_sampling;
    json_num(f, timed ? r->t_decided - r->t_sampling : NAN);
    fprintf(f, ",\"turns\":%d,\"extended\":%d,\"cut\":%d,\"idled\":%d,\"yielded\":%d,\"unconfirmed\":%d,"
            "\"fresh_disagreed\":%d,\"restarted\":%d,\"held\":%d,\"sampled\":", r->turns, r->extended, r->cut,
            r->idled, r->yielded, res->unconfirmed, res->fresh_disagreed, res->restarted, res->held);
    json_num(f, r->t_sampling > 0 ? r->sampled : NAN);
    fputs(",\"probe_cycles\":", f);
    json_num(f, r->probe_cycles > 0 ? r->probe_cycles : NAN);
    fprintf(f, ",\"probe_samples\":%u", r->probe_samples);
    fputs(",\"probe_rate\":", f);
    json_num(f, r->probe_rate > 0 ? r->probe_rate : NAN);
    fprintf(f, ",\"deferred\":%s,\"same_code\":%s,\"same_ir\":%s", r->deferred ? "true" : "false",
            r->same_code ? "true" : "false", r->same_ir ? "true" : "false");
    fputs(",\"failure\":", f);
    if (r->phase == AU_PHASE_FAILED || r->failure[0])
        vm_json_string(f, r->failure, sizeof r->failure);
    else
        fputs("null", f);
    /* after the record's own members: readers that take a key's first
     * occurrence on the line (bench/audit-eval) find those */
    fputs(",\"online\":", f);
    write_online(f, r);
    fputs(",\"variants\":[", f);
    for (int k = 0; k < nvariants(r); k++) {
        if (k)
            fputc(',', f);
        write_variant(f, r, k);
    }
    fputc(']', f);
    /* loop timings: the points the markers time, or why none */
    fprintf(f, ",\"timing\":\"%s\",\"timing_reason\":", r->npoints ? "markers" : "method");
    if (r->npoints)
        fputs("null", f);
    else
        vm_json_string(f, r->timing_reason, sizeof r->timing_reason);
    fputs(",\"entry_freq\":", f);
    json_num(f, r->npoints || r->entry_freq > 0 ? r->entry_freq : NAN);
    fputs(",\"points\":[", f);
    for (uint32_t k = 0; k < r->npoints && k < JIT_MAX_POINTS; k++)
        fprintf(f, "%s%u", k ? "," : "", r->point_pc[k]);
    fprintf(f, "],\"marker_sites\":%u,\"markers_refused\":%u,\"marker_overhead\":", r->marker_sites,
            r->markers_refused);
    json_num(f, r->npoints ? r->marker_overhead : NAN);
    /* the marker map: per timing point, where gcc left its marker in each variant */
    fputs(",\"markers\":[", f);
    for (uint32_t k = 0; r->marker_map && k < r->npoints && k < JIT_MAX_POINTS; k++) {
        fprintf(f, "%s{\"point\":%u,\"pc\":%u,\"line\":", k ? "," : "", k, r->point_pc[k]);
        if (r->point_line[k])
            fprintf(f, "%u", r->point_line[k]);
        else
            fputs("null", f);
        fputs(",\"variants\":[", f);
        for (int v = 0; v < r->nvariants; v++) {
            const AuMarkerSites *m = &r->marker_map[(size_t)v * r->npoints + k];
            fprintf(f, "%s{\"sites\":%u,\"in_loop\":%u,\"at_exit\":%u,\"straight\":%u,\"guarded\":%u,\"refused\":%s,",
                    v ? "," : "", m->sites, m->in_loop, m->at_exit, m->straight, m->guarded, m->refused ? "true" : "false");
            write_region_cost(f, r, k + 1, v);
            fputc('}', f);
        }
        fputs("],\"weight\":", f);   /* its events' weight per timed call: iterations */
        json_num(f, region_weight(r, k + 1));
        fputc('}', f);
    }
    fputc(']', f);
    /* region 1, the call's end: the code outside any timed loop, so that
     * a variant's shares (here and in markers[]) sum to 1 */
    fputs(",\"outside\":", f);
    if (r->npoints && r->result.loops && r->result.regions.nregions > 0) {
        fputs("{\"weight\":", f);
        json_num(f, region_weight(r, 0));
        fputs(",\"variants\":[", f);
        for (int v = 0; v < nvariants(r); v++) {
            fputs(v ? ",{" : "{", f);
            write_region_cost(f, r, 0, v);
            fputc('}', f);
        }
        fputs("]}", f);
    } else
        fputs("null", f);
    /* the thesis's timing-quality metrics, per timing mode (AuScore) */
    fputs(",\"min_timing\":", f);
    json_num(f, res->min_timing > 0 ? res->min_timing : NAN);
    fputs(",\"scores\":{", f);
    static const char *const mode[AU_SCORES] = {"method", "markers"};
    for (int i = 0; i < AU_SCORES; i++) {
        fprintf(f, "%s\"%s\":{\"timings\":%llu,\"converge\":", i ? "," : "", mode[i],
                (unsigned long long)res->score[i].n);
        json_num(f, au_score_converge(&res->score[i]));
        fputs(",\"perturb\":", f);
        json_num(f, au_score_perturb(&res->score[i]));
        fputc('}', f);
    }
    fputc('}', f);
    write_trajectory(f, r);
    fputc('}', f);
}

void au_report_json(FILE *f, const AuBakeoffRecord *r, size_t n, const char *indent)
{
    if (!indent)
        indent = "";
    if (!r || n == 0) {
        fputs("[]", f);
        return;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
        fputs(indent, f);
        write_record(f, &r[i]);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fputs(indent, f);
    fputc(']', f);
}

void au_report_stats(FILE *f, AuSnapshotFn snapshot, AuAuditor *au)
{
    /* the count may grow between two snapshots: retry with room to spare */
    size_t cap = 16, n = 0;
    AuBakeoffRecord *buf = NULL;
    for (int tries = 0; tries < 8; tries++) {
        AuBakeoffRecord *nb = realloc(buf, cap * sizeof *buf);
        if (!nb)
            break;
        buf = nb;
        n = snapshot(au, buf, cap);
        if (n <= cap)
            break;
        cap = n + n / 4 + 16;
        n = cap + 1;   /* not yet a complete snapshot */
    }
    fputs(",\n\"bakeoffs\":", f);
    if (!buf || n > cap)
        fputs("null", f);   /* out of memory: documented as null, never a partial list */
    else
        au_report_json(f, buf, n, "");
    free(buf);
}

/* ---- --log=audit --------------------------------------------------------- */

/* Appends printf-style text to a line buffer, never past its end. */
typedef struct Line {
    char s[1024];
    size_t n;
} Line;

static void add(Line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Line *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->n += (size_t)k < sizeof l->s - l->n ? (size_t)k : sizeof l->s - l->n - 1;
}

/* A word of a record (bounded, no blanks or control characters, so a line
 * stays one line of space-separated words). */
static void add_word(Line *l, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (n == 0) {
        add(l, "-");
        return;
    }
    for (size_t i = 0; i < n && l->n < sizeof l->s - 1; i++) {
        unsigned char c = (unsigned char)s[i];
        l->s[l->n++] = c <= ' ' || c == 0x7f ? '_' : (char)c;
    }
    l->s[l->n] = 0;
}

static void add_variant(Line *l, const AuBakeoffRecord *r, int k)
{
    if (k >= 0 && k < nvariants(r))
        add_word(l, r->variants[k].name, sizeof r->variants[k].name);
    else
        add(l, "-");
}

static void add_pct(Line *l, double x)
{
    if (isfinite(x))
        add(l, "%+.2f%%", 100 * x);
    else
        add(l, "-");
}

/* The kept samples of each of the n variants, comma-separated. */
static void add_samples(Line *l, const AuResult *res, int n)
{
    for (int k = 0; k < n; k++)
        add(l, "%s%" PRIu64, k ? "," : "", k < res->nvariants ? res->v[k].samples : 0);
}

void au_log_event(FILE *f, double t, const AuBakeoffRecord *r, AuEvent ev)
{
    if (!f || !r)
        return;
    Line l = {.n = 0};
    l.s[0] = 0;
    add(&l, "[%.3fms] audit: %s #%" PRIu32 " ", t * 1e3, au_event_name(ev), r->id);
    add_word(&l, r->method, sizeof r->method);
    add(&l, " client=");
    add_word(&l, r->client, sizeof r->client);
    const AuResult *res = &r->result;
    int n = nvariants(r);
    switch (ev) {
    case AU_EV_QUEUED:
        add(&l, " variants=");
        for (int k = 0; k < n; k++) {
            if (k)
                add(&l, ",");
            add_variant(&l, r, k);
        }
        break;
    case AU_EV_DEFERRED:
        add(&l, " probe=%.0fcycles/%u", r->probe_cycles, r->probe_samples);
        break;
    case AU_EV_COMPILED:
        add(&l, " variants=%d", n);
        if (r->t_started > 0 && t >= r->t_started)
            add(&l, " compile=%.1fms", (t - r->t_started) * 1e3);
        if (r->probe_cycles > 0)
            add(&l, " probe=%.0fcycles/%u", r->probe_cycles, r->probe_samples);
        if (r->phase == AU_PHASE_READY)
            add(&l, " ahead");   /* waits for a slot (research.ahead) */
        if (r->npoints)   /* loop timings: the markers, their sites, the refused */
            add(&l, " markers=%u sites=%u refused=%u", r->npoints, r->marker_sites, r->markers_refused);
        break;
    case AU_EV_SAMPLING:
        if (r->t_queued > 0 && r->t_started >= r->t_queued)
            add(&l, " waited=%.1fms", (r->t_started - r->t_queued) * 1e3);
        break;
    case AU_EV_EXTENDED:
        add(&l, " turn=%d extra=%d decides_in=%.3fs samples=", r->turns, r->extended, res->to_decide);
        add_samples(&l, res, n);
        break;
    case AU_EV_PAUSED:
    case AU_EV_CUT:
    case AU_EV_YIELDED:
    case AU_EV_IDLE:
    case AU_EV_RESUMED:
        add(&l, " turn=%d sampled=%.3fs samples=", r->turns, r->sampled);
        add_samples(&l, res, n);
        if (ev != AU_EV_RESUMED && isfinite(res->to_decide))   /* the queue's order among paused ones */
            add(&l, " decides_in=%.3fs", res->to_decide);
        break;
    case AU_EV_DECIDED:
    case AU_EV_CANCELLED: {
        bool has_best = res->best >= 0 && res->best < n;
        add(&l, " outcome=%s winner=", ev == AU_EV_CANCELLED ? "none" : outcome_name(res->outcome));
        add_variant(&l, r, res->outcome == AU_WINNER ? res->install : -1);
        add(&l, " installed=");
        add_variant(&l, r, r->installed);
        add(&l, " best=");
        add_variant(&l, r, has_best ? res->best : -1);
        add(&l, " confidence=");
        if (has_best && isfinite(res->confidence))
            add(&l, "%.4f", res->confidence);
        else
            add(&l, "-");
        add(&l, " rel=");
        add_pct(&l, has_best ? res->rel : NAN);
        add(&l, " ci=[");
        add_pct(&l, has_best ? res->rel_lo : NAN);
        add(&l, ",");
        add_pct(&l, has_best ? res->rel_hi : NAN);
        add(&l, "] samples=");
        add_samples(&l, res, n);
        add(&l, " test=%s%s%s", test_name(res->test), r->oracle ? "+oracle" : "",
            res->placement ? " futile placement" : res->between ? " futile between"
            : res->no_winner ? " futile no-winner" : res->futile ? " futile" : "");
        if (r->same_code)
            add(&l, r->same_ir ? " same-code same-ir" : " same-code");
        if (ev == AU_EV_DECIDED && r->t_sampling > 0 && t >= r->t_sampling)
            add(&l, " duration=%.3fs", t - r->t_sampling);
        if (r->t_sampling > 0 && (ev == AU_EV_CANCELLED || r->turns > 1 || r->extended))
            add(&l, " sampled=%.3fs turns=%d", r->sampled, r->turns);
        if (r->extended)
            add(&l, " extended=%d", r->extended);
        if (r->cut)
            add(&l, " cut=%d", r->cut);
        if (r->idled)
            add(&l, " idled=%d", r->idled);
        if (r->yielded)
            add(&l, " yielded=%d", r->yielded);
        if (res->unconfirmed)
            add(&l, " unconfirmed=%d fresh_disagreed=%d", res->unconfirmed, res->fresh_disagreed);
        if (res->restarted)
            add(&l, " restarted=%d", res->restarted);
        if (res->held)
            add(&l, " held=%d", res->held);
        if (res->online.outcome != AU_RUNNING) {
            add(&l, " online=%s:", outcome_name(res->online.outcome));
            add_variant(&l, r, res->online.install);
            add(&l, "@%.3fs", res->online.elapsed);
        }
        break;
    }
    case AU_EV_FAILED:
        if (r->failure[0])
            add(&l, ": %.*s", (int)strnlen(r->failure, sizeof r->failure), r->failure);
        else
            add(&l, ": unknown error");
        for (size_t i = 0; i < l.n; i++)   /* one line, whatever the reason says */
            if ((unsigned char)l.s[i] < ' ')
                l.s[i] = ' ';
        break;
    }
    if (l.n > sizeof l.s - 2)
        l.n = sizeof l.s - 2;
    l.s[l.n++] = '\n';
    l.s[l.n] = 0;
    fputs(l.s, f);
    fflush(f);
}
