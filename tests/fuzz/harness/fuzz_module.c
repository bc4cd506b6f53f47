/* tests/fuzz/harness/fuzz_module.c — coverage-guided fuzzing of the module
 * loader and the verifier (libFuzzer entry point; AFL++ runs it too).
 *
 * Input: any bytes, read as a .tlb module.  Output: nothing; a crash, a
 * sanitizer report or a leak is the finding.  Invariant checked: a module
 * that loads either verifies or is rejected with a message, never a
 * crash.  Running what the verifier accepts needs the interpreter's step
 * budget, which it does not have yet: not done here.
 */
#include "vm.h"

#include <stdint.h>
#include <stdlib.h>

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
    if (!vm_verify(m, &verr) && !verr.msg[0])
        abort();
    vm_module_free(m);
    return 0;
}
