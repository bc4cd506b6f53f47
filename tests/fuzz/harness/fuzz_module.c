/* tests/fuzz/harness/fuzz_module.c — coverage-guided fuzzing of the module
 * loader, the verifier and the interpreter (libFuzzer entry point; AFL++
 * runs it too).
 *
 * Input: any bytes, read as a .tlb module.  Output: nothing; a crash, a
 * sanitizer report or a leak is the finding.  Invariants checked: a module
 * either loads or is rejected with a message; one that loads either
 * verifies or is rejected with a message; and one that verifies runs in
 * the interpreter to its end, a run-time error or its step budget
 * (vm.max_steps) without crashing; and the --stats JSON of the run, whose
 * strings (module, method, class and file names) come from the input, is
 * valid JSON (the strict checker of the tests).  Natives are limited to
 * the standard library's (vm.natives=builtin): a mutated symbol name must
 * not call any C function (unlink, system) on the fuzzing machine.
 */
#include "vm.h"
#include "../../unit/json_check.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* Enough for loops and recursion to matter, little enough that a
 * verified endless loop ends in milliseconds under the sanitizers. */
#define STEPS 20000

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    int fd = open("/dev/null", O_WRONLY);   /* the programs' output */
    if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        close(fd);
    }
    return 0;
}

static void run(VmModule *m)
{
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.max_steps = STEPS;
    tun.natives = "builtin";
    tun.gc_max_heap = 64 << 20;     /* a mutated size must not eat the machine */
    tun.stack_slots = 1 << 16;      /* each run maps its stacks afresh */
    tun.max_frames = 4096;
    tun.cstack = 0;                 /* this thread: no thread per input */
    Vm *vm = vm_new(&tun);
    if (!vm)
        return;
    VmError err = {{0}};
    if (vm_link(vm, m, &err)) {
        vm_run(vm, 0, NULL);
        char *json;
        size_t len, at;
        if (!vm_stats_json(vm, &json, &len, &err))
            abort();
        if (json_check(json, len, &at))
            abort();                /* the writer made invalid JSON */
        free(json);
    } else if (!err.msg[0]) {
        abort();                    /* refused without a message */
    }
    vm_free(vm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    VmError err = {{0}};
    VmModule *m = vm_module_read(data, len, &err);
    if (!m) {
        if (!err.msg[0])
            abort();   /* rejected without a message */
        return 0;
    }
    VmError verr = {{0}};
    if (!vm_verify(m, &verr)) {
        if (!verr.msg[0])
            abort();
    } else if (m->main != VM_NONE) {
        run(m);
    }
    vm_module_free(m);
    return 0;
}
