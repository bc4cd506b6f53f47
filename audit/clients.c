/* audit/clients.c — the auditing clients: what competes in a bakeoff.
 *
 * Input: the client list (--audit=LIST, tunable audit.clients) and the
 * tunables each client reads.  Output: per client, N ≥ 2 variant specs
 * (an option set plus the inliner's tunables); variant 0 is the default,
 * the code installed when a bakeoff ends in no-difference or timeout.
 *
 * Clients (the AU_CLIENTS table in auditor_api.h):
 * - inline: jit.optset with the inliner's defaults vs the same with
 *   inline.max_callee_size × audit.inline_scale (4: the thesis's client);
 * - optlevel: the option sets of audit.optlevel ("O2,O3");
 * - unroll, vectorize: jit.optset vs the named set;
 * - aa: two identical default variants (the null client: every winner it
 *   declares is a false positive);
 * - custom: the ';'-separated raw gcc option strings of audit.custom.
 * Invariants: every option set is checked (jit_optset_check) before any
 * program runs, so a bad value is a usage error, never a failed bakeoff.
 */
#include "auditor_api.h"
#include "jit.h"
#include "probe.h"
#include "vm.h"

#include <ctype.h>
#include <string.h>

static const struct {
    const char *name, *help;
} clients[AU_NCLIENTS] = {
#define X(e, s, h) [e] = {s, h},
    AU_CLIENTS(X)
#undef X
};

static const char *const names[AU_NCLIENTS + 1] = {
#define X(e, s, h) [e] = s,
    AU_CLIENTS(X)
#undef X
};

const char *au_client_name(AuClient c)
{
    return (unsigned)c < AU_NCLIENTS ? clients[c].name : "?";
}

const char *const *au_client_names(void)
{
    return names;
}

void au_clients_help(FILE *out)
{
    for (int c = 0; c < AU_NCLIENTS; c++)
        fprintf(out, "                     %-10s %s\n", clients[c].name, clients[c].help);
}

bool au_clients_parse(const char *list, uint32_t *mask, VmError *err)
{
    *mask = 0;
    if (!list || !*list)
        return true;
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), p);
        if (!n)
            return vm_fail(err, "empty audit client name in '%s'", list);
        int found = -1;
        for (int c = 0; c < AU_NCLIENTS; c++)
            if (!strcmp(word, clients[c].name))
                found = c;
        if (found < 0) {
            const char *s = vm_suggest(word, names, AU_NCLIENTS);
            return vm_fail(err, "unknown audit client '%s'%s%s%s (one of: inline, optlevel, unroll, vectorize, aa, custom)",
                           word, s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
        }
        if (*mask & 1u << found)
            return vm_fail(err, "audit client '%s' named twice", word);
        *mask |= 1u << found;
        if (!e)
            return true;
        p = e + 1;
    }
}

/* Copies at most size-1 bytes of s[0..n) without surrounding blanks. */
static void trimmed(char *out, size_t size, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(out, size, "%.*s", (int)(n < size - 1 ? n : size - 1), s);
}

static void spec(AuVariantSpec *v, const char *name, const char *optset, const IrOptions *ir)
{
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%.*s", (int)sizeof v->name - 1, name);   /* long raw sets: cut */
    snprintf(v->optset, sizeof v->optset, "%s", optset);
    v->inline_max_callee_size = (int32_t)ir->max_callee_size;
    v->inline_max_depth = (int32_t)ir->max_depth;
    v->inline_max_growth = (int32_t)ir->max_growth;
}

/* The option sets of a list separated by sep, each checked; 0 + err if
 * fewer than two or one is bad.  what names the tunable in messages. */
static int split_sets(const char *list, char sep, const char *what, const IrOptions *ir,
                      AuVariantSpec out[JIT_MAX_VARIANTS], VmError *err)
{
    int n = 0;
    for (const char *p = list ? list : ""; *p;) {
        const char *e = strchr(p, sep);
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char set[AU_OPTIONS_MAX];
        trimmed(set, sizeof set, p, len);
        if (len >= AU_OPTIONS_MAX)
            return vm_fail(err, "tunable '%s': option set longer than %d characters", what, AU_OPTIONS_MAX - 1), 0;
        if (!set[0])
            return vm_fail(err, "tunable '%s': empty option set in '%s'", what, list), 0;
        if (n == JIT_MAX_VARIANTS)
            return vm_fail(err, "tunable '%s': more than %d variants", what, JIT_MAX_VARIANTS), 0;
        VmError e2 = {{0}};
        if (!jit_optset_check(set, &e2))
            return vm_fail(err, "tunable '%s': %s", what, e2.msg), 0;
        spec(&out[n], set, set, ir);
        n++;
        p = e ? e + 1 : p + len;
    }
    if (n < 2)
        return vm_fail(err, "tunable '%s' needs at least two option sets separated by '%c', got '%s'", what, sep,
                       list ? list : ""), 0;
    return n;
}

int au_client_variants(AuClient c, const AuConfig *cfg, const char *jit_optset, const IrOptions *ir,
                       AuVariantSpec out[JIT_MAX_VARIANTS], VmError *err)
{
    const char *def = jit_optset && jit_optset[0] ? jit_optset : "O2";
    switch (c) {
    case AU_CLIENT_INLINE: {
        int64_t scale = cfg->inline_scale;
        spec(&out[0], "default", def, ir);
        char name[32];
        snprintf(name, sizeof name, "inline%lldx", (long long)scale);
        spec(&out[1], name, def, ir);
        int64_t size = ir->max_callee_size * scale;
        out[1].inline_max_callee_size = (int32_t)(size > INT32_MAX ? INT32_MAX : size);
        return 2;
    }
    case AU_CLIENT_OPTLEVEL:
        return split_sets(cfg->optlevel, ',', "audit.optlevel", ir, out, err);
    case AU_CLIENT_UNROLL:
    case AU_CLIENT_VECTORIZE: {
        const char *other = c == AU_CLIENT_UNROLL ? "unroll" : "vectorize";
        spec(&out[0], def, def, ir);
        spec(&out[1], other, other, ir);
        return 2;
    }
    case AU_CLIENT_AA:
        spec(&out[0], "a", def, ir);
        spec(&out[1], "b", def, ir);
        return 2;
    case AU_CLIENT_CUSTOM:
        return split_sets(cfg->custom, ';', "audit.custom", ir, out, err);
    default:
        return vm_fail(err, "unknown audit client %d", (int)c), 0;
    }
}

bool au_check_config(AuConfig *cfg, const char *jit_optset, const IrOptions *ir, VmError *err)
{
    uint32_t mask;
    if (!au_clients_parse(cfg->clients, &mask, err) || !au_config_check(cfg, err))
        return false;
    AuVariantSpec v[JIT_MAX_VARIANTS];
    for (int c = 0; c < AU_NCLIENTS; c++)
        if ((mask & 1u << c) && !au_client_variants((AuClient)c, cfg, jit_optset, ir, v, err))
            return false;
    return true;
}
