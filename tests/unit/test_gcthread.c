/* tests/unit/test_gcthread.c — a thread the collector did not create
 * registers itself (vm_gc_register_thread returns 1), allocates through a
 * collection, and unregisters.  This file must not include gc/gc.h: with
 * GC_THREADS, pthread_create would be redirected and register the thread
 * already (test_runtime.c covers that case). */
#include "test.h"
#include "vm.h"

#include <pthread.h>

typedef struct { Vm *vm; int reg, ok; } Job;

static void *raw_thread(void *arg)
{
    Job *j = arg;
    j->reg = vm_gc_register_thread();
    if (j->reg != 1)
        return NULL;
    VmThread *t = vm_thread_new(j->vm);
    VmString *volatile kept = vm_new_string(t, "kept", 4);
    for (int k = 0; k < 200000; k++)  /* several collections' worth */
        vm_new_string(t, "garbage garbage garbage garbage", 31);
    j->ok = kept->length == 4 && kept->bytes[0] == 'k';
    vm_thread_free(t);
    vm_gc_unregister_thread();
    return NULL;
}

TEST(gc_raw_thread_registers)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.stack_slots = 1 << 12;
    tun.max_frames = 64;
    Job j = {vm_new(&tun), 0, 0};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, raw_thread, &j) == 0);
    pthread_join(th, NULL);
    CHECK_INT(j.reg, 1);
    CHECK(j.ok);
    vm_free(j.vm);
}
