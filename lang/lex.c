/* lang/lex.c — the tally lexer: source bytes to a token array.
 *
 * Input: TlFile.text/len (any bytes; NULs and invalid UTF-8 included).
 * Output: TlFile.toks (ending with one TK_EOF) and TlFile.lines (offsets
 * of line starts, for messages); lexical errors are reported and the
 * offending text skipped, so the parser always gets a token stream.
 * Invariants: identifiers are interned; INT tokens hold values up to 2^63
 * (2^63 itself has `overflow` set so the parser can accept it only after a
 * unary minus); larger literals are reported here.
 */
#include "ast.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lexer {
    TlCompiler *c;
    TlFile *f;
    const char *s, *end, *p;
    uint32_t line;
    const char *line_start;
    uint32_t ntoks, cap;
    uint32_t nlines, caplines;
} Lexer;

static TlPos pos_at(Lexer *lx, const char *p)
{
    return (TlPos){lx->f->index, lx->line, (uint32_t)(p - lx->line_start) + 1};
}

static void newline(Lexer *lx, const char *next)
{
    lx->line++;
    lx->line_start = next;
    *TL_PUSH(lx->c, lx->f->lines, lx->nlines, lx->caplines) = (uint32_t)(next - lx->s);
    /* kept current so that errors reported while lexing show their line */
    lx->f->nlines = lx->nlines;
}

static TlToken *add(Lexer *lx, TlTok kind, const char *start, const char *end)
{
    TlToken *t = TL_PUSH(lx->c, lx->f->toks, lx->ntoks, lx->cap);
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->pos = pos_at(lx, start);
    t->start = start;
    t->len = (uint32_t)(end - start);
    return t;
}

static bool ident_start(int ch) { return isalpha(ch) || ch == '_'; }
static bool ident_char(int ch) { return isalnum(ch) || ch == '_'; }

static TlTok keyword(const char *s, size_t n)
{
    static const struct { const char *w; TlTok k; } kws[] = {
#define TOK(name, text)
#define KW(name, text) {text, TK_##name},
#include "tokens.def"
#undef TOK
#undef KW
    };
    if (n < 2 || n > 10)
        return TK_IDENT;
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (strlen(kws[i].w) == n && memcmp(kws[i].w, s, n) == 0)
            return kws[i].k;
    return TK_IDENT;
}

/* Text of a bad character for messages: printable as is, else \xHH. */
static void char_text(int ch, char *buf, size_t n)
{
    if (isprint(ch))
        snprintf(buf, n, "%c", ch);
    else
        snprintf(buf, n, "\\x%02x", ch & 255);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Reads one escape after the backslash at p; returns the byte (or -1 after
 * reporting a bad escape) and advances *pp past it. */
static int escape(Lexer *lx, const char **pp)
{
    const char *p = *pp;   /* at the backslash */
    const char *q = p + 1;
    int ch = q < lx->end ? (unsigned char)*q : -1;
    int v = -1;
    switch (ch) {
    case 'n': v = '\n'; break;
    case 't': v = '\t'; break;
    case 'r': v = '\r'; break;
    case '\\': v = '\\'; break;
    case '"': v = '"'; break;
    case '\'': v = '\''; break;
    case '0': v = 0; break;
    case 'x':
        if (q + 2 < lx->end && hexval(q[1]) >= 0 && hexval(q[2]) >= 0) {
            *pp = q + 3;
            return hexval(q[1]) * 16 + hexval(q[2]);
        }
        break;
    default:
        break;
    }
    if (v >= 0) {
        *pp = q + 1;
        return v;
    }
    if (ch < 0 || ch == '\n') {
        /* a backslash ending the line: the literal is unterminated, which
         * its caller reports (one message for one mistake) */
        *pp = q;
        return -1;
    }
    char buf[16];
    if (ch == 'x')
        snprintf(buf, sizeof buf, "\\x");
    else {
        buf[0] = '\\';
        char_text(ch, buf + 1, sizeof buf - 1);
    }
    tl_error(lx->c, pos_at(lx, p), TL_D_BAD_ESCAPE, buf);
    *pp = (ch < 0 || ch == '\n') ? q : q + 1;
    return -1;
}

static void lex_string(Lexer *lx)
{
    const char *start = lx->p, *p = start + 1;
    char *buf = NULL;
    uint32_t n = 0, cap = 0;
    for (;;) {
        if (p >= lx->end || *p == '\n') {
            tl_error(lx->c, pos_at(lx, start), TL_D_UNTERMINATED_STRING);
            add(lx, TK_ERROR, start, p)->cut = true;
            lx->f->truncated = true;
            lx->p = p;
            return;
        }
        if (*p == '"') {
            p++;
            break;
        }
        int ch;
        if (*p == '\\')
            ch = escape(lx, &p);
        else
            ch = (unsigned char)*p++;
        if (ch >= 0)
            *TL_PUSH(lx->c, buf, n, cap) = (char)ch;
    }
    TlToken *t = add(lx, TK_STRING, start, p);
    t->s = buf ? buf : "";
    t->slen = n;
    lx->p = p;
}

static void lex_char(Lexer *lx)
{
    const char *start = lx->p, *p = start + 1;
    int count = 0, value = 0;
    bool bad = false, cut = false;
    for (;;) {
        if (p >= lx->end || *p == '\n') {
            tl_error(lx->c, pos_at(lx, start), TL_D_UNTERMINATED_CHAR);
            bad = cut = true;
            break;
        }
        if (*p == '\'') {
            p++;
            break;
        }
        int ch = *p == '\\' ? escape(lx, &p) : (unsigned char)*p++;
        if (ch < 0)
            bad = true;
        else if (count++ == 0)
            value = ch;
    }
    if (!bad && count == 0)
        tl_error(lx->c, pos_at(lx, start), TL_D_EMPTY_CHAR);
    else if (!bad && count > 1)
        tl_error(lx->c, pos_at(lx, start), TL_D_CHAR_TOO_LONG);
    TlToken *t = add(lx, bad ? TK_ERROR : TK_CHAR, start, p);
    t->v.u = (uint64_t)value;
    t->cut = cut;
    lx->f->truncated |= cut;
    lx->p = p;
}

static void bad_number(Lexer *lx, const char *start, const char *end)
{
    char buf[64];
    size_t n = (size_t)(end - start);
    snprintf(buf, sizeof buf, "%.*s%s", (int)(n > 40 ? 40 : n), start, n > 40 ? "..." : "");
    for (char *q = buf; *q; q++)
        if (!isprint((unsigned char)*q))
            *q = '?';
    tl_error(lx->c, pos_at(lx, start), TL_D_BAD_NUMBER, buf);
}

static void lex_number(Lexer *lx)
{
    const char *start = lx->p, *p = start, *end = lx->end;
    bool hex = p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    bool is_float = false, bad = false;
    if (hex) {
        p += 2;
        const char *digits = p;
        while (p < end && (isxdigit((unsigned char)*p) || *p == '_'))
            p++;
        if (p == digits)
            bad = true;
    } else {
        while (p < end && (isdigit((unsigned char)*p) || *p == '_'))
            p++;
        /* `1..5` is a range: a fraction needs a digit after the dot */
        if (p + 1 < end && *p == '.' && isdigit((unsigned char)p[1])) {
            is_float = true;
            p++;
            while (p < end && (isdigit((unsigned char)*p) || *p == '_'))
                p++;
        } else if (p < end && *p == '.' && (p + 1 == end || (p[1] != '.' && !ident_start((unsigned char)p[1])))) {
            /* `1.` is a float missing its fraction (a member access would
             * need a name after the dot) */
            p++;
            bad = true;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            is_float = true;
            p++;
            if (p < end && (*p == '+' || *p == '-'))
                p++;
            const char *digits = p;
            while (p < end && isdigit((unsigned char)*p))
                p++;
            if (p == digits)
                bad = true;
        }
    }
    /* letters glued to a number (`12ab`, `0x1g`) make it malformed */
    while (p < end && (ident_char((unsigned char)*p) || (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1])))) {
        p++;
        bad = true;
    }
    if (!bad && p[-1] == '_')
        bad = true;
    TlToken *t = add(lx, bad ? TK_ERROR : is_float ? TK_FLOAT : TK_INT, start, p);
    lx->p = p;
    if (bad) {
        bad_number(lx, start, p);
        return;
    }
    char buf[128];
    size_t n = 0;
    for (const char *q = start; q < p && n + 1 < sizeof buf; q++)
        if (*q != '_')
            buf[n++] = *q;
    buf[n] = 0;
    if (is_float) {
        if ((size_t)(p - start) >= sizeof buf - 1) {
            bad_number(lx, start, p);
            return;
        }
        t->v.f = strtod(buf, NULL);
        return;
    }
    uint64_t v = 0;
    bool over = false;
    uint32_t base = hex ? 16 : 10;
    for (const char *r = start + (hex ? 2 : 0); r < p; r++) {
        if (*r == '_')
            continue;
        uint64_t d = (uint64_t)hexval(*r);
        if (v > (UINT64_MAX - d) / base)
            over = true;
        else
            v = v * base + d;
    }
    /* hex literals are bit patterns: all 64 bits, read as two's complement
     * (0xffffffffffffffff is -1), as hash and mask constants need; decimal
     * ones are values and must fit (2^63 only after a minus sign) */
    if (over || (!hex && v > (uint64_t)INT64_MAX + 1)) {
        char txt[64];
        size_t len = (size_t)(p - start);
        snprintf(txt, sizeof txt, "%.*s%s", (int)(len > 40 ? 40 : len), start, len > 40 ? "..." : "");
        tl_error(lx->c, t->pos, TL_D_INT_RANGE, txt);
        v = 0;
    }
    t->v.u = v;
    t->overflow = !hex && v > (uint64_t)INT64_MAX;
}

/* Punctuation, longest match first. */
static bool lex_punct(Lexer *lx)
{
    static const struct { const char *s; TlTok k; } ops[] = {
        {">>>=", TK_USHR_ASSIGN}, {">>>", TK_USHR}, {"<<=", TK_SHL_ASSIGN}, {">>=", TK_SHR_ASSIGN},
        {"..", TK_DOTDOT}, {"<<", TK_SHL}, {">>", TK_SHR}, {"<=", TK_LE}, {">=", TK_GE},
        {"==", TK_EQEQ}, {"!=", TK_NE}, {"&&", TK_ANDAND}, {"||", TK_OROR},
        {"+=", TK_PLUS_ASSIGN}, {"-=", TK_MINUS_ASSIGN}, {"*=", TK_STAR_ASSIGN},
        {"/=", TK_SLASH_ASSIGN}, {"%=", TK_PERCENT_ASSIGN}, {"&=", TK_AMP_ASSIGN},
        {"|=", TK_PIPE_ASSIGN}, {"^=", TK_CARET_ASSIGN},
        {"(", TK_LPAREN}, {")", TK_RPAREN}, {"{", TK_LBRACE}, {"}", TK_RBRACE},
        {"[", TK_LBRACKET}, {"]", TK_RBRACKET}, {",", TK_COMMA}, {";", TK_SEMI},
        {":", TK_COLON}, {".", TK_DOT}, {"+", TK_PLUS}, {"-", TK_MINUS}, {"*", TK_STAR},
        {"/", TK_SLASH}, {"%", TK_PERCENT}, {"&", TK_AMP}, {"|", TK_PIPE}, {"^", TK_CARET},
        {"~", TK_TILDE}, {"!", TK_BANG}, {"<", TK_LT}, {">", TK_GT}, {"=", TK_ASSIGN},
    };
    size_t left = (size_t)(lx->end - lx->p);
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t n = strlen(ops[i].s);
        if (n <= left && memcmp(lx->p, ops[i].s, n) == 0) {
            add(lx, ops[i].k, lx->p, lx->p + n);
            lx->p += n;
            return true;
        }
    }
    return false;
}

void tl_lex(TlCompiler *c, TlFile *f)
{
    Lexer lx = {.c = c, .f = f, .s = f->text, .end = f->text + f->len, .p = f->text, .line = 1};
    lx.line_start = f->text;
    *TL_PUSH(c, f->lines, lx.nlines, lx.caplines) = 0;
    f->nlines = lx.nlines;
    while (lx.p < lx.end) {
        const char *p = lx.p;
        unsigned char ch = (unsigned char)*p;
        if (ch == '\n') {
            lx.p++;
            newline(&lx, lx.p);
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            lx.p++;
            continue;
        }
        if (ch == '/' && p + 1 < lx.end && p[1] == '/') {
            while (lx.p < lx.end && *lx.p != '\n')
                lx.p++;
            continue;
        }
        if (ch == '/' && p + 1 < lx.end && p[1] == '*') {
            TlPos at = pos_at(&lx, p);
            lx.p += 2;
            bool closed = false;
            while (lx.p < lx.end) {
                if (*lx.p == '*' && lx.p + 1 < lx.end && lx.p[1] == '/') {
                    lx.p += 2;
                    closed = true;
                    break;
                }
                if (*lx.p++ == '\n')
                    newline(&lx, lx.p);
            }
            if (!closed) {
                tl_error(c, at, TL_D_UNTERMINATED_COMMENT);
                f->truncated = true;
            }
            continue;
        }
        if (ident_start(ch)) {
            while (lx.p < lx.end && ident_char((unsigned char)*lx.p))
                lx.p++;
            TlTok k = keyword(p, (size_t)(lx.p - p));
            TlToken *t = add(&lx, k, p, lx.p);
            if (k == TK_IDENT)
                t->s = tl_intern(c, p, (size_t)(lx.p - p));
            continue;
        }
        if (isdigit(ch)) {
            lex_number(&lx);
            continue;
        }
        if (ch == '"') {
            lex_string(&lx);
            continue;
        }
        if (ch == '\'') {
            lex_char(&lx);
            continue;
        }
        if (lex_punct(&lx))
            continue;
        char buf[16];
        char_text(ch, buf, sizeof buf);
        tl_error(c, pos_at(&lx, p), TL_D_BAD_CHAR, buf);
        add(&lx, TK_ERROR, p, p + 1);
        lx.p++;
    }
    add(&lx, TK_EOF, lx.p, lx.p);
    f->ntoks = lx.ntoks;
    f->nlines = lx.nlines;
}
