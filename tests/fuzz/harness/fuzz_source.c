/* tests/fuzz/harness/fuzz_source.c — coverage-guided fuzzing of the front
 * end: tally source through lexing, parsing, type checking and bytecode
 * emission, then the verifier.
 *
 * Input: any bytes, read as a .tl file (its imports from stdlib/: run from
 * the repository's root).  Output: nothing; a crash or sanitizer report is
 * the finding.  Invariants checked: a rejected source has at least one
 * diagnostic, and every module the compiler emits verifies.
 */
#include "lang.h"
#include "vm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    static FILE *diag;
    if (!diag && !(diag = fopen("/dev/null", "w")))
        abort();
    TlOptions opt = {.stdlib_dir = "stdlib", .max_errors = 0};
    int nerrors = 0;
    VmModule *m = tl_compile_source("fuzz.tl", (const char *)data, len, &opt, diag, &nerrors);
    if (!m) {
        if (nerrors <= 0)
            abort();   /* rejected without a diagnostic */
        return 0;
    }
    VmError err = {{0}};
    if (!vm_verify(m, &err))
        abort();       /* the compiler emitted a module that does not verify */
    vm_module_free(m);
    return 0;
}
