/* jit/preload.c — compiled code from a program's first call: the code
 * cache's entries that the last run of the same module used, loaded
 * before the next run starts (jit.preload).
 *
 * Input, while a run compiles: each item it found in the code cache or
 * stored there (jit/unit.c), with the values of its link slots and its
 * error-site descriptors.  Output, at the run's end: DIR/<hash>.run, the
 * hash of tally's build id, the module's bytes and what else decides its
 * code (the IR's tunables, the option set); per item the entry's
 * key, the method, its OSR header and each slot's value *described*: an
 * entry of one of the module's tables (a method, its profile counters,
 * its bytecode, a class, a type, a global), a string constant's object, a
 * type's class, an address in tally's own image (same build id, same
 * offsets), a library's symbol, or an error site (methods and pcs).
 * After the items, the branch and call-site profile of each method whose
 * entry is listed: compiled code does not record them, so a method that
 * runs preloaded code from its first call would otherwise leave later
 * compiles that inline it an empty profile.
 * Next run, before the program's first instruction: each item's
 * descriptions are resolved in this process, its entry loaded from the
 * cache and its slots filled, and the code installed as if compiled now;
 * a method whose entry is installed gets the listed profile.
 * Invariants: a value is described only when its description resolves
 * back to it in the recording process (else the item is not listed); a
 * list is read only from the cache's own directory, checked by its
 * checksum, and every index in it is checked against this module; an item
 * that does not resolve or load is skipped, never half installed.
 */
#include "jit_int.h"
#include "tier.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MAGIC "TLYRUN01"

/* What a slot's value is (one byte in the list, then its fields). */
typedef enum {
    D_IMAGE,     /* u64: offset in tally's own image */
    D_SYMBOL,    /* str library, str symbol, u64 offset from the symbol */
    D_TABLE,     /* u8 table (TAB_*), u64 byte offset from the table's start */
    D_CODE,      /* u32 method, u64 byte offset in its bytecode */
    D_BRANCHES,  /* u32 method, u64 byte offset in its branch profile */
    D_SITES,     /* u32 method, u64 byte offset in its call sites */
    D_STRING,    /* u32 constant: its string object */
    D_TYPECLASS, /* u32 type: its class (arrays, functions) */
    D_WHERE,     /* u32 n, then n × (u32 method, u32 pc): an error site */
} Desc;

enum { TAB_CONSTS, TAB_TYPES, TAB_CLASSES, TAB_FIELDS, TAB_METHODS, TAB_NATIVES, TAB_GLOBALS, TAB_GVALS, TAB_N };

struct JitPreload {
    VmModule *mod;
    JitCache *cache;
    char name[64];             /* the module's list in the cache */
    uintptr_t image_lo, image_hi, image_base;
    pthread_mutex_t mu;
    VmBuf items;               /* this run's items, as the list holds them */
    uint32_t nitems;
    JitCacheKey *keys;         /* theirs, not listed twice */
    uint32_t capkeys;
    bool *entry_listed;        /* per method: an item of this run's list has its entry */
};

/* ---- tally's own image ---------------------------------------------------- */

static int note_image(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    JitPreload *pl = data;
    if (info->dlpi_name && info->dlpi_name[0])   /* the main program only */
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    if (lo < hi) {
        pl->image_lo = lo;
        pl->image_hi = hi;
        pl->image_base = info->dlpi_addr;
    }
    return 1;
}

/* ---- the module's tables -------------------------------------------------- */

static const void *table(const VmModule *mod, int t, size_t *bytes)
{
    switch (t) {
    case TAB_CONSTS: *bytes = mod->nconsts * sizeof *mod->consts; return mod->consts;
    case TAB_TYPES: *bytes = mod->ntypes * sizeof *mod->types; return mod->types;
    case TAB_CLASSES: *bytes = mod->nclasses * sizeof *mod->classes; return mod->classes;
    case TAB_FIELDS: *bytes = mod->nfields * sizeof *mod->fields; return mod->fields;
    case TAB_METHODS: *bytes = mod->nmethods * sizeof *mod->methods; return mod->methods;
    case TAB_NATIVES: *bytes = mod->nnatives * sizeof *mod->natives; return mod->natives;
    case TAB_GLOBALS: *bytes = mod->nglobals * sizeof *mod->globals; return mod->globals;
    case TAB_GVALS: *bytes = mod->nglobals * sizeof *mod->gvals; return mod->gvals;
    default: *bytes = 0; return NULL;
    }
}

/* A method's array: 0 bytecode, 1 branch profile, 2 call sites. */
static const void *method_array(const VmMethod *m, int which, size_t *bytes)
{
    switch (which) {
    case 0: *bytes = m->ncode * sizeof *m->code; return m->code;
    case 1: *bytes = m->prof.nbranches * sizeof *m->prof.branches; return m->prof.branches;
    default: *bytes = m->prof.nsites * sizeof *m->prof.sites; return m->prof.sites;
    }
}

/* p within [base, base + bytes] (one past the end too: code + ncode). */
static bool within(const void *p, const void *base, size_t bytes, uint64_t *off)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    if (!base || a < b || a - b > bytes)
        return false;
    *off = a - b;
    return true;
}

static bool in_table(const VmModule *mod, int t, const void *p, size_t *bytes, uint64_t *off)
{
    const void *base = table(mod, t, bytes);
    return within(p, base, *bytes, off);
}

/* ---- the list's encoding -------------------------------------------------- */

static void put_u8(VmBuf *b, uint8_t v) { vm_buf_put(b, &v, 1); }
static void put_u32(VmBuf *b, uint32_t v) { vm_buf_put(b, &v, 4); }
static void put_u64(VmBuf *b, uint64_t v) { vm_buf_put(b, &v, 8); }
static void put_str(VmBuf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put_u32(b, n);
    vm_buf_put(b, s, n);
}

typedef struct Cur {
    const uint8_t *p, *end;
    bool bad;
} Cur;

static bool take(Cur *c, void *v, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        memset(v, 0, n);
        return false;
    }
    memcpy(v, c->p, n);
    c->p += n;
    return true;
}
static uint8_t get_u8(Cur *c) { uint8_t v; take(c, &v, 1); return v; }
static uint32_t get_u32(Cur *c) { uint32_t v; take(c, &v, 4); return v; }
static uint64_t get_u64(Cur *c) { uint64_t v; take(c, &v, 8); return v; }
static bool get_str(Cur *c, char *buf, size_t size)
{
    uint32_t n = get_u32(c);
    if (c->bad || n >= size || (size_t)(c->end - c->p) < n)
        return !(c->bad = true);
    memcpy(buf, c->p, n);
    buf[n] = 0;
    c->p += n;
    return true;
}

static uint32_t method_index(const VmModule *mod, const VmMethod *m)
{
    size_t bytes = 0;
    uint64_t off;
    if (!m)
        return UINT32_MAX;
    if (!in_table(mod, TAB_METHODS, m, &bytes, &off) || off % sizeof *mod->methods || off == bytes)
        return UINT32_MAX;
    return (uint32_t)(off / sizeof *mod->methods);
}

/* ---- describing a value, and resolving a description --------------------- */

static bool describe(const JitPreload *pl, const JitWheres *w, const void *p, VmBuf *b)
{
    const VmModule *mod = pl->mod;
    uint64_t off;
    size_t bytes = 0;
    for (uint32_t i = 0; w && i < w->n; i++) {
        if (w->v[i] != p)
            continue;
        put_u8(b, D_WHERE);
        put_u32(b, w->v[i]->n);
        for (uint32_t k = 0; k < w->v[i]->n; k++) {
            uint32_t mi = method_index(mod, w->v[i]->lv[k].m);
            if (mi == UINT32_MAX)
                return false;
            put_u32(b, mi);
            put_u32(b, w->v[i]->lv[k].pc);
        }
        return true;
    }
    for (uint32_t i = 0; mod->cstrings && i < mod->nconsts; i++)
        if (mod->cstrings[i] == p) {
            put_u8(b, D_STRING);
            put_u32(b, i);
            return true;
        }
    for (uint32_t i = 0; i < mod->ntypes; i++)
        if (mod->types[i].cls && (const void *)mod->types[i].cls == p) {
            put_u8(b, D_TYPECLASS);
            put_u32(b, i);
            return true;
        }
    for (int t = 0; t < TAB_N; t++)
        if (in_table(mod, t, p, &bytes, &off)) {
            put_u8(b, D_TABLE);
            put_u8(b, (uint8_t)t);
            put_u64(b, off);
            return true;
        }
    for (uint32_t i = 0; i < mod->nmethods; i++)
        for (int a = 0; a < 3; a++) {
            const void *base = method_array(&mod->methods[i], a, &bytes);
            if (within(p, base, bytes, &off)) {
                put_u8(b, a == 0 ? D_CODE : a == 1 ? D_BRANCHES : D_SITES);
                put_u32(b, i);
                put_u64(b, off);
                return true;
            }
        }
    if ((uintptr_t)p >= pl->image_lo && (uintptr_t)p < pl->image_hi) {
        put_u8(b, D_IMAGE);
        put_u64(b, (uintptr_t)p - pl->image_base);
        return true;
    }
    Dl_info info;
    if (dladdr(p, &info) && info.dli_fname && info.dli_sname && info.dli_saddr) {
        put_u8(b, D_SYMBOL);
        put_str(b, info.dli_fname);
        put_str(b, info.dli_sname);
        put_u64(b, (uintptr_t)p - (uintptr_t)info.dli_saddr);
        return true;
    }
    return false;
}

/* The value c describes next, in this process; error sites made are
 * appended to w (they live as long as the code).  False: it does not
 * resolve here. */
static bool resolve(const JitPreload *pl, Cur *c, JitWheres *w, const void **out)
{
    const VmModule *mod = pl->mod;
    size_t bytes = 0;
    uint8_t d = get_u8(c);
    switch (d) {
    case D_WHERE: {
        uint32_t n = get_u32(c);
        if (c->bad || n == 0 || n > 4096)
            return false;
        JitWhere *x = malloc(sizeof *x + n * sizeof x->lv[0]);
        if (!x)
            return false;
        x->n = n;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t mi = get_u32(c), pc = get_u32(c);
            if (c->bad || mi >= mod->nmethods || pc > mod->methods[mi].ncode) {
                free(x);
                return false;
            }
            x->lv[k].m = &mod->methods[mi];
            x->lv[k].pc = pc;
        }
        if (w->n == w->cap) {
            uint32_t cap = w->cap ? 2 * w->cap : 16;
            JitWhere **v = realloc(w->v, cap * sizeof *v);
            if (!v) {
                free(x);
                return false;
            }
            w->v = v;
            w->cap = cap;
        }
        w->v[w->n++] = x;
        *out = x;
        return true;
    }
    case D_STRING: {
        uint32_t i = get_u32(c);
        return !c->bad && mod->cstrings && i < mod->nconsts && (*out = mod->cstrings[i]) != NULL;
    }
    case D_TYPECLASS: {
        uint32_t i = get_u32(c);
        return !c->bad && i < mod->ntypes && (*out = mod->types[i].cls) != NULL;
    }
    case D_TABLE: {
        uint8_t t = get_u8(c);
        uint64_t off = get_u64(c);
        const uint8_t *base = t < TAB_N ? table(mod, t, &bytes) : NULL;
        return !c->bad && base && off <= bytes && (*out = base + off, true);
    }
    case D_CODE:
    case D_BRANCHES:
    case D_SITES: {
        uint32_t i = get_u32(c);
        uint64_t off = get_u64(c);
        if (c->bad || i >= mod->nmethods)
            return false;
        const uint8_t *base = method_array(&mod->methods[i], d == D_CODE ? 0 : d == D_BRANCHES ? 1 : 2, &bytes);
        return base && off <= bytes && (*out = base + off, true);
    }
    case D_IMAGE: {
        uint64_t off = get_u64(c);
        uintptr_t a = pl->image_base + (uintptr_t)off;
        return !c->bad && a >= pl->image_lo && a < pl->image_hi && (*out = (const void *)a, true);
    }
    case D_SYMBOL: {
        char lib[4096], sym[512];
        if (!get_str(c, lib, sizeof lib) || !get_str(c, sym, sizeof sym))
            return false;
        uint64_t off = get_u64(c);
        void *h = c->bad ? NULL : dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);   /* only what is loaded already */
        void *s = h ? dlsym(h, sym) : NULL;
        if (h)
            dlclose(h);
        return s && (*out = (const uint8_t *)s + off, true);
    }
    default:
        c->bad = true;
        return false;
    }
}

/* ---- profiles -------------------------------------------------------------- */

static uint32_t class_index(const VmModule *mod, const VmClass *c)
{
    size_t bytes = 0;
    uint64_t off;
    if (!c || !in_table(mod, TAB_CLASSES, c, &bytes, &off) || off % sizeof *mod->classes || off == bytes)
        return UINT32_MAX;
    return (uint32_t)(off / sizeof *mod->classes);
}

/* m's branch and call-site profile, as the list holds it. */
static void put_profile(VmBuf *b, const VmModule *mod, const VmMethod *m)
{
    put_u32(b, method_index(mod, m));
    put_u32(b, m->prof.nbranches);
    for (uint32_t i = 0; i < m->prof.nbranches; i++) {
        put_u64(b, VM_PROF_GET(m->prof.branches[i].taken));
        put_u64(b, VM_PROF_GET(m->prof.branches[i].not_taken));
    }
    put_u32(b, m->prof.nsites);
    for (uint32_t i = 0; i < m->prof.nsites; i++) {
        const VmCallSite *s = &m->prof.sites[i];
        for (int w = 0; w < VM_SITE_WAYS; w++) {
            put_u32(b, class_index(mod, VM_PROF_GET(s->seen[w].cls)));
            put_u64(b, VM_PROF_GET(s->seen[w].count));
            put_u32(b, method_index(mod, VM_PROF_GET(s->seen[w].m)));
        }
        put_u64(b, VM_PROF_GET(s->other));
    }
}

/* Reads one profile; sets it on its method when apply[method] (its entry
 * was installed) and it has the method's shape.  False: the list ends. */
static bool take_profile(const JitPreload *pl, Cur *c, const bool *apply)
{
    const VmModule *mod = pl->mod;
    uint32_t mi = get_u32(c), nb = get_u32(c);
    if (c->bad || mi >= mod->nmethods || nb > (1u << 24) || (size_t)(c->end - c->p) < (size_t)nb * 16)
        return false;
    VmMethod *m = &mod->methods[mi];
    bool set = apply[mi] && nb == m->prof.nbranches;
    for (uint32_t i = 0; i < nb; i++) {
        uint64_t t = get_u64(c), nt = get_u64(c);
        if (set) {
            VM_PROF_SET(m->prof.branches[i].taken, t);
            VM_PROF_SET(m->prof.branches[i].not_taken, nt);
        }
    }
    uint32_t ns = get_u32(c);
    if (c->bad || ns > (1u << 24))
        return false;
    set = apply[mi] && ns == m->prof.nsites;
    for (uint32_t i = 0; i < ns && !c->bad; i++) {
        VmCallSite *s = set ? &m->prof.sites[i] : NULL;
        for (int w = 0; w < VM_SITE_WAYS; w++) {
            uint32_t ci = get_u32(c);
            uint64_t n = get_u64(c);
            uint32_t wi = get_u32(c);
            if (s) {   /* a way names a class (and, at interface sites, its method), or is empty */
                bool ok = ci < mod->nclasses;
                VM_PROF_SET(s->seen[w].cls, ok ? &mod->classes[ci] : NULL);
                VM_PROF_SET(s->seen[w].m, ok && wi < mod->nmethods ? &mod->methods[wi] : NULL);
                VM_PROF_SET(s->seen[w].count, ok ? n : 0);
            }
        }
        uint64_t other = get_u64(c);
        if (s)
            VM_PROF_SET(s->other, other);
    }
    return !c->bad;
}

/* ---- recording ------------------------------------------------------------ */

static bool same_where(const JitWhere *a, const JitWhere *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (a->lv[k].m != b->lv[k].m || a->lv[k].pc != b->lv[k].pc)
            return false;
    return true;
}

JitPreload *jit_preload_new(VmModule *mod, JitCache *cache, const char *name)
{
    if (!mod || !cache || !name)
        return NULL;
    JitPreload *pl = calloc(1, sizeof *pl);
    if (pl && !(pl->entry_listed = calloc(mod->nmethods ? mod->nmethods : 1, 1))) {
        free(pl);
        pl = NULL;
    }
    if (!pl)
        return NULL;
    pl->mod = mod;
    pl->cache = cache;
    snprintf(pl->name, sizeof pl->name, "%s", name);
    dl_iterate_phdr(note_image, pl);
    pthread_mutex_init(&pl->mu, NULL);
    return pl;
}

/* Adds one item (of method mi, its entry unless osr_only) to this run's
 * list; under mu. */
static void add_locked(JitPreload *pl, const JitCacheKey *key, uint32_t mi, bool osr_only, const uint8_t *item,
                       size_t len)
{
    for (uint32_t i = 0; i < pl->nitems; i++)
        if (pl->keys[i].hi == key->hi && pl->keys[i].lo == key->lo)
            return;
    if (pl->nitems == pl->capkeys) {
        uint32_t cap = pl->capkeys ? 2 * pl->capkeys : 32;
        JitCacheKey *k = realloc(pl->keys, cap * sizeof *k);
        if (!k)
            return;
        pl->keys = k;
        pl->capkeys = cap;
    }
    pl->keys[pl->nitems++] = *key;
    pl->entry_listed[mi] |= !osr_only;
    put_u32(&pl->items, (uint32_t)len);
    vm_buf_put(&pl->items, item, len);
}

void jit_preload_note(JitPreload *pl, const JitCacheKey *key, const VmMethod *m, const VmInsn *osr_pc, bool osr_only,
                      const JitLinks *l, const JitWheres *w)
{
    if (!pl)
        return;
    uint32_t mi = method_index(pl->mod, m);
    if (mi == UINT32_MAX)
        return;
    VmBuf b = {0};
    vm_buf_put(&b, key, sizeof *key);
    put_u32(&b, mi);
    put_u32(&b, osr_pc ? (uint32_t)(osr_pc - m->code) : UINT32_MAX);
    put_u8(&b, osr_only);
    put_u32(&b, l->n);
    bool ok = true;
    for (uint32_t k = 0; ok && k < l->n; k++) {
        size_t at = b.len;
        ok = describe(pl, w, l->v[k], &b);
        /* only what resolves back to itself here is kept */
        Cur c = {b.data + at, b.data + b.len, false};
        JitWheres made = {0};
        const void *back = NULL;
        ok = ok && resolve(pl, &c, &made, &back) && !c.bad && c.p == c.end &&
             (made.n ? made.n == 1 && same_where(made.v[0], l->v[k]) : back == l->v[k]);
        for (uint32_t i = 0; i < made.n; i++)
            free(made.v[i]);
        free(made.v);
    }
    if (ok) {
        pthread_mutex_lock(&pl->mu);
        add_locked(pl, key, mi, osr_only, b.data, b.len);
        pthread_mutex_unlock(&pl->mu);
    }
    vm_buf_free(&b);
}

bool jit_preload_save(JitPreload *pl)
{
    if (!pl || !pl->nitems)
        return true;   /* a run that used no cached code keeps the last list */
    VmBuf out = {0};
    vm_buf_put(&out, RUN_MAGIC, 8);
    pthread_mutex_lock(&pl->mu);
    put_u32(&out, pl->nitems);
    vm_buf_put(&out, pl->items.data, pl->items.len);
    /* the profiles of the methods whose entries are listed */
    VmBuf prof = {0};
    uint32_t nprof = 0;
    for (uint32_t mi = 0; mi < pl->mod->nmethods; mi++)
        if (pl->entry_listed[mi]) {
            put_profile(&prof, pl->mod, &pl->mod->methods[mi]);
            nprof++;
        }
    pthread_mutex_unlock(&pl->mu);
    put_u32(&out, nprof);
    if (prof.len)
        vm_buf_put(&out, prof.data, prof.len);
    vm_buf_free(&prof);
    bool ok = out.data && jit_cache_put_note(pl->cache, pl->name, out.data, out.len);
    vm_buf_free(&out);
    return ok;
}

void jit_preload_free(JitPreload *pl)
{
    if (!pl)
        return;
    pthread_mutex_destroy(&pl->mu);
    vm_buf_free(&pl->items);
    free(pl->keys);
    free(pl->entry_listed);
    free(pl);
}

/* ---- loading -------------------------------------------------------------- */

/* One listed item: resolved, loaded, its slots filled; *x set.  False:
 * skipped (nothing of it loaded stays in use). */
static bool load_item(JitPreload *pl, Cur *c, JitPreloaded *x)
{
    const VmModule *mod = pl->mod;
    JitCacheKey key;
    take(c, &key, sizeof key);
    uint32_t mi = get_u32(c), osr = get_u32(c);
    bool osr_only = get_u8(c);
    uint32_t n = get_u32(c);
    if (c->bad || mi >= mod->nmethods || n > (1u << 20))
        return false;
    VmMethod *m = &mod->methods[mi];
    if ((osr != UINT32_MAX && osr >= m->ncode) || (osr_only && osr == UINT32_MAX))
        return false;
    JitLinks l;
    memset(&l, 0, sizeof l);
    JitWheres w = {0};
    bool ok = (l.v = calloc(n ? n : 1, sizeof *l.v)) != NULL;
    for (uint32_t k = 0; ok && k < n; k++)
        ok = resolve(pl, c, &w, &l.v[k]);
    l.n = ok ? n : 0;
    JitLoaded u = {0};
    JitCacheSyms syms;
    VmError e;
    ok = ok && c->p == c->end && jit_cache_load(pl->cache, &key, &u, &syms);
    if (ok) {
        snprintf(l.sym, sizeof l.sym, "%s", syms.link);
        x->m = m;
        x->entry = !osr_only && syms.entry[0] ? (VmEntry)jit_load_symbol(&u, syms.entry, &x->code_bytes) : NULL;
        x->osr_entry = osr != UINT32_MAX && syms.osr[0] ? (VmOsrEntry)jit_load_symbol(&u, syms.osr, NULL) : NULL;
        x->osr_pc = x->osr_entry ? &m->code[osr] : NULL;
        x->unit = u.handle;
        ok = (x->entry || x->osr_entry) && (osr_only || x->entry) && jit_links_fill(&u, &l, &e);
        if (!ok)   /* never run: a loaded object that is not used stays loaded, unused */
            *x = (JitPreloaded){0};
    }
    if (!ok)
        for (uint32_t i = 0; i < w.n; i++)
            free(w.v[i]);
    free(w.v);   /* the sites themselves live as long as the code */
    jit_links_free(&l);
    return ok;
}

size_t jit_preload_run(JitPreload *pl, void (*install)(void *ctx, const JitPreloaded *x), void *ctx)
{
    VmBuf list = {0};
    if (!pl || !jit_cache_get_note(pl->cache, pl->name, &list))
        return 0;
    Cur c = {list.data, list.data + list.len, false};
    char magic[8];
    take(&c, magic, sizeof magic);
    uint32_t n = get_u32(&c);
    size_t done = 0;
    bool *entry = calloc(pl->mod->nmethods ? pl->mod->nmethods : 1, 1);   /* installed entries */
    if (!entry || memcmp(magic, RUN_MAGIC, 8) != 0)
        c.bad = true;
    for (uint32_t i = 0; !c.bad && i < n; i++) {
        uint32_t len = get_u32(&c);
        if (c.bad || (size_t)(c.end - c.p) < len)
            break;
        Cur item = {c.p, c.p + len, false};
        JitPreloaded x = {0};
        double t0 = jit_now_us();
        if (load_item(pl, &item, &x)) {
            x.us = jit_now_us() - t0;
            install(ctx, &x);
            if (x.entry)
                entry[x.m->index] = true;
            jit_cache_count_preloaded(pl->cache);
            JitCacheKey key;
            memcpy(&key, c.p, sizeof key);
            pthread_mutex_lock(&pl->mu);
            add_locked(pl, &key, x.m->index, !x.entry, c.p, len);   /* listed again for the next run */
            pthread_mutex_unlock(&pl->mu);
            done++;
        }
        c.p += len;
    }
    uint32_t nprof = get_u32(&c);
    for (uint32_t i = 0; !c.bad && i < nprof; i++)
        if (!take_profile(pl, &c, entry))
            break;
    free(entry);
    vm_buf_free(&list);
    return done;
}
