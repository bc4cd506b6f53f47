/* vm/tunables.c — the tunables table (vm/tunables.def): defaults, parsing
 * of `-X name=value`, help text, and "did you mean" suggestions.
 *
 * Input: assignments from the command line.  Output: a VmTunables value
 * owned by the caller (the VM copies it).  No global mutable state: the
 * table below is constant.
 */
#include "vm.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct TunDesc {
    const char *name;
    VmTunableType type;
    size_t offset;
    int64_t deflt;
    const char *sdeflt;
    const char *help;
} TunDesc;

static const TunDesc tunables[] = {
#define TUNABLE(field, name, type, deflt, help) \
    {name, type, offsetof(VmTunables, field), (deflt), NULL, help},
#define TUNABLE_STR(field, name, deflt, help) \
    {name, VM_TUN_STRING, offsetof(VmTunables, field), 0, deflt, help},
#include "tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
};
#define NTUNABLES (sizeof tunables / sizeof tunables[0])

void vm_tunables_default(VmTunables *tun)
{
    memset(tun, 0, sizeof *tun);
    for (size_t i = 0; i < NTUNABLES; i++) {
        char *p = (char *)tun + tunables[i].offset;
        if (tunables[i].type == VM_TUN_STRING)
            *(const char **)p = tunables[i].sdeflt;
        else
            *(int64_t *)p = tunables[i].deflt;
    }
}

static bool parse_int(const char *s, VmTunableType type, int64_t *out)
{
    if (type == VM_TUN_BOOL) {
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
    if (type == VM_TUN_SIZE && *end) {
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

static const char *type_word(VmTunableType t)
{
    switch (t) {
    case VM_TUN_INT: return "an integer";
    case VM_TUN_SIZE: return "a size (bytes, or with K/M/G)";
    case VM_TUN_BOOL: return "a boolean (0/1, true/false)";
    default: return "a string";
    }
}

bool vm_tunables_set(VmTunables *tun, const char *assignment, VmError *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return vm_fail(err, "-X expects name=value, got '%s'", assignment);
    size_t nlen = (size_t)(eq - assignment);
    const char *value = eq + 1;
    for (size_t i = 0; i < NTUNABLES; i++) {
        const TunDesc *d = &tunables[i];
        if (strlen(d->name) != nlen || memcmp(d->name, assignment, nlen) != 0)
            continue;
        char *p = (char *)tun + d->offset;
        if (d->type == VM_TUN_STRING) {
            *(const char **)p = value;  /* points into argv, which outlives the VM */
            return true;
        }
        int64_t v;
        if (!parse_int(value, d->type, &v))
            return vm_fail(err, "tunable '%s' expects %s, got '%s'", d->name,
                           type_word(d->type), value);
        if (v < 0)
            return vm_fail(err, "tunable '%s' must not be negative, got '%s'", d->name, value);
        *(int64_t *)p = v;
        return true;
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(nlen < 127 ? nlen : 127), assignment);
    const char *names[NTUNABLES];
    for (size_t i = 0; i < NTUNABLES; i++)
        names[i] = tunables[i].name;
    const char *s = vm_suggest(name, names, NTUNABLES);
    if (s)
        return vm_fail(err, "unknown tunable '%s' (did you mean '%s'?)", name, s);
    return vm_fail(err, "unknown tunable '%s' (tally --help lists them)", name);
}

void vm_tunables_help(FILE *out)
{
    for (size_t i = 0; i < NTUNABLES; i++) {
        const TunDesc *d = &tunables[i];
        char def[64];
        if (d->type == VM_TUN_STRING)
            snprintf(def, sizeof def, "\"%s\"", d->sdeflt ? d->sdeflt : "");
        else
            snprintf(def, sizeof def, "%lld", (long long)d->deflt);
        fprintf(out, "  %-22s %-10s %s (default %s)\n", d->name,
                d->type == VM_TUN_SIZE ? "size" : d->type == VM_TUN_BOOL ? "bool"
                : d->type == VM_TUN_STRING ? "string" : "int",
                d->help, def);
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
