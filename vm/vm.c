/* vm/vm.c — the VM object, threads, and running a linked module.
 *
 * Input: tunables (vm_new), a module vm_link prepared (vm_run).  Output:
 * the program's effects and its exit status.
 *
 * Invariants:
 * - The built-in classes Object (depth 0) and string (depth 1) exist for
 *   the VM's whole life; runtime classes of the module refer to them.
 * - A thread's register stack is reserved whole at creation but only
 *   touched as calls go deeper, so its size costs address space, not
 *   memory; the GC scans it up to stack_hwm only.
 * - vm_run is the only place run-time errors unwind to (t->escape); after
 *   it returns, stdout has been flushed.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "vm.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define CSTACK_CAP (8u << 20)      /* C stack assumed at most this big */
#define CSTACK_MARGIN (256u << 10) /* kept free for natives, printing, libc */

static VmClass *builtin_class(const char *name, uint8_t rkind, VmClass *super)
{
    VmClass *c = calloc(1, sizeof *c);
    char *n = strdup(name);
    uint32_t depth = super ? super->depth + 1 : 0;
    VmClass **display = calloc(depth + 1, sizeof *display);
    if (!c || !n || !display) {
        free(c);
        free(n);
        free(display);
        return NULL;
    }
    c->name = n;
    c->rkind = rkind;
    c->index = VM_NONE;
    c->super = VM_NONE;
    c->superc = super;
    c->depth = depth;
    if (super)
        memcpy(display, super->display, depth * sizeof *display);
    display[depth] = c;
    c->display = display;
    c->size = sizeof(VmObject);
    return c;
}

/* Frees a class made outside a module table (built-in or runtime). */
static void free_class(VmClass *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->display);
    free(c);
}

Vm *vm_new(const VmTunables *tun)
{
    Vm *vm = calloc(1, sizeof *vm);
    if (!vm)
        return NULL;
    if (tun)
        vm->tun = *tun;
    else
        vm_tunables_default(&vm->tun);
    vm_gc_init(vm);
    vm->object_class = builtin_class("Object", VM_RK_OBJECT, NULL);
    vm->string_class = vm->object_class ? builtin_class("string", VM_RK_STRING, vm->object_class) : NULL;
    if (!vm->string_class) {
        vm_free(vm);
        return NULL;
    }
    return vm;
}

void vm_free(Vm *vm)
{
    if (!vm)
        return;
    if (vm->main)
        vm_thread_free(vm->main);
    for (uint32_t i = 0; i < vm->nrtclasses; i++)
        free_class(vm->rtclasses[i]);
    free(vm->rtclasses);
    for (uint32_t i = 0; i < vm->nroots; i++)
        GC_FREE(vm->roots[i]);
    free(vm->roots);
    free_class(vm->string_class);
    free_class(vm->object_class);
    free(vm);
}

/* ---- threads ------------------------------------------------------------ */

VmThread *vm_thread_new(Vm *vm)
{
    int64_t slots = vm->tun.stack_slots, frames = vm->tun.max_frames;
    if (slots < 256)
        slots = 256;
    if (frames < 16)
        frames = 16;
    if ((uint64_t)slots > SIZE_MAX / sizeof(VmValue) / 2 || (uint64_t)frames > SIZE_MAX / sizeof(VmFrame) / 2)
        return NULL;
    VmThread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->vm = vm;
    /* calloc of a large block maps fresh zero pages: nothing touched yet */
    t->stack = calloc((size_t)slots, sizeof(VmValue));
    t->frames = calloc((size_t)frames, sizeof(VmFrame));
    if (!t->stack || !t->frames || !vm_gc_add_thread(t)) {
        free(t->stack);
        free(t->frames);
        free(t);
        return NULL;
    }
    t->stack_end = t->stack + slots;
    t->stack_hwm = t->stack;
    t->frames_end = t->frames + frames;
    t->fp = t->frames - 1;

    /* The limit is measured from here, near the thread's stack top; the
     * margin covers what callers above already use. */
    size_t size = CSTACK_CAP;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < size)
        size = rl.rlim_cur;
    size_t margin = CSTACK_MARGIN < size / 4 ? CSTACK_MARGIN : size / 4;
    char here;
    uintptr_t top = (uintptr_t)&here;
    t->cstack_limit = (char *)(top > size ? top - size + margin : margin);
    return t;
}

void vm_thread_free(VmThread *t)
{
    if (!t)
        return;
    vm_gc_remove_thread(t);
    if (t->vm && t->vm->main == t)
        t->vm->main = NULL;
    free(t->stack);
    free(t->frames);
    free(t);
}

/* ---- running ------------------------------------------------------------ */

/* The body of vm_run, out of line so no local is live across setjmp. */
static void run_module(VmThread *t, VmModule *m)
{
    if (m->init != VM_NONE && m->init < m->nmethods) {
        VmValue none[1] = {{0}};
        vm_call(t, &m->methods[m->init], none);
    }
    if (m->main == VM_NONE || m->main >= m->nmethods)
        return;
    VmMethod *mm = &m->methods[m->main];
    VmValue args[1] = {{0}};
    if (mm->nparams == 1 && mm->nregs >= 1 && mm->regs[0] < m->ntypes) {
        Vm *vm = t->vm;
        VmArray *a = vm_new_array(t, &m->types[mm->regs[0]], vm->argc);
        args[0].p = a;
        for (int i = 0; i < vm->argc; i++)
            a->data.p[i] = vm_new_string(t, vm->argv[i], (int64_t)strlen(vm->argv[i]));
    }
    vm_call(t, mm, args);
}

int vm_run(Vm *vm, int argc, char **argv)
{
    VmModule *m = vm->module;
    if (!m || !m->linked) {
        fflush(stdout);
        fprintf(stderr, "error: no linked module to run\n");
        return 1;
    }
    vm->argc = argc < 0 ? 0 : argc;
    vm->argv = argv;
    if (vm->main)
        vm_thread_free(vm->main);
    VmThread *t = vm_thread_new(vm);
    if (!t) {
        fflush(stdout);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    vm->main = t;
    jmp_buf escape;
    t->escape = &escape;
    t->status = 0;
    if (setjmp(escape) == 0)
        run_module(t, m);
    int status = t->status;
    t->escape = NULL;
    fflush(stdout);
    vm_thread_free(t);
    return status;
}
