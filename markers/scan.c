/* markers/scan.c — the marker map of optimized assembly (mk_scan).
 *
 * Input: gcc's x86-64 AT&T assembly of one or more functions, as
 * libgccjit prints it (.text/.section, .globl/.type, labels, #APP blocks
 * of inline asm, .cfi_*, .p2align, `.local X; .comm X,8,8`).
 * Output: an MkMap: every marker the text defines (a symbol <fn>_mk<k>
 * defined by .comm/.lcomm or labelled in a data section), sorted by fn
 * and k; every instruction that writes one as sym(%rip) (a site), in text
 * order, with where it sits in its function's control flow.
 *
 * A marker is refused when the text names it any other way: lea of it,
 * sym@GOTPCREL, sym+8(%rip), $sym, an absolute or register-based address,
 * or a data directive (.quad sym, .set x, sym).  Its address may then
 * escape, so its writes cannot all be found.  Loads of sym(%rip) are fine.
 *
 * The control flow, per function (a non-local label in a code section;
 * f.cold, gcc's cold part, joins f): basic blocks start at labels and
 * after jumps and returns; edges are the fall-through (not after jmp,
 * ret, ud2, hlt) and the targets of jmp/jcc that are labels of the same
 * function (any other target — a tail call — leaves the function).  An
 * indirect jump (`jmp *...`, a jump table) goes to every label of its
 * function that a data directive names (the tables' entries; with none,
 * it leaves the function); a call returns (libgccjit 12 cannot declare
 * a function noreturn).  A function's exits are its blocks without
 * successors (ret, ud2, hlt, a tail call).
 * The definitions, for the block B of a site:
 *   in-loop   B is in a cycle: a strongly connected component of more
 *             than one block, or a block that jumps to itself;
 *   exit      B is in no cycle but reachable from a block of one (a store
 *             gcc hoisted after a loop, or any code after one);
 *   straight  otherwise;
 *   guarded   B is in no cycle and does not post-dominate D, where D is
 *             the nearest of B's strict dominators that lies in no cycle
 *             and ends in a branch with two or more targets: some path
 *             from D to an exit skips B.  Blocks of loops are passed
 *             over, so a store after a loop is guarded by the test that
 *             skips the loop, and a store behind a flag by the flag's
 *             test.  Without such a D, B is not guarded; a block that
 *             cannot reach an exit post-dominates nothing, and when D
 *             cannot reach one, B is not guarded.
 *   copy      0 for a marker's first site in the text, then 1, 2, ...
 * Invariants: one pass over the text, then graph work linear in the
 * blocks and edges of the functions holding sites (dominators by Cooper,
 * Harvey and Kennedy's iteration, near linear on gcc's reducible code);
 * the text is only read; the map holds no pointer into it.
 */
#include "markers.h"
#include "mk_asm.h"

#include <stdlib.h>
#include <string.h>

void mk_symbol(char *buf, size_t size, const char *fn, uint32_t k)
{
    snprintf(buf, size, "%s_mk%u", fn, k);
}

/* ---- small containers -------------------------------------------------- */

/* Appends val to arr (n elements, room for cap), growing it; false (and
 * s->oom) without memory. */
#define PUSH(s, arr, n, cap, val)                                                  \
    ({                                                                             \
        bool ok_ = true;                                                           \
        if ((n) == (cap)) {                                                        \
            size_t c_ = (cap) ? (cap) * 2 : 64;                                    \
            void *p_ = realloc((arr), c_ * sizeof *(arr));                         \
            if (p_)                                                                \
                (arr) = p_, (cap) = c_;                                            \
            else                                                                   \
                ok_ = false, (s)->oom = true;                                      \
        }                                                                          \
        if (ok_)                                                                   \
            (arr)[(n)++] = (val);                                                  \
        ok_;                                                                       \
    })

/* Names to indices, open addressing; the first value put for a name stays. */
typedef struct NameMap {
    MkSpan *keys;
    int32_t *vals;
    size_t cap, n;
} NameMap;

static uint64_t hash_span(MkSpan s)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < s.n; i++)
        h = (h ^ (uint8_t)s.s[i]) * 1099511628211u;
    return h;
}

static bool span_same(MkSpan a, MkSpan b)
{
    return a.n == b.n && !memcmp(a.s, b.s, a.n);
}

static int32_t map_get(const NameMap *m, MkSpan k)
{
    if (!m->cap)
        return -1;
    for (size_t i = hash_span(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i].s)
            return -1;
        if (span_same(m->keys[i], k))
            return m->vals[i];
    }
}

static bool map_put(NameMap *m, MkSpan k, int32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        MkSpan *keys = calloc(cap, sizeof *keys);
        int32_t *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i].s)
                continue;
            size_t j = hash_span(m->keys[i]) & (cap - 1);
            while (keys[j].s)
                j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t i = hash_span(k) & (m->cap - 1);
    for (; m->keys[i].s; i = (i + 1) & (m->cap - 1))
        if (span_same(m->keys[i], k))
            return true;
    m->keys[i] = k;
    m->vals[i] = v;
    m->n++;
    return true;
}

static void map_free(NameMap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- the pass over the text ------------------------------------------- */

typedef enum Term {
    T_NONE,    /* falls through (or not closed yet) */
    T_JMP,     /* jmp label */
    T_JCC,     /* conditional: the target and the fall-through */
    T_IND,     /* jmp *...: the function's labels named by data */
    T_EXIT,    /* ret, ud2, hlt: leaves the function */
} Term;

typedef struct Blk {
    int32_t region;
    int32_t fall;          /* the block control falls into, −1: none */
    int32_t target;        /* the jump's target block, −1: none or elsewhere */
    MkSpan tname;          /* the jump's target as written */
    uint32_t num_at;       /* numeric labels defined before the jump (1b/1f) */
    uint32_t ninsn;
    uint8_t term;
    bool taken;            /* a data directive names one of its labels */
} Blk;

/* A function: its name and entry block (f.cold parts add blocks to f's). */
typedef struct Region {
    MkSpan name;
    int32_t entry;
} Region;

/* A marker-shaped symbol written or named otherwise by the text. */
typedef struct Occ {
    MkSpan sym, why;
    uint32_t line;
    int32_t block;
    MkRef ref;
    bool rmw;
} Occ;

typedef struct NumLabel {
    MkSpan name;
    int32_t block;
} NumLabel;

#define SECT_DEPTH 32

typedef struct Scan {
    Blk *blk;
    size_t nblk, capblk;
    Region *reg;
    size_t nreg, capreg;
    Occ *occ;
    size_t nocc, capocc;
    MkSpan *defs;          /* marker definitions, in text order */
    size_t ndefs, capdefs;
    MkSpan *taken;         /* .L names in data directives */
    size_t ntaken, captaken;
    NumLabel *num;
    size_t nnum, capnum;
    NameMap labels;        /* code labels → block */
    NameMap regions;       /* function names → region */
    int32_t cur_region, cur_block, fall_from;
    bool code, prev_code;
    bool stack[SECT_DEPTH];
    int depth;
    uint32_t line;
    MkSpan line_text;
    bool oom;
} Scan;

static bool is_local_label(MkSpan n)
{
    return (n.n >= 2 && n.s[0] == '.' && n.s[1] == 'L') || (n.n && n.s[0] >= '0' && n.s[0] <= '9');
}

static int32_t region_of(Scan *s)
{
    if (s->cur_region < 0) {
        /* code before any function label (or after its .size) */
        if (!PUSH(s, s->reg, s->nreg, s->capreg, ((Region){{"", 0}, -1})))
            return -1;
        s->cur_region = (int32_t)s->nreg - 1;
    }
    return s->cur_region;
}

/* Opens a block; the open one, or the one that ended in a conditional
 * jump, falls into it. */
static int32_t new_block(Scan *s)
{
    int32_t r = region_of(s);
    if (r < 0)
        return -1;
    Blk b = {.region = r, .fall = -1, .target = -1, .term = T_NONE};
    if (!PUSH(s, s->blk, s->nblk, s->capblk, b))
        return -1;
    int32_t id = (int32_t)s->nblk - 1;
    int32_t from = s->cur_block >= 0 ? s->cur_block : s->fall_from;
    if (from >= 0 && s->blk[from].region == r)
        s->blk[from].fall = id;
    if (s->reg[r].entry < 0)
        s->reg[r].entry = id;
    s->cur_block = id;
    s->fall_from = -1;
    return id;
}

/* Ends the control flow here: what follows is not reached by falling. */
static void cut(Scan *s)
{
    s->cur_block = -1;
    s->fall_from = -1;
}

/* The block a local label names: the open one while it is empty. */
static int32_t label_block(Scan *s)
{
    if (s->cur_block >= 0 && s->blk[s->cur_block].ninsn == 0)
        return s->cur_block;
    return new_block(s);
}

static void on_label(Scan *s, MkSpan name)
{
    uint32_t k;
    if (!s->code) {
        if (mk_marker_name(name, NULL, &k))
            PUSH(s, s->defs, s->ndefs, s->capdefs, name);
        return;
    }
    if (is_local_label(name)) {
        int32_t b = label_block(s);
        if (b < 0)
            return;
        if (name.s[0] == '.') {
            if (!map_put(&s->labels, name, b))
                s->oom = true;
        } else {
            PUSH(s, s->num, s->nnum, s->capnum, ((NumLabel){name, b}));
        }
        return;
    }
    /* a function, or the cold part of one */
    cut(s);
    int32_t r = -1;
    if (name.n > 5 && !memcmp(name.s + name.n - 5, ".cold", 5))
        r = map_get(&s->regions, (MkSpan){name.s, name.n - 5});
    if (r < 0) {
        if (!PUSH(s, s->reg, s->nreg, s->capreg, ((Region){name, -1})))
            return;
        r = (int32_t)s->nreg - 1;
        if (!map_put(&s->regions, name, r))
            s->oom = true;
    }
    s->cur_region = r;
    int32_t b = new_block(s);
    if (b >= 0 && !map_put(&s->labels, name, b))
        s->oom = true;
}

/* The first argument of a directive (up to a comma or a blank). */
static MkSpan first_arg(MkSpan args)
{
    size_t n = 0;
    while (n < args.n && args.s[n] != ',' && args.s[n] != ' ' && args.s[n] != '\t')
        n++;
    return (MkSpan){args.s, n};
}

/* Whether a section (its .section arguments) holds code. */
static bool code_section(MkSpan args)
{
    MkSpan name = first_arg(args);
    if ((name.n >= 5 && !memcmp(name.s, ".text", 5)) || mk_span_eq(name, ".init") || mk_span_eq(name, ".fini"))
        return true;
    /* flags: the first quoted string after the name */
    const char *q = memchr(args.s + name.n, '"', args.n - name.n);
    if (!q)
        return false;
    const char *e = memchr(q + 1, '"', (size_t)(args.s + args.n - q - 1));
    return e && memchr(q + 1, 'x', (size_t)(e - q - 1));
}

static bool on_section(Scan *s, MkSpan dir, MkSpan args, VmError *err)
{
    bool code;
    if (mk_span_eq(dir, ".text"))
        code = true;
    else if (mk_span_eq(dir, ".data") || mk_span_eq(dir, ".bss"))
        code = false;
    else if (mk_span_eq(dir, ".section") || mk_span_eq(dir, ".pushsection"))
        code = code_section(args);
    else if (mk_span_eq(dir, ".popsection")) {
        if (s->depth == 0)
            return vm_fail(err, "markers: line %u: .popsection without .pushsection", s->line + 1);
        s->prev_code = s->code;
        s->code = s->stack[--s->depth];
        return true;
    } else if (mk_span_eq(dir, ".previous")) {
        code = s->prev_code;
    } else {
        return true;
    }
    if (mk_span_eq(dir, ".pushsection")) {
        if (s->depth == SECT_DEPTH)
            return vm_fail(err, "markers: line %u: sections nested too deep", s->line + 1);
        s->stack[s->depth++] = s->code;
    }
    s->prev_code = s->code;
    s->code = code;
    return true;
}

static void add_occ(Scan *s, MkSpan sym, MkSpan why, MkRef ref, bool rmw)
{
    int32_t b = s->code ? s->cur_block : -1;
    PUSH(s, s->occ, s->nocc, s->capocc, ((Occ){sym, why, s->line, b, ref, rmw}));
}

/* Data directives: the labels they name (jump tables) and any marker,
 * whose address they would hold. */
static void on_data(Scan *s, MkSpan text, MkSpan args)
{
    const char *p = args.s, *e = args.s + args.n;
    while (p < e) {
        if (*p == '"') {   /* skip a string */
            for (p++; p < e && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            p++;
            continue;
        }
        if (!mk_ident_start(*p) || (p > args.s && (mk_ident_char(p[-1]) || p[-1] == '%'))) {
            p++;
            continue;
        }
        const char *q = p;
        while (q < e && mk_ident_char(*q))
            q++;
        MkSpan id = {p, (size_t)(q - p)};
        p = q;
        if (id.n >= 2 && id.s[0] == '.' && id.s[1] == 'L')
            PUSH(s, s->taken, s->ntaken, s->captaken, id);
        else if (mk_marker_name(id, NULL, NULL))
            add_occ(s, id, text, MK_REF_OTHER, false);
    }
}

static const char *const data_dirs[] = {
    ".long", ".quad", ".int", ".4byte", ".8byte", ".word", ".short", ".value", ".2byte", ".dc.a", ".dc.l",
    ".dc.q", ".set", ".equ", ".equiv", ".weakref", ".symver", ".reloc", ".sleb128", ".uleb128", NULL,
};

static bool on_directive(Scan *s, const MkItem *it, VmError *err)
{
    MkSpan d = it->name;
    if (mk_span_eq(d, ".comm") || mk_span_eq(d, ".lcomm")) {
        MkSpan name = first_arg(it->args);
        if (mk_marker_name(name, NULL, NULL))
            PUSH(s, s->defs, s->ndefs, s->capdefs, name);
        return true;
    }
    if (mk_span_eq(d, ".size")) {
        /* the end of the current function (or of its cold part) */
        MkSpan name = first_arg(it->args);
        if (s->cur_region >= 0) {
            MkSpan f = s->reg[s->cur_region].name;
            if (span_same(name, f) ||
                (name.n == f.n + 5 && !memcmp(name.s, f.s, f.n) && !memcmp(name.s + f.n, ".cold", 5))) {
                cut(s);
                s->cur_region = -1;
            }
        }
        return true;
    }
    for (int i = 0; data_dirs[i]; i++)
        if (mk_span_eq(d, data_dirs[i])) {
            on_data(s, it->text, it->args);
            return true;
        }
    return on_section(s, d, it->args, err);
}

static void insn_ref(void *ctx, MkSpan sym, MkRef ref, bool rmw)
{
    Scan *s = ctx;
    if (ref != MK_REF_LOAD)
        add_occ(s, sym, s->line_text, ref, rmw);
}

static bool one_of(MkSpan m, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (mk_span_eq(m, names[i]))
            return true;
    return false;
}

static const char *const exits[] = {
    "ret", "retq", "retl", "retw", "iret", "iretq", "iretl", "ud2", "hlt", "sysret", "sysretq", "sysexit", NULL,
};

static void on_insn(Scan *s, const MkItem *it)
{
    s->line_text = it->text;
    if (!s->code) {   /* instructions in data: their references only */
        mk_insn_refs(it, insn_ref, s);
        return;
    }
    int32_t b = s->cur_block >= 0 ? s->cur_block : new_block(s);
    if (b < 0)
        return;
    s->blk[b].ninsn++;
    mk_insn_refs(it, insn_ref, s);
    MkSpan m = it->name;
    bool jmp = mk_span_eq(m, "jmp") || mk_span_eq(m, "jmpq");
    if (jmp || (m.n && m.s[0] == 'j') || (m.n >= 4 && !memcmp(m.s, "loop", 4)) || mk_span_eq(m, "xbegin")) {
        MkSpan t = first_arg(it->args);
        Blk *bk = &s->blk[b];
        if (jmp && t.n && t.s[0] == '*') {
            bk->term = T_IND;
        } else {
            size_t n = 0;   /* the name, without @PLT */
            while (n < t.n && t.s[n] != '@')
                n++;
            bk->tname = (MkSpan){t.s, n};
            bk->num_at = (uint32_t)s->nnum;
            bk->term = jmp ? T_JMP : T_JCC;
        }
        int32_t from = bk->term == T_JCC ? b : -1;
        cut(s);
        s->fall_from = from;
    } else if (one_of(m, exits)) {
        s->blk[b].term = T_EXIT;
        cut(s);
    }
}

static bool scan_text(Scan *s, const char *text, size_t len, VmError *err)
{
    s->cur_region = s->cur_block = s->fall_from = -1;
    s->code = s->prev_code = true;
    const char *p = text, *end = text + len;
    for (s->line = 0; p < end; s->line++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        MkCursor c;
        MkItem it;
        mk_cursor_init(&c, p, (size_t)(e - p));
        while (mk_cursor_next(&c, &it)) {
            if (it.kind == MK_ITEM_LABEL)
                on_label(s, it.name);
            else if (it.kind == MK_ITEM_DIRECTIVE) {
                if (!on_directive(s, &it, err))
                    return false;
            } else
                on_insn(s, &it);
        }
        if (s->oom)
            return vm_fail(err, "markers: out of memory scanning the assembly");
        p = e < end ? e + 1 : end;
        if (s->line == UINT32_MAX)
            return vm_fail(err, "markers: assembly text too long");
    }
    return true;
}

/* ---- the markers and their sites ---------------------------------------- */

static int cmp_marker(const void *a, const void *b)
{
    const MkMarker *x = a, *y = b;
    int c = strcmp(x->fn, y->fn);
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

static void copy_span(char *dst, size_t size, MkSpan s)
{
    size_t n = s.n < size - 1 ? s.n : size - 1;
    memcpy(dst, s.s, n);
    dst[n] = 0;
}

/* The markers the text defines, sorted; names → index in *byname. */
static bool collect_markers(Scan *s, MkMap *out, NameMap *byname, VmError *err)
{
    NameMap seen = {0};
    out->markers = calloc(s->ndefs ? s->ndefs : 1, sizeof *out->markers);
    if (!out->markers)
        return vm_fail(err, "markers: out of memory");
    for (size_t i = 0; i < s->ndefs; i++) {
        MkSpan d = s->defs[i];
        if (map_get(&seen, d) >= 0)
            continue;
        if (!map_put(&seen, d, 0)) {
            map_free(&seen);
            return vm_fail(err, "markers: out of memory");
        }
        MkMarker *m = &out->markers[out->nmarkers++];
        size_t fnlen;
        mk_marker_name(d, &fnlen, &m->k);
        if (d.n >= sizeof m->sym || fnlen >= sizeof m->fn) {
            map_free(&seen);
            return vm_fail(err, "markers: marker symbol too long: %.*s", (int)(d.n < 200 ? d.n : 200), d.s);
        }
        copy_span(m->sym, sizeof m->sym, d);
        copy_span(m->fn, sizeof m->fn, (MkSpan){d.s, fnlen});
    }
    map_free(&seen);
    qsort(out->markers, out->nmarkers, sizeof *out->markers, cmp_marker);
    for (uint32_t i = 0; i < out->nmarkers; i++)
        if (!map_put(byname, (MkSpan){out->markers[i].sym, strlen(out->markers[i].sym)}, (int32_t)i))
            return vm_fail(err, "markers: out of memory");
    return true;
}

/* ---- control flow -------------------------------------------------------- */

/* Resolves jump targets (labels of the same function) and marks the
 * blocks data directives name. */
static void resolve_targets(Scan *s)
{
    for (size_t i = 0; i < s->ntaken; i++) {
        int32_t b = map_get(&s->labels, s->taken[i]);
        if (b >= 0)
            s->blk[b].taken = true;
    }
    for (size_t i = 0; i < s->nblk; i++) {
        Blk *b = &s->blk[i];
        if (b->term != T_JMP && b->term != T_JCC)
            continue;
        MkSpan t = b->tname;
        int32_t to = -1;
        if (t.n >= 2 && t.s[0] >= '0' && t.s[0] <= '9' && (t.s[t.n - 1] == 'b' || t.s[t.n - 1] == 'f')) {
            MkSpan name = {t.s, t.n - 1};
            if (t.s[t.n - 1] == 'b') {
                for (size_t j = b->num_at; j-- > 0;)
                    if (span_same(s->num[j].name, name)) {
                        to = s->num[j].block;
                        break;
                    }
            } else {
                for (size_t j = b->num_at; j < s->nnum; j++)
                    if (span_same(s->num[j].name, name)) {
                        to = s->num[j].block;
                        break;
                    }
            }
        } else {
            to = map_get(&s->labels, t);
        }
        if (to >= 0 && s->blk[to].region == b->region)
            b->target = to;
    }
}

/* A region's graph in local numbering 0..m−1 (0 the entry): successors
 * and predecessors as offset/value arrays. */
typedef struct Graph {
    uint32_t m;
    uint32_t *so, *sv, *po, *pv;
} Graph;

static void graph_free(Graph *g)
{
    free(g->so);
    free(g->sv);
    free(g->po);
    free(g->pv);
}

/* The successors of block b (global ids) into out, each once; their number. */
static uint32_t succs(const Scan *s, uint32_t b, const int32_t *taken_v, uint32_t ntaken, int32_t *out)
{
    const Blk *k = &s->blk[b];
    uint32_t n = 0;
    if ((k->term == T_NONE || k->term == T_JCC) && k->fall >= 0)
        out[n++] = k->fall;
    if ((k->term == T_JMP || k->term == T_JCC) && k->target >= 0 && (n == 0 || out[0] != k->target))
        out[n++] = k->target;
    if (k->term == T_IND)
        for (uint32_t i = 0; i < ntaken; i++)
            out[n++] = taken_v[i];
    return n;
}

static bool build_graph(const Scan *s, const uint32_t *blocks, uint32_t m, const int32_t *loc, Graph *g)
{
    memset(g, 0, sizeof *g);
    g->m = m;
    int32_t *taken = malloc((m ? m : 1) * sizeof *taken);
    int32_t *tmp = malloc((m + 2) * sizeof *tmp);
    g->so = calloc(m + 1, sizeof *g->so);
    g->po = calloc(m + 2, sizeof *g->po);
    if (!taken || !tmp || !g->so || !g->po)
        goto oom;
    uint32_t ntaken = 0;
    for (uint32_t i = 0; i < m; i++)
        if (s->blk[blocks[i]].taken)
            taken[ntaken++] = (int32_t)blocks[i];
    uint32_t nedges = 0;
    for (uint32_t i = 0; i < m; i++) {
        g->so[i] = nedges;
        nedges += succs(s, blocks[i], taken, ntaken, tmp);
    }
    g->so[m] = nedges;
    g->sv = malloc((nedges ? nedges : 1) * sizeof *g->sv);
    g->pv = malloc((nedges ? nedges : 1) * sizeof *g->pv);
    if (!g->sv || !g->pv)
        goto oom;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t n = succs(s, blocks[i], taken, ntaken, tmp);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t to = (uint32_t)loc[tmp[j]];
            g->sv[g->so[i] + j] = to;
            g->po[to + 2]++;
        }
    }
    /* predecessors: counting sort of the edges by target */
    for (uint32_t i = 0; i < m; i++)
        g->po[i + 2] += g->po[i + 1];
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t e = g->so[i]; e < g->so[i + 1]; e++)
            g->pv[g->po[g->sv[e] + 1]++] = i;
    free(taken);
    free(tmp);
    return true;
oom:
    free(taken);
    free(tmp);
    graph_free(g);
    return false;
}

/* Blocks in a cycle (Tarjan's strongly connected components, iterative). */
static bool find_loops(const Graph *g, bool *in_loop)
{
    uint32_t m = g->m, counter = 0, nst = 0, nfr = 0;
    int32_t *index = malloc(m * sizeof *index), *low = malloc(m * sizeof *low);
    uint32_t *st = malloc(m * sizeof *st), *fv = malloc(m * sizeof *fv), *fe = malloc(m * sizeof *fe);
    bool *on = calloc(m, sizeof *on);
    bool ok = index && low && st && fv && fe && on;
    if (ok) {
        for (uint32_t i = 0; i < m; i++)
            index[i] = -1, in_loop[i] = false;
        for (uint32_t r = 0; r < m; r++) {
            if (index[r] >= 0)
                continue;
            index[r] = low[r] = (int32_t)counter++;
            st[nst++] = r, on[r] = true;
            fv[nfr] = r, fe[nfr++] = g->so[r];
            while (nfr) {
                uint32_t v = fv[nfr - 1];
                if (fe[nfr - 1] < g->so[v + 1]) {
                    uint32_t w = g->sv[fe[nfr - 1]++];
                    if (index[w] < 0) {
                        index[w] = low[w] = (int32_t)counter++;
                        st[nst++] = w, on[w] = true;
                        fv[nfr] = w, fe[nfr++] = g->so[w];
                    } else if (on[w] && index[w] < low[v]) {
                        low[v] = index[w];
                    }
                    continue;
                }
                if (low[v] == index[v]) {
                    uint32_t size = 0, w;
                    uint32_t top = nst;
                    do {
                        w = st[--nst];
                        on[w] = false;
                        size++;
                    } while (w != v);
                    bool cyc = size > 1;
                    for (uint32_t e = g->so[v]; !cyc && e < g->so[v + 1]; e++)
                        cyc = g->sv[e] == v;
                    if (cyc)
                        for (uint32_t j = nst; j < top; j++)
                            in_loop[st[j]] = true;
                }
                nfr--;
                if (nfr && low[v] < low[fv[nfr - 1]])
                    low[fv[nfr - 1]] = low[v];
            }
        }
    }
    free(index);
    free(low);
    free(st);
    free(fv);
    free(fe);
    free(on);
    return ok;
}

/* Blocks reachable from a block of a cycle. */
static bool after_loops(const Graph *g, const bool *in_loop, bool *after)
{
    uint32_t m = g->m, n = 0;
    uint32_t *q = malloc((m ? m : 1) * sizeof *q);
    if (!q)
        return false;
    for (uint32_t i = 0; i < m; i++) {
        after[i] = in_loop[i];
        if (in_loop[i])
            q[n++] = i;
    }
    for (uint32_t h = 0; h < n; h++)
        for (uint32_t e = g->so[q[h]]; e < g->so[q[h] + 1]; e++)
            if (!after[g->sv[e]]) {
                after[g->sv[e]] = true;
                q[n++] = g->sv[e];
            }
    free(q);
    return true;
}

/* Immediate dominators (Cooper, Harvey, Kennedy) of the nodes reachable
 * from root over the edges (fo, fv), whose reverse is (bo, bv): idom[root]
 * = root, −1 when unreachable; order[0..*nord) the reverse postorder. */
static bool dominators(uint32_t n, uint32_t root, const uint32_t *fo, const uint32_t *fv, const uint32_t *bo,
                       const uint32_t *bv, int32_t *idom, uint32_t *order, uint32_t *nord)
{
    int32_t *rpo = malloc(n * sizeof *rpo);
    uint32_t *sv = malloc(n * sizeof *sv), *se = malloc(n * sizeof *se);
    bool *seen = calloc(n, sizeof *seen);
    if (!rpo || !sv || !se || !seen) {
        free(rpo), free(sv), free(se), free(seen);
        return false;
    }
    /* postorder by an iterative depth-first search */
    uint32_t post = 0, ns = 0;
    sv[ns] = root, se[ns++] = fo[root], seen[root] = true;
    while (ns) {
        uint32_t v = sv[ns - 1];
        if (se[ns - 1] < fo[v + 1]) {
            uint32_t w = fv[se[ns - 1]++];
            if (!seen[w]) {
                seen[w] = true;
                sv[ns] = w, se[ns++] = fo[w];
            }
            continue;
        }
        order[post++] = v;
        ns--;
    }
    for (uint32_t i = 0; i < post / 2; i++) {
        uint32_t t = order[i];
        order[i] = order[post - 1 - i];
        order[post - 1 - i] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        rpo[i] = -1, idom[i] = -1;
    for (uint32_t i = 0; i < post; i++)
        rpo[order[i]] = (int32_t)i;
    idom[root] = (int32_t)root;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < post; i++) {
            uint32_t v = order[i];
            int32_t nd = -1;
            for (uint32_t e = bo[v]; e < bo[v + 1]; e++) {
                int32_t p = (int32_t)bv[e];
                if (idom[p] < 0)
                    continue;
                if (nd < 0) {
                    nd = p;
                    continue;
                }
                int32_t a = p, b = nd;
                while (a != b) {
                    while (rpo[a] > rpo[b])
                        a = idom[a];
                    while (rpo[b] > rpo[a])
                        b = idom[b];
                }
                nd = a;
            }
            if (nd >= 0 && idom[v] != nd) {
                idom[v] = nd;
                changed = true;
            }
        }
    }
    *nord = post;
    free(rpo), free(sv), free(se), free(seen);
    return true;
}

/* Pre/post numbers of the tree given by parent links (root: parent[root]
 * == root; −1: not in the tree), so that a is an ancestor of b iff
 * pre[a] <= pre[b] && post[b] <= post[a]. */
static bool tree_numbers(uint32_t n, uint32_t root, const int32_t *parent, int32_t *pre, int32_t *post)
{
    uint32_t *co = calloc(n + 1, sizeof *co), *cv = malloc(n * sizeof *cv);
    uint32_t *sv = malloc(n * sizeof *sv), *se = malloc(n * sizeof *se);
    if (!co || !cv || !sv || !se) {
        free(co), free(cv), free(sv), free(se);
        return false;
    }
    for (uint32_t v = 0; v < n; v++)
        if (v != root && parent[v] >= 0)
            co[parent[v] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        co[v + 1] += co[v];
    uint32_t *fill = se;   /* borrowed before the search */
    for (uint32_t v = 0; v < n; v++)
        fill[v] = co[v];
    for (uint32_t v = 0; v < n; v++)
        if (v != root && parent[v] >= 0)
            cv[fill[parent[v]]++] = v;
    for (uint32_t v = 0; v < n; v++)
        pre[v] = post[v] = -1;
    int32_t clock = 0;
    uint32_t ns = 0;
    sv[ns] = root, se[ns++] = co[root], pre[root] = clock++;
    while (ns) {
        uint32_t v = sv[ns - 1];
        if (se[ns - 1] < co[v + 1]) {
            uint32_t w = cv[se[ns - 1]++];
            pre[w] = clock++;
            sv[ns] = w, se[ns++] = co[w];
            continue;
        }
        post[v] = clock++;
        ns--;
    }
    free(co), free(cv), free(sv), free(se);
    return true;
}

/* Per block of one region (local numbering): in_loop, after (reached
 * from a loop), guarded (see the file's header). */
static bool analyze(const Graph *g, bool *in_loop, bool *after, bool *guarded)
{
    uint32_t m = g->m;
    if (!find_loops(g, in_loop) || !after_loops(g, in_loop, after))
        return false;
    /* the reverse graph with a virtual exit m, for post-dominators */
    uint32_t nexit = 0;
    for (uint32_t v = 0; v < m; v++)
        nexit += g->so[v] == g->so[v + 1];
    uint32_t ne = g->so[m];
    uint32_t *ro = malloc((m + 2) * sizeof *ro), *rv = malloc((ne + nexit + 1) * sizeof *rv);
    uint32_t *ko = malloc((m + 2) * sizeof *ko), *kv = malloc((ne + nexit + 1) * sizeof *kv);
    int32_t *idom = malloc(m * sizeof *idom), *ipdom = malloc((m + 1) * sizeof *ipdom);
    int32_t *pre = malloc((m + 1) * sizeof *pre), *post = malloc((m + 1) * sizeof *post);
    int32_t *guard = malloc(m * sizeof *guard);
    uint32_t *order = malloc((m + 1) * sizeof *order), nord = 0;
    bool ok = ro && rv && ko && kv && idom && ipdom && pre && post && guard && order;
    if (ok) {
        /* forward of the reverse graph: predecessors, and m → every exit */
        uint32_t k = 0;
        for (uint32_t v = 0; v < m; v++) {
            ro[v] = k;
            for (uint32_t e = g->po[v]; e < g->po[v + 1]; e++)
                rv[k++] = g->pv[e];
        }
        ro[m] = k;
        for (uint32_t v = 0; v < m; v++)
            if (g->so[v] == g->so[v + 1])
                rv[k++] = v;
        ro[m + 1] = k;
        /* its reverse: successors, and every exit → m */
        k = 0;
        for (uint32_t v = 0; v < m; v++) {
            ko[v] = k;
            for (uint32_t e = g->so[v]; e < g->so[v + 1]; e++)
                kv[k++] = g->sv[e];
            if (g->so[v] == g->so[v + 1])
                kv[k++] = m;
        }
        ko[m] = ko[m + 1] = k;
        ok = dominators(m + 1, m, ro, rv, ko, kv, ipdom, order, &nord) &&
             tree_numbers(m + 1, m, ipdom, pre, post) &&
             dominators(m, 0, g->so, g->sv, g->po, g->pv, idom, order, &nord);
    }
    if (ok) {
        for (uint32_t v = 0; v < m; v++)
            guard[v] = -1, guarded[v] = false;
        for (uint32_t i = 1; i < nord; i++) {
            uint32_t v = order[i];
            uint32_t d = (uint32_t)idom[v];
            bool branch = g->so[d + 1] - g->so[d] >= 2;
            guard[v] = !in_loop[d] && branch ? (int32_t)d : guard[d];
        }
        for (uint32_t i = 0; i < nord; i++) {
            uint32_t v = order[i];
            int32_t d = guard[v];
            if (in_loop[v] || d < 0 || pre[d] < 0)
                continue;
            bool pdom = pre[v] >= 0 && pre[v] <= pre[d] && post[d] <= post[v];
            guarded[v] = !pdom;
        }
    }
    free(ro), free(rv), free(ko), free(kv), free(idom), free(ipdom);
    free(pre), free(post), free(guard), free(order);
    return ok;
}

/* where/guarded of every site, from the control flow of the functions
 * holding sites.  site_block[i]: the block of site i (−1: none). */
static bool place_sites(Scan *s, MkMap *map, const int32_t *site_block, VmError *err)
{
    if (!map->nsites)
        return true;
    resolve_targets(s);
    size_t nb = s->nblk, nr = s->nreg;
    uint32_t *ro = calloc(nr + 1, sizeof *ro), *rb = malloc((nb ? nb : 1) * sizeof *rb);
    int32_t *loc = malloc((nb ? nb : 1) * sizeof *loc);
    bool *want = calloc(nr ? nr : 1, sizeof *want);
    bool *loop = calloc(nb ? nb : 1, sizeof *loop), *after = calloc(nb ? nb : 1, sizeof *after);
    bool *guarded = calloc(nb ? nb : 1, sizeof *guarded);
    bool ok = ro && rb && loc && want && loop && after && guarded;
    if (ok) {
        /* each region's blocks, in text order (its entry first) */
        for (size_t b = 0; b < nb; b++)
            ro[s->blk[b].region + 1]++;
        for (size_t r = 0; r < nr; r++)
            ro[r + 1] += ro[r];
        uint32_t *fill = calloc(nr + 1, sizeof *fill);
        ok = fill != NULL;
        for (size_t b = 0; ok && b < nb; b++) {
            uint32_t r = (uint32_t)s->blk[b].region;
            loc[b] = (int32_t)fill[r];
            rb[ro[r] + fill[r]++] = (uint32_t)b;
        }
        free(fill);
        for (uint32_t i = 0; ok && i < map->nsites; i++)
            if (site_block[i] >= 0)
                want[s->blk[site_block[i]].region] = true;
    }
    for (size_t r = 0; ok && r < nr; r++) {
        if (!want[r])
            continue;
        uint32_t m = ro[r + 1] - ro[r];
        const uint32_t *blocks = rb + ro[r];
        Graph g;
        bool *l = malloc(m * 3 * sizeof *l);
        ok = l && build_graph(s, blocks, m, loc, &g);
        if (ok) {
            ok = analyze(&g, l, l + m, l + 2 * m);
            graph_free(&g);
        }
        for (uint32_t i = 0; ok && i < m; i++) {
            loop[blocks[i]] = l[i];
            after[blocks[i]] = l[m + i];
            guarded[blocks[i]] = l[2 * m + i];
        }
        free(l);
    }
    for (uint32_t i = 0; ok && i < map->nsites; i++) {
        MkSite *st = &map->sites[i];
        int32_t b = site_block[i];
        st->where = b >= 0 && loop[b] ? MK_IN_LOOP : b >= 0 && after[b] ? MK_LOOP_EXIT : MK_STRAIGHT;
        st->guarded = b >= 0 && guarded[b];
    }
    free(ro), free(rb), free(loc), free(want), free(loop), free(after), free(guarded);
    return ok ? true : vm_fail(err, "markers: out of memory building the control flow");
}

static void scan_free(Scan *s)
{
    free(s->blk), free(s->reg), free(s->occ), free(s->defs), free(s->taken), free(s->num);
    map_free(&s->labels);
    map_free(&s->regions);
}

bool mk_scan(const char *text, size_t len, MkMap *out, VmError *err)
{
    memset(out, 0, sizeof *out);
    Scan s = {0};
    NameMap byname = {0};
    int32_t *site_block = NULL;
    uint32_t *copies = NULL;
    bool ok = scan_text(&s, text, len, err) && collect_markers(&s, out, &byname, err);
    if (ok) {
        out->sites = malloc((s.nocc ? s.nocc : 1) * sizeof *out->sites);
        site_block = malloc((s.nocc ? s.nocc : 1) * sizeof *site_block);
        copies = calloc(out->nmarkers ? out->nmarkers : 1, sizeof *copies);
        ok = out->sites && site_block && copies;
        if (!ok)
            vm_fail(err, "markers: out of memory");
    }
    for (size_t i = 0; ok && i < s.nocc; i++) {
        const Occ *o = &s.occ[i];
        int32_t k = map_get(&byname, o->sym);
        if (k < 0)
            continue;   /* not defined here: not a marker of this text */
        MkMarker *m = &out->markers[k];
        if (o->ref == MK_REF_OTHER) {
            if (!m->refused) {
                m->refused = true;
                copy_span(m->why, sizeof m->why, o->why);
            }
            continue;
        }
        site_block[out->nsites] = o->block;
        out->sites[out->nsites++] = (MkSite){
            .line = o->line, .marker = (uint32_t)k, .rmw = o->rmw, .copy = copies[k]++};
        m->nsites++;
    }
    ok = ok && place_sites(&s, out, site_block, err);
    free(site_block);
    free(copies);
    map_free(&byname);
    scan_free(&s);
    if (!ok)
        mk_map_free(out);
    return ok;
}

void mk_map_free(MkMap *m)
{
    free(m->markers);
    free(m->sites);
    memset(m, 0, sizeof *m);
}

static const char *const where_names[] = {"in-loop", "exit", "straight"};

void mk_map_dump(const MkMap *m, FILE *out)
{
    for (uint32_t i = 0; i < m->nmarkers; i++) {
        const MkMarker *k = &m->markers[i];
        fprintf(out, "marker %s (fn %s, k %u): %u site%s", k->sym, k->fn, k->k, k->nsites, k->nsites == 1 ? "" : "s");
        if (k->refused)
            fprintf(out, ", refused: %s", k->why);
        fputc('\n', out);
        for (uint32_t j = 0; j < m->nsites; j++) {
            const MkSite *s = &m->sites[j];
            if (s->marker != i)
                continue;
            fprintf(out, "  site line %u: %s%s%s copy %u\n", s->line, where_names[s->where], s->rmw ? " rmw" : "",
                    s->guarded ? " guarded" : "", s->copy);
        }
    }
}

int mk_map_find(const MkMap *m, const char *sym)
{
    /* the markers are sorted by fn and k: a binary search on both */
    size_t fnlen;
    MkMarker key;
    if (!mk_marker_name((MkSpan){sym, strlen(sym)}, &fnlen, &key.k) || fnlen >= sizeof key.fn)
        return -1;
    memcpy(key.fn, sym, fnlen);
    key.fn[fnlen] = 0;
    const MkMarker *f = bsearch(&key, m->markers, m->nmarkers, sizeof *m->markers, cmp_marker);
    return f && !strcmp(f->sym, sym) ? (int)(f - m->markers) : -1;
}
