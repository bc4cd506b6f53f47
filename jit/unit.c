/* jit/unit.c — compile units: requests → IR → one gccjit context → one
 * assembly text → one loaded object (jit_compile_unit, jit_compile).
 *
 * Input: compile requests (a linked method, IR options, an option set, for
 * OSR a loop header).  Output: per request a JitResult: the entry (and
 * OSR entry) looked up in the loaded object, phase times, the unit's id.
 *
 * Why units: gcc's start-up, the assembler, the linker and dlopen cost
 * about as much per run as compiling a small method, so the compile
 * thread batches several methods into one run (jit.batch).
 *
 * Failure isolation (a failed method never costs the others their code):
 * - IR failures drop the method before anything reaches gccjit;
 * - gccjit errors are sticky per context, so when a method's function
 *   fails to build the context is thrown away and rebuilt without it;
 * - when the unit as a whole fails to compile, assemble or load, each of
 *   its methods is compiled again in a unit of its own.
 * Invariants: a unit's requests share one option set (units with mixed
 * sets are split); symbol names carry the request id, so they are unique
 * in the process; the JitWhere descriptors of loaded code live forever,
 * those of code that never loaded are freed.
 */
#include "jit_int.h"
#include "tier.h"

#include <stdlib.h>
#include <string.h>

bool jit_dump_has(const char *spec, const char *what)
{
    size_t n = strlen(what);
    for (const char *p = spec; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, what, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

bool jit_tunables_check(const JitTunables *tun, VmError *err)
{
    const char *r = tun->load;
    if (r && strcmp(r, "elf") && strcmp(r, "as") && strcmp(r, "gccjit"))
        return vm_fail(err, "tunable 'jit.load': '%s' is not a load route (elf, as, gccjit)", r);
    return true;
}

JitLoadRoute jit_load_route(const JitTunables *tun)
{
    if (tun->load && !strcmp(tun->load, "gccjit"))
        return JIT_LOAD_GCCJIT;
    /* jit.dump=units keeps each unit's shared object, which perf and gdb
     * find code in: not made on the elf route */
    if ((tun->load && !strcmp(tun->load, "as")) || jit_dump_has(tun->dump, "units"))
        return JIT_LOAD_AS;
    return JIT_LOAD_ELF;
}

static void copy_file_to(const char *path, FILE *out)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
}

/* "tj<id>_<method name with non-alphanumerics as _>" */
static void symbol_name(char *buf, size_t size, uint64_t id, const char *mname)
{
    int n = snprintf(buf, size, "tj%llu_", (unsigned long long)id);
    size_t k = n > 0 ? (size_t)n : 0;
    for (const char *p = mname ? mname : "?"; *p && k + 1 < size && k < 72; p++)
        buf[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
    buf[k] = 0;
}

static uint64_t next_id;

/* The assembly edit hook without markers. */
static bool edit_none(void *ctx, char **text, size_t *len)
{
    (void)ctx, (void)text, (void)len;
    return true;
}

/* The block of the compiled method itself (not inlined) that starts at the
 * loop header pc, or NULL (with the reason). */
static const IrBlock *osr_block(const IrFunc *f, const VmMethod *m, const VmInsn *pc, const char **why)
{
    if (pc < m->code || pc >= m->code + m->ncode) {
        *why = "header outside the method";
        return NULL;
    }
    uint32_t at = (uint32_t)(pc - m->code);
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        if (b->origin == m && b->depth == 0 && b->pc == at)
            return b;
    }
    *why = "header is not a block start";
    return NULL;
}

typedef struct Item {
    JitRequest *rq;
    JitResult *out;
    VmError *err;
    IrFunc *f;
    const IrBlock *osr_head;
    uint64_t id;
    char name[128], osr_name[136];
    bool live;
    JitWheres wheres;     /* this attempt's descriptors */
    JitLinks links;       /* its address constants' slots */
    JitCacheKey key;      /* with keyed: its key in the code cache */
    bool keyed;
    JitMarks marks;       /* markers.everywhere: its markers (at NULL: none) */
} Item;

static void free_wheres(JitWheres *w, bool contents)
{
    if (contents)
        for (uint32_t i = 0; i < w->n; i++)
            free(w->v[i]);
    free(w->v);
    *w = (JitWheres){0};
}

/* An OSR record lives as long as its code, which is never unloaded: once
 * in m->osr, an interpreter may hold it until the program ends, even after
 * a newer one replaced it.  Allocated here alone so that the leak checker
 * (make test-asan, tests/sanitize-lsan.supp) can name it. */
static __attribute__((noinline)) VmOsr *osr_record_new(void)
{
    return malloc(sizeof(VmOsr));
}

static const char *optset_of(const JitRequest *rq, const JitTunables *tun)
{
    return rq->optset && *rq->optset ? rq->optset : tun->optset;
}

/* A context as every build of a unit's methods starts: gccjit's errors
 * kept (not printed), unreachable blocks allowed.  NULL if none. */
static gcc_jit_context *fresh_context(void)
{
    gcc_jit_context *c = gcc_jit_context_acquire();
    if (c) {
        gcc_jit_context_set_bool_print_errors_to_stderr(c, 0);
        gcc_jit_context_set_bool_allow_unreachable_blocks(c, 1);
    }
    return c;
}

/* Builds every live item into a fresh context, with link slots when
 * linked (the code cache is on); an item that fails is dropped and the
 * context rebuilt without it.  NULL when none is left. */
static gcc_jit_context *build_unit(Item *it, size_t n, const char *optset, bool linked, VmError *unit_err)
{
    for (;;) {
        size_t live = 0;
        for (size_t i = 0; i < n; i++)
            live += it[i].live;
        if (!live)
            return NULL;
        gcc_jit_context *c = fresh_context();
        if (!c) {
            vm_fail(unit_err, "gcc_jit_context_acquire failed");
            return NULL;
        }
        gcc_jit_context_set_str_option(c, GCC_JIT_STR_OPTION_PROGNAME, "tally-jit");
        if (!jit_options_apply(c, optset, unit_err)) {
            gcc_jit_context_release(c);
            return NULL;
        }
        JitCodegen *cg = jit_codegen_new(c);
        if (!cg) {
            gcc_jit_context_release(c);
            vm_fail(unit_err, "jit: out of memory");
            return NULL;
        }
        bool clean = true;
        for (size_t i = 0; i < n && clean; i++) {
            if (!it[i].live)
                continue;
            double t0 = jit_now_us();
            jit_codegen_marks(cg, it[i].marks.at ? &it[i].marks : NULL);
            jit_codegen_links(cg, linked ? &it[i].links : NULL);
            if (!jit_codegen_method(cg, it[i].f, it[i].osr_head, it[i].rq->osr_only, it[i].name, it[i].osr_name,
                                    &it[i].wheres, it[i].err)) {
                it[i].live = false;
                clean = false;
            }
            it[i].out->us_ir += jit_now_us() - t0;
        }
        jit_codegen_free(cg);
        if (clean)
            return c;
        gcc_jit_context_release(c);
        for (size_t i = 0; i < n; i++)
            free_wheres(&it[i].wheres, true);
    }
}

/* Compiles, assembles and loads the unit; false + unit_err if it fails. */
static bool load_unit(Item *it, size_t n, gcc_jit_context *c, const JitTunables *tun, const JitMarkerHooks *mk,
                      const char *optset, JitLoaded *unit, double *us_compile, double *us_assemble, VmBuf *obj,
                      VmError *unit_err)
{
    const char *dump = tun->dump;
    bool dump_c = jit_dump_has(dump, "c"), dump_asm = jit_dump_has(dump, "asm");
    JitLoadRoute route = jit_load_route(tun);
    char dir[4096];
    if (!jit_tmpdir(dir, sizeof dir, jit_dump_has(dump, "units"), unit_err))
        return false;
    /* the dump headers name every method of the unit */
    char names[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof names - 1; i++)
        if (it[i].live) {
            int k = snprintf(names + len, sizeof names - len, "%s%s (#%llu%s)", len ? ", " : "", it[i].rq->m->name,
                             (unsigned long long)it[i].id, it[i].osr_head ? ", osr" : "");
            len = k < 0 ? len : len + (size_t)k < sizeof names ? len + (size_t)k : sizeof names - 1;
        }
    if (dump_c) {
        char cpath[4200];
        snprintf(cpath, sizeof cpath, "%s/unit.c", dir);
        gcc_jit_context_dump_to_file(c, cpath, 0);
        fprintf(stderr, "=== jit c: %s, %s\n", names, optset);
        copy_file_to(cpath, stderr);
    }
    if (dump_asm)
        fprintf(stderr, "=== jit asm: %s, %s\n", names, optset);
    bool ok = jit_load_unit(c, dir, route, mk->edit ? mk->edit : edit_none, mk->ctx, dump_asm ? stderr : NULL, unit,
                            us_compile, us_assemble, unit_err);
    if (ok && obj) {   /* for the code cache: a failure only means nothing is stored */
        char opath[4200];
        VmError ignored;
        snprintf(opath, sizeof opath, "%s/unit.o", dir);
        if (!vm_read_file(opath, obj, &ignored))
            vm_buf_free(obj);
    }
    jit_keep_or_remove(tun, dir, names);
    return ok;
}

/* The entry and OSR entry of a loaded item, named ename and oname ("" for
 * none), into its result; NULL, or why the item has no code. */
static const char *take_entries(Item *x, const JitLoaded *unit, const char *ename, const char *oname)
{
    size_t size = 0;
    JitResult *out = x->out;
    if (*ename && !(out->entry = (VmEntry)jit_load_symbol(unit, ename, &size)))
        return "entry symbol not found in the loaded code";
    if (x->osr_head) {
        VmOsrEntry oe = *oname ? (VmOsrEntry)jit_load_symbol(unit, oname, x->rq->osr_only ? &size : NULL) : NULL;
        VmOsr *o = oe ? osr_record_new() : NULL;
        if (o) {
            o->pc = x->rq->osr_pc;
            o->entry = oe;
            out->osr = o;
        } else {
            out->osr_none = oe ? "out of memory" : "OSR symbol not found";
        }
        if (x->rq->osr_only && !o)
            return out->osr_none;
    }
    out->code_bytes = size;
    return NULL;
}

/* Keys x in the code cache (its functions built alone: the build is cheap
 * next to gcc's) and on a hit runs the stored code: x's result is set and
 * x is no longer live.  The build's descriptors are the hit's; otherwise
 * they go, the unit's build makes its own. */
static bool from_cache(JitCache *cache, JitPreload *pl, Item *x, const char *optset)
{
    double t0 = jit_now_us();
    gcc_jit_context *c = fresh_context();
    if (!c)
        return false;
    JitCodegen *cg = jit_codegen_new(c);
    JitWheres w = {0};
    JitLinks l;
    memset(&l, 0, sizeof l);
    VmError e = {{0}};
    if (cg) {
        jit_codegen_links(cg, &l);
        x->keyed = jit_codegen_method(cg, x->f, x->osr_head, x->rq->osr_only, x->name, x->osr_name, &w, &e) &&
                   jit_cache_key(cache, c, x->name, optset, &x->key);
        jit_codegen_free(cg);
    }
    gcc_jit_context_release(c);
    double t1 = jit_now_us();
    x->out->us_ir += t1 - t0;
    JitLoaded u = {0};
    JitCacheSyms syms;
    bool hit = x->keyed && jit_cache_load(cache, &x->key, &u, &syms);
    if (hit) {
        snprintf(l.sym, sizeof l.sym, "%s", syms.link);
        hit = jit_links_fill(&u, &l, &e) && !take_entries(x, &u, syms.entry, syms.osr);
        if (!hit)   /* a miss after all: the unit compiles it */
            *x->out = (JitResult){.us_ir = x->out->us_ir};
    }
    if (hit)
        jit_preload_note(pl, &x->key, x->rq->m, x->out->osr ? x->rq->osr_pc : NULL, x->rq->osr_only, &l, &w);
    free_wheres(&w, !hit);   /* loaded code keeps its descriptors */
    jit_links_free(&l);
    if (!hit)
        return false;
    x->out->unit = u.handle;
    x->out->cached = true;
    x->out->us_assemble = jit_now_us() - t1;
    x->out->unit_id = x->id;
    x->out->unit_size = 1;
    x->live = false;
    return true;
}

/* Stores each keyed item the unit compiled under its key. */
static void to_cache(JitCache *cache, JitPreload *pl, Item *it, size_t n, const VmBuf *obj)
{
    for (size_t i = 0; i < n; i++) {
        Item *x = &it[i];
        if (!x->live || !x->keyed)
            continue;
        JitCacheSyms syms;
        memset(&syms, 0, sizeof syms);
        snprintf(syms.entry, sizeof syms.entry, "%s", x->rq->osr_only ? "" : x->name);
        snprintf(syms.osr, sizeof syms.osr, "%s", x->out->osr ? x->osr_name : "");
        snprintf(syms.link, sizeof syms.link, "%s", x->links.sym);
        if (jit_cache_store(cache, &x->key, obj->data, obj->len, &syms))
            jit_preload_note(pl, &x->key, x->rq->m, x->out->osr ? x->rq->osr_pc : NULL, x->rq->osr_only, &x->links,
                             &x->wheres);
    }
}

static void fail_item(Item *it, const char *fmt, const char *detail)
{
    vm_fail(it->err, fmt, it->rq->m->name, detail);
    it->live = false;
}

size_t jit_compile_unit(Jit *jit, JitRequest *rq, size_t n, JitResult *out, VmError *err)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        err[i].msg[0] = 0;
    }
    JitTunables def;
    const JitTunables *tun = jit_tunables(jit, &def);
    const char *optset = optset_of(&rq[0], tun);
    bool mixed = false;
    for (size_t i = 1; i < n; i++)
        mixed |= !rq[i].m || !rq[i].m->module || strcmp(optset_of(&rq[i], tun), optset) != 0;
    if (mixed) {   /* one option set per unit: compile them one by one */
        size_t ok = 0;
        for (size_t i = 0; i < n; i++)
            ok += jit_compile_unit(jit, &rq[i], 1, &out[i], &err[i]);
        return ok;
    }

    Item *it = calloc(n, sizeof *it);
    if (!it) {
        for (size_t i = 0; i < n; i++)
            vm_fail(&err[i], "jit: out of memory");
        return 0;
    }
    bool dump_ir = jit_dump_has(tun->dump, "ir");
    JitMarkerHooks mk = jit ? jit->markers : (JitMarkerHooks){0};
    for (size_t i = 0; i < n; i++) {
        Item *x = &it[i];
        x->rq = &rq[i];
        x->out = &out[i];
        x->err = &err[i];
        VmMethod *m = rq[i].m;
        if (!m || !m->module) {
            vm_fail(x->err, "jit: no method");
            continue;
        }
        x->id = rq[i].id ? rq[i].id : __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
        symbol_name(x->name, sizeof x->name, x->id, m->name);
        snprintf(x->osr_name, sizeof x->osr_name, "%s_osr", x->name);
        double t0 = jit_now_us();
        if (dump_ir)
            fprintf(stderr, "=== jit ir: %s (#%llu)\n", m->name, (unsigned long long)x->id);
        x->f = ir_compile(m, &rq[i].ir, dump_ir ? stderr : NULL, x->err);
        out[i].us_ir = jit_now_us() - t0;
        if (!x->f)
            continue;
        if (rq[i].osr_pc)
            x->osr_head = osr_block(x->f, m, rq[i].osr_pc, &out[i].osr_none);
        if (rq[i].osr_only && !x->osr_head) {
            vm_fail(x->err, "%s: OSR at pc %ld: %s", m->name, (long)(rq[i].osr_pc - m->code),
                    out[i].osr_none ? out[i].osr_none : "no header");
            continue;
        }
        if (mk.plan && !mk.plan(mk.ctx, x->f, &x->marks))
            x->marks = (JitMarks){0};
        x->live = true;
    }

    VmError unit_err = {{0}};
    size_t ok = 0, live = 0;
    /* the code cache: only plain code (no markers, no assembly edits), assembled by as */
    JitCache *cache = jit && jit->cache && !mk.edit && jit_load_route(tun) != JIT_LOAD_GCCJIT ? jit->cache : NULL;
    for (size_t i = 0; cache && i < n; i++)
        if (it[i].live && !it[i].marks.at)
            ok += from_cache(cache, jit->preload, &it[i], optset);
    double us_compile = 0, us_assemble = 0;
    JitLoaded unit = {0};
    VmBuf obj = {0};
    bool unit_kept = false;
    size_t compiled = 0;
    gcc_jit_context *c = build_unit(it, n, optset, cache != NULL, &unit_err);
    bool loaded = c && load_unit(it, n, c, tun, &mk, optset, &unit, &us_compile, &us_assemble, cache ? &obj : NULL,
                                 &unit_err);
    if (c)
        gcc_jit_context_release(c);
    for (size_t i = 0; i < n; i++)
        live += it[i].live;
    if (!loaded && live > 1) {
        /* somebody in the unit broke it: each method on its own */
        for (size_t i = 0; i < n; i++) {
            free_wheres(&it[i].wheres, true);
            if (it[i].live)
                ok += jit_compile_unit(jit, &rq[i], 1, &out[i], &err[i]);
        }
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        Item *x = &it[i];
        if (!x->live)
            continue;
        if (!loaded) {
            fail_item(x, "%s: %s", unit_err.msg[0] ? unit_err.msg : "unknown error");
            continue;
        }
        VmError lerr = {{0}};
        if (!jit_links_fill(&unit, &x->links, &lerr)) {
            fail_item(x, "%s: %s", lerr.msg);
            continue;
        }
        const char *why = take_entries(x, &unit, rq[i].osr_only ? "" : x->name, x->osr_head ? x->osr_name : "");
        if (why) {
            fail_item(x, "%s: %s", why);
            continue;
        }
        out[i].unit = unit_kept ? NULL : unit.handle;   /* kept alive once */
        unit_kept = true;
        out[i].us_compile = us_compile;
        out[i].us_assemble = us_assemble;
        ok++;
        compiled++;
    }
    if (cache && obj.len)
        to_cache(cache, jit->preload, it, n, &obj);
    vm_buf_free(&obj);
    uint64_t unit_id = 0;
    for (size_t i = 0; i < n && !unit_id; i++)
        if (it[i].live)
            unit_id = it[i].id;
    for (size_t i = 0; i < n; i++) {
        if (it[i].live) {
            it[i].out->unit_id = unit_id;
            it[i].out->unit_size = (uint32_t)compiled;
        }
        /* loaded code keeps its descriptors; the rest never ran */
        free_wheres(&it[i].wheres, !it[i].live);
    }
done:
    (void)jit;
    for (size_t i = 0; i < n; i++) {
        if (it[i].f)
            ir_free(it[i].f);
        jit_links_free(&it[i].links);
        free((void *)it[i].marks.at);
    }
    free(it);
    return ok;
}

bool jit_compile(Jit *jit, JitRequest *rq, JitResult *out, VmError *err)
{
    VmError e = {{0}};
    if (!rq) {
        memset(out, 0, sizeof *out);
        return vm_fail(err, "jit: no method");
    }
    bool ok = jit_compile_unit(jit, rq, 1, out, &e) == 1;
    if (!ok && err)
        *err = e;
    return ok;
}
