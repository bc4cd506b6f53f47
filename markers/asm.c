/* markers/asm.c — gcc's x86-64 AT&T assembly read statement by statement
 * (mk_asm.h), and how an instruction refers to a marker-shaped symbol.
 *
 * Input: one line of assembly text (no newline).  Output: its items
 * (labels, directives, instructions) as spans into the line; for an
 * instruction, every marker-shaped symbol it names and how: a load of
 * sym(%rip), a write of sym(%rip) (its memory destination), or any other
 * form (the marker's address may escape).
 * Invariants: nothing is copied or allocated; quotes are honoured when
 * looking for `#` and `;`; an instruction writes its last operand unless
 * its mnemonic only reads (cmp, test, bt, push, call, jumps, mul/div,
 * x87 loads and arithmetic, ...), and xchg writes both.
 */
#include "mk_asm.h"

#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static MkSpan trim(const char *s, const char *e)
{
    while (s < e && is_space(*s))
        s++;
    while (e > s && is_space(e[-1]))
        e--;
    return (MkSpan){s, (size_t)(e - s)};
}

/* The first `stop` character of [p, end) outside double quotes, or end. */
static const char *find_unquoted(const char *p, const char *end, char stop)
{
    bool q = false;
    for (; p < end; p++) {
        if (q && *p == '\\' && p + 1 < end)
            p++;
        else if (*p == '"')
            q = !q;
        else if (!q && *p == stop)
            return p;
    }
    return end;
}

void mk_cursor_init(MkCursor *c, const char *line, size_t len)
{
    c->p = line;
    c->end = find_unquoted(line, line + len, '#');
    c->stmt_end = NULL;
}

static const char *const prefixes[] = {"lock", "rep", "repe", "repz", "repne", "repnz", "notrack", "bnd", "data16",
                                       "data32", "addr32", "rex", "rex64", "xacquire", "xrelease", NULL};

static bool is_prefix(MkSpan w)
{
    for (int i = 0; prefixes[i]; i++)
        if (mk_span_eq(w, prefixes[i]))
            return true;
    return false;
}

bool mk_cursor_next(MkCursor *c, MkItem *it)
{
    for (;;) {
        while (c->p < c->end && (is_space(*c->p) || *c->p == ';'))
            c->p++;
        if (c->p >= c->end)
            return false;
        const char *s = c->p;
        const char *se = find_unquoted(s, c->end, ';');
        /* a label: an identifier (or a number: a local label) and ':' */
        if (mk_ident_start(*s) || is_digit(*s)) {
            const char *q = s;
            while (q < se && mk_ident_char(*q))
                q++;
            if (q < se && *q == ':') {
                it->kind = MK_ITEM_LABEL;
                it->name = (MkSpan){s, (size_t)(q - s)};
                it->args = (MkSpan){q, 0};
                it->text = (MkSpan){s, (size_t)(q + 1 - s)};
                c->p = q + 1;
                return true;
            }
        }
        it->text = trim(s, se);
        c->p = se;
        if (!it->text.n)
            continue;
        const char *e = it->text.s + it->text.n;
        const char *w = it->text.s;
        it->kind = *w == '.' ? MK_ITEM_DIRECTIVE : MK_ITEM_INSN;
        for (;;) {
            const char *we = w;
            while (we < e && !is_space(*we))
                we++;
            it->name = (MkSpan){w, (size_t)(we - w)};
            it->args = trim(we, e);
            if (it->kind == MK_ITEM_DIRECTIVE || !is_prefix(it->name) || !it->args.n)
                return true;
            w = it->args.s;
        }
    }
}

bool mk_marker_name(MkSpan name, size_t *fnlen, uint32_t *k)
{
    size_t d = name.n;
    while (d > 0 && is_digit(name.s[d - 1]))
        d--;
    size_t nd = name.n - d;
    if (nd == 0 || nd > 10 || d < 4 || memcmp(name.s + d - 3, "_mk", 3) != 0)
        return false;
    if (nd > 1 && name.s[d] == '0')
        return false;
    uint64_t v = 0;
    for (size_t i = d; i < name.n; i++)
        v = v * 10 + (uint64_t)(name.s[i] - '0');
    if (v > UINT32_MAX)
        return false;
    if (fnlen)
        *fnlen = d - 3;
    if (k)
        *k = (uint32_t)v;
    return true;
}

static bool starts(MkSpan m, const char *p)
{
    size_t n = strlen(p);
    return m.n >= n && !memcmp(m.s, p, n);
}

/* m is root, or root with a size suffix (addq, shlb, ...). */
static bool has_root(MkSpan m, const char *root)
{
    size_t n = strlen(root);
    if (m.n < n || m.n > n + 1 || memcmp(m.s, root, n))
        return false;
    return m.n == n || strchr("bwlq", m.s[n]);
}

static const char *const rmw_roots[] = {
    "add", "sub", "adc", "sbb", "and", "or", "xor", "inc", "dec", "neg", "not", "shl", "shr", "sal",
    "sar", "rol", "ror", "rcl", "rcr", "xadd", "xchg", "cmpxchg", "bts", "btr", "btc", "shld", "shrd", NULL,
};

static bool is_rmw(MkSpan m)
{
    for (int i = 0; rmw_roots[i]; i++)
        if (has_root(m, rmw_roots[i]))
            return true;
    return false;
}

/* Whether the mnemonic never writes its operands (a memory last operand
 * is a source): compares, tests, pushes, calls, jumps, mul/div, x87
 * loads and arithmetic, state loads (ldmxcsr, xrstor). */
static bool reads_only(MkSpan m)
{
    static const char *const starts_read[] = {
        "test", "ptest", "vptest", "ucomis", "comis", "vucomis", "vcomis", "push", "call", "j", "prefetch",
        "nop", "clflush", "clwb", "loop", "bound", "verr", "verw", "lgdt", "lidt", "lldt", "ltr", "lmsw",
        "invlpg", "bndc", "bndmk", "ldmxcsr", "vldmxcsr", "xrstor", NULL,
    };
    if (starts(m, "cmp") && !starts(m, "cmpxchg"))
        return true;
    for (int i = 0; starts_read[i]; i++)
        if (starts(m, starts_read[i]))
            return true;
    if (has_root(m, "bt") || has_root(m, "mul") || has_root(m, "imul") || has_root(m, "div") ||
        has_root(m, "idiv"))
        return true;
    if (m.n && m.s[0] == 'f')  /* x87: only the stores write memory */
        return !(starts(m, "fst") || starts(m, "fist") || starts(m, "fnst") || starts(m, "fbstp") ||
                 starts(m, "fsave") || starts(m, "fnsave") || starts(m, "fxsave"));
    return false;
}

void mk_insn_refs(const MkItem *insn, MkRefFn fn, void *ctx)
{
    const char *p = insn->args.s, *end = p + insn->args.n;
    if (!memmem(p, insn->args.n, "_mk", 3))   /* no marker-shaped name: the common case */
        return;
    bool lea = has_root(insn->name, "lea");
    bool xchg = has_root(insn->name, "xchg");
    bool ro = reads_only(insn->name);
    bool rmw = is_rmw(insn->name);
    while (p < end) {
        /* one operand: up to a comma outside parentheses */
        const char *oe = p;
        int depth = 0;
        while (oe < end && (depth > 0 || *oe != ',')) {
            depth += *oe == '(' ? 1 : *oe == ')' ? -1 : 0;
            oe++;
        }
        MkSpan op = trim(p, oe);
        bool last = oe == end;
        if (op.n && op.s[0] == '*')   /* call/jmp through memory: a load */
            op.s++, op.n--;
        for (const char *q = op.s, *qe = op.s + op.n; q < qe;) {
            if (!mk_ident_start(*q) || (q > op.s && (mk_ident_char(q[-1]) || q[-1] == '%'))) {
                q++;
                continue;
            }
            const char *ie = q;
            while (ie < qe && mk_ident_char(*ie))
                ie++;
            MkSpan sym = {q, (size_t)(ie - q)};
            q = ie;
            if (!mk_marker_name(sym, NULL, NULL))
                continue;
            bool rip = sym.s == op.s && (size_t)(qe - ie) == 6 && !memcmp(ie, "(%rip)", 6);
            if (lea || !rip)
                fn(ctx, sym, MK_REF_OTHER, false);
            else if (xchg || (last && !ro))
                fn(ctx, sym, MK_REF_WRITE, rmw);
            else
                fn(ctx, sym, MK_REF_LOAD, false);
        }
        p = oe < end ? oe + 1 : end;
    }
}

typedef struct FirstWrite {
    bool found;
    MkSpan sym;
    bool rmw;
} FirstWrite;

static void first_write(void *ctx, MkSpan sym, MkRef ref, bool rmw)
{
    FirstWrite *w = ctx;
    if (ref == MK_REF_WRITE && !w->found)
        *w = (FirstWrite){true, sym, rmw};
}

bool mk_insn_write(const MkItem *insn, MkSpan *sym, bool *rmw)
{
    FirstWrite w = {0};
    if (insn->kind == MK_ITEM_INSN)
        mk_insn_refs(insn, first_write, &w);
    if (w.found) {
        if (sym)
            *sym = w.sym;
        if (rmw)
            *rmw = w.rmw;
    }
    return w.found;
}
