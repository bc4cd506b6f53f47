/* markers/rewrite.c — clean and timed code from marked assembly.
 *
 * Input: the assembly text mk_scan read and its map.  Output, appended to
 * a buffer: clean text (every write of a marker of the map deleted) or
 * timed text (after every write of a marker with a ctx, `call <sym>_stub`;
 * the writes of the others deleted; then, after a `.text`, each such
 * marker's stub and its shadow <sym>_sh).
 * Invariants: every line without a site is copied byte for byte; a site's
 * line is dropped (clean) or copied with the call after it (timed); a line
 * holding several statements (`;`, inline asm) is rewritten one
 * statement a line, labels kept in place.  The map must come from this
 * very text: a site whose line does not write its marker fails the
 * rewrite.  Loads and the markers' definitions stay (harmless).
 *
 * The stub (assumes nothing of the stack's alignment; calls from
 * -mno-red-zone code, so the call itself clobbers nothing live):
 *   pushfq; push rax rcx rdx rsi rdi r8 r9 r10 r11 rbx    flags are live
 *   cld; rbx = rsp; rsp &= −16                             across stores
 *   lfence; rdtsc; rdx = tsc                               (after the write)
 *   rsi = <sym> − <sym>_sh; <sym>_sh = <sym>               the weight
 *   rdi = ctx; call sink(ctx, weight, tsc)                 SysV, via rax
 *   rsp = rbx; pop ... ; popfq; ret
 * With MkStubSpec.every > 1 a fast path before it skips all but every
 * `every`-th event of weight 1 (put_stub).
 * The stub and its shadow are local symbols: a global data symbol
 * referenced RIP-relative does not link into a shared object.
 */
#include "markers.h"
#include "mk_asm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void put(VmBuf *out, const char *s)
{
    vm_buf_put(out, s, strlen(s));
}

static void putf(VmBuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(VmBuf *out, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        vm_buf_put(out, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The index in map of the marker item writes, or −1. */
static int written_marker(const MkMap *map, const MkItem *it)
{
    MkSpan sym;
    if (it->kind != MK_ITEM_INSN || !mk_insn_write(it, &sym, NULL))
        return -1;
    char name[sizeof map->markers[0].sym];
    if (sym.n >= sizeof name)
        return -1;
    memcpy(name, sym.s, sym.n);
    name[sym.n] = 0;
    return mk_map_find(map, name);
}

/* Whether the line writes exactly the markers of sites[0..n), in order;
 * *alone: the write is the line's only statement. */
static bool line_fits(const MkMap *map, const MkSite *sites, uint32_t n, const char *line, size_t len, bool *alone)
{
    MkCursor c;
    MkItem it;
    uint32_t w = 0, items = 0;
    mk_cursor_init(&c, line, len);
    while (mk_cursor_next(&c, &it)) {
        items++;
        int k = written_marker(map, &it);
        if (k < 0)
            continue;
        if (w == n || (uint32_t)k != sites[w].marker)
            return false;
        w++;
    }
    *alone = items == 1;
    return w == n;
}

/* A site's line, item by item: each write dropped, or kept and followed
 * by its call when stub[marker] is set. */
static void rewrite_items(const MkMap *map, const char *line, size_t len, const bool *stub, VmBuf *out)
{
    MkCursor c;
    MkItem it;
    mk_cursor_init(&c, line, len);
    while (mk_cursor_next(&c, &it)) {
        if (it.kind == MK_ITEM_LABEL) {
            vm_buf_put(out, it.text.s, it.text.n);
            put(out, "\n");
            continue;
        }
        int k = written_marker(map, &it);
        if (k >= 0 && !(stub && stub[k]))
            continue;
        put(out, "\t");
        vm_buf_put(out, it.text.s, it.text.n);
        put(out, "\n");
        if (k >= 0)
            putf(out, "\tcall\t%s_stub\n", map->markers[k].sym);
    }
}

/* The text with every site rewritten (stub NULL: clean). */
static bool rewrite(const char *text, size_t len, const MkMap *map, const bool *stub, VmBuf *out, VmError *err)
{
    const char *p = text, *end = text + len;
    uint32_t si = 0;
    for (uint32_t line = 0; p < end; line++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((e ? e : end) - p);
        const char *next = e ? e + 1 : end;
        if (si >= map->nsites || map->sites[si].line != line) {
            vm_buf_put(out, p, (size_t)(next - p));
            p = next;
            continue;
        }
        uint32_t here = 0;
        while (si + here < map->nsites && map->sites[si + here].line == line)
            here++;
        bool alone;
        if (!line_fits(map, map->sites + si, here, p, n, &alone))
            return vm_fail(err, "markers: line %u does not write the markers the map says", line);
        if (alone) {
            int k = (int)map->sites[si].marker;
            if (stub && stub[k]) {
                vm_buf_put(out, p, n);
                putf(out, "\n\tcall\t%s_stub\n", map->markers[k].sym);
            }
        } else {
            rewrite_items(map, p, n, stub, out);
        }
        si += here;
        p = next;
    }
    if (si < map->nsites)
        return vm_fail(err, "markers: the map has a site at line %u, past the text's end", map->sites[si].line);
    return true;
}

bool mk_rewrite_clean(const char *text, size_t len, const MkMap *map, VmBuf *out, VmError *err)
{
    return rewrite(text, len, map, NULL, out, err);
}

/* The stub of marker sym.  every > 1: an event of weight 1 (the marker
 * stayed in its loop) is timed only every `every`-th time; the others
 * take a fast path that touches no flags (mov, not, lea, jrcxz) and adds
 * their weight to <sym>_sk, which the next timed event's weight takes in.
 * An event of another weight (a store gcc moved) is always timed. */
static void put_stub(VmBuf *out, const char *sym, const void *ctx, MkSink sink, uint32_t every)
{
    static const char *const saved[] = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "rbx"};
    const size_t nsaved = sizeof saved / sizeof *saved;
    putf(out, "\t.p2align 4\n\t.type\t%s_stub, @function\n%s_stub:\n", sym, sym);
    if (every > 1) {
        /* rcx = weight − 1 = sym + ~sym_sh, without touching the flags */
        putf(out, "\tpushq\t%%rcx\n\tpushq\t%%rax\n\tmovq\t%s_sh(%%rip), %%rcx\n\tnotq\t%%rcx\n", sym);
        putf(out, "\tmovq\t%s(%%rip), %%rax\n\tleaq\t(%%rax,%%rcx), %%rcx\n\tjrcxz\t1f\n", sym);
        put(out, "2:\n\tpopq\t%rax\n\tpopq\t%rcx\n\tjmp\t3f\n");
        /* weight 1: counted down, skipped unless the count is spent */
        putf(out, "1:\n\tmovq\t%s_cd(%%rip), %%rcx\n\tjrcxz\t2b\n\tleaq\t-1(%%rcx), %%rcx\n", sym);
        putf(out, "\tmovq\t%%rcx, %s_cd(%%rip)\n\tmovq\t%%rax, %s_sh(%%rip)\n", sym, sym);
        putf(out, "\tmovq\t%s_sk(%%rip), %%rcx\n\tleaq\t1(%%rcx), %%rcx\n\tmovq\t%%rcx, %s_sk(%%rip)\n", sym, sym);
        put(out, "\tpopq\t%rax\n\tpopq\t%rcx\n\tret\n3:\n");
    }
    put(out, "\tpushfq\n");
    for (size_t i = 0; i < nsaved; i++)
        putf(out, "\tpushq\t%%%s\n", saved[i]);
    put(out, "\tcld\n\tmovq\t%rsp, %rbx\n\tandq\t$-16, %rsp\n");
    put(out, "\tlfence\n\trdtsc\n\tsalq\t$32, %rdx\n\torq\t%rax, %rdx\n");
    putf(out, "\tmovq\t%s(%%rip), %%rsi\n\tmovq\t%%rsi, %%rax\n\tsubq\t%s_sh(%%rip), %%rsi\n", sym, sym);
    putf(out, "\tmovq\t%%rax, %s_sh(%%rip)\n", sym);
    if (every > 1) {
        putf(out, "\taddq\t%s_sk(%%rip), %%rsi\n\tmovq\t$0, %s_sk(%%rip)\n", sym, sym);
        putf(out, "\tmovq\t$%u, %s_cd(%%rip)\n", every - 1, sym);
    }
    putf(out, "\tmovabsq\t$0x%" PRIxPTR ", %%rdi\n", (uintptr_t)ctx);
    putf(out, "\tmovabsq\t$0x%" PRIxPTR ", %%rax\n", (uintptr_t)sink);
    put(out, "\tcall\t*%rax\n\tmovq\t%rbx, %rsp\n");
    for (size_t i = nsaved; i-- > 0;)
        putf(out, "\tpopq\t%%%s\n", saved[i]);
    putf(out, "\tpopfq\n\tret\n\t.size\t%s_stub, .-%s_stub\n", sym, sym);
    putf(out, "\t.local\t%s_sh\n\t.comm\t%s_sh,8,8\n", sym, sym);
    if (every > 1)
        putf(out, "\t.local\t%s_sk\n\t.comm\t%s_sk,8,8\n\t.local\t%s_cd\n\t.comm\t%s_cd,8,8\n", sym, sym, sym, sym);
}

bool mk_rewrite_timed(const char *text, size_t len, const MkMap *map, const MkStubSpec *spec, VmBuf *out,
                      VmError *err)
{
    if (!spec->sink)
        return vm_fail(err, "markers: timed code without a sink");
    const void **ctx = calloc(map->nmarkers ? map->nmarkers : 1, sizeof *ctx);
    bool *stub = calloc(map->nmarkers ? map->nmarkers : 1, sizeof *stub);
    if (!ctx || !stub) {
        free(ctx);
        free(stub);
        return vm_fail(err, "markers: out of memory");
    }
    bool any = false;
    for (uint32_t i = 0; i < map->nmarkers; i++) {
        if (!map->markers[i].refused)
            ctx[i] = spec->ctx_of ? spec->ctx_of(spec->arg, map, i) : NULL;
        stub[i] = ctx[i] != NULL;
        any = any || stub[i];
    }
    bool ok = rewrite(text, len, map, stub, out, err);
    if (ok && any) {
        if (out->len && out->data[out->len - 1] != '\n')
            put(out, "\n");
        put(out, "\t.text\n");
        for (uint32_t i = 0; i < map->nmarkers; i++)
            if (stub[i])
                put_stub(out, map->markers[i].sym, ctx[i], spec->sink, spec->every);
    }
    free(ctx);
    free(stub);
    return ok;
}

bool mk_writes_any(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (memmem(p, (size_t)(e - p), "_mk", 3)) {
            MkCursor c;
            MkItem it;
            mk_cursor_init(&c, p, (size_t)(e - p));
            while (mk_cursor_next(&c, &it))
                if (it.kind == MK_ITEM_INSN && mk_insn_write(&it, NULL, NULL))
                    return true;
        }
        p = e < end ? e + 1 : end;
    }
    return false;
}
