/* vm/tunables.c — the tunables engine: defaults, `-X name=value` parsing
 * and range checks, the listing of `--help=tunables` and docs/tunables.md,
 * for any owner's table (VmTunGroup), and "did you mean" suggestions.
 *
 * Input: assignments from the command line and the owners' groups.
 * Output: the groups' structs, filled and checked row by row.  No global
 * mutable state: the tables are constant.
 */
#include "vm.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const VmTunDesc vm_rows[] = {
#define TUNABLE(...) VM_TUN_ROW(VmTunables, __VA_ARGS__)
#define TUNABLE_STR(...) VM_TUN_ROW_STR(VmTunables, __VA_ARGS__)
#include "vm_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
};
const VmTunGroup vm_tun_group = {"vm", vm_rows, sizeof vm_rows / sizeof vm_rows[0]};

static double scale_of(VmTunKind k)
{
    return k == VM_TUN_BP ? 10000.0 : k == VM_TUN_PCT ? 100.0 : k == VM_TUN_MS ? 1000.0 : 1.0;
}

static void store(const VmTunDesc *d, void *obj, int64_t v)
{
    char *p = (char *)obj + d->offset;
    switch (d->kind) {
    case VM_TUN_BOOL: *(bool *)p = v != 0; break;
    case VM_TUN_BP: case VM_TUN_PCT: case VM_TUN_MS: *(double *)p = (double)v / scale_of(d->kind); break;
    default: *(int64_t *)p = v; break;
    }
}

/* A field's value back in the row's unit. */
static int64_t load(const VmTunDesc *d, const void *obj)
{
    const char *p = (const char *)obj + d->offset;
    switch (d->kind) {
    case VM_TUN_BOOL: return *(const bool *)p;
    case VM_TUN_BP: case VM_TUN_PCT: case VM_TUN_MS: return llround(*(const double *)p * scale_of(d->kind));
    default: return *(const int64_t *)p;
    }
}

void vm_tun_defaults(const VmTunGroup *g, void *obj)
{
    for (size_t i = 0; i < g->n; i++) {
        const VmTunDesc *d = &g->rows[i];
        if (d->kind == VM_TUN_STR)
            *(const char **)((char *)obj + d->offset) = d->sdeflt;
        else
            store(d, obj, d->deflt);
    }
}

void vm_tunables_default(VmTunables *tun)
{
    memset(tun, 0, sizeof *tun);
    vm_tun_defaults(&vm_tun_group, tun);
}

bool vm_tunables_set(VmTunables *tun, const char *assignment, VmError *err)
{
    VmTunSet set = {{&vm_tun_group}, {tun}, 1};
    return vm_tun_set(&set, assignment, err);
}

static bool parse_int(const char *s, VmTunKind kind, int64_t *out)
{
    if (kind == VM_TUN_BOOL) {
        if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "on")) {
            *out = 1;
            return true;
        }
        if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "off")) {
            *out = 0;
            return true;
        }
        return false;
    }
    if (!*s || isspace((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 0);
    if (errno)
        return false;
    if (kind == VM_TUN_SIZE && *end) {
        int shift = 0;
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return false;
        }
        end++;
        if (v < 0 || v > (INT64_MAX >> shift))
            return false;
        v <<= shift;
    }
    if (*end)
        return false;
    *out = v;
    return true;
}

static const char *kind_word(VmTunKind k)
{
    switch (k) {
    case VM_TUN_SIZE: return "a size (bytes, or with K/M/G)";
    case VM_TUN_BOOL: return "a boolean (0/1, true/false)";
    case VM_TUN_STR: return "a string";
    default: return "an integer";
    }
}

static const char *kind_name(VmTunKind k)
{
    static const char *const names[] = {"int", "size", "bool", "bp", "percent", "ms", "string"};
    return names[k];
}

static const char *unit_of(const VmTunDesc *d)
{
    switch (d->kind) {
    case VM_TUN_BP: return "basis points";
    case VM_TUN_PCT: return d->unit && d->unit[0] ? d->unit : "percent";
    case VM_TUN_MS: return "ms";
    default: return d->unit ? d->unit : "";
    }
}

/* "0..100 (percent)", "at least 1", … */
static void range_text(const VmTunDesc *d, char *buf, size_t size)
{
    const char *u = unit_of(d);
    char r[64];
    if (d->max == VM_TUN_NOMAX)
        snprintf(r, sizeof r, "at least %lld", (long long)d->min);
    else
        snprintf(r, sizeof r, "in %lld..%lld", (long long)d->min, (long long)d->max);
    if (u[0])
        snprintf(buf, size, "%s (%s)", r, u);
    else
        snprintf(buf, size, "%s", r);
}

bool vm_tun_set(const VmTunSet *set, const char *assignment, VmError *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return vm_fail(err, "-X expects name=value, got '%s'", assignment);
    size_t nlen = (size_t)(eq - assignment);
    const char *value = eq + 1;
    size_t total = 0;
    for (int g = 0; g < set->n; g++) {
        for (size_t i = 0; i < set->group[g]->n; i++) {
            const VmTunDesc *d = &set->group[g]->rows[i];
            total++;
            if (strlen(d->name) != nlen || memcmp(d->name, assignment, nlen) != 0)
                continue;
            void *obj = set->obj[g];
            if (d->kind == VM_TUN_STR) {
                *(const char **)((char *)obj + d->offset) = value;  /* points into argv, which outlives the VM */
                return true;
            }
            int64_t v;
            if (!parse_int(value, d->kind, &v))
                return vm_fail(err, "tunable '%s' expects %s, got '%s'", d->name, kind_word(d->kind), value);
            if (v < d->min || v > d->max) {
                char r[128];
                range_text(d, r, sizeof r);
                return vm_fail(err, "tunable '%s' must be %s, got %s", d->name, r, value);
            }
            store(d, obj, v);
            return true;
        }
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(nlen < 127 ? nlen : 127), assignment);
    const char **names = malloc((total ? total : 1) * sizeof *names);
    const char *s = NULL;
    if (names) {
        size_t k = 0;
        for (int g = 0; g < set->n; g++)
            for (size_t i = 0; i < set->group[g]->n; i++)
                names[k++] = set->group[g]->rows[i].name;
        s = vm_suggest(name, names, k);
        free(names);
    }
    if (s)
        return vm_fail(err, "unknown tunable '%s' (did you mean '%s'?)", name, s);
    return vm_fail(err, "unknown tunable '%s' (tally --help=tunables lists them)", name);
}

static void value_text(const VmTunDesc *d, const void *obj, bool deflt, char *buf, size_t size)
{
    if (d->kind == VM_TUN_STR) {
        const char *s = deflt ? d->sdeflt : *(const char *const *)((const char *)obj + d->offset);
        snprintf(buf, size, "\"%s\"", s ? s : "");
    } else if (d->kind == VM_TUN_BOOL) {
        snprintf(buf, size, "%s", (deflt ? d->deflt : load(d, obj)) ? "true" : "false");
    } else {
        snprintf(buf, size, "%lld", (long long)(deflt ? d->deflt : load(d, obj)));
    }
}

/* Markdown table cells must not hold a bare '|'. */
static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s, out);
    }
}

void vm_tun_list(FILE *out, const VmTunSet *set, bool markdown)
{
    for (int g = 0; g < set->n; g++) {
        const VmTunGroup *grp = set->group[g];
        if (markdown)
            fprintf(out, "%s## %s\n\n| name | type | default | range | help |\n|---|---|---|---|---|\n",
                    g ? "\n" : "", grp->owner);
        else
            fprintf(out, "%s%s:\n", g ? "\n" : "", grp->owner);
        for (size_t i = 0; i < grp->n; i++) {
            const VmTunDesc *d = &grp->rows[i];
            char val[160], r[128] = "";
            value_text(d, set->obj[g], markdown, val, sizeof val);
            if (d->kind != VM_TUN_STR && d->kind != VM_TUN_BOOL)
                range_text(d, r, sizeof r);
            if (markdown) {
                fprintf(out, "| `%s` | %s | `", d->name, kind_name(d->kind));
                md_cell(out, val);
                fputs("` | ", out);
                md_cell(out, r);
                fputs(" | ", out);
                md_cell(out, d->help);
                fputs(" |\n", out);
            } else {
                char def[160];
                value_text(d, set->obj[g], true, def, sizeof def);
                fprintf(out, "  %-26s %-7s = %s", d->name, kind_name(d->kind), val);
                if (strcmp(val, def) != 0)
                    fprintf(out, "  (default %s)", def);
                if (r[0])
                    fprintf(out, "  [%s]", r);
                fprintf(out, "\n      %s\n", d->help);
            }
        }
    }
}

/* Levenshtein distance, case-blind, bounded to short words (names, flags). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *vm_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, candidates[i]);
        if (d < bestd) {
            bestd = d;
            best = candidates[i];
        }
    }
    /* close enough: a third of the word, at least 2 edits */
    size_t limit = strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    return bestd <= limit ? best : NULL;
}
