/* lang/lang.h — the tally language front end (prefix tl_ / Tl).
 *
 *   source.tl ─lex─▶ tokens ─parse─▶ AST ─resolve/check─▶ typed AST
 *                                              │ imports pulled in, one
 *                                              ▼ program for all files
 *                                     emit ─▶ VmModule (vm/vm.h), which
 *                                     the VM verifies like any module
 *
 * The front end only produces modules; it never runs code.  Errors are
 * reported as `file:line:col: error: message`, the source line and a caret
 * line under the column; compilation goes on after an error where it can
 * (without cascades of follow-on errors) and reports them all.
 */
#ifndef TALLY_LANG_H
#define TALLY_LANG_H

#include "vm.h"

typedef struct TlOptions {
    const char *stdlib_dir;   /* where `import "name"` finds name.tl */
    int max_errors;           /* stop reporting after this many (0 = 20) */
    bool confine_imports;     /* only imports under the main file's directory or stdlib_dir */
} TlOptions;

/* Compiles the program whose main file is `path`, with its imports, into
 * one module.  Diagnostics go to `diag`.  Returns NULL when there were
 * errors; *nerrors (if non-NULL) gets their count. */
VmModule *tl_compile_file(const char *path, const TlOptions *opt, FILE *diag, int *nerrors);

/* The same for source text in memory (`path` names it in messages and
 * is the base for relative imports). */
VmModule *tl_compile_source(const char *path, const char *text, size_t len, const TlOptions *opt,
                            FILE *diag, int *nerrors);

#endif
