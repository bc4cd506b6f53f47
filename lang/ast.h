/* lang/ast.h — the front end's shared data: tokens, syntax tree, language
 * types, semantic entities (classes, methods, globals, locals) and the
 * compiler context.  Internal to lang/ (prefix tl_ / Tl).
 *
 * Ownership: everything here lives in the compiler's arena and dies with
 * it, except the VmModule being built (malloc'd tables, handed to the
 * caller) and the hash maps (malloc'd, freed by tl_compiler_free).
 * Names are interned: equal names are equal pointers, so maps key on the
 * pointer.  Language types are interned too: equal types are equal
 * pointers (types.c).
 *
 * Phases and what each fills in:
 *   lex.c    TlFile.toks
 *   parse.c  TlFile.decls (TlDecl, TlStmt, TlExpr, TlTypeExpr)
 *   check*.c TlClass/TlMethod/TlGlobal/TlLocal; TlExpr.type and .rk/.sym;
 *            TlStmt.local; also after parse errors (error nodes check as
 *            the silent error type, and missing children are tolerated)
 *   emit*.c  the VmModule; only when there were no errors at all, so it
 *            may assume a well-typed tree
 */
#ifndef TALLY_LANG_AST_H
#define TALLY_LANG_AST_H

#include "lang.h"

#include <stdarg.h>

#define TL_MAX_DEPTH 200      /* syntactic nesting (parser recursion) */
#define TL_MAX_CHAIN 2000     /* depth of operator chains like a+b+c+... */

typedef struct TlCompiler TlCompiler;
typedef struct TlType TlType;
typedef struct TlClass TlClass;
typedef struct TlMethod TlMethod;
typedef struct TlField TlField;
typedef struct TlGlobal TlGlobal;
typedef struct TlLocal TlLocal;
typedef struct TlFunc TlFunc;
typedef struct TlExpr TlExpr;
typedef struct TlStmt TlStmt;

typedef struct TlPos {
    uint32_t file, line, col;   /* file index into TlCompiler.files; 1-based */
} TlPos;

typedef enum TlDiag {
#define DIAG(name, fmt) TL_D_##name,
#include "diag.def"
#undef DIAG
    TL_D_COUNT
} TlDiag;

typedef enum TlTok {
#define TOK(name, text) TK_##name,
#define KW(name, text) TK_##name,
#include "tokens.def"
#undef TOK
#undef KW
    TK_COUNT
} TlTok;

extern const char *const tl_tok_text[TK_COUNT];

typedef struct TlToken {
    uint16_t kind;
    bool overflow;         /* INT: the literal exceeds INT64_MAX (it may be 2^63) */
    bool cut;              /* ERROR: an unterminated literal that took the rest of its line */
    TlPos pos;
    const char *start;     /* source text of the token */
    uint32_t len;
    union {
        uint64_t u;        /* INT, CHAR */
        double f;          /* FLOAT */
    } v;
    const char *s;         /* IDENT: interned name; STRING: bytes (arena) */
    uint32_t slen;         /* STRING */
} TlToken;

/* ---- maps: open addressing on pointer pairs ------------------------------ */

typedef struct TlMapEnt {
    const void *k1, *k2;
    void *val;
} TlMapEnt;

typedef struct TlMap {
    TlMapEnt *tab;
    size_t cap, n;
} TlMap;

void *tl_map_get(const TlMap *m, const void *k1, const void *k2);
void tl_map_put(TlMap *m, const void *k1, const void *k2, void *val);
void tl_map_free(TlMap *m);

/* ---- syntax -------------------------------------------------------------- */

typedef enum { TE_NAME, TE_ARRAY, TE_FUNC } TlTypeExprKind;

typedef struct TlTypeExpr {
    uint8_t kind;
    TlPos pos;
    const char *name;              /* NAME */
    struct TlTypeExpr **args;      /* NAME: type arguments; FUNC: parameters */
    uint32_t nargs;
    struct TlTypeExpr *elem;       /* ARRAY: element; FUNC: result (NULL = none) */
} TlTypeExpr;

typedef enum {
    E_INT, E_FLOAT, E_STRING, E_BOOL, E_NULL, E_NAME, E_SELF,
    E_UNARY, E_BINARY, E_AND, E_OR, E_CALL, E_INDEX, E_MEMBER, E_SUPER_MEMBER,
    E_IS, E_AS, E_NEWARRAY, E_ARRAY, E_LAMBDA, E_SUPER_CALL, E_GENERIC, E_ERROR,
} TlExprKind;

/* What a name, member or call resolved to (TlExpr.rk). */
typedef enum {
    R_NONE,
    R_LOCAL,        /* sym = TlLocal (maybe a capture: aux = capture index or -1) */
    R_GLOBAL,       /* sym = TlGlobal */
    R_FUNC,         /* sym = TlMethod (function or extern) used as a value */
    R_FIELD,        /* MEMBER: sym = TlField */
    R_LENGTH,       /* MEMBER: .length of a string or an array */
    R_CLASS,        /* NAME/GENERIC naming a class (only as callee or static owner) */
    /* calls (E_CALL.rk) */
    R_CALL_FUNC,    /* sym = TlMethod: a function, extern or static method */
    R_CALL_VIRTUAL, /* sym = TlMethod of a class: CALLV */
    R_CALL_IFACE,   /* sym = TlMethod of an interface: CALLI */
    R_CALL_SUPER,   /* sym = TlMethod: super.m(...), CALL without dispatch */
    R_CALL_NEW,     /* sym = TlClass; type = the instance type */
    R_CALL_CLOSURE, /* callee is a function value: CALLF */
    R_CALL_BUILTIN, /* aux = TlBuiltin */
    R_CALL_STRING,  /* aux = TlBuiltin (substring, indexOf, hash) */
    R_CALL_SUPER_INIT, /* sym = TlMethod: the superclass init */
} TlResolve;

typedef enum {
    B_PRINT, B_PRINTLN, B_STR, B_FLOAT, B_INT, B_CHR, B_SQRT, B_EXIT, B_CLOCK,
    B_ARGS, B_ASSERT, B_SUBSTRING, B_INDEXOF, B_HASH, B_COUNT
} TlBuiltin;

typedef struct TlLambda TlLambda;

struct TlExpr {
    uint8_t kind;
    uint8_t op;             /* UNARY/BINARY: TlTok of the operator */
    uint8_t rk;             /* TlResolve */
    uint16_t chain;         /* depth of nested binary operators (parser) */
    TlPos pos;
    TlType *type;           /* checker: the static type */
    int64_t ival;           /* INT, BOOL */
    double fval;            /* FLOAT */
    const char *str;        /* STRING bytes; NAME/MEMBER/GENERIC: name */
    uint32_t slen;
    TlExpr *a, *b;          /* operands; CALL: a = callee; INDEX: a[b]; MEMBER: a.str */
    TlExpr **args;          /* CALL, ARRAY, SUPER_CALL arguments / elements */
    uint32_t nargs;
    TlTypeExpr *texpr;      /* IS, AS, NEWARRAY: the type (NEWARRAY: element) */
    TlTypeExpr **targs;     /* GENERIC: type arguments */
    uint32_t ntargs;
    uint32_t ndims;         /* NEWARRAY: extra [] after the length */
    TlLambda *lambda;       /* LAMBDA */
    void *sym;              /* resolution (TlResolve) */
    int32_t aux;
    TlType *rtype;          /* IS/AS/NEWARRAY: the resolved type (NEWARRAY: array type) */
};

typedef enum {
    S_LET, S_VAR, S_ASSIGN, S_EXPR, S_IF, S_WHILE, S_FOR, S_BREAK, S_CONTINUE,
    S_RETURN, S_BLOCK, S_ERROR,
} TlStmtKind;

struct TlStmt {
    uint8_t kind;
    uint8_t op;             /* ASSIGN: TK_ASSIGN or a compound TK_*_ASSIGN */
    TlPos pos;
    const char *name;       /* LET/VAR/FOR */
    TlPos name_pos;
    TlTypeExpr *texpr;      /* LET/VAR annotation */
    TlExpr *e, *e2;         /* LET/VAR: init; ASSIGN: target, value; IF/WHILE:
                               cond; FOR: from, to; RETURN/EXPR: value */
    TlStmt *body, *els;     /* IF: then/else; WHILE/FOR: body */
    TlStmt **stmts;         /* BLOCK */
    uint32_t n;
    TlLocal *local;         /* LET/VAR/FOR: the variable (checker) */
};

typedef struct TlParam {
    const char *name;
    TlPos pos;
    TlTypeExpr *texpr;
    TlLocal *local;         /* checker */
} TlParam;

/* A function body: top-level function, method, init, lambda. */
struct TlFunc {
    const char *name;
    TlPos pos;
    TlParam *params;
    uint32_t nparams;
    TlTypeExpr *ret;        /* NULL: returns nothing */
    TlStmt *body;           /* block; NULL for abstract, interface and extern */
    bool is_static, is_abstract, is_init;
    const char *lib;        /* extern: the library */
    TlMethod *m;            /* checker */
};

struct TlLambda {
    TlFunc fn;
    TlType *type;           /* checker: its function type */
    TlLocal **caps;         /* checker: captured outer locals, in capture order */
    uint32_t ncaps, capcaps;
    TlMethod *encl;         /* checker: enclosing method (for naming) */
    TlLambda *parent;       /* checker: enclosing lambda, if any */
};

typedef struct TlField TlField;

typedef struct TlFieldDecl {
    const char *name;
    TlPos pos;
    TlTypeExpr *texpr;
} TlFieldDecl;

typedef enum { D_FUNC, D_EXTERN, D_GLOBAL, D_CLASS, D_IMPORT } TlDeclKind;

typedef struct TlDecl {
    uint8_t kind;
    TlPos pos;
    const char *name;       /* IMPORT: the path text */
    TlFunc *fn;             /* FUNC, EXTERN */
    /* GLOBAL */
    bool mutable_;
    TlTypeExpr *texpr;
    TlExpr *init;
    /* CLASS */
    bool is_iface, is_abstract;
    const char **tparams;
    TlPos *tparam_pos;
    uint32_t ntparams;
    TlTypeExpr *super;      /* class: extends */
    TlTypeExpr **ifaces;    /* class: implements; interface: extends */
    uint32_t nifaces;
    TlFieldDecl *fields;
    uint32_t nfields;
    TlFunc **methods;       /* including init */
    uint32_t nmethods;
    TlGlobal *global;       /* checker */
    TlClass *cls;           /* checker */
} TlDecl;

typedef struct TlFile {
    char *path;             /* as given (main) or as resolved (imports) */
    const char *text;
    size_t len;
    uint32_t *lines;        /* offsets of line starts */
    uint32_t nlines;
    bool truncated;         /* an unterminated literal or comment hid source text */
    TlToken *toks;
    uint32_t ntoks;
    TlDecl **decls;
    uint32_t ndecls;
    uint32_t index;         /* in TlCompiler.files */
    uint32_t vmfile;        /* VmMethod.file for its methods */
} TlFile;

/* ---- language types ------------------------------------------------------ */

typedef enum {
    TY_ERROR, TY_VOID, TY_INT, TY_FLOAT, TY_BOOL, TY_STRING, TY_OBJECT, TY_NULL,
    TY_CLASS,   /* cls with args (class or interface) */
    TY_ARRAY,   /* elem */
    TY_FUNC,    /* params, ret */
    TY_PARAM,   /* type parameter `index` of `cls` */
} TlTypeKind;

struct TlType {
    uint8_t kind;
    TlClass *cls;
    TlType *elem;           /* ARRAY */
    TlType *ret;            /* FUNC */
    TlType **args;          /* CLASS: type arguments; FUNC: parameters */
    uint32_t nargs;
    uint32_t index;         /* PARAM */
    const char *name;       /* PARAM */
    TlType *rt;             /* ARRAY: non-NULL for an "erased array", see below */
    uint32_t vm;            /* emit: VM type index + 1 (0 = not yet) */
};
/* Erased arrays.  An array of a type parameter is an Object[] at run time
 * (`new T[n]`), and stays one when it leaves the generic class: the result
 * of v.toArray() with v: Vector<string> is a string[] to the language but
 * an Object[] to the VM, whose arrays are invariant, so it can never
 * become a real string[].  Such a value gets an erased array type: an
 * ARRAY whose rt is the erased type it has at run time (tl_erase returns
 * rt).  It reads like its element type (indexing, length), but it is a
 * distinct type, so using it where a plain string[] is expected (or a
 * plain one where generic code expects its T[]) is a compile error
 * (TL_D_ERASED_ARRAY) instead of a cast that would fail at run time.
 * tl_type_rt makes these types; only they have rt set. */

/* ---- semantic entities --------------------------------------------------- */

struct TlClass {
    const char *name;
    TlPos pos;
    TlDecl *decl;
    TlFile *file;
    bool is_iface, is_abstract;
    uint32_t ntparams;
    TlType **tparams;       /* TY_PARAM types */
    TlType *self_type;      /* Name<T...> */
    TlType *super;          /* superclass instance type, or NULL (Object) */
    TlType **ifaces;        /* implemented / extended interface instance types */
    uint32_t nifaces;
    TlField **fields;       /* own fields, declaration order */
    uint32_t nfields;
    TlMethod **methods;     /* own methods (not init), declaration order */
    uint32_t nmethods;
    TlMethod *init;
    TlMethod *ctor;         /* init run by `Name(...)`: own or nearest inherited */
    TlMethod **vtable;      /* class: slots (inherited first); iface: its methods */
    uint32_t nvtable;
    TlMethod **bridges;     /* class: own bridge methods (also in the vtable) */
    uint32_t nbridges;
    uint8_t state;          /* checker: 0 new, 1 visiting, 2 done */
    bool headers_ok;
    uint32_t vm;            /* VM class index */
};

struct TlField {
    const char *name;
    TlPos pos;
    TlType *type;
    TlClass *owner;
    uint32_t vm;            /* VM field index */
};

typedef enum { M_FUNC, M_EXTERN, M_VIRTUAL, M_STATIC, M_INIT, M_IFACE } TlMethodKind;

struct TlMethod {
    const char *name;
    TlPos pos;
    uint8_t kind;
    bool is_abstract;
    TlClass *owner;         /* NULL for functions */
    TlFunc *fn;
    TlFile *file;
    TlType **params;        /* language parameter types (no receiver) */
    uint32_t nparams;
    TlType *ret;            /* TY_VOID for none */
    TlType *ftype;          /* FUNC/EXTERN: the function type */
    TlMethod *overrides;    /* virtual: the superclass method it overrides */
    TlType **eparams;       /* erased signature the VM sees (no receiver): for */
    TlType *eret;           /*   overrides and implementations, the base's */
    int32_t slot;           /* virtual: vtable slot; iface: position */
    TlMethod *bridge_to;    /* bridge `name$Iface` (fn NULL): the method it */
    TlMethod *bridge_for;   /*   calls virtually, the interface method it implements */
    /* emit */
    uint32_t vm;            /* VM method index (natives: native index) */
    uint32_t *vm_params;    /* VM types of the parameters (no receiver) */
    uint32_t vm_ret;
    bool vm_sig_done;
    uint32_t wrapper;       /* VM index + 1 of the `name$fn` lambda */
    TlLocal *self;          /* checker: the receiver of a method or init */
    uint32_t nlambdas;      /* for naming `name$lambdaN` */
};

struct TlGlobal {
    const char *name;
    TlPos pos;
    TlDecl *decl;
    TlFile *file;
    TlType *type;
    bool mutable_;
    uint8_t state;          /* 0 type unknown, 1 inferring, 2 type known, 3 init checked */
    uint32_t vm;
};

struct TlLocal {
    const char *name;
    TlPos pos;
    TlType *type;
    bool mutable_, loopvar, is_self;
    uint32_t fdepth;        /* function nesting level that owns it (0 = method) */
    uint32_t scope;         /* checker: block scope id (duplicate detection) */
    TlLocal *shadow;        /* checker: outer binding of the same name */
    int32_t reg;            /* emit: register in the owning function */
};

typedef enum { SYM_CLASS = 1, SYM_FUNC, SYM_GLOBAL } TlSymKind;

typedef struct TlSym {
    uint8_t kind;
    TlPos pos;
    void *p;                /* TlClass, TlMethod, TlGlobal */
} TlSym;

/* ---- the compiler ------------------------------------------------------- */

typedef struct TlChunk TlChunk;

struct TlCompiler {
    const TlOptions *opt;
    FILE *diag;
    int nerrors, max_errors;
    int syntax_errors;       /* errors before checking (lexer, parser, imports) */
    TlChunk *arena;
    TlMap interned;          /* k1 = hash bucket string; see diag.c */
    TlFile **files;          /* [0] = main; others in discovery order */
    uint32_t nfiles, capfiles;
    TlFile **order;          /* files in initialization order (imports first) */
    uint32_t norder, caporder;
    TlMap globals;           /* (NULL, name) -> TlSym */
    TlMap members;           /* (class, name) -> TlField or TlMethod (tagged by map2) */
    TlMap member_kind;       /* (class, name) -> (void*)1 field, 2 method */
    TlMap undefined;         /* (NULL, name) -> reported */
    TlType **tytab;          /* interned types */
    size_t tycap, tyn;
    TlType *t_error, *t_void, *t_int, *t_float, *t_bool, *t_string, *t_object, *t_null;
    TlClass **classes;
    uint32_t nclasses, capclasses;
    TlMethod **funcs;        /* top-level functions and externs */
    uint32_t nfuncs, capfuncs;
    TlGlobal **gvars;        /* in initialization order */
    uint32_t ngvars, capgvars;
    TlMethod *main;
    TlMethod *ginit;         /* stands for `$init` (naming lambdas in global initializers) */
    /* names used everywhere, interned once */
    const char *n_main, *n_init, *n_length, *n_Object, *n_self;
    VmModule *m;             /* emit */
};

/* diag.c: arena, interning, maps, errors */
void *tl_alloc(TlCompiler *c, size_t n);                       /* zeroed */
char *tl_strndup(TlCompiler *c, const char *s, size_t n);
const char *tl_intern(TlCompiler *c, const char *s, size_t n);
/* Appends to an arena array whose capacity is tracked in *cap. */
void *tl_grow(TlCompiler *c, void *arr, uint32_t n, uint32_t *cap, size_t elem);
#define TL_PUSH(c, arr, n, cap) \
    ((arr) = tl_grow((c), (arr), (n), &(cap), sizeof *(arr)), &(arr)[(n)++])
void tl_error(TlCompiler *c, TlPos pos, TlDiag d, ...);
void tl_verror(TlCompiler *c, TlPos pos, TlDiag d, va_list ap);
const char *tl_pos_str(TlCompiler *c, TlPos pos);              /* "file:line:col" (arena) */
void tl_compiler_free(TlCompiler *c);

/* lex.c */
void tl_lex(TlCompiler *c, TlFile *f);
/* parse.c */
void tl_parse(TlCompiler *c, TlFile *f);

/* types.c */
void tl_types_init(TlCompiler *c);
TlType *tl_type_array(TlCompiler *c, TlType *elem);
TlType *tl_type_func(TlCompiler *c, TlType **params, uint32_t n, TlType *ret);
TlType *tl_type_class(TlCompiler *c, TlClass *cls, TlType **args, uint32_t n);
TlType *tl_type_param(TlCompiler *c, TlClass *cls, uint32_t index, const char *name);
TlType *tl_subst(TlCompiler *c, TlType *t, TlClass *cls, TlType **args);
bool tl_type_is_ref(const TlType *t);          /* string, Object, class, array, func, param, null */
bool tl_type_assignable(TlCompiler *c, TlType *from, TlType *to);
/* The instance type of `target` among the supertypes of class type t (with
 * substituted arguments), or NULL. */
TlType *tl_type_as_super(TlCompiler *c, TlType *t, TlClass *target);
/* Erasure: type parameters become Object, generic instances their raw class
 * (a class type without arguments); what the VM sees. */
TlType *tl_erase(TlCompiler *c, TlType *t);
const char *tl_type_str(TlCompiler *c, const TlType *t);      /* arena */
bool tl_type_has_param(const TlType *t);
/* The type of a value whose static type is `s`, obtained by substituting
 * type arguments into the declared type `d` of a generic member (a method
 * result or parameter, a field): s, with erased arrays where the VM holds
 * d's erasure instead of s's (see TlType.rt). */
TlType *tl_type_rt(TlCompiler *c, TlType *s, TlType *d);
bool tl_type_has_rt(const TlType *t);        /* mentions an erased array */
TlType *tl_type_strip(TlCompiler *c, TlType *t); /* the same without erased arrays */

/* check.c: declarations and classes; check_body.c: statements and expressions */
void tl_check_program(TlCompiler *c);
TlType *tl_resolve_type(TlCompiler *c, TlTypeExpr *te, TlClass *scope, bool in_static);
/* Looks a member up in a class or interface instance type and its
 * supertypes: field or method (*is_field tells), with the type arguments
 * of the declaring class in *owner_args. */
void *tl_lookup_member(TlCompiler *c, TlType *recv, const char *name, bool *is_field,
                       TlType ***owner_args);
void *tl_class_member(TlCompiler *c, TlClass *cls, const char *name, bool *is_field);
void tl_check_bodies(TlCompiler *c);
void tl_resolve_global(TlCompiler *c, TlGlobal *g);

/* emit.c */
bool tl_emit_program(TlCompiler *c, const char *main_path);

#endif
