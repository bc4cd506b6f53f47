/* vm/native.c — binding and calling natives: built-ins and libffi externs.
 *
 * Input: a module's VmNative entries (verified: type indices are in range),
 * the VM's vm.natives policy, and, at run time, CALLN's argument registers.
 * Output: vm_native_bind fills n->builtin, or n->fn and n->cif; errors name
 * the library, symbol or type at fault.  vm_native_call returns the result
 * register.
 * Invariants: binding is the only way to a C function: n->fn is set here
 * and nowhere else, and the interpreter and compiled code call only bound
 * natives, so an extern the policy refuses (checked before its library is
 * opened: dlopen runs the library's constructors) can never run.  The
 * allow-list is natives_allowed.def.
 * Each library is dlopen()ed at most once per process and never
 * closed (bound symbols stay valid for every module).  n->cif is ONE malloc
 * block starting with the ffi_cif (vm_module_free frees it with free()):
 * the argument type array and the per-argument conversions live in the
 * same block, so they last exactly as long as the cif.
 */
#include "vm.h"

#include <dlfcn.h>
#include <ffi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Longest parameter list an extern may have; bounds the call's stack use. */
#define MAX_NATIVE_PARAMS 64

/* How a value crosses the boundary, per parameter and for the result. */
enum {
    CONV_VOID,
    CONV_INT,     /* int64_t */
    CONV_FLOAT,   /* double */
    CONV_BOOL,    /* int, 0/1 */
    CONV_STRING,  /* const char * to the bytes */
    CONV_ARRAY,   /* pointer to the elements */
};

typedef struct NativeCif {
    ffi_cif cif;                            /* first: n->cif is an ffi_cif * */
    uint8_t ret;                            /* CONV_* */
    uint8_t conv[MAX_NATIVE_PARAMS];
    ffi_type *types[];                      /* nparams entries */
} NativeCif;

/* ---- signatures --------------------------------------------------------- */

/* "(T,T):R" in vm_type_format's spelling, as the built-in table has it. */
static void format_signature(const VmModule *m, const VmNative *n, char *buf, size_t size)
{
    VmBuf b = {0};
    char t[256];
    vm_buf_put(&b, "(", 1);
    for (uint32_t i = 0; i < n->nparams; i++) {
        if (i)
            vm_buf_put(&b, ",", 1);
        size_t k = vm_type_format(m, n->params[i], t, sizeof t);
        vm_buf_put(&b, t, k < sizeof t ? k : sizeof t - 1);
    }
    vm_buf_put(&b, "):", 2);
    size_t k = vm_type_format(m, n->ret, t, sizeof t);
    vm_buf_put(&b, t, k < sizeof t ? k : sizeof t - 1);
    size_t len = b.len < size - 1 ? b.len : size - 1;
    memcpy(buf, b.data, len);
    buf[len] = 0;
    vm_buf_free(&b);
}

static bool bind_builtin(const VmModule *m, VmNative *n, VmError *err)
{
    const char *want;
    VmBuiltinFn fn = vm_builtin_lookup(n->symbol, &want);
    if (!fn)
        return vm_fail(err, "unknown built-in '%s'", n->symbol ? n->symbol : "");
    char have[512];
    format_signature(m, n, have, sizeof have);
    if (strcmp(have, want) != 0)
        return vm_fail(err, "built-in '%s' has signature %s, declared %s", n->symbol, want, have);
    n->builtin = fn;
    return true;
}

/* ---- which externs may bind (vm.natives, docs/security.md) -------------- */

static const char *const policy_names[] = {[VM_NATIVES_NONE] = "none", [VM_NATIVES_BUILTIN] = "builtin",
                                           [VM_NATIVES_ALL] = "all"};

bool vm_natives_parse(const char *s, VmNativesPolicy *policy, VmError *err)
{
    int n = (int)(sizeof policy_names / sizeof *policy_names);
    char list[64] = "";
    for (int p = 0; p < n; p++) {
        if (s && !strcmp(s, policy_names[p])) {
            if (policy)
                *policy = (VmNativesPolicy)p;
            return true;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", p ? ", " : "", policy_names[p]);
    }
    return vm_fail(err, "vm.natives: '%s' is none of %s", s ? s : "", list);
}

typedef struct Allowed {
    const char *lib, *symbol, *signature;
} Allowed;

static const Allowed allowed[] = {
#define NATIVE_ALLOWED(lib, symbol, signature) {lib, symbol, signature},
#include "natives_allowed.def"
#undef NATIVE_ALLOWED
};

/* Whether the extern n may bind under `policy`; the message names its
 * library and symbol.  Built-ins are the VM's own code and always bind. */
static bool extern_allowed(const VmModule *m, const VmNative *n, VmNativesPolicy policy, VmError *err)
{
    const char *sym = n->symbol ? n->symbol : "";
    if (policy == VM_NATIVES_ALL)
        return true;
    if (policy == VM_NATIVES_NONE)
        return vm_fail(err,
                       "extern '%s' from '%s' refused: vm.natives=none allows no C function, not even the "
                       "standard library's (built-ins such as println still work)",
                       sym, n->lib);
    char have[512];
    format_signature(m, n, have, sizeof have);
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (!strcmp(allowed[i].lib, n->lib) && !strcmp(allowed[i].symbol, sym)) {
            if (strcmp(allowed[i].signature, have) != 0)
                return vm_fail(err,
                               "extern '%s' from '%s' refused: declared %s, vm.natives=builtin allows it "
                               "only as %s",
                               sym, n->lib, have, allowed[i].signature);
            return true;
        }
    return vm_fail(err,
                   "extern '%s' from '%s' refused: vm.natives=builtin allows only the standard library's "
                   "C functions (docs/security.md)",
                   sym, n->lib);
}

/* ---- libraries ---------------------------------------------------------- */

typedef struct Library {
    struct Library *next;
    void *handle;
    char name[];
} Library;

static Library *libraries;
static pthread_mutex_t libraries_lock = PTHREAD_MUTEX_INITIALIZER;

/* The handle of `name`, opened on first use; NULL + err when it fails
 * (a failure is not cached: the message should name the real cause). */
static void *open_library(const char *name, VmError *err)
{
    pthread_mutex_lock(&libraries_lock);
    void *handle = NULL;
    for (Library *l = libraries; l; l = l->next)
        if (strcmp(l->name, name) == 0) {
            handle = l->handle;
            break;
        }
    if (!handle) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *why = dlerror();
            vm_fail(err, "cannot open library '%s': %s", name, why ? why : "unknown error");
        } else {
            size_t len = strlen(name) + 1;
            Library *l = malloc(sizeof *l + len);
            if (l) {  /* no memory for the cache: still usable, maybe reopened */
                memcpy(l->name, name, len);
                l->handle = handle;
                l->next = libraries;
                libraries = l;
            }
        }
    }
    pthread_mutex_unlock(&libraries_lock);
    return handle;
}

/* ---- externs ------------------------------------------------------------ */

/* The conversion and ffi type for a module type, or false if none. */
static bool map_type(const VmModule *m, uint32_t ti, bool is_ret, uint8_t *conv, ffi_type **ft)
{
    if (ti >= m->ntypes)
        return false;
    const VmType *t = &m->types[ti];
    switch (t->kind) {
    case VM_T_VOID:
        *conv = CONV_VOID, *ft = &ffi_type_void;
        return is_ret;
    case VM_T_INT:
        *conv = CONV_INT, *ft = &ffi_type_sint64;
        return true;
    case VM_T_FLOAT:
        *conv = CONV_FLOAT, *ft = &ffi_type_double;
        return true;
    case VM_T_BOOL:
        *conv = CONV_BOOL, *ft = &ffi_type_sint32;
        return true;
    case VM_T_STRING:
        *conv = CONV_STRING, *ft = &ffi_type_pointer;
        return true;
    case VM_T_ARRAY: {
        /* a returned pointer has no length to make an array from */
        if (is_ret || t->ref >= m->ntypes)
            return false;
        uint8_t ek = m->types[t->ref].kind;
        *conv = CONV_ARRAY, *ft = &ffi_type_pointer;
        return ek == VM_T_INT || ek == VM_T_FLOAT || ek == VM_T_BOOL;
    }
    default:
        return false;
    }
}

static bool boundary_error(const VmModule *m, uint32_t ti, VmError *err)
{
    char t[256];
    vm_type_format(m, ti, t, sizeof t);
    return vm_fail(err, "type %s cannot cross the native boundary", t);
}

static bool bind_extern(const VmModule *m, VmNative *n, VmError *err)
{
    if (n->nparams > MAX_NATIVE_PARAMS)
        return vm_fail(err, "%u parameters, at most %d can cross the native boundary", n->nparams,
                       MAX_NATIVE_PARAMS);
    NativeCif *nc = calloc(1, sizeof *nc + n->nparams * sizeof(ffi_type *));
    if (!nc)
        return vm_fail(err, "out of memory");
    for (uint32_t i = 0; i < n->nparams; i++)
        if (!map_type(m, n->params[i], false, &nc->conv[i], &nc->types[i])) {
            free(nc);
            return boundary_error(m, n->params[i], err);
        }
    ffi_type *rt;
    if (!map_type(m, n->ret, true, &nc->ret, &rt)) {
        free(nc);
        return boundary_error(m, n->ret, err);
    }
    const char *sym = n->symbol ? n->symbol : "";
    void *handle = open_library(n->lib, err);
    if (!handle) {
        free(nc);
        return false;
    }
    dlerror();  /* a NULL symbol value is only an error if dlerror says so */
    void *fn = dlsym(handle, sym);
    if (!fn || dlerror()) {
        free(nc);
        return vm_fail(err, "symbol '%s' not found in '%s'", sym, n->lib);
    }
    if (ffi_prep_cif(&nc->cif, FFI_DEFAULT_ABI, n->nparams, rt, nc->types) != FFI_OK) {
        free(nc);
        return vm_fail(err, "libffi cannot describe the signature");
    }
    free(n->cif);  /* bound before (a second link): replace */
    n->cif = nc;
    n->fn = fn;
    n->builtin = NULL;
    return true;
}

bool vm_native_bind(Vm *vm, VmModule *m, VmNative *n, VmError *err)
{
    for (uint32_t i = 0; i < n->nparams; i++)
        if (n->params[i] >= m->ntypes)
            return vm_fail(err, "bad parameter type index %u", n->params[i]);
    if (n->ret >= m->ntypes)
        return vm_fail(err, "bad return type index %u", n->ret);
    if (!n->lib || !n->lib[0])
        return bind_builtin(m, n, err);
    VmNativesPolicy policy = VM_NATIVES_ALL;
    if (vm && !vm_natives_parse(vm->tun.natives, &policy, err))
        return false;
    if (!extern_allowed(m, n, policy, err))
        return false;
    return bind_extern(m, n, err);
}

/* ---- calls -------------------------------------------------------------- */

VmValue vm_native_call(VmThread *t, VmNative *n, VmValue *args)
{
    if (n->builtin)
        return n->builtin(t, args);
    NativeCif *nc = n->cif;
    uint32_t np = nc->cif.nargs;
    /* one storage slot per argument, in the C type libffi reads */
    union { int64_t i; double f; int b; void *p; } store[np ? np : 1];
    void *avalues[np ? np : 1];
    for (uint32_t i = 0; i < np; i++) {
        switch (nc->conv[i]) {
        case CONV_INT:
            store[i].i = args[i].i;
            break;
        case CONV_FLOAT:
            store[i].f = args[i].f;
            break;
        case CONV_BOOL:
            store[i].b = args[i].i != 0;
            break;
        case CONV_STRING:
            /* C code takes a string or array pointer on trust: null stops
             * here as it would at any other use, not as a crash in C */
            if (!args[i].p)
                vm_raise(t, "null dereference");
            store[i].p = ((VmString *)args[i].p)->bytes;
            break;
        case CONV_ARRAY:
            if (!args[i].p)
                vm_raise(t, "null dereference");
            store[i].p = (void *)&((VmArray *)args[i].p)->data;
            break;
        }
        avalues[i] = &store[i];
    }
    /* integral results narrower than a register come back as ffi_arg */
    union { ffi_arg a; int64_t i; double f; void *p; } rv = {0};
    ffi_call(&nc->cif, FFI_FN(n->fn), &rv, avalues);
    switch (nc->ret) {
    case CONV_INT:
        return (VmValue){.i = rv.i};
    case CONV_FLOAT:
        return (VmValue){.f = rv.f};
    case CONV_BOOL:
        return (VmValue){.i = (int)rv.a != 0};
    case CONV_STRING:
        return (VmValue){.p = rv.p ? vm_new_string(t, rv.p, (int64_t)strlen(rv.p)) : NULL};
    default:
        return (VmValue){.i = 0};
    }
}
