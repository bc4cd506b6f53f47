/* tests/fuzz/harness/fuzz_asmtext.c — coverage-guided fuzzing of the
 * bytecode text assembler (.tla) and, on what it accepts, the verifier
 * and the binary writer and reader.
 *
 * Input: any bytes, read as .tla text.  Output: nothing; a crash or
 * sanitizer report is the finding.  Invariants checked: a rejected text
 * has a message; an assembled module written as .tlb reads back.
 */
#include "vm.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    VmError err = {{0}};
    VmModule *m = vm_asm((const char *)data, len, "fuzz.tla", &err);
    if (!m) {
        if (!err.msg[0])
            abort();
        return 0;
    }
    VmError verr = {{0}};
    vm_verify(m, &verr);
    VmBuf b = {0};
    vm_module_write(m, &b);
    VmModule *back = vm_module_read(b.data, b.len, &err);
    if (!back)
        abort();       /* the writer wrote what the reader refuses */
    vm_module_free(back);
    vm_buf_free(&b);
    vm_module_free(m);
    return 0;
}
