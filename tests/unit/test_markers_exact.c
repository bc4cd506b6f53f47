/* tests/unit/test_markers_exact.c — code markers count exactly on real
 * tally programs, whatever gcc makes of them.
 *
 * Method: a program runs once with the JIT off, and the interpreter's
 * profile gives each block's count (vm_block_counts).  Then, in the same
 * VM (the compiles see that profile, as a hot method's compile does), per
 * option set: a JIT_EAGER tier with marker hooks of this file (plan: a
 * marker at every loop header; edit: mk_scan + mk_rewrite_timed, the sink
 * adding each event's weight to a counter of the header's (method, pc)).
 * Every method is compiled before the program starts — eager mode runs
 * the first call of a method that compiled code calls interpreted; those
 * jit_new leaves go into one unit, whose edit finds each marker's
 * counters by its function's symbol — and the program runs again.  Σ weights at each header must equal the
 * interpreter's count of the block starting there, exactly; the output
 * must be the interpreter's, and no branch counter may move (nothing ran
 * interpreted, so no OSR either).
 *
 * Scopes: the method's own headers (depth 0, what a bakeoff times),
 * compared for the methods never inlined (an inlined copy's executions
 * are not counted by the method's own markers); and headers at every
 * inline depth, keyed by the bytecode they come from, compared for every
 * method.  Plain markers (gcc moves, merges and duplicates them) and
 * pinned ones.  A sink that counts events instead of weights must be
 * caught: the comparison can fail.
 */
#include "test.h"
#include "tier.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- the sinks -------------------------------------------------------------- */

/* Σ weights of one header's events (and how many events). */
typedef struct Counter {
    VmMethod *m;               /* the header's method (its bytecode origin) */
    uint32_t pc;
    uint64_t sum, events;
} Counter;

/* Runs inside compiled code between any two instructions (see MkSink);
 * the program thread is the only writer. */
__attribute__((target("general-regs-only"))) static void sink_weights(const void *ctx, uint64_t weight,
                                                                      uint64_t tsc)
{
    (void)tsc;
    Counter *c = (Counter *)ctx;
    c->sum += weight;
    c->events++;
}

/* Wrong on purpose: an event as one execution, as if no store moved. */
__attribute__((target("general-regs-only"))) static void sink_events(const void *ctx, uint64_t weight,
                                                                     uint64_t tsc)
{
    (void)weight, (void)tsc;
    Counter *c = (Counter *)ctx;
    c->sum += 1;
    c->events++;
}

/* ---- the marker hooks ------------------------------------------------------- */

/* One compiled function's markers: counter K is marker K's. */
typedef struct Plan {
    char name[128];            /* the method's name as jit/unit.c puts it in the
                                  symbol "tj<id>_<name>" (non-alphanumerics as _) */
    Counter *k;
    uint32_t n;
    bool edited;               /* its unit's text was rewritten */
} Plan;

typedef struct Exact {
    bool all_depths;           /* headers of inlined code too */
    bool pinned;
    MkSink sink;
    Plan *plans;
    size_t nplans, capplans;
    VmMethod **inlined;        /* every method some compile inlined */
    size_t ninlined, capinlined;
    uint64_t units, sites;
} Exact;

static void note_inlined(Exact *x, VmMethod *m)
{
    for (size_t i = 0; i < x->ninlined; i++)
        if (x->inlined[i] == m)
            return;
    if (x->ninlined == x->capinlined) {
        x->capinlined = x->capinlined ? 2 * x->capinlined : 16;
        x->inlined = realloc(x->inlined, x->capinlined * sizeof *x->inlined);
    }
    x->inlined[x->ninlined++] = m;
}

static bool was_inlined(const Exact *x, const VmMethod *m)
{
    for (size_t i = 0; i < x->ninlined; i++)
        if (x->inlined[i] == m)
            return true;
    return false;
}

static void sanitize(char *buf, size_t size, const char *name)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < size; p++)
        buf[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
    buf[k] = 0;
}

static bool plan(void *ctx, const IrFunc *f, JitMarks *out)
{
    Exact *x = ctx;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b]->depth > 0 && f->blocks[b]->origin)
            note_inlined(x, f->blocks[b]->origin);
    MkPlan p;
    if (!mk_select_every(f, false, &p)) {
        test_fail(__FILE__, __LINE__, "%s: mk_select_every: %s", f->method->name, p.reason);
        mk_plan_free(&p);
        return false;
    }
    int32_t *at = malloc((f->nblocks ? f->nblocks : 1) * sizeof *at);
    Counter *k = calloc(p.n ? p.n : 1, sizeof *k);
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        at[b] = -1;
    for (uint32_t i = 0; i < p.n; i++) {
        const IrBlock *b = f->blocks[p.v[i].block];
        if (b->pc == UINT32_MAX || !b->origin)
            continue;   /* synthetic: no bytecode to count it */
        if (!x->all_depths && (b->depth != 0 || b->origin != f->method))
            continue;
        at[b->id] = (int32_t)n;
        k[n++] = (Counter){.m = b->origin, .pc = b->pc};
    }
    mk_plan_free(&p);
    if (!n) {
        free(at);
        free(k);
        return false;
    }
    if (x->nplans == x->capplans) {
        x->capplans = x->capplans ? 2 * x->capplans : 16;
        x->plans = realloc(x->plans, x->capplans * sizeof *x->plans);
    }
    Plan *pl = &x->plans[x->nplans++];
    *pl = (Plan){.k = k, .n = n};
    sanitize(pl->name, sizeof pl->name, f->method->name);
    *out = (JitMarks){.at = at, .n = f->nblocks, .nmarkers = n, .pinned = x->pinned};
    return true;
}

/* The newest plan not yet edited whose method the function symbol fn
 * ("tj<id>_<name>", cut at 72 characters) names. */
static Plan *plan_of(Exact *x, const char *fn)
{
    if (strncmp(fn, "tj", 2) != 0)
        return NULL;
    const char *rest = fn + 2;
    while (*rest >= '0' && *rest <= '9')
        rest++;
    if (rest == fn + 2 || *rest++ != '_')
        return NULL;
    size_t len = strlen(rest);
    for (size_t i = x->nplans; i-- > 0;) {
        Plan *p = &x->plans[i];
        if (p->edited)
            continue;
        if (!strcmp(p->name, rest) || (strlen(fn) >= 72 && !strncmp(p->name, rest, len)))
            return p;
    }
    return NULL;
}

static const void *ctx_of(void *arg, const MkMap *map, uint32_t i)
{
    (void)map;
    return ((const void **)arg)[i];
}

static bool edit(void *ctx, char **text, size_t *len)
{
    Exact *x = ctx;
    MkMap map;
    VmError err = {{0}};
    if (!mk_scan(*text, *len, &map, &err)) {
        test_fail(__FILE__, __LINE__, "mk_scan: %s", err.msg);
        return false;
    }
    const void **ctxs = calloc(map.nmarkers ? map.nmarkers : 1, sizeof *ctxs);
    Plan **used = calloc(map.nmarkers ? map.nmarkers : 1, sizeof *used);
    for (uint32_t i = 0; i < map.nmarkers; i++) {
        const MkMarker *mk = &map.markers[i];
        Plan *p = plan_of(x, mk->fn);
        if (mk->refused)
            test_fail(__FILE__, __LINE__, "%s refused (%s): its writes cannot all be timed", mk->sym, mk->why);
        if (!p || mk->k >= p->n)
            test_fail(__FILE__, __LINE__, "marker %s: no plan of its function has marker %u", mk->sym, mk->k);
        else
            ctxs[i] = &p->k[mk->k];
        used[i] = p;
    }
    for (uint32_t i = 0; i < map.nmarkers; i++)
        if (used[i])
            used[i]->edited = true;
    x->units++;
    x->sites += map.nsites;
    MkStubSpec spec = {.sink = x->sink, .every = 1, .ctx_of = ctx_of, .arg = ctxs};
    VmBuf out = {0};
    bool ok = mk_rewrite_timed(*text, *len, &map, &spec, &out, &err);
    mk_map_free(&map);
    free(ctxs);
    free(used);
    if (!ok) {
        test_fail(__FILE__, __LINE__, "mk_rewrite_timed: %s", err.msg);
        vm_buf_free(&out);
        return false;
    }
    free(*text);
    *text = (char *)out.data;
    *len = out.len;
    return true;
}

static void exact_free(Exact *x)
{
    for (size_t i = 0; i < x->nplans; i++)
        free(x->plans[i].k);
    free(x->plans);
    free(x->inlined);
    memset(x, 0, sizeof *x);
}

/* ---- running a program ------------------------------------------------------ */


/* What the interpreter's run left: each method's blocks and counts; the
 * counters compiled code leaves alone (branches, back edges: a change is
 * an interpreted execution) and the calls it counts too (put back before
 * each compile, which reads them). */
typedef struct Ref {
    uint32_t nblocks;
    uint32_t *starts;
    uint64_t *counts;
    uint64_t calls, backedges;
    VmBranchProf *branches;
} Ref;

static bool compilable(const VmMethod *m)
{
    return m->code && m->ncode && !(m->flags & VM_M_ABSTRACT);
}

static Ref *reference(Vm *vm)
{
    VmModule *mod = vm->module;
    Ref *r = calloc(mod->nmethods ? mod->nmethods : 1, sizeof *r);
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        if (!compilable(m))
            continue;
        r[i].starts = malloc(m->ncode * sizeof *r[i].starts);
        r[i].counts = malloc(m->ncode * sizeof *r[i].counts);
        r[i].nblocks = vm_block_counts(m, r[i].starts, r[i].counts);
        r[i].calls = m->prof.calls;
        r[i].backedges = m->prof.backedges;
        r[i].branches = malloc((m->prof.nbranches ? m->prof.nbranches : 1) * sizeof *r[i].branches);
        if (m->prof.nbranches)
            memcpy(r[i].branches, m->prof.branches, m->prof.nbranches * sizeof *r[i].branches);
    }
    return r;
}

static void reference_free(Vm *vm, Ref *r)
{
    for (uint32_t i = 0; i < vm->module->nmethods; i++) {
        free(r[i].starts);
        free(r[i].counts);
        free(r[i].branches);
    }
    free(r);
}

/* Back to the state after the interpreter's run: no code installed, the
 * globals cleared (init sets them again), the calls the run counted. */
static void back_to_interpreter(Vm *vm, const Ref *r)
{
    VmModule *mod = vm->module;
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        m->entry = vm_interp_entry;
        if (compilable(m))
            m->prof.calls = r[i].calls;
    }
    if (mod->gvals)
        memset(mod->gvals, 0, mod->nglobals * sizeof *mod->gvals);
}

/* Every method jit_new has not compiled, as one unit, installed. */
static void compile_rest(Jit *jit, Vm *vm, const char *label)
{
    VmModule *mod = vm->module;
    JitRequest *rq = calloc(mod->nmethods ? mod->nmethods : 1, sizeof *rq);
    size_t n = 0;
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        if (compilable(m) && m->entry == vm_interp_entry)
            jit_request_init(jit, &rq[n++], m);
    }
    JitResult *res = calloc(n ? n : 1, sizeof *res);
    VmError *err = calloc(n ? n : 1, sizeof *err);
    jit_compile_unit(jit, rq, n, res, err);
    for (size_t i = 0; i < n; i++) {
        if (res[i].entry)
            __atomic_store_n(&rq[i].m->entry, res[i].entry, __ATOMIC_RELEASE);
        else
            test_fail(__FILE__, __LINE__, "%s: %s did not compile: %s", label, rq[i].m->name, err[i].msg);
    }
    free(rq);
    free(res);
    free(err);
}

/* The pc a branch instruction jumps to (its 'j' operand), or −1. */
static int64_t jump_target(const VmInsn *in)
{
    const char *j = in->op < VM_OP_COUNT ? strchr(vm_op_info[in->op].operands, 'j') : NULL;
    switch (j ? j - vm_op_info[in->op].operands : -1) {
    case 0: return in->a;
    case 1: return in->b;
    case 2: return in->c;
    default: return -1;
    }
}

/* Marker counts against the interpreter's: mismatches (each a test failure
 * when report), and the headers compared in *compared.  Every loop of a
 * compared method's bytecode that ran (a backward jump and its target)
 * must have a marker between the two — at the target, or at the jump's
 * block when the loop is entered at its test (the IR's header is the
 * block that dominates the loop) — so none goes unchecked. */
static int compare(Vm *vm, const Ref *r, const Exact *x, const char *label, bool report, uint32_t *compared)
{
    VmModule *mod = vm->module;
    int bad = 0;
    *compared = 0;
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        if (!compilable(m) || (!x->all_depths && was_inlined(x, m)))
            continue;
        /* Σ over every marker of (m, pc): one header may have several
         * copies (inlined at several sites, or gcc's duplicates) */
        uint64_t *got = calloc(m->ncode, sizeof *got);
        bool *seen = calloc(m->ncode, sizeof *seen);
        for (size_t p = 0; p < x->nplans; p++)
            for (uint32_t k = 0; k < x->plans[p].n; k++) {
                const Counter *c = &x->plans[p].k[k];
                if (c->m == m && c->pc < m->ncode) {
                    got[c->pc] += c->sum;
                    seen[c->pc] = true;
                }
            }
        for (uint32_t pc = 0; pc < m->ncode; pc++) {
            int64_t to = jump_target(&m->code[pc]);
            if (to < 0 || to > pc)
                continue;
            uint32_t b = 0, at = (uint32_t)to;
            while (b < r[i].nblocks && r[i].starts[b] != at)
                b++;
            while (at <= pc && !seen[at])
                at++;
            if (at > pc && b < r[i].nblocks && r[i].counts[b]) {
                bad++;
                test_fail(__FILE__, __LINE__, "%s: %s: the loop of pcs %lld..%u has no marker", label, m->name,
                          (long long)to, pc);
            }
        }
        for (uint32_t pc = 0; pc < m->ncode; pc++) {
            if (!seen[pc])
                continue;
            uint32_t b = 0;
            while (b < r[i].nblocks && r[i].starts[b] != pc)
                b++;
            if (b == r[i].nblocks) {
                bad++;
                test_fail(__FILE__, __LINE__, "%s: %s: a header at pc %u, which starts no block", label, m->name, pc);
                continue;
            }
            (*compared)++;
            if (got[pc] != r[i].counts[b]) {
                bad++;
                if (report)
                    test_fail(__FILE__, __LINE__, "%s: %s: the header at pc %u: markers %llu, interpreter %llu",
                              label, m->name, pc, (unsigned long long)got[pc], (unsigned long long)r[i].counts[b]);
            }
        }
        free(got);
        free(seen);
    }
    return bad;
}

/* Nothing ran interpreted: no branch or back-edge counter moved. */
static void check_all_compiled(Vm *vm, const Ref *r, const char *label)
{
    VmModule *mod = vm->module;
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        VmMethod *m = &mod->methods[i];
        if (!compilable(m))
            continue;
        bool moved = m->prof.backedges != r[i].backedges ||
                     (m->prof.nbranches && memcmp(m->prof.branches, r[i].branches,
                                                  m->prof.nbranches * sizeof *r[i].branches) != 0);
        if (moved || m->entry == vm_interp_entry)
            test_fail(__FILE__, __LINE__, "%s: %s ran interpreted", label, m->name);
    }
}

typedef struct Prog {
    const char *name;
    const char *src;           /* Tally source, or NULL: path */
    const char *path;
    const char *args[4];
    int nargs;
    /* headers every run must compare at least (so that a program whose
     * loops all got inlined is noticed) */
    uint32_t min_own;
    bool timed;                /* prints its run time: stdout not compared */
} Prog;

typedef struct Config {
    const char *optset;
    bool pinned, all_depths;
    MkSink sink;
} Config;

static Vm *load(const Prog *pg)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    if (pg->src)
        return test_load_tl(pg->name, pg->src, &tun);
    VmModule *m = test_module_file(pg->path, stderr);
    if (!m)
        test_fail(__FILE__, __LINE__, "%s does not load", pg->path);
    return test_link(m, &tun, true);
}

/* Runs pg under each config after the interpreter's run; returns the
 * mismatches of the last config (reported only when report). */
static int exact(const Prog *pg, const Config *cf, int ncf, bool report)
{
    Vm *vm = load(pg);
    if (!vm)
        return -1;
    char *argv[4];
    for (int a = 0; a < pg->nargs; a++)
        argv[a] = (char *)pg->args[a];
    TestRun ref = test_run_capture(vm, pg->nargs, argv);
    Ref *r = reference(vm);
    int bad = 0;
    for (int c = 0; c < ncf; c++) {
        char label[160];
        snprintf(label, sizeof label, "%s [%s%s%s%s]", pg->name, cf[c].optset, cf[c].pinned ? ", pinned" : "",
                 cf[c].all_depths ? ", every depth" : "", cf[c].sink == sink_events ? ", event sink" : "");
        back_to_interpreter(vm, r);
        Exact x = {.all_depths = cf[c].all_depths, .pinned = cf[c].pinned, .sink = cf[c].sink};
        JitTunables jt;
        jit_tunables_default(&jt);
        jt.optset = cf[c].optset;
        JitMarkerHooks hooks = {plan, edit, &x};
        VmError err = {{0}};
        Jit *jit = jit_new(vm, JIT_EAGER, &jt, NULL, &hooks, &err);
        if (!jit) {
            test_fail(__FILE__, __LINE__, "%s: jit_new: %s", label, err.msg);
            exact_free(&x);
            continue;
        }
        compile_rest(jit, vm, label);
        TestRun got = test_run_capture(vm, pg->nargs, argv);
        if (got.status != ref.status || (!pg->timed && strcmp(got.out, ref.out)) || strcmp(got.err, ref.err))
            test_fail(__FILE__, __LINE__, "%s: the run differs from the interpreter's: status %d/%d\n%.400s\n%.400s",
                      label, got.status, ref.status, got.out, got.err);
        check_all_compiled(vm, r, label);
        uint32_t compared;
        bad = compare(vm, r, &x, label, report, &compared);
        if (!x.units || !x.sites)
            test_fail(__FILE__, __LINE__, "%s: no marker reached the assembly", label);
        if (compared < pg->min_own)
            test_fail(__FILE__, __LINE__, "%s: %u own headers compared, want >= %u", label, compared, pg->min_own);
        if (getenv("MK_EXACT_VERBOSE")) {
            uint64_t w = 0, ev = 0;
            for (size_t p = 0; p < x.nplans; p++)
                for (uint32_t k = 0; k < x.plans[p].n; k++)
                    w += x.plans[p].k[k].sum, ev += x.plans[p].k[k].events;
            fprintf(stderr, "%s: units %llu sites %llu plans %zu inlined %zu compared %u weight %llu events %llu\n",
                    label, (unsigned long long)x.units, (unsigned long long)x.sites, x.nplans, x.ninlined, compared,
                    (unsigned long long)w, (unsigned long long)ev);
        }
        test_run_free(&got);
        jit_free(jit);
        exact_free(&x);
    }
    back_to_interpreter(vm, r);
    reference_free(vm, r);
    test_run_free(&ref);
    test_unload(vm);
    return bad;
}

/* ---- the programs ------------------------------------------------------------ */

/* Nested counted loops, a triangular one, a float reduction gcc can
 * vectorize, and a small loop method called from a loop (inlined). */
static const char NESTED[] =
    "fn tri(n: int): int {\n"
    "    var s = 0;\n"
    "    for i in 0..n {\n"
    "        for j in 0..i { s += (i ^ j) & 7; }\n"
    "    }\n"
    "    return s;\n"
    "}\n"
    "fn dot(a: float[], b: float[]): float {\n"
    "    var s = 0.0;\n"
    "    for i in 0..a.length { s = s + a[i] * b[i]; }\n"
    "    return s;\n"
    "}\n"
    "fn fill(a: int[]) {\n"
    "    for i in 0..a.length { a[i] = (i * 7919) % 1009; }\n"
    "}\n"
    "fn main() {\n"
    "    var t = 0;\n"
    "    for r in 0..40 { t += tri(r % 23); }\n"
    "    let a = new float[37];\n"
    "    let b = new float[37];\n"
    "    for i in 0..37 { a[i] = float(i) * 0.5; b[i] = float(37 - i); }\n"
    "    var d = 0.0;\n"
    "    for r in 0..9 { d = d + dot(a, b); }\n"
    "    let c = new int[101];\n"
    "    for r in 0..5 { fill(c); }\n"
    "    var m = 0;\n"
    "    for y in 0..13 {\n"
    "        for x in 0..11 {\n"
    "            for z in 0..3 { m += c[(x * y + z) % 101] & 15; }\n"
    "        }\n"
    "    }\n"
    "    println(t);\n"
    "    println(d);\n"
    "    println(m);\n"
    "}\n";

/* while, break and continue; loops left by return; a binary search. */
static const char WHILES[] =
    "fn collatz(n: int): int {\n"
    "    var k = 0;\n"
    "    var m = n;\n"
    "    while true {\n"
    "        if m == 1 { break; }\n"
    "        if m % 2 == 0 { m = m / 2; k += 1; continue; }\n"
    "        m = 3 * m + 1;\n"
    "        k += 1;\n"
    "    }\n"
    "    return k;\n"
    "}\n"
    "fn search(a: int[], x: int): int {\n"
    "    var lo = 0;\n"
    "    var hi = a.length;\n"
    "    while lo < hi {\n"
    "        let mid = (lo + hi) / 2;\n"
    "        if a[mid] == x { return mid; }\n"
    "        if a[mid] < x { lo = mid + 1; } else { hi = mid; }\n"
    "    }\n"
    "    return -1;\n"
    "}\n"
    "fn firstOver(a: int[], x: int): int {\n"
    "    for i in 0..a.length {\n"
    "        if a[i] > x { return i; }\n"
    "    }\n"
    "    return a.length;\n"
    "}\n"
    "fn main() {\n"
    "    var s = 0;\n"
    "    for i in 0..120 {\n"
    "        if i % 7 == 3 { continue; }\n"
    "        s += collatz(i + 1);\n"
    "        if s > 5000 { break; }\n"
    "    }\n"
    "    let a = new int[64];\n"
    "    for i in 0..64 { a[i] = i * 3; }\n"
    "    var f = 0;\n"
    "    for x in 0..200 { f += search(a, x) + firstOver(a, x); }\n"
    "    var i = 0;\n"
    "    var w = 0;\n"
    "    while i < 30 {\n"
    "        i += 1;\n"
    "        var j = 0;\n"
    "        while j < i {\n"
    "            j += 1;\n"
    "            if j % 3 == 0 { continue; }\n"
    "            if j > 20 { break; }\n"
    "            w += j;\n"
    "        }\n"
    "    }\n"
    "    println(s);\n"
    "    println(f);\n"
    "    println(w);\n"
    "}\n";

/* Calls in loops that stay calls: a polymorphic interface call, a
 * closure, a recursive method with a loop; natives in a loop. */
static const char CALLS[] =
    "interface Op { fn apply(a: int[], k: int): int; }\n"
    "class Sum implements Op {\n"
    "    fn apply(a: int[], k: int): int {\n"
    "        var s = 0;\n"
    "        for i in 0..a.length { s += a[i] * k; }\n"
    "        return s;\n"
    "    }\n"
    "}\n"
    "class Max implements Op {\n"
    "    fn apply(a: int[], k: int): int {\n"
    "        var m = 0;\n"
    "        var i = 0;\n"
    "        while i < a.length {\n"
    "            if a[i] > m { m = a[i]; }\n"
    "            i += 1;\n"
    "        }\n"
    "        return m + k;\n"
    "    }\n"
    "}\n"
    "fn perms(a: int[], k: int): int {\n"
    "    if k == a.length { return a[0] - a[a.length - 1]; }\n"
    "    var c = 0;\n"
    "    for i in k..a.length {\n"
    "        let t = a[k]; a[k] = a[i]; a[i] = t;\n"
    "        c += perms(a, k + 1);\n"
    "        a[i] = a[k]; a[k] = t;\n"
    "    }\n"
    "    return c;\n"
    "}\n"
    "fn main() {\n"
    "    let a = new int[50];\n"
    "    for i in 0..50 { a[i] = (i * 37) % 101; }\n"
    "    let ops: Op[] = [Sum(), Max()];\n"
    "    var t = 0;\n"
    "    for r in 0..30 { t += ops[r % 3 % 2].apply(a, r); }\n"
    "    let bits = fn(x: int): int {\n"
    "        var c = 0;\n"
    "        var y = x;\n"
    "        while y > 0 { c += y & 1; y = y / 2; }\n"
    "        return c;\n"
    "    };\n"
    "    for i in 0..300 { t += bits(i); }\n"
    "    let p = new int[5];\n"
    "    for i in 0..5 { p[i] = i * i; }\n"
    "    t += perms(p, 0);\n"
    "    var s = \"\";\n"
    "    for i in 0..20 { s = s + str(i % 10); }\n"
    "    println(t);\n"
    "    println(s);\n"
    "}\n";

static const Prog PROGRAMS[] = {
    {.name = "nested", .src = NESTED, .min_own = 3},
    {.name = "whiles", .src = WHILES, .min_own = 3},
    {.name = "calls", .src = CALLS, .min_own = 3},
    {.name = "fannkuch", .path = "bench/kernels/fannkuch.tl", .args = {"5"}, .nargs = 1, .min_own = 4},
    {.name = "stmt_break_continue", .path = "tests/lang/stmt_break_continue.tl", .min_own = 4},
    {.name = "Queens", .path = "bench/awfy/Queens.tl", .args = {"1", "1"}, .nargs = 2, .min_own = 1, .timed = true},
};
enum { NPROGRAMS = sizeof PROGRAMS / sizeof *PROGRAMS };

static const char *const OPTSETS[] = {"O0", "O1", "O2", "O3", "unroll", "vectorize"};
enum { NOPTSETS = sizeof OPTSETS / sizeof *OPTSETS };

static void exact_all(bool pinned, bool all_depths)
{
    Config cf[NOPTSETS];
    for (int s = 0; s < NOPTSETS; s++)
        cf[s] = (Config){OPTSETS[s], pinned, all_depths, sink_weights};
    for (int p = 0; p < NPROGRAMS; p++)
        exact(&PROGRAMS[p], cf, NOPTSETS, true);
}

/* ---- tests ------------------------------------------------------------------- */

TEST(markers_exact_own_loops)
{
    exact_all(false, false);
}

TEST(markers_exact_own_loops_pinned)
{
    exact_all(true, false);
}

TEST(markers_exact_inlined_loops)
{
    exact_all(false, true);
}

/* The comparison is not a tautology: counting events rather than weights
 * is off wherever gcc moved a marker out of a loop (O2 hoists the store of
 * a call-free counted loop's marker after it). */
TEST(markers_exact_catches_a_wrong_sink)
{
    Config wrong = {"O2", false, false, sink_events};
    CHECK(exact(&PROGRAMS[0], &wrong, 1, false) > 0);
    Config right = {"O2", false, false, sink_weights};
    CHECK_INT(exact(&PROGRAMS[0], &right, 1, true), 0);
}
