/* audit/remember.c — bakeoff verdicts kept for the next run (audit.remember):
 * the variant a decided bakeoff installed is what a later run of the same
 * module compiles first, and that bakeoff is not run again.
 *
 * Input: the code cache's "won" note on the module (jit_note_get: one
 * file per tally build, module bytes and code-deciding configuration);
 * this run's decided bakeoffs.  Output: per remembered method, its
 * compile options (jit_choose_options) and its clients marked asked, set
 * before the program runs; the note rewritten at the end; --stats
 * "remembered".
 * The note: a header line, then one line per verdict, tab-separated:
 *   method index, client, installed variant, outcome, method name, the
 *   client's variants (option set and inliner limits of each)
 * A verdict applies when its method (index and name), its client
 * (enabled) and that client's variants are this run's; the first client
 * in the table's order with one gives the method its options.  Only
 * decisions are kept (winner, no-difference, the same code): a timeout
 * or a failure is tried again next run.  Lines that do not apply are
 * carried over unchanged (another configuration's), a fresh verdict
 * replaces the line of its method, client and variants.
 * Invariants: the table has its own lock (the analysis thread notes, the
 * stats writer reads); nothing here is fatal: a note that cannot be read
 * or written leaves every bakeoff to run as without it.
 */
#include "auditor.h"
#include "remember.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_KIND "won"
#define NOTE_HEADER "tally-verdicts 1\n"

typedef struct AuVerdict {
    uint32_t method;
    char name[128];
    char client[16];
    int installed;
    char outcome[24];
    char *variants;           /* the client's variants as text (variants_text) */
    bool applies;             /* read, and this run's configuration */
    bool fresh;               /* decided in this run */
} AuVerdict;

struct AuVerdicts {
    pthread_mutex_t mu;
    AuVerdict *v;
    size_t n, cap;
    bool changed;
};

/* Client c's variants as one line of text (tabs and newlines, which an
 * option set should not hold, become spaces). */
static char *variants_text(const AuAuditor *au, int c)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    for (int k = 0; k < au->nvariants[c]; k++) {
        const AuVariantSpec *v = &au->variants[c][k];
        fprintf(f, "%s%s callee=%" PRId32 " depth=%" PRId32 " growth=%" PRId32, k ? " | " : "", v->optset,
                v->inline_max_callee_size, v->inline_max_depth, v->inline_max_growth);
    }
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    for (char *p = s; *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
    return s;
}

static int client_index(const char *name)
{
    for (int c = 0; c < AU_NCLIENTS; c++)
        if (!strcmp(au_client_name((AuClient)c), name))
            return c;
    return -1;
}

static AuVerdict *push(AuVerdicts *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        AuVerdict *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    AuVerdict *v = &t->v[t->n++];
    memset(v, 0, sizeof *v);
    return v;
}

/* One line of the note into a verdict; false when it is malformed. */
static bool parse_line(char *line, AuVerdict *v)
{
    char *f[6];
    int n = 0;
    for (char *p = line; n < 6; n++) {
        f[n] = p;
        char *tab = n < 5 ? strchr(p, '\t') : NULL;
        if (n < 5 && !tab)
            return false;
        if (tab) {
            *tab = 0;
            p = tab + 1;
        }
    }
    char *end;
    unsigned long mi = strtoul(f[0], &end, 10);
    long k = strtol(f[2], &end, 10);
    if (*f[0] < '0' || *f[0] > '9' || mi > UINT32_MAX || k < 0 || k >= JIT_MAX_VARIANTS ||
        strlen(f[1]) >= sizeof v->client || strlen(f[3]) >= sizeof v->outcome || strlen(f[4]) >= sizeof v->name)
        return false;
    v->method = (uint32_t)mi;
    v->installed = (int)k;
    snprintf(v->client, sizeof v->client, "%s", f[1]);
    snprintf(v->outcome, sizeof v->outcome, "%s", f[3]);
    snprintf(v->name, sizeof v->name, "%s", f[4]);
    return (v->variants = strdup(f[5])) != NULL;
}

/* Whether v is this run's: its method, its client enabled with the same
 * variants, its variant one of them, the method audited at all. */
static bool applies(const AuAuditor *au, const AuVerdict *v, int *client)
{
    int c = client_index(v->client);
    if (c < 0 || !(au->clients & 1u << c) || v->method >= au->nmethods || v->installed >= au->nvariants[c])
        return false;
    const VmMethod *m = &au->vm->module->methods[v->method];
    if (!m->name || strcmp(m->name, v->name) || au->ms[v->method].excluded)
        return false;
    char *now = variants_text(au, c);
    bool same = now && !strcmp(now, v->variants);
    free(now);
    *client = c;
    return same;
}

AuVerdicts *au_remember_load(AuAuditor *au)
{
    if (!au->cfg.remember || au->cfg.oracle || au->cfg.verify)
        return NULL;
    AuVerdicts *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    VmBuf note = {0};
    if (!jit_note_get(au->jit, NOTE_KIND, &note) || note.len < sizeof NOTE_HEADER - 1 ||
        memcmp(note.data, NOTE_HEADER, sizeof NOTE_HEADER - 1)) {
        vm_buf_free(&note);
        return t;
    }
    char *text = (char *)note.data;
    text[note.len] = 0;   /* jit_cache_get_note leaves room for it */
    for (char *line = text + sizeof NOTE_HEADER - 1, *next; *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        else
            next = line + strlen(line);
        AuVerdict *v = push(t);
        if (!v)
            break;
        if (!parse_line(line, v)) {
            t->n--;
            continue;
        }
        int c;
        v->applies = applies(au, v, &c);
        if (v->applies)
            au->ms[v->method].asked |= 1u << c;
    }
    vm_buf_free(&note);
    /* the options: of each method's first client in the table's order */
    bool *given = calloc(au->nmethods ? au->nmethods : 1, 1);
    for (int c = 0; c < AU_NCLIENTS && given; c++)
        for (size_t i = 0; i < t->n; i++) {
            AuVerdict *v = &t->v[i];
            if (!v->applies || client_index(v->client) != c || given[v->method])
                continue;
            VmMethod *m = &au->vm->module->methods[v->method];
            const AuVariantSpec *s = &au->variants[c][v->installed];
            IrOptions def, ir = *jit_ir_options(au->jit, &def);
            ir.max_callee_size = s->inline_max_callee_size;
            ir.max_depth = s->inline_max_depth;
            ir.max_growth = s->inline_max_growth;
            if (!jit_choose_options(au->jit, m, &ir, s->optset))
                continue;
            given[v->method] = true;
            if (au->log)
                fprintf(au->log, "[%.3fms] audit: remembered %s client=%s installed=%s outcome=%s: compiled with "
                        "that variant's options, not audited again\n",
                        au_since(au) * 1e3, m->name, v->client, s->name, v->outcome);
        }
    free(given);
    return t;
}

void au_remember_note(AuVerdicts *t, const AuAuditor *au, const AuBakeoff *b)
{
    if (!t || b->rec.phase != AU_PHASE_DONE || b->rec.installed < 0 ||
        (b->rec.result.outcome != AU_WINNER && b->rec.result.outcome != AU_NO_DIFFERENCE))
        return;
    char *variants = variants_text(au, b->client);
    if (!variants)
        return;
    pthread_mutex_lock(&t->mu);
    AuVerdict *v = NULL;
    for (size_t i = 0; i < t->n && !v; i++)
        if (t->v[i].method == b->m->index && !strcmp(t->v[i].client, au_client_name(b->client)) &&
            !strcmp(t->v[i].variants, variants))
            v = &t->v[i];
    if (v)
        free(v->variants);
    else
        v = push(t);
    if (v) {
        memset(v, 0, sizeof *v);
        v->method = b->m->index;
        snprintf(v->name, sizeof v->name, "%s", b->m->name ? b->m->name : "?");
        snprintf(v->client, sizeof v->client, "%s", au_client_name(b->client));
        v->installed = b->rec.installed;
        snprintf(v->outcome, sizeof v->outcome, "%s", b->rec.same_code ? "same-code" : au_outcome_name(b->rec.result.outcome));
        v->variants = variants;
        v->fresh = true;
        t->changed = true;
    } else {
        free(variants);
    }
    pthread_mutex_unlock(&t->mu);
}

bool au_remember_save(AuVerdicts *t, AuAuditor *au)
{
    if (!t)
        return true;
    pthread_mutex_lock(&t->mu);
    bool changed = t->changed;
    char *s = NULL;
    size_t n = 0;
    FILE *f = changed ? open_memstream(&s, &n) : NULL;
    if (f) {
        fputs(NOTE_HEADER, f);
        for (size_t i = 0; i < t->n; i++) {
            const AuVerdict *v = &t->v[i];
            fprintf(f, "%" PRIu32 "\t%s\t%d\t%s\t%s\t%s\n", v->method, v->client, v->installed, v->outcome, v->name,
                    v->variants);
        }
    }
    t->changed = false;
    pthread_mutex_unlock(&t->mu);
    if (!changed)
        return true;
    bool ok = f && fclose(f) == 0 && jit_note_put(au->jit, NOTE_KIND, s, n);
    free(s);
    return ok;
}

void au_remember_json(FILE *f, AuVerdicts *t, const AuAuditor *au)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    fputs(",\n\"remembered\":[", f);
    bool first = true;
    for (size_t i = 0; i < t->n; i++) {
        const AuVerdict *v = &t->v[i];
        if (!v->applies)
            continue;
        int c = client_index(v->client);
        fprintf(f, "%s{\"method\":", first ? "" : ",");
        vm_json_string(f, v->name, sizeof v->name);
        fprintf(f, ",\"client\":\"%s\",\"installed\":%d,\"variant\":", v->client, v->installed);
        vm_json_string(f, au->variants[c][v->installed].name, sizeof au->variants[c][v->installed].name);
        fprintf(f, ",\"outcome\":\"%s\"}", v->outcome);
        first = false;
    }
    fputs("]", f);
    pthread_mutex_unlock(&t->mu);
}

void au_remember_free(AuVerdicts *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].variants);
    free(t->v);
    pthread_mutex_destroy(&t->mu);
    free(t);
}
