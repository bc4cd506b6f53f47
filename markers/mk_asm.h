/* markers/mk_asm.h — gcc's x86-64 AT&T assembly, statement by statement:
 * what the scanner (scan.c) and the rewriter (rewrite.c) both read.  Not
 * part of the module's API (markers.h); nothing outside markers/ includes
 * it.
 *
 * A line is split at `#` (a comment, outside quotes) and at `;` (gas's
 * statement separator); each piece is zero or more labels (`name:`) and
 * then at most one directive (`.name args`) or instruction (prefixes,
 * mnemonic, operands).  The spans point into the line: nothing is copied.
 */
#ifndef TALLY_MK_ASM_H
#define TALLY_MK_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct MkSpan {
    const char *s;
    size_t n;
} MkSpan;

typedef enum MkItemKind { MK_ITEM_LABEL, MK_ITEM_DIRECTIVE, MK_ITEM_INSN } MkItemKind;

typedef struct MkItem {
    MkItemKind kind;
    MkSpan name;      /* the label, the directive (".comm"), the mnemonic (prefixes skipped) */
    MkSpan args;      /* operands or directive arguments, trimmed */
    MkSpan text;      /* the whole statement, prefixes included, trimmed */
} MkItem;

typedef struct MkCursor {
    const char *p, *end;      /* the rest of the line */
    const char *stmt_end;     /* the end of the current statement (';' or the line's end) */
} MkCursor;

void mk_cursor_init(MkCursor *c, const char *line, size_t len);
/* The line's next item; false at its end. */
bool mk_cursor_next(MkCursor *c, MkItem *it);

/* Characters of symbols and labels (gcc's: letters, digits, '_', '.'). */
static inline bool mk_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

static inline bool mk_ident_char(char c)
{
    return mk_ident_start(c) || (c >= '0' && c <= '9');
}

static inline bool mk_span_eq(MkSpan a, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return a.n == n && (n == 0 || __builtin_memcmp(a.s, s, n) == 0);
}

/* A name shaped like a marker, <fn>_mk<k>: a non-empty fn, k in decimal
 * without leading zeros and below 2^32. */
bool mk_marker_name(MkSpan name, size_t *fnlen, uint32_t *k);

/* How an instruction refers to a marker-shaped symbol. */
typedef enum MkRef {
    MK_REF_LOAD,      /* sym(%rip) read (mov from it, cmp, push, ...) */
    MK_REF_WRITE,     /* sym(%rip) as the memory destination */
    MK_REF_OTHER,     /* any other form: lea, @GOTPCREL, sym+8(%rip), $sym, absolute */
} MkRef;

/* Calls fn for every marker-shaped symbol the instruction names (in
 * operand order), with how it refers to it and, for writes, whether the
 * write also reads it (addq $1, ...). */
typedef void (*MkRefFn)(void *ctx, MkSpan sym, MkRef ref, bool rmw);
void mk_insn_refs(const MkItem *insn, MkRefFn fn, void *ctx);

/* The marker-shaped symbol insn writes as sym(%rip), if it writes one
 * (the first when it names several). */
bool mk_insn_write(const MkItem *insn, MkSpan *sym, bool *rmw);

#endif
