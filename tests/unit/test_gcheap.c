/* tests/unit/test_gcheap.c — the heap's size classes and which pointers
 * keep an object alive (vm/object.c, gc.interior_pointers = 0).
 *
 * Input: a VM with default tunables (the first VM of the process sets the
 * collector up; the default turns off heap interior pointers).  Checks:
 * objects take whole granules with no extra byte, the free-list index
 * agrees with the sizes the collector hands out, a pointer into an
 * object's interior held only by the C stack keeps it alive (compiled and
 * C code hold such pointers), and one held only by the heap does not (the
 * retention the setting removes); the register stack is a root only up
 * to the top frame's top (a compiled frame has no window).  Objects whose
 * fate is tested are made
 * in a separate function, whose frame is then overwritten, so that no
 * stale copy of their address on the stack decides the outcome.
 */
#define GC_THREADS
#include <gc/gc.h>
#include <string.h>

#include "test.h"
#include "vm.h"

static Vm *heap_vm;
static VmThread *heap_thr;

static void heap_setup(void)
{
    if (heap_vm)
        return;
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.stack_slots = 1 << 12;
    tun.max_frames = 64;
    heap_vm = vm_new(&tun);
    heap_thr = vm_thread_new(heap_vm);
}

/* Overwrites the stack below the caller with zeros, so that the frames of
 * the functions it called before leave no copies of pointers. */
static __attribute__((noinline)) void scrub_stack(void)
{
    volatile char junk[16384];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0;
}

/* Collects, then allocates enough objects of a 48-byte class to reuse
 * every slot a collection freed (the collector clears reused objects). */
static void collect_and_churn(void)
{
    for (int round = 0; round < 3; round++) {
        GC_gcollect();
        for (int k = 0; k < 20000; k++)
            vm_alloc(heap_thr, 48, false);
    }
}

TEST(gcheap_whole_granules)
{
    heap_setup();
    CHECK_INT(GC_get_all_interior_pointers(), 0);
    CHECK_INT(vm_gc_fl_index(1), 1);
    CHECK_INT(vm_gc_fl_index(16), 1);
    CHECK_INT(vm_gc_fl_index(17), 2);
    CHECK_INT(vm_gc_fl_index(48), 3);
    CHECK_INT(vm_gc_fl_index(416), 26);   /* a 50-slot vector's storage */
    CHECK_INT(vm_gc_fl_index((VM_GC_FL - 1) * VM_GC_GRANULE), VM_GC_FL - 1);
    CHECK_INT(vm_gc_fl_index((VM_GC_FL - 1) * VM_GC_GRANULE + 1), -1);
    CHECK_INT(vm_gc_fl_index(SIZE_MAX), -1);
    /* the thread free lists (pointer objects) and the collector's own
     * (atomic) hand out exactly the rounded size up to the largest list;
     * beyond it the collector's size classes are coarser */
    static const size_t sizes[] = {16, 24, 32, 48, 64, 200, 384, 416, 1000, 1024, 1040, 3000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int atomic = 0; atomic < 2; atomic++) {
            void *p = vm_alloc(heap_thr, sizes[i], atomic);
            size_t whole = (sizes[i] + VM_GC_GRANULE - 1) / VM_GC_GRANULE * VM_GC_GRANULE;
            CHECK(GC_base(p) == p);
            if (vm_gc_fl_index(sizes[i]) >= 0)
                CHECK_INT(GC_size(p), whole);
            else
                CHECK(GC_size(p) >= whole);
        }
}

/* A 48-byte pointer object whose words hold a pattern and, in word 2, a
 * string; only a pointer to its last word is returned. */
static __attribute__((noinline)) uintptr_t *make_tagged(uint64_t tag)
{
    uintptr_t *o = vm_alloc(heap_thr, 48, false);
    o[0] = o[1] = o[3] = o[4] = tag;
    o[2] = (uintptr_t)vm_new_string(heap_thr, "still here", 10);
    o[5] = ~tag;
    return o + 5;
}

static bool tagged_intact(const uintptr_t *last, uint64_t tag)
{
    const uintptr_t *o = last - 5;
    const VmString *s = (const VmString *)o[2];
    return o[0] == tag && o[1] == tag && o[3] == tag && o[4] == tag && o[5] == ~tag && s &&
           s->length == 10 && memcmp(s->bytes, "still here", 10) == 0;
}

TEST(gcheap_stack_interior_pointer_keeps_object)
{
    heap_setup();
    enum { N = 8 };
    uintptr_t *volatile inner[N];
    for (int i = 0; i < N; i++)
        inner[i] = make_tagged(0x5a5a000000000000ull + (uint64_t)i);
    scrub_stack();
    collect_and_churn();
    for (int i = 0; i < N; i++)
        CHECK(tagged_intact(inner[i], 0x5a5a000000000000ull + (uint64_t)i));
}

/* The holders of the next two tests: static data is a root; volatile, so
 * that the compiler keeps stores nobody reads. */
static uintptr_t *volatile holders[8];

/* A pointer object holding, in its word 1, a pointer 16 bytes into a
 * second object; the second object's death clears `link`, a disappearing
 * link the collector keeps hidden from marking. */
static __attribute__((noinline)) uintptr_t *make_holder(void **link)
{
    uintptr_t *target = vm_alloc(heap_thr, 48, false);
    uintptr_t *holder = vm_alloc(heap_thr, 32, false);
    holder[1] = (uintptr_t)(target + 2);
    *link = (void *)GC_HIDE_POINTER(target);
    CHECK(GC_general_register_disappearing_link(link, target) == GC_SUCCESS);
    return holder;
}

TEST(gcheap_heap_interior_pointer_does_not_retain)
{
    heap_setup();
    enum { N = sizeof holders / sizeof *holders };
    static void *links[N];  /* hidden pointers: no root */
    for (int i = 0; i < N; i++)
        holders[i] = make_holder(&links[i]);
    scrub_stack();
    collect_and_churn();
    int gone = 0;
    for (int i = 0; i < N; i++) {
        gone += links[i] == NULL;
        GC_unregister_disappearing_link(&links[i]);
    }
    CHECK_INT(gone, N);
}

/* The control: the same holders pointing at their targets' start keep them. */

TEST(gcheap_heap_base_pointer_retains)
{
    heap_setup();
    enum { N = sizeof holders / sizeof *holders };
    static void *links[N];
    for (int i = 0; i < N; i++) {
        holders[i] = make_holder(&links[i]);
        holders[i][1] -= 2 * sizeof(uintptr_t);  /* now the target's start */
    }
    scrub_stack();
    collect_and_churn();
    int kept = 0;
    for (int i = 0; i < N; i++) {
        kept += links[i] != NULL;
        GC_unregister_disappearing_link(&links[i]);
    }
    CHECK_INT(kept, N);
}

/* Pointer-free objects (strings) come from the thread's atomic free lists,
 * whose links sit in objects the collector never scans (vm/object.c keeps
 * every listed object alive by hand).  Strings made from the lists and
 * others from the collector's own (GC_MALLOC_ATOMIC, which a reclaimed
 * listed object would join), collections in between: every kept string
 * must still hold its own bytes, so no memory was handed out twice. */
TEST(gcheap_atomic_free_lists_survive_collections)
{
    heap_setup();
    enum { ROUNDS = 20, PER = 3000, KEEP = 7 };
    size_t nkept = (size_t)ROUNDS * PER / KEEP + 1;
    void **kept = GC_MALLOC(nkept * sizeof *kept);   /* scanned */
    CHECK(kept != NULL);
    if (!kept)
        return;
    size_t n = 0;
    char buf[64];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < PER; i++) {
            int len = snprintf(buf, sizeof buf, "%d.%d.%.*s", r, i, (i * 7) % 40, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            void *p;
            if (i % 2) {
                p = vm_new_string(heap_thr, buf, len);
            } else {   /* the collector's own free list of the same size */
                char *c = GC_MALLOC_ATOMIC((size_t)len + 1);
                if (c)
                    memcpy(c, buf, (size_t)len + 1);
                p = c;
            }
            if (i % KEEP == 0 && n < nkept)
                kept[n++] = p;
            if (i % 1000 == 999)
                GC_gcollect();
        }
    }
    size_t bad = 0;
    n = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < PER; i++) {
            if (i % KEEP || n >= nkept)
                continue;
            int len = snprintf(buf, sizeof buf, "%d.%d.%.*s", r, i, (i * 7) % 40, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            void *p = kept[n++];
            const char *got = i % 2 ? ((VmString *)p)->bytes : p;
            bad += !p || memcmp(got, buf, (size_t)len + 1) != 0 ||
                   (i % 2 && ((VmString *)p)->length != len);
        }
    CHECK_INT((long long)bad, 0);
}

/* The register stack is scanned up to the top frame's top only: above it
 * lie dead registers of returned calls.  A compiled frame's window is
 * empty (top == base): its locals are on the C stack.  So an address left
 * in the registers of an interpreted call that has returned is not a
 * root while a compiled frame is on top (scanning dead registers would
 * keep whole graphs of earlier iterations alive); one in a live window is. */
static __attribute__((noinline)) void *make_linked(void **link)
{
    void *o = vm_alloc(heap_thr, 48, false);
    *link = (void *)GC_HIDE_POINTER(o);
    CHECK(GC_general_register_disappearing_link(link, o) == GC_SUCCESS);
    return o;
}

TEST(gcheap_register_stack_ends_at_top_frame)
{
    heap_setup();
    static VmMethod interp_m, compiled_m;
    static void *live_link, *dead_link;
    VmThread *t = heap_thr;
    VmValue *s = t->stack;
    VmFrame *saved_fp = t->fp;
    VmValue *saved_hwm = t->stack_hwm;
    interp_m.nregs = 4;
    compiled_m.nregs = 8;   /* its bytecode's; compiled code uses none */
    t->frames[0] = (VmFrame){.m = &interp_m, .base = s, .top = s + 4};       /* interpreted */
    t->frames[1] = (VmFrame){.m = &compiled_m, .base = s + 4, .top = s + 4}; /* compiled */
    t->fp = &t->frames[1];
    t->stack_hwm = s + 16;
    s[2].p = make_linked(&live_link);   /* in the interpreted frame's window */
    s[6].p = make_linked(&dead_link);   /* a returned call's register */
    scrub_stack();
    collect_and_churn();
    CHECK(live_link != NULL);
    CHECK(dead_link == NULL);
    GC_unregister_disappearing_link(&live_link);
    GC_unregister_disappearing_link(&dead_link);
    memset(s, 0, 16 * sizeof *s);
    t->fp = saved_fp;
    t->stack_hwm = saved_hwm;
}
