/* vm/object.c — the heap: Boehm GC glue, object allocation, type tests.
 *
 * Input: linked classes and types (vm_link filled VmClass.size/has_refs,
 * VmType.cls/elem/canon).  Output: zeroed heap objects whose first word is
 * their VmClass, and the dynamic type test / interface lookup.
 *
 * Invariants:
 * - Every object is allocated through alloc() (vm_alloc), so an
 *   allocation failure (or gc.max_heap) always becomes the run-time error
 *   "out of memory" instead of a NULL the caller might miss; only the
 *   vm_try_* variants return NULL, for compiled code, which then retries
 *   with the raising variant after making the frames traces need.
 * - Compiled code pops small objects off t->gc_fl (pointer-holding) and
 *   t->gc_fl_atomic (pointer-free) inline (jit/codegen_obj.c) with the
 *   same index (vm_gc_fl_index) and the same
 *   header the functions here write (vm_object_size, vm_array_class,
 *   vm_closure_class ...).
 * - The heap (fields, elements, registers, free-list links) holds only
 *   pointers to an object's first byte; interior pointers live only in C
 *   and compiled code, on stacks and in registers, where the collector
 *   accepts them (gc.interior_pointers, vm_gc_init).
 * - Memory that holds no heap references (strings, number arrays, objects
 *   of classes without reference fields) is atomic: the collector never
 *   scans it.  Class descriptors live outside the GC heap, so an atomic
 *   object may still point at its class.
 * - Roots: the C stacks of registered threads (the collector's own), the
 *   uncollectable global and constant tables, and each live VmThread's
 *   register stack up to its high-water mark.  Only the used part of the
 *   register stack is scanned, because the whole reservation is tens of MB.
 */
#define GC_THREADS
/* gc_inline.h's fast path asserts the collector's own invariants unless
 * NDEBUG: a call of GC_size on every allocation (7% of an allocation-bound
 * program).  The VM does not test Boehm. */
#define GC_ASSERT(expr) ((void)0)
#include <gc/gc.h>
#include <gc/gc_inline.h>
#include <gc/gc_mark.h>

#include "vm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- collector set-up and roots ----------------------------------------- */

/* Threads whose register stacks are roots.  Mutated only while holding the
 * collector's allocation lock (GC_call_with_alloc_lock), which the
 * push-roots callback also runs under: no second lock can deadlock a
 * stopped world. */
static VmThread **live_threads;
static size_t nlive, caplive;
static GC_push_other_roots_proc prev_push_roots;
static bool gc_ready;

static void GC_CALLBACK push_register_stacks(void)
{
    for (size_t i = 0; i < nlive; i++) {
        VmThread *t = live_threads[i];
        if (!t->stack || !t->stack_hwm)
            continue;
        /* stack_hwm is the highest register used: scan it too */
        VmValue *top = t->stack_hwm + 1;
        if (top > t->stack_end)
            top = t->stack_end;
        /* Only the frames' registers are live: above the top frame lie
         * the dead registers of returned calls.  The interpreter soon
         * overwrites them, but compiled code keeps its locals on the C
         * stack and never does, so whatever the warm-up left there (old
         * graphs of a benchmark's earlier iterations) would stay
         * reachable forever.  Every caller copies arguments into the callee's
         * registers only after its frame is pushed or from live memory
         * (its own registers, a C buffer), and nothing allocates between,
         * so the live extent is the top frame's. */
        VmFrame *fp = t->fp;
        if (fp && fp >= t->frames && fp < t->frames_end && fp->m) {
            VmValue *live = fp->top + 1;
            if (live < top)
                top = live;
        } else if (fp && fp < t->frames) {
            top = t->stack;
        }
        if (top > t->stack)
            GC_push_all(t->stack, top);
        /* the free lists' objects are linked through their first word,
         * which the collector traces: the heads keep whole lists */
        GC_push_all(t->gc_fl, t->gc_fl + VM_GC_FL);
        /* ... except in atomic objects, which it never scans: each link is
         * a root of its own (what Boehm's thread-local lists get from
         * GC_mark_thread_local_free_lists); a list is a refill's worth */
        GC_push_all(t->gc_fl_atomic, t->gc_fl_atomic + VM_GC_FL);
        for (int i = 0; i < VM_GC_FL; i++)
            for (void **o = t->gc_fl_atomic[i]; (GC_word)o > VM_GC_FL_EMPTY; o = *o)
                GC_push_all(o, o + 1);
    }
    if (prev_push_roots)
        prev_push_roots();
}

static void *GC_CALLBACK add_thread_locked(void *arg)
{
    if (nlive == caplive) {
        size_t cap = caplive ? caplive * 2 : 8;
        VmThread **n = realloc(live_threads, cap * sizeof *n);
        if (!n)
            return NULL;
        live_threads = n;
        caplive = cap;
    }
    live_threads[nlive++] = arg;
    return arg;
}

static void *GC_CALLBACK remove_thread_locked(void *arg)
{
    for (size_t i = 0; i < nlive; i++)
        if (live_threads[i] == arg) {
            live_threads[i] = live_threads[--nlive];
            break;
        }
    return NULL;
}

bool vm_gc_add_thread(VmThread *t)
{
    return GC_call_with_alloc_lock(add_thread_locked, t) != NULL;
}

void vm_gc_remove_thread(VmThread *t)
{
    GC_call_with_alloc_lock(remove_thread_locked, t);
}

/* Allocation failure must reach vm_alloc as NULL, not abort the process. */
static void *GC_CALLBACK oom_returns_null(size_t bytes)
{
    (void)bytes;
    return NULL;
}

/* "out of memory" is reported by vm_alloc as a run-time error; the
 * collector's own notice of it (and of very large blocks, which programs
 * are entitled to ask for) would only add noise to the program's stderr. */
static void GC_CALLBACK filter_warnings(char *msg, GC_word arg)
{
    if (strstr(msg, "Out of Memory") || strstr(msg, "very large block"))
        return;
    fprintf(stderr, msg, (unsigned long)arg);
}

/* The compiler libraries' writable data is no root of ours: libgccjit
 * alone has ~3.4 MB of .data/.bss that gcc fills with pointers once the JIT
 * runs, and scanning it made every collection 2x slower and kept garbage
 * alive through false references.  Nothing of the VM's heap is ever
 * reachable only from there.  Neither from the JIT's loaded units (their
 * data is link slots, addresses the VM holds too; every unit is loaded
 * from a temporary directory, the code cache's too): each unit scanned
 * would take one of the collector's few root sets, and a long run loads
 * thousands. */
static int GC_CALLBACK scan_library(const char *name, void *start, size_t size)
{
    (void)start, (void)size;
    static const char *const skip[] = {"libgccjit.so", "libisl.so", "libmpfr.so", "libgmp.so",
                                       "libmpc.so", "libzstd.so", "libz.so", "/tally-jit-"};
    for (size_t i = 0; name && i < sizeof skip / sizeof *skip; i++)
        if (strstr(name, skip[i]))
            return 0;
    return 1;
}

/* Collection phases timed from the collector's events (GC_EVENT_*), on
 * the collecting thread under the allocation lock: marking, and the
 * sweep's eager part (the lazy rest runs in allocation and is not here).
 * Readers on other threads load them relaxed. */
static uint64_t gc_phase_start_ns, gc_mark_ns, gc_reclaim_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void GC_CALLBACK on_gc_event(GC_EventType e)
{
    uint64_t *sum = e == GC_EVENT_MARK_END ? &gc_mark_ns : e == GC_EVENT_RECLAIM_END ? &gc_reclaim_ns : NULL;
    if (e == GC_EVENT_MARK_START || e == GC_EVENT_RECLAIM_START)
        gc_phase_start_ns = now_ns();
    else if (sum && gc_phase_start_ns)
        __atomic_store_n(sum, *sum + (now_ns() - gc_phase_start_ns), __ATOMIC_RELAXED);
}

void vm_gc_init(Vm *vm)
{
    if (!gc_ready) {
        /* tests fork children that allocate; later tiers may fork tools */
        GC_set_handle_fork(1);
        GC_register_has_static_roots_callback(scan_library);
        if (vm && vm->tun.gc_markers > 0)
            GC_set_markers_count((unsigned)vm->tun.gc_markers);
        /* The heap holds only pointers to objects' first bytes (values,
         * free-list links); pointers into an interior come only from C
         * and compiled code, whose stacks and registers the collector
         * scans accepting them anyway.  Without heap interior pointers no
         * object needs the extra byte that puts a 16-, 32- or 48-byte
         * object into the next size class (6-16% fewer bytes allocated by
         * the object-heavy benchmarks, each swept and cleared), and
         * integers in objects retain less.  Only settable before GC_INIT. */
        if (!GC_is_init_called())
            GC_set_all_interior_pointers(vm ? (int)vm->tun.gc_interior_pointers : 1);
        GC_INIT();
        /* Boehm's 3 collects a heap with much live data (Havlak's graph:
         * 11 MB) after allocating a third of it: marking takes a third of
         * such a program's time.  2 trades the memory the missing extra byte
         * saves (above) for fewer collections; 0 keeps the collector's own
         * (or GC_FREE_SPACE_DIVISOR's) */
        if (vm && vm->tun.gc_free_space_divisor > 0)
            GC_set_free_space_divisor((GC_word)vm->tun.gc_free_space_divisor);
        if (vm && vm->tun.gc_min_alloc > 0)
            GC_set_min_bytes_allocd((size_t)vm->tun.gc_min_alloc);
        if (vm && vm->tun.gc_initial_heap > 0)
            GC_expand_hp((size_t)vm->tun.gc_initial_heap);
        GC_allow_register_threads();
        GC_start_performance_measurement();   /* collect_ms in vm_gc_stats */
        GC_set_on_collection_event(on_gc_event);
        GC_set_oom_fn(oom_returns_null);
        GC_set_warn_proc(filter_warnings);
        prev_push_roots = GC_get_push_other_roots();
        GC_set_push_other_roots(push_register_stacks);
        gc_ready = true;
    }
    /* Boehm's limit is process-wide: every new VM states its own (0 is
     * unlimited), so a VM never inherits the limit of one made before it */
    if (vm)
        GC_set_max_heap_size(vm->tun.gc_max_heap > 0 ? (GC_word)vm->tun.gc_max_heap : 0);
}

VmGcStats vm_gc_stats(void)
{
    /* unsynchronized getters: a reader on another thread may see a count
     * one collection old, never a torn word */
    return (VmGcStats){.collections = GC_get_gc_no(),
                       .bytes_allocated = GC_get_total_bytes(),
                       .heap_bytes = GC_get_heap_size(),
                       .collect_ms = GC_get_full_gc_total_time(),
                       .mark_us = __atomic_load_n(&gc_mark_ns, __ATOMIC_RELAXED) / 1000,
                       .reclaim_us = __atomic_load_n(&gc_reclaim_ns, __ATOMIC_RELAXED) / 1000};
}

int vm_gc_register_thread(void)
{
    struct GC_stack_base sb;
    if (GC_get_stack_base(&sb) != GC_SUCCESS)
        return -1;
    int r = GC_register_my_thread(&sb);
    return r == GC_SUCCESS ? 1 : r == GC_DUPLICATE ? 0 : -1;
}

void vm_gc_unregister_thread(void)
{
    GC_unregister_my_thread();
}

/* ---- allocation --------------------------------------------------------- */

_Static_assert(VM_GC_GRANULE == GC_GRANULE_BYTES, "vm_gc_fl_index must match Boehm's granules");
_Static_assert(VM_GC_FL_EMPTY == GC_TINY_FREELISTS + 1, "an empty list reads as Boehm's tiny lists do");
/* GC_generic_malloc_many hands out lists of "small" objects only: at most
 * half a 4 KB heap block */
_Static_assert((VM_GC_FL - 1) * VM_GC_GRANULE <= 2048, "VmThread.gc_fl: small objects only");

int vm_gc_fl_index(size_t size)
{
    /* whole granules, without the extra byte (vm_gc_init); with
     * gc.interior_pointers the lists hold objects of these sizes as well,
     * so a pointer just past an object's end is the next one's start */
    size_t granules = (size + VM_GC_SLACK) / VM_GC_GRANULE;
    return size <= SIZE_MAX - VM_GC_SLACK && granules < VM_GC_FL ? (int)granules : -1;
}

/* Pops an object of `granules` off the thread's list *fl, refilling the
 * list with a block's worth from the collector when it is empty; NULL when
 * the heap is exhausted.  The sizes past Boehm's tiny lists only (25 to 64
 * granules), which its GC_FAST_MALLOC_GRANS refuses: the same steps
 * without its counters (a list here is empty or a list) and without its
 * calls for manual dirty bits, which this collector does not use.  The
 * tiny sizes keep the macro: this function for every size tends to grow
 * the heap, for no gain in time, so it is used only where it is needed.
 * The link word of a
 * pointer-holding object is the caller's to clear.  GC-safe: the object
 * is reachable from the list (a root) until the pop, from p after it. */
static inline void *fl_pop(void **fl, size_t granules, int kind)
{
    void *p = *fl;
    if (__builtin_expect((GC_word)p <= VM_GC_FL_EMPTY, 0)) {
        GC_generic_malloc_many(granules ? granules * VM_GC_GRANULE : VM_GC_GRANULE, kind, fl);
        p = *fl;
        if (!p)
            return NULL;
    }
    void *next = *(void **)p;
    *fl = next;
    __builtin_prefetch(next, 1);   /* the next one's memory, for the next pop */
    return p;
}

/* Pointer-free memory, not cleared (strings fill theirs). */
static void *alloc_atomic_raw(VmThread *t, size_t size, bool quiet)
{
    void *p;
    int idx = t ? vm_gc_fl_index(size) : -1;
    if (idx >= GC_TINY_FREELISTS)
        p = fl_pop(&t->gc_fl_atomic[idx], (size_t)idx, GC_I_PTRFREE);
    else if (idx >= 0)
        GC_FAST_MALLOC_GRANS(p, (size_t)idx, t->gc_fl_atomic, 0, GC_I_PTRFREE,
                             GC_malloc_kind(size, GC_I_PTRFREE), (void)0);
    else
        p = GC_MALLOC_ATOMIC(size);
    if (!p && !quiet)
        vm_raise(t, "out of memory");
    return p;
}

/* The allocator of every object: NULL when the heap is exhausted (quiet),
 * the run-time error "out of memory" otherwise. */
static void *alloc(VmThread *t, size_t size, bool atomic, bool quiet)
{
    if (atomic) {
        void *p = alloc_atomic_raw(t, size, quiet);
        if (p)
            memset(p, 0, size);   /* pointer-free memory comes uncleared */
        return p;
    }
    void *p;
    int idx = t ? vm_gc_fl_index(size) : -1;
    if (idx >= 0) {
        /* from the thread's own free list (the fast path compiled code
         * inlines): Boehm's thread-local lists take a TLS lookup per
         * allocation through the shared library (__tls_get_addr) */
        if (idx < GC_TINY_FREELISTS) {
            GC_FAST_MALLOC_GRANS(p, (size_t)idx, t->gc_fl, 0, GC_I_NORMAL,
                                 GC_malloc_kind(size, GC_I_NORMAL), *(void **)p = 0);
        } else {
            p = fl_pop(&t->gc_fl[idx], (size_t)idx, GC_I_NORMAL);
            if (p)
                *(void **)p = 0;
        }
    } else {
        p = GC_MALLOC(size);
    }
    if (!p && !quiet)
        vm_raise(t, "out of memory");
    return p;
}


void *vm_alloc(VmThread *t, size_t size, bool atomic)
{
    return alloc(t, size, atomic, false);
}

size_t vm_object_size(const VmClass *c)
{
    return c->size >= sizeof(VmObject) ? c->size : sizeof(VmObject) + c->nfields * sizeof(VmValue);
}

static VmObject *new_object(VmThread *t, VmClass *c, bool quiet)
{
    VmObject *o = alloc(t, vm_object_size(c), !c->has_refs, quiet);
    if (o)
        o->cls = c;
    return o;
}

VmObject *vm_new_object(VmThread *t, VmClass *c)
{
    return new_object(t, c, false);
}

VmObject *vm_try_new_object(VmThread *t, VmClass *c)
{
    return new_object(t, c, true);
}

size_t vm_array_elem_size(const VmType *type, bool *refs)
{
    const VmType *elem = type ? type->elem : NULL;
    *refs = false;
    switch (elem ? elem->kind : VM_T_INT) {
    case VM_T_BOOL:
        return 1;
    case VM_T_INT:
    case VM_T_FLOAT:
        return 8;
    default:
        *refs = true;
        return sizeof(void *);
    }
}

size_t vm_array_size(const VmType *type, int64_t length)
{
    bool refs;
    size_t size = offsetof(VmArray, data) + (size_t)length * vm_array_elem_size(type, &refs);
    return size < sizeof(VmArray) ? sizeof(VmArray) : size;
}

VmClass *vm_array_class(const VmType *type)
{
    return type->canon ? type->canon->cls : type->cls;
}

static VmArray *new_array(VmThread *t, VmType *type, int64_t length, bool quiet)
{
    if (length < 0) {
        if (quiet)
            return NULL;
        vm_raise(t, "negative array length: %lld", (long long)length);
    }
    bool refs;
    size_t esz = vm_array_elem_size(type, &refs);
    size_t head = offsetof(VmArray, data);
    if ((uint64_t)length > (SIZE_MAX - head - 8) / esz) {
        if (quiet)
            return NULL;
        vm_raise(t, "out of memory");
    }
    VmArray *a = alloc(t, vm_array_size(type, length), !refs, quiet);
    if (a) {
        a->cls = vm_array_class(type);
        a->length = length;
    }
    return a;
}

VmArray *vm_new_array(VmThread *t, VmType *type, int64_t length)
{
    return new_array(t, type, length, false);
}

VmArray *vm_try_new_array(VmThread *t, VmType *type, int64_t length)
{
    return new_array(t, type, length, true);
}

/* A string whose bytes the caller fills: only the header and the final NUL
 * are written, since clearing bytes about to be copied over costs as much as
 * the copy (string-building loops are dominated by this). */
static VmString *string_uninit(VmThread *t, int64_t len, bool quiet)
{
    size_t head = offsetof(VmString, bytes);
    VmString *s = NULL;
    if (len >= 0 && (uint64_t)len <= SIZE_MAX - head - 1)
        s = alloc_atomic_raw(t, head + (size_t)len + 1, true);
    if (!s) {
        if (quiet)
            return NULL;
        vm_raise(t, "out of memory");
    }
    s->cls = t->vm->string_class;
    s->length = len;
    s->hash = 0;
    s->bytes[len] = 0;
    return s;
}

VmString *vm_new_string(VmThread *t, const char *bytes, int64_t len)
{
    if (len < 0)
        len = 0;
    VmString *s = string_uninit(t, len, false);
    if (bytes)
        memcpy(s->bytes, bytes, (size_t)len);
    else
        memset(s->bytes, 0, (size_t)len);
    return s;
}

static VmString *concat(VmThread *t, VmString *a, VmString *b, bool quiet)
{
    if (!a || !b) {
        if (quiet)
            return NULL;
        vm_raise(t, "null dereference");
    }
    if (a->length > INT64_MAX - b->length) {
        if (quiet)
            return NULL;
        vm_raise(t, "out of memory");
    }
    VmString *s = string_uninit(t, a->length + b->length, quiet);
    if (s) {
        memcpy(s->bytes, a->bytes, (size_t)a->length);
        memcpy(s->bytes + a->length, b->bytes, (size_t)b->length);
    }
    return s;
}

VmString *vm_string_concat(VmThread *t, VmString *a, VmString *b)
{
    return concat(t, a, b, false);
}

VmString *vm_try_string_concat(VmThread *t, VmString *a, VmString *b)
{
    return concat(t, a, b, true);
}

bool vm_string_equal(const VmString *a, const VmString *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->length != b->length)
        return false;
    if (a->hash && b->hash && a->hash != b->hash)
        return false;
    return memcmp(a->bytes, b->bytes, (size_t)a->length) == 0;
}

uint64_t vm_string_hash(VmString *s)
{
    if (s->hash)
        return s->hash;
    uint64_t h = 14695981039346656037ull;  /* FNV-1a 64 */
    for (int64_t i = 0; i < s->length; i++) {
        h ^= (uint8_t)s->bytes[i];
        h *= 1099511628211ull;
    }
    /* 0 marks "not computed"; the stored value may differ from the pure
     * FNV-1a only in this one case */
    s->hash = h ? h : 1;
    return s->hash;
}

VmClass *vm_closure_class(const VmMethod *lambda)
{
    /* register 0 of a lambda is typed with its function type */
    const VmModule *m = lambda->module;
    if (m && lambda->nregs && lambda->regs[0] < m->ntypes) {
        const VmType *ft = &m->types[lambda->regs[0]];
        return ft->canon ? ft->canon->cls : ft->cls;
    }
    return NULL;
}

size_t vm_closure_size(const VmMethod *lambda)
{
    return sizeof(VmClosure) + (size_t)lambda->ncaps * sizeof(VmValue);
}

static VmClosure *new_closure(VmThread *t, VmMethod *lambda, const VmValue *caps, bool quiet)
{
    VmClosure *c = alloc(t, vm_closure_size(lambda), false, quiet);
    if (!c)
        return NULL;
    c->cls = vm_closure_class(lambda);
    c->method = lambda;
    if (caps && lambda->ncaps)
        memcpy(c->caps, caps, lambda->ncaps * sizeof(VmValue));
    return c;
}

VmClosure *vm_new_closure(VmThread *t, VmMethod *lambda, const VmValue *caps)
{
    return new_closure(t, lambda, caps, false);
}

VmClosure *vm_try_new_closure(VmThread *t, VmMethod *lambda, const VmValue *caps)
{
    return new_closure(t, lambda, caps, true);
}

/* ---- type tests --------------------------------------------------------- */

static bool implements(const VmClass *c, const VmClass *iface)
{
    for (uint32_t i = 0; i < c->nall_ifaces; i++)
        if (c->all_ifaces[i] == iface)
            return true;
    return false;
}

bool vm_instance_of(const void *obj, const VmType *type)
{
    const VmClass *c = obj ? ((const VmObject *)obj)->cls : NULL;
    if (!c || !type)
        return false;
    switch (type->kind) {
    case VM_T_OBJECT:
        return true;
    case VM_T_STRING:
        return c->rkind == VM_RK_STRING;
    case VM_T_CLASS: {
        const VmClass *k = type->cls;
        return k && c->display && c->depth >= k->depth && c->display[k->depth] == k;
    }
    case VM_T_IFACE:
        return type->cls && implements(c, type->cls);
    case VM_T_ARRAY:
    case VM_T_FUNC: {
        const VmType *canon = type->canon ? type->canon : type;
        return canon->cls && c == canon->cls;
    }
    default:
        return false;
    }
}

VmMethod *vm_itable_lookup(VmClass *c, VmClass *iface, int32_t slot)
{
    if (!c || !iface || slot < 0 || (uint32_t)slot >= iface->nvtable || !c->itables)
        return NULL;
    for (uint32_t i = 0; i < c->nall_ifaces; i++)
        if (c->all_ifaces[i] == iface)
            return c->itables[i] ? c->itables[i][slot] : NULL;
    return NULL;
}

/* Interface dispatch beyond the first way of the call site: the other
 * ways, then a free way, then (megamorphic) the one-entry cache, then the
 * itable search.  Shared by the interpreter and compiled code, so both
 * keep the same receiver profile. */
VmMethod *vm_iface_dispatch(VmThread *t, VmCallSite *s, VmClass *c)
{
    VmMethod *tm = s->target;
    for (int i = 0; i < VM_SITE_WAYS; i++) {
        /* the profile (VM_PROF_*): the compile thread reads it */
        if (s->seen[i].cls == c) {
            VM_PROF_BUMP(s->seen[i].count);
            if (!s->seen[i].m)
                VM_PROF_SET(s->seen[i].m, vm_itable_lookup(c, tm->ownerc, tm->slot));
            if (s->seen[i].m)
                return s->seen[i].m;
            break;
        }
        if (!s->seen[i].cls) {
            VM_PROF_SET(s->seen[i].count, 1);
            VM_PROF_SET(s->seen[i].m, vm_itable_lookup(c, tm->ownerc, tm->slot));
            VM_PROF_SET(s->seen[i].cls, c);
            if (s->seen[i].m)
                return s->seen[i].m;
            break;
        }
        if (i == VM_SITE_WAYS - 1) {
            VM_PROF_BUMP(s->other);
            if (s->cache_cls == c)
                return s->cache_m;
        }
    }
    VmMethod *cm = vm_itable_lookup(c, tm->ownerc, tm->slot);
    if (!cm)  /* the verifier makes this unreachable for concrete classes */
        vm_raise(t, "no implementation of %s in %s", tm->name, c->name ? c->name : "?");
    s->cache_cls = c;
    s->cache_m = cm;
    return cm;
}
