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
 * - The program runs on a thread of its own whose C stack (vm.cstack,
 *   reserved lazily) is large enough for vm.max_frames compiled frames, so
 *   deep recursion ends with the same "stack overflow" (at the same depth)
 *   whether the frames are interpreted, which use no C stack, or compiled.
 * - vm.cpu pins that thread alone: every helper thread (JIT, auditor,
 *   stats writer, collector markers) is started before vm_run and keeps
 *   the CPUs it had.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "vm.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define CSTACK_DEFAULT (8u << 20)  /* assumed when the stack cannot be queried */
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
    t->steps_left = vm->tun.max_steps > 0 ? vm->tun.max_steps : INT64_MAX;
    /* calloc of a large block maps fresh zero pages: nothing touched yet */
    t->stack = calloc((size_t)slots, sizeof(VmValue));
    /* frames[-1] is a sentinel: the "no frame yet" top frame, whose empty
     * window ends where the first frame's begins, so that a call finds its
     * base in fp->top without testing whether there is a caller */
    VmFrame *fr = calloc((size_t)frames + 1, sizeof(VmFrame));
    if (!t->stack || !fr || !vm_gc_add_thread(t)) {
        free(t->stack);
        free(fr);
        free(t);
        return NULL;
    }
    t->frames = fr + 1;
    t->stack_end = t->stack + slots;
    t->stack_hwm = t->stack;
    t->frames_end = t->frames + frames;
    t->fp = t->frames - 1;
    t->fp->base = t->fp->top = t->stack;

    /* The limit is the calling thread's real stack bottom plus a margin for
     * natives, printing and libc. */
    char here;
    uintptr_t lowest = 0;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t sz;
        if (pthread_attr_getstack(&attr, &addr, &sz) == 0 && (uintptr_t)addr < (uintptr_t)&here)
            lowest = (uintptr_t)addr;
        pthread_attr_destroy(&attr);
    }
    if (!lowest) {
        size_t size = CSTACK_DEFAULT;
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < size)
            size = rl.rlim_cur;
        lowest = (uintptr_t)&here > size ? (uintptr_t)&here - size : 0;
    }
    size_t avail = (uintptr_t)&here - lowest;
    size_t margin = CSTACK_MARGIN < avail / 4 ? CSTACK_MARGIN : avail / 4;
    t->cstack_limit = (char *)(lowest + margin);
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
    free(t->frames - 1);
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

/* Runs the module on the calling thread; returns the exit status. */
static int run_here(Vm *vm)
{
    VmModule *m = vm->module;
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

typedef struct Runner {
    Vm *vm;
    int status;
} Runner;

static void *runner(void *arg)
{
    Runner *r = arg;
    pthread_setname_np(pthread_self(), "tally-run");   /* for perf, top -H, gdb */
    r->status = run_here(r->vm);
    return NULL;
}

static void *join_runner(void *th)
{
    pthread_join(*(pthread_t *)th, NULL);
    return NULL;
}

bool vm_cpu_parse(const char *s, int *cpu, VmError *err)
{
    *cpu = -1;
    if (!s || !*s)
        return true;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < 0 || v >= CPU_SETSIZE)
        return vm_fail(err, "tunable 'vm.cpu' expects a CPU number, got '%s'", s);
    cpu_set_t set;
    bool known = sched_getaffinity(0, sizeof set, &set) == 0;
    if (!known || !CPU_ISSET((int)v, &set))
        return vm_fail(err, "tunable 'vm.cpu': CPU %ld is not one this process may run on (%d CPUs)", v,
                       known ? CPU_COUNT(&set) : 0);
    *cpu = (int)v;
    return true;
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
    /* a thread with a big stack (pthread_create is the collector's, so the
     * thread is registered); where that is refused, the current thread */
    Runner r = {vm, 1};
    pthread_attr_t attr;
    pthread_t th;
    bool started = false;
    int cpu;
    cpu_set_t one;
    VmError err;
    if (!vm_cpu_parse(vm->tun.cpu, &cpu, &err)) {   /* main checked it; a library caller may not have */
        fflush(stdout);
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    CPU_ZERO(&one);
    if (cpu >= 0)
        CPU_SET(cpu, &one);
    if (vm->tun.cstack > 0 && pthread_attr_init(&attr) == 0) {
        started = pthread_attr_setstacksize(&attr, (size_t)vm->tun.cstack) == 0 &&
                  (cpu < 0 || pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0) &&
                  !vm_fault(VM_FAULT_THREAD) && pthread_create(&th, &attr, runner, &r) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        if (vm->tun.cstack > 0)
            fprintf(stderr, "tally: warning: cannot start the program's thread; it runs on the main thread's stack\n");
        if (cpu >= 0)
            pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return run_here(vm);
    }
    /* Blocked, this thread is not stopped at each collection: every stop
     * of the world would otherwise signal it out of its join and back. */
    GC_do_blocking(join_runner, &th);
    return r.status;
}
