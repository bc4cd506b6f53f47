/* tests/unit/test_markers_scan.c — the marker map (markers/scan.c) and the
 * clean and timed rewrites (markers/rewrite.c).
 *
 * Three kinds of input: hand-written assembly in gcc's layout (one shape
 * or reference form per case), the recorded libgccjit 12 output of
 * tests/fixtures/markers/ (the shapes of tests/unit/mk_shapes.h: a
 * hoisted store after a loop, addq $1 in a loop with a cold call, a
 * register accumulator stored behind a flag, header copies, unrolled and
 * peeled copies, an address-taken marker, a pinned marker in an asm),
 * and the same shapes compiled here under every option set.  Rewritten
 * code is assembled, loaded and run: its results must equal the C
 * reference's, and in timed code the weights of each marker must add up
 * to the number of times its source `+= 1` ran, exactly.
 */
#include "jit_int.h"
#include "mk_shapes.h"
#include "test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static bool scan(const char *text, MkMap *m)
{
    VmError err = {{0}};
    if (!mk_scan(text, strlen(text), m, &err)) {
        test_fail(__FILE__, __LINE__, "mk_scan: %s", err.msg);
        return false;
    }
    return true;
}

/* Site `copy` of marker sym (NULL if none). */
static const MkSite *site(const MkMap *m, const char *sym, uint32_t copy)
{
    int k = mk_map_find(m, sym);
    for (uint32_t i = 0; k >= 0 && i < m->nsites; i++)
        if (m->sites[i].marker == (uint32_t)k && m->sites[i].copy == copy)
            return &m->sites[i];
    return NULL;
}

static const MkMarker *marker(const MkMap *m, const char *sym)
{
    int k = mk_map_find(m, sym);
    return k >= 0 ? &m->markers[k] : NULL;
}

/* "where[ rmw][ guarded]" of a site, "none" when there is none. */
static const char *shape_of(const MkSite *s, char *buf, size_t size)
{
    static const char *const w[] = {"in-loop", "exit", "straight"};
    if (!s)
        return "none";
    snprintf(buf, size, "%s%s%s", w[s->where], s->rmw ? " rmw" : "", s->guarded ? " guarded" : "");
    return buf;
}

#define CHECK_SITE(map, sym, copy, want)                                          \
    do {                                                                          \
        char b_[64];                                                              \
        CHECK_STR(shape_of(site(map, sym, copy), b_, sizeof b_), want);           \
    } while (0)

static char *fixture(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/markers/%s", name);
    VmBuf b = {0};
    VmError err;
    if (!vm_read_file(path, &b, &err)) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        return NULL;
    }
    *len = b.len;
    return (char *)b.data;   /* NUL-terminated by vm_read_file */
}

static char *buf_str(VmBuf *b)
{
    vm_buf_put(b, "", 1);
    b->len--;
    return (char *)b->data;
}

static bool load(const char *text, size_t len, JitLoaded *u)
{
    char dir[256];
    VmError err;
    if (!jit_tmpdir(dir, sizeof dir, false, &err)) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        return false;
    }
    bool ok = jit_load_text(dir, text, len, JIT_LOAD_AS, u, &err);
    if (!ok)
        test_fail(__FILE__, __LINE__, "load: %s", err.msg);
    jit_rmdir(dir);
    return ok;
}

static void unload(JitLoaded *u)
{
    if (u->handle && u->route == JIT_LOAD_AS)
        dlclose(u->handle);
    else if (u->handle)
        gcc_jit_result_release(u->handle);
    u->handle = NULL;
}

/* ---- the sink: weights and events per marker ------------------------------ */

typedef struct Tally {
    uint64_t weight, events, misaligned, zero_tsc;
} Tally;

typedef struct Tallies {
    Tally t[64];
    uint32_t asked;
    bool refuse_all;       /* ctx_of answers NULL: no stubs */
    uint32_t every;        /* MkStubSpec.every */
    uint64_t want[64];     /* source-level counts so far, per marker */
} Tallies;

static const void *tally_ctx(void *arg, const MkMap *map, uint32_t i)
{
    (void)map;
    Tallies *ts = arg;
    ts->asked++;
    return ts->refuse_all || i >= 64 ? NULL : &ts->t[i];
}

/* Called from the stubs: general registers only; the stub must have
 * aligned the stack (the frame address of a function entered with an
 * ABI-aligned stack is a multiple of 16). */
__attribute__((target("general-regs-only"), noinline)) static void tally_sink(const void *ctx, uint64_t weight,
                                                                              uint64_t tsc)
{
    Tally *t = (Tally *)ctx;
    t->weight += weight;
    t->events++;
    t->misaligned += ((uintptr_t)__builtin_frame_address(0) & 15) != 0;
    t->zero_tsc += tsc == 0;
}

static MkStubSpec spec_for(Tallies *ts)
{
    return (MkStubSpec){.sink = tally_sink, .every = ts->every, .ctx_of = tally_ctx, .arg = ts};
}

/* ---- hand-written shapes -------------------------------------------------- */

#define FN_HEAD "\t.text\n\t.p2align 4\n\t.globl\tf\n\t.type\tf, @function\nf:\n.LFB0:\n\t.cfi_startproc\n"
#define FN_TAIL "\t.cfi_endproc\n.LFE0:\n\t.size\tf, .-f\n"
#define MARKER(sym) "\t.local\t" sym "\n\t.comm\t" sym ",8,8\n"

TEST(markers_scan_symbol_and_find)
{
    char buf[64];
    mk_symbol(buf, sizeof buf, "tj3_v0_f", 12);
    CHECK_STR(buf, "tj3_v0_f_mk12");
    MkMap m;
    if (!scan(FN_HEAD "\tret\n" FN_TAIL MARKER("f_mk10") MARKER("f_mk2") MARKER("a_b_mk0")
                  "\t.bss\nf_mk7:\n\t.zero\t8\n",
              &m))
        return;
    CHECK_INT(m.nmarkers, 4);
    /* sorted by fn, then k */
    CHECK_STR(m.markers[0].sym, "a_b_mk0");
    CHECK_STR(m.markers[0].fn, "a_b");
    CHECK_STR(m.markers[1].sym, "f_mk2");
    CHECK_STR(m.markers[2].sym, "f_mk7");
    CHECK_STR(m.markers[3].sym, "f_mk10");
    CHECK_INT(m.markers[3].k, 10);
    CHECK_INT(mk_map_find(&m, "f_mk10"), 3);
    CHECK_INT(mk_map_find(&m, "f_mk7"), 2);
    CHECK_INT(mk_map_find(&m, "f_mk3"), -1);
    CHECK_INT(mk_map_find(&m, "f_mk010"), -1);
    CHECK_INT(mk_map_find(&m, "f"), -1);
    CHECK_INT(m.nsites, 0);
    mk_map_free(&m);
}

/* The definitions of in-loop, exit, straight and guarded (scan.c's
 * header), one shape each. */
TEST(markers_scan_guarded_definition)
{
    static const struct {
        const char *body;
        const char *want;
    } cases[] = {
        /* a store behind a flag: the test's false path skips it */
        {"\ttestb\t%al, %al\n\tje\t.L1\n\tmovq\t%r10, f_mk0(%rip)\n.L1:\n\tret\n", "straight guarded"},
        /* after a diamond: both arms reach it, it post-dominates the test */
        {"\ttestb\t%al, %al\n\tje\t.L1\n\tnop\n\tjmp\t.L2\n.L1:\n\tnop\n.L2:\n\tmovq\t%rax, f_mk0(%rip)\n\tret\n",
         "straight"},
        /* a store after a loop the zero-trip test skips: the loop's own
         * branch is passed over, the test guards it */
        {"\ttestq\t%rsi, %rsi\n\tjle\t.L9\n.L3:\n\taddq\t$1, %rax\n\tcmpq\t%rax, %rsi\n\tjne\t.L3\n"
         "\tmovq\t%rax, f_mk0(%rip)\n.L9:\n\tret\n",
         "exit guarded"},
        /* the same loop without a zero-trip test: always stored */
        {".L3:\n\taddq\t$1, %rax\n\tcmpq\t%rax, %rsi\n\tjne\t.L3\n\tmovq\t%rax, f_mk0(%rip)\n\tret\n", "exit"},
        /* in a loop: never guarded, even behind the loop's own test */
        {".L3:\n\ttestb\t%al, %al\n\tje\t.L4\n\taddq\t$1, f_mk0(%rip)\n.L4:\n\tsubq\t$1, %rsi\n\tjne\t.L3\n\tret\n",
         "in-loop rmw"},
        /* a loop entered through a jump to its test */
        {"\tjmp\t.L2\n.L3:\n\tincq\tf_mk0(%rip)\n\tsubq\t$1, %rsi\n.L2:\n\ttestq\t%rsi, %rsi\n\tjne\t.L3\n\tret\n",
         "in-loop rmw"},
        /* a self loop */
        {".L3:\n\taddq\t$1, f_mk0(%rip)\n\tdecq\t%rsi\n\tjne\t.L3\n\tret\n", "in-loop rmw"},
        /* straight code ahead of a loop */
        {"\taddq\t$1, f_mk0(%rip)\n.L3:\n\tdecq\t%rsi\n\tjne\t.L3\n\tret\n", "straight rmw"},
        /* behind an early return whose branch it does not post-dominate */
        {"\ttestq\t%rdi, %rdi\n\tje\t.L5\n\taddq\t$1, f_mk0(%rip)\n\tret\n.L5:\n\tret\n", "straight rmw guarded"},
        /* a store that cannot reach an exit is post-dominated by nothing */
        {"\ttestq\t%rdi, %rdi\n\tje\t.L5\n\tmovq\t%rdi, f_mk0(%rip)\n\tud2\n.L5:\n\tret\n", "straight guarded"},
        /* a tail call leaves the function: a jump to another function */
        {"\ttestq\t%rdi, %rdi\n\tje\t.L5\n\tmovq\t%rdi, f_mk0(%rip)\n\tjmp\tg@PLT\n.L5:\n\tjmp\th\n",
         "straight guarded"},
        /* a jump to the function's own symbol is a loop (tail recursion) */
        {"\tmovq\t%rdi, f_mk0(%rip)\n\ttestq\t%rdi, %rdi\n\tje\t.L5\n\tret\n.L5:\n\tjmp\tf\n", "in-loop"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s%s%s", FN_HEAD, cases[i].body, FN_TAIL, MARKER("f_mk0"));
        MkMap m;
        if (!scan(text, &m))
            continue;
        char b[64];
        const char *got = shape_of(site(&m, "f_mk0", 0), b, sizeof b);
        if (strcmp(got, cases[i].want))
            test_fail(__FILE__, __LINE__, "case %zu: %s, want %s", i, got, cases[i].want);
        CHECK_INT(m.nsites, 1);
        mk_map_free(&m);
    }
}

/* Every reference form: writes are sites, loads are fine, anything else
 * refuses the marker. */
TEST(markers_scan_reference_forms)
{
    static const struct {
        const char *insn;
        int sites;           /* sites it makes */
        bool rmw;
        bool refused;
    } cases[] = {
        {"movq\t%rax, f_mk0(%rip)", 1, false, false},
        {"addq\t$1, f_mk0(%rip)", 1, true, false},
        {"lock addq\t$1, f_mk0(%rip)", 1, true, false},
        {"subq\t%rdx, f_mk0(%rip)", 1, true, false},
        {"incq\tf_mk0(%rip)", 1, true, false},
        {"negq\tf_mk0(%rip)", 1, true, false},
        {"xchgq\tf_mk0(%rip), %rax", 1, true, false},
        {"popq\tf_mk0(%rip)", 1, false, false},
        {"movq\t%xmm0, f_mk0(%rip)", 1, false, false},
        {"fistpll\tf_mk0(%rip)", 1, false, false},
        {"sete\tf_mk0(%rip)", 1, false, false},
        {"shlq\t$2, f_mk0(%rip)", 1, true, false},
        {"movq\tf_mk0(%rip), %rax", 0, false, false},
        {"cmpq\t$0, f_mk0(%rip)", 0, false, false},
        {"testq\t%rax, f_mk0(%rip)", 0, false, false},
        {"pushq\tf_mk0(%rip)", 0, false, false},
        {"addq\tf_mk0(%rip), %rax", 0, false, false},
        {"btq\t$3, f_mk0(%rip)", 0, false, false},
        {"fildll\tf_mk0(%rip)", 0, false, false},
        {"ldmxcsr\tf_mk0(%rip)", 0, false, false},
        {"call\t*f_mk0(%rip)", 0, false, false},
        {"leaq\tf_mk0(%rip), %rdi", 0, false, true},
        {"movq\tf_mk0@GOTPCREL(%rip), %rax", 0, false, true},
        {"movq\t%rax, f_mk0+8(%rip)", 0, false, true},
        {"movq\t$f_mk0, %rax", 0, false, true},
        {"movq\tf_mk0, %rax", 0, false, true},
        {"movq\t%rax, f_mk0(%rbx)", 0, false, true},
        {"movq\t%rax, f_mk0(,%rbx,8)", 0, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s\t%s\n\tret\n%s%s", FN_HEAD, cases[i].insn, FN_TAIL, MARKER("f_mk0"));
        MkMap m;
        if (!scan(text, &m))
            continue;
        const MkMarker *k = marker(&m, "f_mk0");
        if (!k || (int)m.nsites != cases[i].sites || k->refused != cases[i].refused ||
            (m.nsites && m.sites[0].rmw != cases[i].rmw))
            test_fail(__FILE__, __LINE__, "%s: %u sites (want %d), rmw %d, refused %d", cases[i].insn, m.nsites,
                      cases[i].sites, m.nsites && m.sites[0].rmw, k && k->refused);
        if (k && cases[i].refused)
            CHECK_STR(k->why, cases[i].insn);
        mk_map_free(&m);
    }
    /* data: a table holding its address, an alias */
    const char *data[] = {"\t.section\t.data.rel.local,\"aw\"\n\t.quad\tf_mk0\n", "\t.set\tf_alias, f_mk0\n"};
    for (size_t i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s\taddq\t$1, f_mk0(%%rip)\n\tret\n%s%s%s", FN_HEAD, FN_TAIL, data[i],
                 MARKER("f_mk0"));
        MkMap m;
        if (!scan(text, &m))
            continue;
        CHECK(m.nmarkers == 1 && m.markers[0].refused);
        CHECK_INT(m.nsites, 1);
        mk_map_free(&m);
    }
}

/* Inline asm: statements after ';', numeric labels (1b/1f), a write in an
 * #APP block; a marker-shaped symbol the text does not define is no marker. */
TEST(markers_scan_inline_asm)
{
    const char *text = FN_HEAD
        "#APP\n"
        "# 3 \"f.c\" 1\n"
        "\t1: addq $1, f_mk0(%rip); decq %rcx; jnz 1b\n"
        "# 0 \"\" 2\n"
        "#NO_APP\n"
        "\ttestq\t%rdi, %rdi\n"
        "\tje\t1f\n"
        "\taddq\t$1, f_mk1(%rip)\n"
        "1:\n"
        "\tmovq\t%rax, g_mk0(%rip)\n"
        "\tret\n" FN_TAIL MARKER("f_mk0") MARKER("f_mk1");
    MkMap m;
    if (!scan(text, &m))
        return;
    CHECK_INT(m.nmarkers, 2);
    CHECK_INT(m.nsites, 2);
    CHECK_SITE(&m, "f_mk0", 0, "in-loop rmw");
    CHECK_SITE(&m, "f_mk1", 0, "exit rmw guarded");   /* after the asm's loop */
    const MkSite *s = site(&m, "f_mk0", 0);
    CHECK(s && s->line == 9);
    CHECK_INT(mk_map_find(&m, "g_mk0"), -1);
    CHECK(mk_writes_any(text, strlen(text)));
    /* clean: the write alone leaves its line; the line's other statements stay */
    VmBuf out = {0};
    VmError err;
    CHECK(mk_rewrite_clean(text, strlen(text), &m, &out, &err));
    char *clean = buf_str(&out);
    CHECK_CONTAINS(clean, "\n1:\n\tdecq %rcx\n\tjnz 1b\n# 0 \"\" 2\n");
    CHECK(!strstr(clean, "f_mk1(%rip)"));
    CHECK(strstr(clean, "g_mk0(%rip)"));   /* not a marker of this text */
    vm_buf_free(&out);
    /* timed: the call right after the write, before the next statement */
    Tallies ts = {0};
    MkStubSpec spec = spec_for(&ts);
    CHECK(mk_rewrite_timed(text, strlen(text), &m, &spec, &out, &err));
    char *timed = buf_str(&out);
    CHECK_CONTAINS(timed, "\n1:\n\taddq $1, f_mk0(%rip)\n\tcall\tf_mk0_stub\n\tdecq %rcx\n\tjnz 1b\n");
    CHECK_CONTAINS(timed, "\taddq\t$1, f_mk1(%rip)\n\tcall\tf_mk1_stub\n1:\n");
    CHECK_INT(ts.asked, 2);
    vm_buf_free(&out);
    mk_map_free(&m);
}

/* A jump table's targets are the labels its data names; gcc's cold part
 * (f.cold, in .text.unlikely) joins f's control flow. */
TEST(markers_scan_jump_table_and_cold_part)
{
    const char *table = FN_HEAD
        ".L2:\n"
        "\tleaq\t.L4(%rip), %rdx\n"
        "\tmovslq\t(%rdx,%rax,4), %rax\n"
        "\taddq\t%rdx, %rax\n"
        "\tnotrack jmp\t*%rax\n"
        "\t.section\t.rodata\n"
        "\t.align 4\n"
        ".L4:\n"
        "\t.long\t.L5-.L4\n"
        "\t.long\t.L6-.L4\n"
        "\t.text\n"
        ".L5:\n"
        "\taddq\t$1, f_mk0(%rip)\n"
        "\tjmp\t.L2\n"
        ".L6:\n"
        "\tmovq\t%rax, f_mk1(%rip)\n"
        "\tret\n" FN_TAIL MARKER("f_mk0") MARKER("f_mk1");
    MkMap m;
    if (scan(table, &m)) {
        /* without the table's edges .L5 would be unreachable: straight */
        CHECK_SITE(&m, "f_mk0", 0, "in-loop rmw");
        /* its nearest dominating branch, the table's jump, is in the loop */
        CHECK_SITE(&m, "f_mk1", 0, "exit");
        mk_map_free(&m);
    }
    const char *cold = FN_HEAD
        ".L2:\n"
        "\taddq\t$1, f_mk0(%rip)\n"
        "\tcmpq\t$0, (%rdx)\n"
        "\tjne\tf.cold\n"
        ".L3:\n"
        "\tsubq\t$1, %rsi\n"
        "\tjne\t.L2\n"
        "\tret\n"
        "\t.section\t.text.unlikely\n"
        "f.cold:\n"
        "\tmovq\t%rax, f_mk1(%rip)\n"
        "\tjmp\t.L3\n"
        "\t.text\n" FN_TAIL MARKER("f_mk0") MARKER("f_mk1");
    if (scan(cold, &m)) {
        CHECK_SITE(&m, "f_mk0", 0, "in-loop rmw");
        CHECK_SITE(&m, "f_mk1", 0, "in-loop");
        mk_map_free(&m);
    }
}

TEST(markers_scan_malformed)
{
    MkMap m;
    VmError err = {{0}};
    const char *pop = "\t.text\n\t.popsection\n";
    CHECK(!mk_scan(pop, strlen(pop), &m, &err));
    CHECK_CONTAINS(err.msg, ".popsection");
    CHECK_INT(m.nmarkers, 0);
    char longname[400] = "\t.comm\t";
    for (int i = 0; i < 200; i++)
        strcat(longname, "x");
    strcat(longname, "_mk0,8,8\n");
    CHECK(!mk_scan(longname, strlen(longname), &m, &err));
    CHECK_CONTAINS(err.msg, "too long");
    /* pushed and popped sections: a label in .bss defines a marker */
    const char *ok = "\t.pushsection\t.bss\nf_mk4:\n\t.zero\t8\n\t.popsection\n" FN_HEAD
                     "\tmovq\t%rax, f_mk4(%rip)\n\tret\n" FN_TAIL;
    CHECK(mk_scan(ok, strlen(ok), &m, &err));
    CHECK_INT(m.nmarkers, 1);
    CHECK_INT(m.nsites, 1);
    mk_map_free(&m);
}

TEST(markers_dump_format)
{
    const char *text = FN_HEAD
        "\ttestq\t%rsi, %rsi\n"                 /* 7 */
        "\tjle\t.L9\n"
        ".L3:\n"
        "\taddq\t$1, f_mk0(%rip)\n"             /* 10 */
        "\tsubq\t$1, %rsi\n"
        "\tjne\t.L3\n"
        "\tmovq\t%rax, f_mk1(%rip)\n"           /* 13 */
        ".L9:\n"
        "\tleaq\tf_mk2(%rip), %rdi\n"
        "\tret\n" FN_TAIL MARKER("f_mk0") MARKER("f_mk1") MARKER("f_mk2");
    MkMap m;
    if (!scan(text, &m))
        return;
    char out[1024] = "";
    FILE *f = fmemopen(out, sizeof out - 1, "w");
    mk_map_dump(&m, f);
    fclose(f);
    CHECK_STR(out, "marker f_mk0 (fn f, k 0): 1 site\n"
                   "  site line 10: in-loop rmw copy 0\n"
                   "marker f_mk1 (fn f, k 1): 1 site\n"
                   "  site line 13: exit guarded copy 0\n"
                   "marker f_mk2 (fn f, k 2): 0 sites, refused: leaq\tf_mk2(%rip), %rdi\n");
    mk_map_free(&m);
}

/* ---- recorded libgccjit output ---------------------------------------------- */

TEST(markers_scan_fixture_hoisted_store)
{
    size_t len;
    char *t = fixture("sum.O2.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    CHECK_INT(m.nmarkers, 1);
    CHECK_INT(m.nsites, 1);
    /* `movq %rdx, sum_mk0(%rip)` after the loop, skipped when n <= 0 */
    CHECK_SITE(&m, "sum_mk0", 0, "exit guarded");
    CHECK(!m.markers[0].refused);
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_in_loop)
{
    size_t len;
    char *t = fixture("sum_yield.O2.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    CHECK_INT(m.nsites, 1);
    CHECK_SITE(&m, "sum_yield_mk0", 0, "in-loop rmw");
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_behind_flag)
{
    size_t len;
    char *t = fixture("sum_call.O2.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    CHECK_INT(m.nmarkers, 2);
    CHECK_INT(m.nsites, 2);
    /* marker 0: old + n after the outer loop; marker 1 (the inlined
     * callee's): accumulated in a register, stored behind `testb; je` */
    CHECK_SITE(&m, "sum_call_mk0", 0, "exit guarded");
    CHECK_SITE(&m, "sum_call_mk1", 0, "exit guarded");
    const MkSite *s0 = site(&m, "sum_call_mk0", 0), *s1 = site(&m, "sum_call_mk1", 0);
    CHECK(s0 && s1 && s1->line == s0->line + 3);
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_header_copies)
{
    size_t len;
    char *t = fixture("big.O3.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    CHECK_INT(m.nmarkers, MK_BIG_LOOPS);
    /* every marker heads its loop and gcc copies the header: at least two
     * sites each; one in the loop where a yieldpoint keeps it there, none
     * (stores hoisted after the loop) where there is no yieldpoint */
    for (uint32_t j = 0; j < MK_BIG_LOOPS; j++) {
        char sym[32];
        mk_symbol(sym, sizeof sym, "big", j);
        const MkMarker *k = marker(&m, sym);
        if (!k) {
            test_fail(__FILE__, __LINE__, "no %s", sym);
            continue;
        }
        uint32_t in_loop = 0, stores = 0;
        for (uint32_t i = 0; i < m.nsites; i++)
            if (m.sites[i].marker == (uint32_t)(k - m.markers)) {
                in_loop += m.sites[i].where == MK_IN_LOOP;
                stores += !m.sites[i].rmw;
            }
        if (k->nsites < 2 || in_loop != (j % 4 != 3) || (j % 4 == 3 && stores < 1) || k->refused)
            test_fail(__FILE__, __LINE__, "%s: %u sites, %u in loops, %u stores", sym, k->nsites, in_loop, stores);
    }
    /* marker 0's copy ahead of the first test runs on every call */
    CHECK_SITE(&m, "big_mk0", 0, "straight rmw");
    CHECK_SITE(&m, "big_mk0", 1, "in-loop rmw");
    CHECK_SITE(&m, "big_mk0", 2, "none");
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_unrolled)
{
    size_t len;
    char *t = fixture("sum_yield.unroll4.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    CHECK_INT(m.nsites, 7);
    /* three peeled copies (n % 4) ahead of the loop, the first behind the
     * branches that pick the remainder, then four in the unrolled body */
    CHECK_SITE(&m, "sum_yield_mk0", 0, "straight rmw guarded");
    CHECK_SITE(&m, "sum_yield_mk0", 1, "straight rmw");
    CHECK_SITE(&m, "sum_yield_mk0", 2, "straight rmw");
    for (uint32_t c = 3; c < 7; c++)
        CHECK_SITE(&m, "sum_yield_mk0", c, "in-loop rmw");
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_refused)
{
    size_t len;
    char *t = fixture("addr.O2.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    const MkMarker *k0 = marker(&m, "addr_mk0"), *k1 = marker(&m, "addr_mk1");
    CHECK(k0 && k0->refused && k0->nsites == 1);
    CHECK(k0 && strstr(k0->why, "leaq") && strstr(k0->why, "addr_mk0(%rip)"));
    CHECK(k1 && !k1->refused);
    CHECK_SITE(&m, "addr_mk0", 0, "in-loop");
    CHECK_SITE(&m, "addr_mk1", 0, "exit guarded");
    mk_map_free(&m);
    free(t);
}

TEST(markers_scan_fixture_pinned)
{
    size_t len;
    char *t = fixture("pinned.O3.s", &len);
    MkMap m;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    /* the asm's `addq $1, pinned_mk0(%rip)` between #APP and #NO_APP */
    CHECK_INT(m.nsites, 1);
    CHECK_SITE(&m, "pinned_mk0", 0, "in-loop rmw");
    mk_map_free(&m);
    free(t);
}

/* ---- running the shapes -------------------------------------------------------- */

#define NDATA 1003
static long data[NDATA];
static unsigned long cb_calls;

static void count_cb(long *p)
{
    (void)p;
    cb_calls++;
}

static void fill_data(void)
{
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < NDATA; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (long)(x % 4096);
    }
}

static const long NS[] = {0, 1, 3, 7, 8, 1000, 1003};

/* Runs shape s of orig (may be NULL), clean and timed for every n, with
 * the yield flag off and on: results and callback calls equal the C
 * reference's; in timed code the weights of each marker add up to its
 * count (nothing for a refused one). */
static void run_shape(const char *what, MkShape s, const MkMap *map, JitLoaded *orig, JitLoaded *clean,
                      JitLoaded *timed, Tallies *ts)
{
    const char *name = mk_shape_name(s);
    MkShapeFn fo = orig ? (MkShapeFn)jit_load_symbol(orig, name, NULL) : NULL;
    MkShapeFn fc = (MkShapeFn)jit_load_symbol(clean, name, NULL);
    MkShapeFn ft = (MkShapeFn)jit_load_symbol(timed, name, NULL);
    if ((orig && !fo) || !fc || !ft) {
        test_fail(__FILE__, __LINE__, "%s: %s not loaded", what, name);
        return;
    }
    unsigned nk = mk_shape_markers(s);
    int idx[MK_BIG_LOOPS];
    for (unsigned k = 0; k < nk; k++) {
        char sym[64];
        mk_symbol(sym, sizeof sym, name, k);
        idx[k] = mk_map_find(map, sym);
        if (idx[k] < 0) {
            test_fail(__FILE__, __LINE__, "%s: no marker %s", what, sym);
            return;
        }
    }
    fill_data();
    for (size_t ni = 0; ni < sizeof NS / sizeof *NS; ni++)
        for (long flag = 0; flag < 2; flag++) {
            long n = NS[ni];
            unsigned long counts[MK_BIG_LOOPS];
            cb_calls = 0;
            long want = mk_shape_ref(s, data, n, &flag, count_cb, counts);
            unsigned long want_cb = cb_calls;
            MkShapeFn fns[3] = {fo, fc, ft};
            const char *kinds[3] = {"original", "clean", "timed"};
            uint64_t before[MK_BIG_LOOPS];
            for (unsigned k = 0; k < nk; k++)
                before[k] = ts->t[idx[k]].weight;
            for (int v = 0; v < 3; v++) {
                if (!fns[v])
                    continue;
                cb_calls = 0;
                long got = fns[v](data, n, &flag, count_cb);
                if (got != want || cb_calls != want_cb)
                    test_fail(__FILE__, __LINE__, "%s: %s %s(n=%ld, flag=%ld) = %ld with %lu calls, want %ld, %lu",
                              what, kinds[v], name, n, flag, got, cb_calls, want, want_cb);
            }
            for (unsigned k = 0; k < nk; k++) {
                uint64_t w = ts->t[idx[k]].weight - before[k];
                uint64_t expect = map->markers[idx[k]].refused ? 0 : counts[k];
                ts->want[idx[k]] += expect;
                /* every > 1: up to every − 1 events of weight 1 wait for the
                 * marker's next timed event, so the sum so far lags by less */
                uint64_t sum = ts->t[idx[k]].weight, lag = ts->want[idx[k]] - sum;
                if (ts->every > 1 ? sum > ts->want[idx[k]] || lag >= ts->every : w != expect)
                    test_fail(__FILE__, __LINE__, "%s (every %u): %s(n=%ld, flag=%ld): marker %u weighs %llu, want %llu",
                              what, ts->every, name, n, flag, k, (unsigned long long)w, (unsigned long long)expect);
            }
        }
    for (unsigned k = 0; k < nk; k++) {
        const Tally *t = &ts->t[idx[k]];
        if (t->misaligned || t->zero_tsc)
            test_fail(__FILE__, __LINE__, "%s: marker %s_mk%u: %llu misaligned sink calls, %llu zero tsc", what,
                      name, k, (unsigned long long)t->misaligned, (unsigned long long)t->zero_tsc);
    }
}

/* The clean text is the original without its site lines, line for line. */
static void check_clean_lines(const char *what, const char *orig, size_t olen, const char *clean, size_t clen,
                              const MkMap *m)
{
    const char *p = orig, *pe = orig + olen, *q = clean, *qe = clean + clen;
    uint32_t si = 0;
    for (uint32_t line = 0; p < pe; line++) {
        const char *e = memchr(p, '\n', (size_t)(pe - p));
        size_t n = (size_t)((e ? e + 1 : pe) - p);
        if (si < m->nsites && m->sites[si].line == line) {
            si++;
        } else {
            if ((size_t)(qe - q) < n || memcmp(p, q, n)) {
                test_fail(__FILE__, __LINE__, "%s: clean text differs at original line %u", what, line);
                return;
            }
            q += n;
        }
        p += n;
    }
    if (q != qe)
        test_fail(__FILE__, __LINE__, "%s: clean text has more lines", what);
}

/* Scans text, rewrites it clean and timed, checks the clean text, loads
 * all three and runs the shapes; *probe gets the tally of marker
 * probe_sym (if given). */
static void check_text(const char *what, const char *text, size_t len, const MkShape *shapes, int nshapes,
                       const char *probe_sym, Tally *probe, uint32_t every)
{
    MkMap m;
    VmError err = {{0}};
    if (!mk_scan(text, len, &m, &err)) {
        test_fail(__FILE__, __LINE__, "%s: mk_scan: %s", what, err.msg);
        return;
    }
    VmBuf cb = {0}, tb = {0};
    Tallies *ts = calloc(1, sizeof *ts);
    ts->every = every;
    MkStubSpec spec = spec_for(ts);
    JitLoaded orig = {0}, clean = {0}, timed = {0};
    if (!mk_rewrite_clean(text, len, &m, &cb, &err) || !mk_rewrite_timed(text, len, &m, &spec, &tb, &err)) {
        test_fail(__FILE__, __LINE__, "%s: rewrite: %s", what, err.msg);
        goto out;
    }
    if (!mk_writes_any(text, len) || mk_writes_any((char *)cb.data, cb.len))
        test_fail(__FILE__, __LINE__, "%s: marker writes: %d in the original, %d in clean code", what,
                  mk_writes_any(text, len), mk_writes_any((char *)cb.data, cb.len));
    check_clean_lines(what, text, len, (char *)cb.data, cb.len, &m);
    if (load(text, len, &orig) && load((char *)cb.data, cb.len, &clean) && load((char *)tb.data, tb.len, &timed))
        for (int i = 0; i < nshapes; i++)
            run_shape(what, shapes[i], &m, &orig, &clean, &timed, ts);
    if (probe_sym && mk_map_find(&m, probe_sym) >= 0)
        *probe = ts->t[mk_map_find(&m, probe_sym)];
out:
    unload(&orig);
    unload(&clean);
    unload(&timed);
    vm_buf_free(&cb);
    vm_buf_free(&tb);
    free(ts);
    mk_map_free(&m);
}

static const struct {
    const char *file;
    MkShape shape;
} fixtures[] = {
    {"sum.O2.s", MK_SUM},         {"sum_yield.O2.s", MK_SUM_YIELD}, {"sum_yield.unroll4.s", MK_SUM_YIELD},
    {"sum_call.O2.s", MK_SUM_CALL}, {"big.O3.s", MK_BIG},          {"addr.O2.s", MK_ADDR},
    {"pinned.O3.s", MK_PINNED},
};

/* The recorded texts, rewritten, assembled, loaded and run. */
TEST(markers_rewrite_fixtures_run)
{
    if (strcmp(jit_options_march(), "x86-64-v3"))
        return;   /* recorded with -march=x86-64-v3 */
    for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
        size_t len;
        char *t = fixture(fixtures[i].file, &len);
        if (t)
            check_text(fixtures[i].file, t, len, &fixtures[i].shape, 1, NULL, NULL, 1);
        free(t);
    }
}

/* An address-taken marker is refused: its writes leave timed code too, no
 * stub is made for it and its ctx is never asked for. */
TEST(markers_timed_refused)
{
    size_t len;
    char *t = fixture("addr.O2.s", &len);
    MkMap m, m2;
    if (!t || !scan(t, &m)) {
        free(t);
        return;
    }
    Tallies ts = {0};
    MkStubSpec spec = spec_for(&ts);
    VmBuf b = {0};
    VmError err;
    CHECK(mk_rewrite_timed(t, len, &m, &spec, &b, &err));
    char *timed = buf_str(&b);
    CHECK_INT(ts.asked, 1);
    CHECK(!strstr(timed, "addr_mk0_stub"));
    CHECK(!strstr(timed, "movq\t%rax, addr_mk0(%rip)"));
    CHECK_CONTAINS(timed, "addr_mk0(%rip), %rdi");   /* the lea stays */
    CHECK_CONTAINS(timed, "\tmovq\t%rcx, addr_mk1(%rip)\n\tcall\taddr_mk1_stub\n");
    CHECK_CONTAINS(timed, "\t.text\n\t.p2align 4\n\t.type\taddr_mk1_stub, @function\naddr_mk1_stub:\n");
    CHECK_CONTAINS(timed, "\t.local\taddr_mk1_sh\n\t.comm\taddr_mk1_sh,8,8\n");
    if (scan(timed, &m2)) {
        const MkMarker *k0 = marker(&m2, "addr_mk0"), *k1 = marker(&m2, "addr_mk1");
        CHECK(k0 && k0->nsites == 0 && k0->refused);
        CHECK(k1 && k1->nsites == 1 && !k1->refused);
        mk_map_free(&m2);
    }
    vm_buf_free(&b);
    /* no ctx for any marker: timed code is clean code */
    ts = (Tallies){.refuse_all = true};
    VmBuf c = {0};
    CHECK(mk_rewrite_timed(t, len, &m, &spec, &b, &err));
    CHECK(mk_rewrite_clean(t, len, &m, &c, &err));
    CHECK(b.len == c.len && !memcmp(b.data, c.data, b.len));
    vm_buf_free(&b);
    vm_buf_free(&c);
    /* a map that does not fit the text is an error */
    m.sites[0].line++;
    CHECK(!mk_rewrite_clean(t, len, &m, &c, &err));
    CHECK_CONTAINS(err.msg, "does not write");
    vm_buf_free(&c);
    mk_map_free(&m);
    free(t);
}

/* Every shape compiled here under every option set: exact counts. */
TEST(markers_timed_exact_all_option_sets)
{
    static const char *const sets[] = {"O0", "O1", "O2", "O3", "-O3 -funroll-loops",
                                       "-O2 -funroll-loops --param=max-unroll-times=4",
                                       "-O3 -ftree-vectorize -mavx2"};
    MkShape shapes[MK_NSHAPES];
    for (int s = 0; s < MK_NSHAPES; s++)
        shapes[s] = (MkShape)s;
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        if (strstr(sets[i], "avx2") && !__builtin_cpu_supports("avx2"))
            continue;
        gcc_jit_context *c = gcc_jit_context_acquire();
        gcc_jit_context_set_bool_print_errors_to_stderr(c, 0);
        VmError err = {{0}};
        char dir[256], spath[300];
        char *text = NULL;
        size_t len = 0;
        bool ok = jit_options_apply(c, sets[i], &err) && jit_tmpdir(dir, sizeof dir, false, &err);
        if (ok) {
            for (int s = 0; s < MK_NSHAPES; s++)
                mk_shape_build(c, shapes[s]);
            snprintf(spath, sizeof spath, "%s/unit.s", dir);
            ok = jit_compile_asm(c, spath, &text, &len, &err);
            jit_rmdir(dir);
        }
        gcc_jit_context_release(c);
        if (!ok) {
            test_fail(__FILE__, __LINE__, "%s: %s", sets[i], err.msg);
            continue;
        }
        Tally sum = {0}, sum16 = {0};
        check_text(sets[i], text, len, shapes, MK_NSHAPES, "sum_mk0", &sum, 1);
        /* markers.every: a marker in its loop timed every 16th event */
        check_text(sets[i], text, len, shapes, MK_NSHAPES, "sum_mk0", &sum16, 16);
        free(text);
        if (!strcmp(sets[i], "O0"))
            CHECK(sum16.events * 14 < sum.events && sum16.events * 18 > sum.events);
        /* sum's marker stays in the loop at O0 (an event per iteration);
         * above, gcc stores old + n after the loop (one event weighs n) */
        uint64_t iters = 0;
        for (size_t n = 0; n < sizeof NS / sizeof *NS; n++)
            iters += 2 * (uint64_t)NS[n];
        CHECK_INT(sum.weight, iters);
        if (!strcmp(sets[i], "O0"))
            CHECK_INT(sum.events, iters);
        else if (sum.events * 100 > iters)
            test_fail(__FILE__, __LINE__, "%s: sum: %llu events for %llu iterations: not hoisted", sets[i],
                      (unsigned long long)sum.events, (unsigned long long)iters);
    }
}

/* ---- the stub keeps every register and the flags ----------------------------- */

/* regs_check: known values in the 15 general registers but rsp (r11 the
 * marker's next value), every arithmetic flag and DF set, the marker
 * written by a mov (flags untouched), then each register and the flags
 * compared: a bit per mismatch (register i in push order, bit 15 the
 * flags).  wrap0 calls it with the stack off by 8 from the ABI's
 * alignment, wrap1 with it aligned. */
static const char *const REGS_ASM =
    "\t.text\n"
    "\t.globl\tregs_check\n"
    "\t.type\tregs_check, @function\n"
    "regs_check:\n"
    "\tpushq\t%rbx\n\tpushq\t%rbp\n\tpushq\t%r12\n\tpushq\t%r13\n\tpushq\t%r14\n\tpushq\t%r15\n"
    "\tmovq\tX_mk0(%rip), %r11\n"
    "\taddq\t$1, %r11\n"
    "\tmovabsq\t$0x1111111111111101, %rax\n"
    "\tmovabsq\t$0x2222222222222202, %rbx\n"
    "\tmovabsq\t$0x3333333333333303, %rcx\n"
    "\tmovabsq\t$0x4444444444444404, %rdx\n"
    "\tmovabsq\t$0x5555555555555505, %rsi\n"
    "\tmovabsq\t$0x6666666666666606, %rdi\n"
    "\tmovabsq\t$0x7777777777777707, %rbp\n"
    "\tmovabsq\t$0x0888888888888808, %r8\n"
    "\tmovabsq\t$0x0999999999999909, %r9\n"
    "\tmovabsq\t$0x0aaaaaaaaaaaaa0a, %r10\n"
    "\tmovabsq\t$0x0ccccccccccccc0c, %r12\n"
    "\tmovabsq\t$0x0ddddddddddddd0d, %r13\n"
    "\tmovabsq\t$0x0eeeeeeeeeeeee0e, %r14\n"
    "\tmovabsq\t$0x0fffffffffffff0f, %r15\n"
    "\tpushq\t$0xcd7\n"
    "\tpopfq\n"
    "\tmovq\t%r11, X_mk0(%rip)\n"
    "\tpushfq\n"
    "\tpushq\t%rax\n\tpushq\t%rbx\n\tpushq\t%rcx\n\tpushq\t%rdx\n\tpushq\t%rsi\n\tpushq\t%rdi\n\tpushq\t%rbp\n"
    "\tpushq\t%r8\n\tpushq\t%r9\n\tpushq\t%r10\n\tpushq\t%r11\n\tpushq\t%r12\n\tpushq\t%r13\n\tpushq\t%r14\n"
    "\tpushq\t%r15\n"
    "\tcld\n"
    "\txorl\t%eax, %eax\n"
#define CMP(slot, value, bit)                                                                         \
    "\tmovabsq\t$" value ", %rdx\n\tcmpq\t%rdx, " slot "(%rsp)\n\tje\t1f\n\torq\t$" bit ", %rax\n1:\n"
    CMP("112", "0x1111111111111101", "0x1")
    CMP("104", "0x2222222222222202", "0x2")
    CMP("96", "0x3333333333333303", "0x4")
    CMP("88", "0x4444444444444404", "0x8")
    CMP("80", "0x5555555555555505", "0x10")
    CMP("72", "0x6666666666666606", "0x20")
    CMP("64", "0x7777777777777707", "0x40")
    CMP("56", "0x0888888888888808", "0x80")
    CMP("48", "0x0999999999999909", "0x100")
    CMP("40", "0x0aaaaaaaaaaaaa0a", "0x200")
    "\tmovq\tX_mk0(%rip), %rdx\n\tcmpq\t%rdx, 32(%rsp)\n\tje\t1f\n\torq\t$0x400, %rax\n1:\n"
    CMP("24", "0x0ccccccccccccc0c", "0x800")
    CMP("16", "0x0ddddddddddddd0d", "0x1000")
    CMP("8", "0x0eeeeeeeeeeeee0e", "0x2000")
    CMP("0", "0x0fffffffffffff0f", "0x4000")
#undef CMP
    "\tmovq\t120(%rsp), %rdx\n"
    "\tandq\t$0xcd5, %rdx\n"
    "\tcmpq\t$0xcd5, %rdx\n"
    "\tje\t1f\n"
    "\torq\t$0x8000, %rax\n"
    "1:\n"
    "\taddq\t$128, %rsp\n"
    "\tpopq\t%r15\n\tpopq\t%r14\n\tpopq\t%r13\n\tpopq\t%r12\n\tpopq\t%rbp\n\tpopq\t%rbx\n"
    "\tret\n"
    "\t.size\tregs_check, .-regs_check\n"
    "\t.globl\twrap0\n"
    "\t.type\twrap0, @function\n"
    "wrap0:\n"
    "\tcall\tregs_check\n"
    "\tret\n"
    "\t.size\twrap0, .-wrap0\n"
    "\t.globl\twrap1\n"
    "\t.type\twrap1, @function\n"
    "wrap1:\n"
    "\tsubq\t$8, %rsp\n"
    "\tcall\tregs_check\n"
    "\taddq\t$8, %rsp\n"
    "\tret\n"
    "\t.size\twrap1, .-wrap1\n"
    "\t.local\tX_mk0\n"
    "\t.comm\tX_mk0,8,8\n";

/* Loads text and calls regs_check directly and through both wrappers,
 * three times each; the OR of the masks. */
static long regs_run(const char *text, size_t len)
{
    JitLoaded u = {0};
    if (!load(text, len, &u))
        return -1;
    long (*fns[3])(void) = {(long (*)(void))jit_load_symbol(&u, "regs_check", NULL),
                            (long (*)(void))jit_load_symbol(&u, "wrap0", NULL),
                            (long (*)(void))jit_load_symbol(&u, "wrap1", NULL)};
    long mask = 0;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 3; i++)
            mask |= fns[i] ? fns[i]() : -1;
    unload(&u);
    return mask;
}

TEST(markers_stub_preserves_registers_and_flags)
{
    size_t len = strlen(REGS_ASM);
    MkMap m;
    if (!scan(REGS_ASM, &m))
        return;
    CHECK_INT(m.nsites, 1);
    CHECK_SITE(&m, "X_mk0", 0, "straight");
    /* the checker itself: 0 as written */
    CHECK_INT(regs_run(REGS_ASM, len), 0);
    /* markers.every: the fast path that skips an event touches nothing either */
    Tallies *t16 = calloc(1, sizeof *t16);
    t16->every = 16;
    MkStubSpec s16 = spec_for(t16);
    VmBuf b16 = {0};
    VmError e16;
    CHECK(mk_rewrite_timed(REGS_ASM, len, &m, &s16, &b16, &e16));
    CHECK_INT(regs_run(buf_str(&b16), b16.len), 0);
    CHECK_INT(t16->t[0].events, 1);   /* 9 events of weight 1: the first timed, 8 skipped */
    vm_buf_free(&b16);
    free(t16);
    Tallies *ts = calloc(1, sizeof *ts);
    MkStubSpec spec = spec_for(ts);
    VmBuf b = {0};
    VmError err;
    CHECK(mk_rewrite_timed(REGS_ASM, len, &m, &spec, &b, &err));
    char *timed = buf_str(&b);
    CHECK_INT(regs_run(timed, b.len), 0);
    CHECK_INT(ts->t[0].events, 9);
    CHECK_INT(ts->t[0].weight, 9);
    CHECK_INT(ts->t[0].misaligned, 0);
    CHECK_INT(ts->t[0].zero_tsc, 0);
    /* and it can fail: a clobbered r9 and carry after the call are seen */
    const char *call = "\tcall\tX_mk0_stub\n";
    char *at = strstr(timed, call);
    CHECK(at != NULL);
    if (at) {
        VmBuf e = {0};
        size_t pre = (size_t)(at - timed) + strlen(call);
        vm_buf_put(&e, timed, pre);
        const char *clobber = "\tmovq\t$0, %r9\n\tclc\n";
        vm_buf_put(&e, clobber, strlen(clobber));
        vm_buf_put(&e, timed + pre, b.len - pre);
        CHECK_INT(regs_run((char *)e.data, e.len), 0x100 | 0x8000);
        vm_buf_free(&e);
    }
    vm_buf_free(&b);
    free(ts);
    mk_map_free(&m);
}
