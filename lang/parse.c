/* lang/parse.c — recursive-descent parser with precedence climbing.
 *
 * Input: TlFile.toks from lex.c (ending in TK_EOF).
 * Output: TlFile.decls, a syntax tree in the arena (ast.h).  Syntax errors
 * are reported and the parser resynchronizes: inside a block at the next
 * `;` or `}` of the same nesting level, at top level at the next token
 * that starts a declaration.  While resynchronizing (`panic`) further
 * errors are suppressed, so one mistake gives one message.
 * Invariants: every function returns a node (an E_ERROR / S_ERROR node
 * after an error), never NULL where a node is expected (parse_method and
 * parse_decl return NULL for "nothing to declare", and are not stored);
 * a member access without a name is an E_ERROR, not a member "?"; an
 * unterminated literal ends its statement with its line; recursion is
 * bounded by TL_MAX_DEPTH and operator chains by TL_MAX_CHAIN, so no
 * input can exhaust the C stack here or in the passes that walk the tree.
 */
#include "ast.h"

#include <string.h>

typedef struct Parser {
    TlCompiler *c;
    TlFile *f;
    TlToken *t;
    uint32_t i, n;
    bool panic;
    int depth;
    bool too_deep;
    bool neg_literal;   /* the next literal is the operand of a unary minus */
    uint32_t cut_line;  /* the error was at an unterminated literal on this line */
} Parser;

static TlToken *cur(Parser *p) { return &p->t[p->i]; }
static TlTok kind(Parser *p) { return (TlTok)p->t[p->i].kind; }
static TlTok kind_at(Parser *p, uint32_t k) { return p->i + k < p->n ? (TlTok)p->t[p->i + k].kind : TK_EOF; }
static TlPos here(Parser *p) { return p->t[p->i].pos; }

static void advance(Parser *p)
{
    if (p->i + 1 < p->n)
        p->i++;
}

static bool accept(Parser *p, TlTok k)
{
    if (kind(p) != k)
        return false;
    advance(p);
    return true;
}

/* Spelling of the current token for "found ..." in messages. */
static const char *found(Parser *p)
{
    TlToken *t = cur(p);
    if (t->kind == TK_IDENT) {
        size_t n = strlen(t->s) + 3;
        char *s = tl_alloc(p->c, n);
        snprintf(s, n, "'%s'", t->s);
        return s;
    }
    return tl_tok_text[t->kind];
}

static void error_here(Parser *p, TlDiag d, const char *what)
{
    /* an invalid token was reported by the lexer: no second message; nor
     * for the end of a file whose end an unterminated literal or comment
     * swallowed (the `}` or `;` missing here is likely inside it) */
    TlToken *t = cur(p);
    if (t->kind == TK_ERROR && t->cut)
        p->cut_line = t->pos.line;
    if (!p->panic && t->kind != TK_ERROR && !(t->kind == TK_EOF && p->f->truncated)) {
        if (d == TL_D_EXPECTED)
            tl_error(p->c, here(p), d, what, found(p));
        else
            tl_error(p->c, here(p), d, found(p));
    }
    p->panic = true;
}

static bool expect(Parser *p, TlTok k)
{
    if (accept(p, k))
        return true;
    error_here(p, TL_D_EXPECTED, tl_tok_text[k]);
    return false;
}

static const char *expect_ident(Parser *p, TlPos *pos)
{
    if (pos)
        *pos = here(p);
    if (kind(p) == TK_IDENT) {
        const char *s = cur(p)->s;
        advance(p);
        return s;
    }
    error_here(p, TL_D_EXPECTED, "a name");
    return tl_intern(p->c, "?", 1);
}

/* Closes a type argument list, splitting `>>` and `>>>` as needed. */
static bool expect_gt(Parser *p)
{
    TlToken *t = cur(p);
    if (t->kind == TK_GT) {
        advance(p);
        return true;
    }
    if (t->kind == TK_SHR || t->kind == TK_USHR || t->kind == TK_GE || t->kind == TK_SHR_ASSIGN
        || t->kind == TK_USHR_ASSIGN) {
        t->kind = t->kind == TK_SHR ? TK_GT : t->kind == TK_USHR ? TK_SHR
                : t->kind == TK_GE ? TK_ASSIGN : t->kind == TK_SHR_ASSIGN ? TK_GE : TK_SHR_ASSIGN;
        t->start++;
        t->len--;
        t->pos.col++;
        return true;
    }
    error_here(p, TL_D_EXPECTED, "'>'");
    return false;
}

static bool enter(Parser *p)
{
    if (p->depth >= TL_MAX_DEPTH) {
        if (!p->too_deep && !p->panic)
            tl_error(p->c, here(p), TL_D_NESTING);
        p->too_deep = true;
        p->panic = true;
        return false;
    }
    p->depth++;
    return true;
}

static void leave(Parser *p) { p->depth--; }

static TlExpr *new_expr(Parser *p, TlExprKind k, TlPos pos)
{
    TlExpr *e = tl_alloc(p->c, sizeof *e);
    e->kind = (uint8_t)k;
    e->pos = pos;
    e->aux = -1;
    return e;
}

static TlStmt *new_stmt(Parser *p, TlStmtKind k, TlPos pos)
{
    TlStmt *s = tl_alloc(p->c, sizeof *s);
    s->kind = (uint8_t)k;
    s->pos = pos;
    return s;
}

/* ---- types --------------------------------------------------------------- */

static TlTypeExpr *parse_type(Parser *p);

static TlTypeExpr *new_texpr(Parser *p, TlTypeExprKind k, TlPos pos)
{
    TlTypeExpr *t = tl_alloc(p->c, sizeof *t);
    t->kind = (uint8_t)k;
    t->pos = pos;
    return t;
}

/* `<T, U>` after a name, at the `<`. */
static void parse_type_args(Parser *p, TlTypeExpr ***args, uint32_t *n)
{
    uint32_t cap = 0;
    advance(p);
    do {
        *TL_PUSH(p->c, *args, *n, cap) = parse_type(p);
    } while (!p->panic && accept(p, TK_COMMA));
    expect_gt(p);
}

static TlTypeExpr *parse_type_atom(Parser *p)
{
    TlPos pos = here(p);
    if (kind(p) == TK_IDENT) {
        TlTypeExpr *t = new_texpr(p, TE_NAME, pos);
        t->name = cur(p)->s;
        advance(p);
        if (kind(p) == TK_LT)
            parse_type_args(p, &t->args, &t->nargs);
        return t;
    }
    if (kind(p) == TK_FN) {
        advance(p);
        TlTypeExpr *t = new_texpr(p, TE_FUNC, pos);
        uint32_t cap = 0;
        expect(p, TK_LPAREN);
        if (kind(p) != TK_RPAREN)
            do {
                *TL_PUSH(p->c, t->args, t->nargs, cap) = parse_type(p);
            } while (!p->panic && accept(p, TK_COMMA));
        expect(p, TK_RPAREN);
        if (accept(p, TK_COLON))
            t->elem = parse_type(p);
        return t;
    }
    if (kind(p) == TK_LPAREN) {
        advance(p);
        TlTypeExpr *t = parse_type(p);
        expect(p, TK_RPAREN);
        return t;
    }
    error_here(p, TL_D_EXPECTED_TYPE, NULL);
    TlTypeExpr *t = new_texpr(p, TE_NAME, pos);
    t->name = tl_intern(p->c, "?", 1);
    return t;
}

static TlTypeExpr *parse_type(Parser *p)
{
    TlPos pos = here(p);
    if (!enter(p)) {
        TlTypeExpr *t = new_texpr(p, TE_NAME, pos);
        t->name = tl_intern(p->c, "?", 1);
        return t;
    }
    TlTypeExpr *t = parse_type_atom(p);
    while (kind(p) == TK_LBRACKET && kind_at(p, 1) == TK_RBRACKET) {
        advance(p);
        advance(p);
        TlTypeExpr *a = new_texpr(p, TE_ARRAY, t->pos);   /* a type starts where its element does */
        a->elem = t;
        t = a;
    }
    leave(p);
    return t;
}

/* ---- expressions --------------------------------------------------------- */

static TlExpr *parse_expr(Parser *p);
static TlStmt *parse_block(Parser *p);

static TlExpr *error_expr(Parser *p)
{
    return new_expr(p, E_ERROR, here(p));
}

static uint16_t chain_of(const TlExpr *a, const TlExpr *b)
{
    uint16_t x = a ? a->chain : 0, y = b ? b->chain : 0;
    return (uint16_t)((x > y ? x : y) + 1);
}

/* Caps operator chains: a + b + c + ... builds a tree as deep as it is
 * long without any parser recursion, and later passes do recurse. */
static TlExpr *check_chain(Parser *p, TlExpr *e)
{
    if (e->chain > TL_MAX_CHAIN) {
        if (!p->too_deep && !p->panic)
            tl_error(p->c, e->pos, TL_D_NESTING);
        p->too_deep = true;
        p->panic = true;
        TlExpr *x = new_expr(p, E_ERROR, e->pos);
        return x;
    }
    return e;
}

static void parse_args(Parser *p, TlExpr ***args, uint32_t *n, TlTok close)
{
    uint32_t cap = 0;
    if (kind(p) != close)
        do {
            if (kind(p) == close)   /* trailing comma */
                break;
            *TL_PUSH(p->c, *args, *n, cap) = parse_expr(p);
        } while (!p->panic && accept(p, TK_COMMA));
    expect(p, close);
}

static void parse_params(Parser *p, TlFunc *fn)
{
    uint32_t cap = 0;
    expect(p, TK_LPAREN);
    if (kind(p) != TK_RPAREN)
        do {
            TlParam *pa = TL_PUSH(p->c, fn->params, fn->nparams, cap);
            memset(pa, 0, sizeof *pa);
            pa->name = expect_ident(p, &pa->pos);
            expect(p, TK_COLON);
            pa->texpr = parse_type(p);
        } while (!p->panic && accept(p, TK_COMMA));
    expect(p, TK_RPAREN);
    if (accept(p, TK_COLON))
        fn->ret = parse_type(p);
}

/* Is `Name<...>` at the current IDENT a generic instantiation?  Looks for a
 * balanced argument list made of type tokens, followed by `(` or `.`. */
static bool generic_ahead(Parser *p)
{
    if (kind_at(p, 1) != TK_LT)
        return false;
    int depth = 0;
    for (uint32_t k = 1; k < 256 && p->i + k < p->n; k++) {
        switch (kind_at(p, k)) {
        case TK_LT: depth++; break;
        case TK_GT: depth--; break;
        case TK_SHR: depth -= 2; break;
        case TK_USHR: depth -= 3; break;
        case TK_IDENT: case TK_COMMA: case TK_LBRACKET: case TK_RBRACKET: case TK_FN:
        case TK_LPAREN: case TK_RPAREN: case TK_COLON:
            break;
        default:
            return false;
        }
        if (depth < 0)
            return false;
        if (depth == 0) {
            TlTok next = kind_at(p, k + 1);
            return next == TK_LPAREN || next == TK_DOT;
        }
    }
    return false;
}

static TlExpr *parse_lambda(Parser *p)
{
    TlPos pos = here(p);
    advance(p);   /* fn */
    TlExpr *e = new_expr(p, E_LAMBDA, pos);
    e->lambda = tl_alloc(p->c, sizeof *e->lambda);
    TlFunc *fn = &e->lambda->fn;
    fn->pos = pos;
    fn->name = tl_intern(p->c, "lambda", 6);
    parse_params(p, fn);
    if (kind(p) != TK_LBRACE) {
        error_here(p, TL_D_EXPECTED, "'{'");
        return e;
    }
    fn->body = parse_block(p);
    return e;
}

static TlExpr *parse_primary(Parser *p)
{
    TlToken *t = cur(p);
    TlPos pos = t->pos;
    TlExpr *e;
    switch ((TlTok)t->kind) {
    case TK_INT:
    case TK_CHAR:
        e = new_expr(p, E_INT, pos);
        e->ival = (int64_t)t->v.u;
        advance(p);
        /* 2^63 is only valid right after a unary minus (parse_unary folds
         * it into INT64_MIN) */
        if (t->overflow && (!p->neg_literal || kind(p) == TK_LPAREN || kind(p) == TK_LBRACKET
                            || kind(p) == TK_DOT))
            tl_error(p->c, pos, TL_D_INT_RANGE, "9223372036854775808");
        p->neg_literal = false;
        return e;
    case TK_FLOAT:
        p->neg_literal = false;
        e = new_expr(p, E_FLOAT, pos);
        e->fval = t->v.f;
        advance(p);
        return e;
    case TK_STRING:
        e = new_expr(p, E_STRING, pos);
        e->str = t->s;
        e->slen = t->slen;
        advance(p);
        return e;
    case TK_TRUE:
    case TK_FALSE:
        e = new_expr(p, E_BOOL, pos);
        e->ival = t->kind == TK_TRUE;
        advance(p);
        return e;
    case TK_NULL:
        advance(p);
        return new_expr(p, E_NULL, pos);
    case TK_SELF:
        advance(p);
        return new_expr(p, E_SELF, pos);
    case TK_IDENT:
        if (generic_ahead(p)) {
            e = new_expr(p, E_GENERIC, pos);
            e->str = t->s;
            advance(p);
            TlTypeExpr **args = NULL;
            uint32_t n = 0;
            parse_type_args(p, &args, &n);
            e->targs = args;
            e->ntargs = n;
            return e;
        }
        e = new_expr(p, E_NAME, pos);
        e->str = t->s;
        advance(p);
        return e;
    case TK_LPAREN:
        advance(p);
        e = parse_expr(p);
        expect(p, TK_RPAREN);
        return e;
    case TK_LBRACKET:
        e = new_expr(p, E_ARRAY, pos);
        advance(p);
        parse_args(p, &e->args, &e->nargs, TK_RBRACKET);
        return e;
    case TK_NEW: {
        advance(p);
        e = new_expr(p, E_NEWARRAY, pos);
        e->texpr = parse_type_atom(p);
        while (kind(p) == TK_LBRACKET && kind_at(p, 1) == TK_RBRACKET) {
            TlTypeExpr *a = new_texpr(p, TE_ARRAY, here(p));
            a->elem = e->texpr;
            e->texpr = a;
            advance(p);
            advance(p);
        }
        if (!expect(p, TK_LBRACKET))
            return e;
        e->a = parse_expr(p);
        expect(p, TK_RBRACKET);
        while (kind(p) == TK_LBRACKET && kind_at(p, 1) == TK_RBRACKET) {
            advance(p);
            advance(p);
            e->ndims++;
        }
        return e;
    }
    case TK_FN:
        return parse_lambda(p);
    case TK_SUPER:
        advance(p);
        if (kind(p) == TK_LPAREN) {
            e = new_expr(p, E_SUPER_CALL, pos);
            advance(p);
            parse_args(p, &e->args, &e->nargs, TK_RPAREN);
            return e;
        }
        e = new_expr(p, E_SUPER_MEMBER, pos);
        if (!expect(p, TK_DOT) || kind(p) != TK_IDENT) {
            error_here(p, TL_D_EXPECTED, "a name");
            return error_expr(p);
        }
        e->str = expect_ident(p, NULL);
        return e;
    default:
        error_here(p, TL_D_EXPECTED_EXPR, NULL);
        return error_expr(p);
    }
}

static TlExpr *parse_postfix(Parser *p)
{
    TlExpr *e = parse_primary(p);
    for (;;) {
        TlPos pos = here(p);
        if (kind(p) == TK_LPAREN) {
            TlExpr *call = new_expr(p, E_CALL, e->pos);
            advance(p);
            call->a = e;
            parse_args(p, &call->args, &call->nargs, TK_RPAREN);
            call->chain = chain_of(e, NULL);
            e = check_chain(p, call);
        } else if (kind(p) == TK_LBRACKET) {
            TlExpr *ix = new_expr(p, E_INDEX, pos);
            advance(p);
            ix->a = e;
            ix->b = parse_expr(p);
            expect(p, TK_RBRACKET);
            ix->chain = chain_of(e, ix->b);
            e = check_chain(p, ix);
        } else if (kind(p) == TK_DOT) {
            advance(p);
            TlExpr *m = new_expr(p, E_MEMBER, here(p));
            m->a = e;
            if (kind(p) == TK_INIT) {   /* reported by the checker: init cannot be called */
                m->str = p->c->n_init;
                advance(p);
            } else if (kind(p) == TK_IDENT) {
                m->str = expect_ident(p, NULL);
            } else {
                /* no member name: an error node, so the checker adds no
                 * "has no member" of its own */
                error_here(p, TL_D_EXPECTED, "a name");
                return error_expr(p);
            }
            m->chain = chain_of(e, NULL);
            e = check_chain(p, m);
        } else {
            return e;
        }
        if (p->panic)
            return e;
    }
}

static TlExpr *parse_unary(Parser *p)
{
    TlTok k = kind(p);
    if (k != TK_MINUS && k != TK_BANG && k != TK_TILDE) {
        return parse_postfix(p);
    }
    TlPos pos = here(p);
    if (!enter(p))
        return error_expr(p);
    advance(p);
    TlExpr *x;
    if (k == TK_MINUS && (kind(p) == TK_INT || kind(p) == TK_CHAR)) {
        /* -literal folds to a negative literal, which makes INT64_MIN writable */
        uint32_t at = p->i;
        p->neg_literal = true;
        x = parse_postfix(p);
        p->neg_literal = false;
        if (x->kind == E_INT && p->i == at + 1) {
            x->ival = (int64_t)(0 - (uint64_t)x->ival);
            x->pos = pos;
            leave(p);
            return x;
        }
    } else {
        x = parse_unary(p);
    }
    leave(p);
    TlExpr *e = new_expr(p, E_UNARY, pos);
    e->op = (uint8_t)k;
    e->a = x;
    e->chain = chain_of(x, NULL);
    return check_chain(p, e);
}

static int precedence(TlTok k)
{
    switch (k) {
    case TK_OROR: return 1;
    case TK_ANDAND: return 2;
    case TK_EQEQ: case TK_NE: return 3;
    case TK_LT: case TK_LE: case TK_GT: case TK_GE: case TK_IS: case TK_AS: return 4;
    case TK_PIPE: return 5;
    case TK_CARET: return 6;
    case TK_AMP: return 7;
    case TK_SHL: case TK_SHR: case TK_USHR: return 8;
    case TK_PLUS: case TK_MINUS: return 9;
    case TK_STAR: case TK_SLASH: case TK_PERCENT: return 10;
    default: return 0;
    }
}

static TlExpr *parse_binary(Parser *p, int min)
{
    TlExpr *left = parse_unary(p);
    for (;;) {
        TlTok op = kind(p);
        int prec = precedence(op);
        if (prec == 0 || prec < min || p->panic)
            return left;
        TlPos pos = here(p);
        advance(p);
        TlExpr *e;
        if (op == TK_IS || op == TK_AS) {
            e = new_expr(p, op == TK_IS ? E_IS : E_AS, pos);
            e->a = left;
            e->texpr = parse_type(p);
            e->chain = chain_of(left, NULL);
        } else {
            TlExpr *right = parse_binary(p, prec + 1);
            e = new_expr(p, op == TK_ANDAND ? E_AND : op == TK_OROR ? E_OR : E_BINARY, pos);
            e->op = (uint8_t)op;
            e->a = left;
            e->b = right;
            e->chain = chain_of(left, right);
        }
        left = check_chain(p, e);
    }
}

static TlExpr *parse_expr(Parser *p)
{
    if (!enter(p))
        return error_expr(p);
    TlExpr *e = parse_binary(p, 1);
    leave(p);
    return e;
}

/* ---- statements ---------------------------------------------------------- */

static TlStmt *parse_stmt(Parser *p);

/* Skips to the end of the broken statement: past the next `;`, or up to
 * the `}` that closes the enclosing block, whichever comes first at the
 * statement's own brace level. */
static void sync_stmt(Parser *p)
{
    int depth = 0;
    /* an unterminated literal took the rest of its line, `;` included: the
     * statement is taken to end with that line */
    uint32_t cut = p->cut_line;
    p->cut_line = 0;
    while (kind(p) != TK_EOF) {
        TlTok k = kind(p);
        if (cut && depth == 0 && cur(p)->pos.line > cut)
            break;
        if (k == TK_LBRACE)
            depth++;
        else if (k == TK_RBRACE) {
            if (depth == 0)
                break;
            if (--depth == 0) {
                advance(p);
                break;
            }
        } else if (k == TK_SEMI && depth == 0) {
            advance(p);
            break;
        }
        advance(p);
    }
    p->panic = false;
}

/* Did the construct that started at token `at` end with `;` or `}`? */
static bool ended(Parser *p, uint32_t at)
{
    return p->i > at + 1 && (p->t[p->i - 1].kind == TK_SEMI || p->t[p->i - 1].kind == TK_RBRACE);
}

static TlStmt *parse_block(Parser *p)
{
    TlStmt *b = new_stmt(p, S_BLOCK, here(p));
    if (!expect(p, TK_LBRACE))
        return b;
    if (!enter(p)) {
        sync_stmt(p);
        return b;
    }
    uint32_t cap = 0;
    while (kind(p) != TK_RBRACE && kind(p) != TK_EOF) {
        uint32_t at = p->i;
        TlStmt *s = parse_stmt(p);
        *TL_PUSH(p->c, b->stmts, b->n, cap) = s;
        if (p->panic) {
            if (p->i == at)
                advance(p);
            if (ended(p, at))
                p->panic = false;   /* the broken statement did end */
            else
                sync_stmt(p);
        }
    }
    leave(p);
    expect(p, TK_RBRACE);
    return b;
}

static TlStmt *parse_var(Parser *p, bool mutable_)
{
    TlStmt *s = new_stmt(p, mutable_ ? S_VAR : S_LET, here(p));
    advance(p);
    s->name = expect_ident(p, &s->name_pos);
    if (accept(p, TK_COLON))
        s->texpr = parse_type(p);
    if (accept(p, TK_ASSIGN))
        s->e = parse_expr(p);
    else if (!p->panic) {
        tl_error(p->c, s->name_pos, TL_D_NEEDS_INIT, s->name);
        s->e = error_expr(p);
    } else {
        s->e = error_expr(p);
    }
    expect(p, TK_SEMI);
    return s;
}

static bool is_assign_op(TlTok k)
{
    return k == TK_ASSIGN || (k >= TK_PLUS_ASSIGN && k <= TK_USHR_ASSIGN);
}

static TlStmt *parse_if(Parser *p)
{
    /* else-if chains are parsed in a loop: long chains need no recursion */
    TlStmt *first = NULL, *last = NULL;
    for (;;) {
        TlStmt *s = new_stmt(p, S_IF, here(p));
        advance(p);   /* if */
        s->e = parse_expr(p);
        s->body = parse_block(p);
        if (last)
            last->els = s;
        else
            first = s;
        last = s;
        if (p->panic || !accept(p, TK_ELSE))
            break;
        if (kind(p) == TK_IF)
            continue;
        s->els = parse_block(p);
        break;
    }
    return first;
}

static TlStmt *parse_stmt(Parser *p)
{
    TlPos pos = here(p);
    TlStmt *s;
    switch (kind(p)) {
    case TK_LET:
        return parse_var(p, false);
    case TK_VAR:
        return parse_var(p, true);
    case TK_IF:
        return parse_if(p);
    case TK_WHILE:
        s = new_stmt(p, S_WHILE, pos);
        advance(p);
        s->e = parse_expr(p);
        s->body = parse_block(p);
        return s;
    case TK_FOR:
        s = new_stmt(p, S_FOR, pos);
        advance(p);
        s->name = expect_ident(p, &s->name_pos);
        expect(p, TK_IN);
        s->e = parse_expr(p);
        expect(p, TK_DOTDOT);
        s->e2 = parse_expr(p);
        s->body = parse_block(p);
        return s;
    case TK_BREAK:
    case TK_CONTINUE:
        s = new_stmt(p, kind(p) == TK_BREAK ? S_BREAK : S_CONTINUE, pos);
        advance(p);
        expect(p, TK_SEMI);
        return s;
    case TK_RETURN:
        s = new_stmt(p, S_RETURN, pos);
        advance(p);
        if (kind(p) != TK_SEMI)
            s->e = parse_expr(p);
        expect(p, TK_SEMI);
        return s;
    case TK_LBRACE:
        return parse_block(p);
    default:
        break;
    }
    TlExpr *e = parse_expr(p);
    if (is_assign_op(kind(p)) && !p->panic) {
        s = new_stmt(p, S_ASSIGN, here(p));
        s->op = (uint8_t)kind(p);
        if (e->kind != E_NAME && e->kind != E_INDEX && e->kind != E_MEMBER && e->kind != E_ERROR)
            tl_error(p->c, e->pos, TL_D_BAD_ASSIGN_TARGET);
        advance(p);
        s->e = e;
        s->e2 = parse_expr(p);
    } else {
        s = new_stmt(p, S_EXPR, pos);
        s->e = e;
    }
    expect(p, TK_SEMI);
    return s;
}

/* ---- declarations -------------------------------------------------------- */

static TlFunc *new_func(Parser *p)
{
    return tl_alloc(p->c, sizeof(TlFunc));
}

static TlDecl *new_decl(Parser *p, TlDeclKind k, TlPos pos)
{
    TlDecl *d = tl_alloc(p->c, sizeof *d);
    d->kind = (uint8_t)k;
    d->pos = pos;
    return d;
}

static void parse_tparams(Parser *p, TlDecl *d)
{
    if (kind(p) != TK_LT)
        return;
    advance(p);
    uint32_t cap = 0, cap2 = 0, n2 = 0;
    do {
        TlPos pos;
        const char *name = expect_ident(p, &pos);
        *TL_PUSH(p->c, d->tparams, d->ntparams, cap) = name;
        *TL_PUSH(p->c, d->tparam_pos, n2, cap2) = pos;
    } while (!p->panic && accept(p, TK_COMMA));
    expect_gt(p);
}

/* A method inside a class or interface body, at `fn`, `static`, `abstract`
 * or `init`. */
static TlFunc *parse_method(Parser *p, TlDecl *cls)
{
    TlFunc *fn = new_func(p);
    bool static_abstract = false, iface_static = false;
    if (accept(p, TK_STATIC)) {
        /* in an interface: reported with the name below, then checked as
         * an ordinary interface method */
        iface_static = cls->is_iface;
        fn->is_static = !cls->is_iface;
    }
    if (kind(p) == TK_ABSTRACT) {
        static_abstract = fn->is_static;
        advance(p);
        fn->is_abstract = !fn->is_static;
    }
    bool drop = false;
    if (kind(p) == TK_INIT && !fn->is_static && !iface_static && !fn->is_abstract) {
        fn->is_init = true;
        fn->pos = here(p);
        fn->name = p->c->n_init;
        if (cls->is_iface && !p->panic) {
            /* parsed, then dropped: an interface is never constructed */
            tl_error(p->c, fn->pos, TL_D_IFACE_INIT);
            drop = true;
        }
        advance(p);
    } else {
        if (!expect(p, TK_FN))
            return NULL;   /* no method at all: nothing to declare */
        fn->name = expect_ident(p, &fn->pos);
        if (iface_static && !p->panic)
            tl_error(p->c, fn->pos, TL_D_IFACE_STATIC, fn->name);
        if (static_abstract && !p->panic)
            tl_error(p->c, fn->pos, TL_D_STATIC_ABSTRACT, fn->name);
    }
    parse_params(p, fn);
    bool body_allowed = !cls->is_iface && !fn->is_abstract && !static_abstract;
    if (drop) {
        if (kind(p) == TK_LBRACE)
            parse_block(p);
        else
            expect(p, TK_SEMI);
        return NULL;
    }
    if (kind(p) == TK_LBRACE) {
        if (!body_allowed && !p->panic)
            tl_error(p->c, fn->pos, cls->is_iface ? TL_D_IFACE_BODY : TL_D_ABSTRACT_BODY, fn->name);
        fn->body = parse_block(p);
        if (!body_allowed)
            fn->body = NULL;
    } else {
        expect(p, TK_SEMI);
        if (body_allowed && !p->panic)
            tl_error(p->c, fn->pos, TL_D_MISSING_BODY, fn->name);
        if (static_abstract)
            fn->is_abstract = true;   /* reported; checked as a bodiless method */
    }
    if (fn->is_abstract && !cls->is_iface && !cls->is_abstract && !p->panic) {
        tl_error(p->c, fn->pos, TL_D_ABSTRACT_IN_CONCRETE, fn->name, cls->name);
        fn->is_abstract = false;   /* reported; no "does not implement" as well */
    }
    return fn;
}

/* Skips a broken member: to the next `;` or past the next balanced block. */
static void sync_member(Parser *p)
{
    sync_stmt(p);
}

static TlDecl *parse_class(Parser *p, bool abstract_)
{
    TlPos pos = here(p);
    bool iface = kind(p) == TK_INTERFACE;
    advance(p);
    TlDecl *d = new_decl(p, D_CLASS, pos);
    d->is_iface = iface;
    d->is_abstract = abstract_;
    d->name = expect_ident(p, &d->pos);
    parse_tparams(p, d);
    uint32_t capi = 0;
    if (!iface && accept(p, TK_EXTENDS))
        d->super = parse_type(p);
    if ((iface && accept(p, TK_EXTENDS)) || (!iface && accept(p, TK_IMPLEMENTS)))
        do {
            *TL_PUSH(p->c, d->ifaces, d->nifaces, capi) = parse_type(p);
        } while (!p->panic && accept(p, TK_COMMA));
    if (!expect(p, TK_LBRACE))
        return d;
    uint32_t capf = 0, capm = 0;
    while (kind(p) != TK_RBRACE && kind(p) != TK_EOF) {
        uint32_t at = p->i;
        TlTok k = kind(p);
        if (k == TK_FN || k == TK_STATIC || k == TK_ABSTRACT || k == TK_INIT) {
            TlFunc *fn = parse_method(p, d);
            if (fn)
                *TL_PUSH(p->c, d->methods, d->nmethods, capm) = fn;
        } else if (k == TK_IDENT && !iface) {
            TlFieldDecl *f = TL_PUSH(p->c, d->fields, d->nfields, capf);
            memset(f, 0, sizeof *f);
            f->name = expect_ident(p, &f->pos);
            expect(p, TK_COLON);
            f->texpr = parse_type(p);
            expect(p, TK_SEMI);
        } else {
            error_here(p, TL_D_EXPECTED_MEMBER, NULL);
        }
        if (p->panic) {
            if (p->i == at)
                advance(p);
            if (ended(p, at))
                p->panic = false;
            else
                sync_member(p);
        }
    }
    expect(p, TK_RBRACE);
    return d;
}

static TlDecl *parse_decl(Parser *p)
{
    TlPos pos = here(p);
    switch (kind(p)) {
    case TK_IMPORT: {
        advance(p);
        TlDecl *d = new_decl(p, D_IMPORT, pos);
        if (kind(p) == TK_STRING) {
            d->name = tl_strndup(p->c, cur(p)->s, cur(p)->slen);
            d->pos = here(p);
            advance(p);
        } else {
            error_here(p, TL_D_EXPECTED, "a string");
        }
        expect(p, TK_SEMI);
        return d;
    }
    case TK_LET:
    case TK_VAR: {
        TlDecl *d = new_decl(p, D_GLOBAL, pos);
        d->mutable_ = kind(p) == TK_VAR;
        advance(p);
        d->name = expect_ident(p, &d->pos);
        if (accept(p, TK_COLON))
            d->texpr = parse_type(p);
        if (accept(p, TK_ASSIGN))
            d->init = parse_expr(p);
        else {
            if (!p->panic)
                tl_error(p->c, d->pos, TL_D_NEEDS_INIT, d->name);
            d->init = error_expr(p);
        }
        expect(p, TK_SEMI);
        return d;
    }
    case TK_FN: {
        TlDecl *d = new_decl(p, D_FUNC, pos);
        advance(p);
        d->fn = new_func(p);
        d->fn->name = d->name = expect_ident(p, &d->pos);
        d->fn->pos = d->pos;
        parse_params(p, d->fn);
        d->fn->body = parse_block(p);
        return d;
    }
    case TK_EXTERN: {
        TlDecl *d = new_decl(p, D_EXTERN, pos);
        advance(p);
        expect(p, TK_FN);
        d->fn = new_func(p);
        d->fn->name = d->name = expect_ident(p, &d->pos);
        d->fn->pos = d->pos;
        parse_params(p, d->fn);
        expect(p, TK_ASSIGN);
        if (kind(p) == TK_STRING) {
            d->fn->lib = tl_strndup(p->c, cur(p)->s, cur(p)->slen);
            advance(p);
        } else {
            error_here(p, TL_D_EXPECTED, "a library name string");
        }
        expect(p, TK_SEMI);
        return d;
    }
    case TK_ABSTRACT:
        advance(p);
        if (kind(p) != TK_CLASS) {
            error_here(p, TL_D_EXPECTED, "'class'");
            return NULL;
        }
        return parse_class(p, true);
    case TK_CLASS:
    case TK_INTERFACE:
        return parse_class(p, false);
    default:
        error_here(p, TL_D_EXPECTED_DECL, NULL);
        return NULL;
    }
}

static bool starts_decl(TlTok k)
{
    return k == TK_FN || k == TK_CLASS || k == TK_INTERFACE || k == TK_LET || k == TK_VAR
        || k == TK_IMPORT || k == TK_EXTERN || k == TK_ABSTRACT;
}

/* Skips to the next token that can start a declaration outside braces. */
static void sync_decl(Parser *p)
{
    int depth = 0;
    while (kind(p) != TK_EOF) {
        TlTok k = kind(p);
        if (depth == 0 && starts_decl(k))
            break;
        if (k == TK_LBRACE)
            depth++;
        else if (k == TK_RBRACE && depth > 0)
            depth--;
        advance(p);
    }
    p->panic = false;
}

void tl_parse(TlCompiler *c, TlFile *f)
{
    Parser p = {.c = c, .f = f, .t = f->toks, .n = f->ntoks};
    uint32_t cap = 0;
    while (kind(&p) != TK_EOF) {
        uint32_t at = p.i;
        TlDecl *d = parse_decl(&p);
        if (d)
            *TL_PUSH(c, f->decls, f->ndecls, cap) = d;
        if (p.panic) {
            if (p.i == at)
                advance(&p);
            sync_decl(&p);
        }
        p.depth = 0;
    }
}
