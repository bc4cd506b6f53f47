/* lang/compile.c — the front end's driver: files, imports, phases.
 *
 * Input: the main file (path or text) and options.  Output: a VmModule, or
 * NULL after errors (reported on `diag`, counted in *nerrors).
 * Imports: `import "name"` loads <stdlib_dir>/name.tl for a bare name, and
 * a path relative to the importing file when the name contains `/` or
 * ends in `.tl`.  Each file is loaded once (identified by its real path),
 * so import cycles are harmless; all files share one global namespace.
 * Only regular files are imported (a device or FIFO would never end);
 * with TlOptions.confine_imports (--sandbox) only those under the main
 * file's directory or the standard library's, so that a program cannot
 * have any other file read and shown in diagnostics.
 * Files are initialized imports first (post-order of the import graph),
 * which is the order of TlCompiler.order.
 * Invariants: after syntax errors the resynchronized trees are still
 * checked (error nodes are silent, so no follow-on errors from half-parsed
 * code); nothing is emitted after any error.
 */
#include "ast.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Source {
    char *real;        /* realpath, for identity */
    VmBuf buf;
} Source;

typedef struct Driver {
    TlCompiler *c;
    Source *srcs;
    uint32_t nsrcs, cap;
    uint8_t *state;    /* per file: 0 new, 1 visiting, 2 ordered */
} Driver;

static TlFile *add_file(Driver *d, const char *path, const char *text, size_t len, const char *real)
{
    TlCompiler *c = d->c;
    TlFile *f = tl_alloc(c, sizeof *f);
    f->path = tl_strndup(c, path, strlen(path));
    f->text = text;
    f->len = len;
    f->index = c->nfiles;
    *TL_PUSH(c, c->files, c->nfiles, c->capfiles) = f;
    if (d->nsrcs >= d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->srcs = realloc(d->srcs, d->cap * sizeof *d->srcs);
        if (!d->srcs)
            abort();
    }
    Source *s = &d->srcs[d->nsrcs++];
    memset(s, 0, sizeof *s);
    s->real = real ? strdup(real) : NULL;
    tl_lex(c, f);
    tl_parse(c, f);
    return f;
}

/* Whether real (a real path) lies under the directory of the real path
 * `file` (dir_of) or under the directory dir itself. */
static bool under(const char *real, const char *base, bool dir_of)
{
    char rb[PATH_MAX];
    if (!base || !realpath(base, rb))
        return false;
    if (dir_of) {
        char *slash = strrchr(rb, '/');
        if (!slash)
            return false;
        slash[1] = 0;
    } else if (rb[strlen(rb) - 1] != '/') {
        strncat(rb, "/", sizeof rb - strlen(rb) - 1);
    }
    return strncmp(real, rb, strlen(rb)) == 0;
}

/* The path an import names, relative to the importing file. */
static char *import_path(TlCompiler *c, TlFile *from, const char *name)
{
    size_t n = strlen(name);
    bool relative = strchr(name, '/') || (n > 3 && strcmp(name + n - 3, ".tl") == 0);
    char *out;
    if (!relative) {
        const char *dir = c->opt && c->opt->stdlib_dir ? c->opt->stdlib_dir : "stdlib";
        size_t k = strlen(dir) + n + 8;
        out = tl_alloc(c, k);
        snprintf(out, k, "%s/%s.tl", dir, name);
        return out;
    }
    if (name[0] == '/')
        return tl_strndup(c, name, n);
    const char *slash = strrchr(from->path, '/');
    size_t dn = slash ? (size_t)(slash - from->path) + 1 : 0;
    out = tl_alloc(c, dn + n + 1);
    memcpy(out, from->path, dn);
    memcpy(out + dn, name, n + 1);
    return out;
}

static void load_imports(Driver *d, TlFile *f)
{
    TlCompiler *c = d->c;
    for (uint32_t i = 0; i < f->ndecls; i++) {
        TlDecl *decl = f->decls[i];
        if (decl->kind != D_IMPORT || !decl->name)
            continue;
        char *path = import_path(c, f, decl->name);
        char real[PATH_MAX];
        if (!realpath(path, real)) {
            if (errno == ENOENT || errno == ENOTDIR)
                tl_error(c, decl->pos, TL_D_IMPORT_NOT_FOUND, decl->name, "no such file");
            else
                tl_error(c, decl->pos, TL_D_CANNOT_READ, path, strerror(errno));
            continue;
        }
        struct stat st;
        if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
            tl_error(c, decl->pos, TL_D_CANNOT_READ, path, strerror(EISDIR));
            continue;
        }
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
            tl_error(c, decl->pos, TL_D_CANNOT_READ, path, "not a regular file");
            continue;
        }
        if (c->opt && c->opt->confine_imports && !under(real, d->srcs[0].real, true) &&
            !under(real, c->opt->stdlib_dir ? c->opt->stdlib_dir : "stdlib", false)) {
            tl_error(c, decl->pos, TL_D_CANNOT_READ, path,
                     "outside the program's directory and the standard library (--sandbox)");
            continue;
        }
        bool seen = false;
        for (uint32_t k = 0; k < d->nsrcs && !seen; k++)
            seen = d->srcs[k].real && strcmp(d->srcs[k].real, real) == 0;
        if (seen)
            continue;
        VmBuf buf = {0};
        VmError err = {{0}};
        if (!vm_read_file(real, &buf, &err)) {
            tl_error(c, decl->pos, TL_D_CANNOT_READ, path, strerror(errno ? errno : EIO));
            vm_buf_free(&buf);
            continue;
        }
        TlFile *nf = add_file(d, path, (const char *)(buf.data ? buf.data : (uint8_t *)""), buf.len, real);
        d->srcs[nf->index].buf = buf;
    }
}

/* Post-order over imports: a file comes after everything it imports. */
static void order_files(Driver *d, TlFile *f)
{
    TlCompiler *c = d->c;
    /* explicit stack: import chains may be long */
    uint32_t *stack = malloc((c->nfiles + 1) * sizeof *stack);
    uint32_t *next = malloc((c->nfiles + 1) * sizeof *next);
    if (!stack || !next)
        abort();
    uint32_t sp = 0;
    stack[sp] = f->index;
    next[sp++] = 0;
    d->state[f->index] = 1;
    while (sp) {
        TlFile *cur = c->files[stack[sp - 1]];
        bool pushed = false;
        while (next[sp - 1] < cur->ndecls) {
            TlDecl *decl = cur->decls[next[sp - 1]++];
            if (decl->kind != D_IMPORT || !decl->name)
                continue;
            char *path = import_path(c, cur, decl->name);
            char real[PATH_MAX];
            if (!realpath(path, real))
                continue;
            for (uint32_t k = 0; k < c->nfiles; k++)
                if (d->srcs[k].real && strcmp(d->srcs[k].real, real) == 0 && d->state[k] == 0) {
                    d->state[k] = 1;
                    stack[sp] = k;
                    next[sp++] = 0;
                    pushed = true;
                    break;
                }
            if (pushed)
                break;
        }
        if (!pushed) {
            d->state[cur->index] = 2;
            *TL_PUSH(c, c->order, c->norder, c->caporder) = cur;
            sp--;
        }
    }
    free(stack);
    free(next);
}

VmModule *tl_compile_source(const char *path, const char *text, size_t len, const TlOptions *opt,
                            FILE *diag, int *nerrors)
{
    TlCompiler c = {.opt = opt, .diag = diag};
    c.max_errors = opt && opt->max_errors > 0 ? opt->max_errors : 20;
    Driver d = {.c = &c};
    c.n_init = tl_intern(&c, "init", 4);   /* the parser names init methods */
    char real[PATH_MAX];
    const char *rp = realpath(path, real) ? real : NULL;
    add_file(&d, path, text, len, rp);
    /* imports discovered while loading are appended: a worklist */
    for (uint32_t i = 0; i < c.nfiles; i++)
        load_imports(&d, c.files[i]);
    VmModule *m = NULL;
    /* after syntax errors the (resynchronized) trees are still checked, so
     * independent errors are found too; error nodes have the error type,
     * which silences everything derived from them */
    c.syntax_errors = c.nerrors;
    d.state = calloc(c.nfiles + 1, 1);
    if (!d.state)
        abort();
    order_files(&d, c.files[0]);
    tl_check_program(&c);
    if (!c.nerrors && tl_emit_program(&c, path))
        m = c.m;
    else if (c.m)
        vm_module_free(c.m);
    if (nerrors)
        *nerrors = c.nerrors;
    for (uint32_t i = 0; i < d.nsrcs; i++) {
        free(d.srcs[i].real);
        vm_buf_free(&d.srcs[i].buf);
    }
    free(d.srcs);
    free(d.state);
    tl_compiler_free(&c);
    return m;
}

VmModule *tl_compile_file(const char *path, const TlOptions *opt, FILE *diag, int *nerrors)
{
    VmBuf buf = {0};
    VmError err = {{0}};
    if (!vm_read_file(path, &buf, &err)) {
        if (diag)
            fprintf(diag, "error: cannot read '%s': %s\n", path, strerror(errno ? errno : EIO));
        if (nerrors)
            *nerrors = 1;
        vm_buf_free(&buf);
        return NULL;
    }
    VmModule *m = tl_compile_source(path, buf.data ? (const char *)buf.data : "", buf.len, opt, diag, nerrors);
    vm_buf_free(&buf);
    return m;
}
