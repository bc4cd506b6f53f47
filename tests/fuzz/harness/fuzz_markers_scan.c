/* tests/fuzz/harness/fuzz_markers_scan.c — coverage-guided fuzzing of the
 * code markers' assembly scanner (markers/scan.c, markers/asm.c), which
 * reads gcc's output and so must survive any text.
 *
 * Input: any bytes, read as assembly text.  Output: nothing; a crash or
 * sanitizer report is the finding.  Invariant checked: a failed scan says
 * why.
 */
#include "markers.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    MkMap map;
    VmError err = {{0}};
    if (mk_scan((const char *)data, len, &map, &err))
        mk_map_free(&map);
    else if (!err.msg[0])
        abort();
    return 0;
}
