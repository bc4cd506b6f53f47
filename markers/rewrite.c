/* markers/rewrite.c — clean and timed code from marked assembly.  Not yet built. */
#include "markers.h"

bool mk_rewrite_clean(const char *text, size_t len, const MkMap *map, VmBuf *out, VmError *err)
{
    (void)text, (void)len, (void)map, (void)out;
    return vm_fail(err, "markers: the rewriter is not built");
}

bool mk_rewrite_timed(const char *text, size_t len, const MkMap *map, const MkStubSpec *spec, VmBuf *out,
                      VmError *err)
{
    (void)text, (void)len, (void)map, (void)spec, (void)out;
    return vm_fail(err, "markers: the rewriter is not built");
}

bool mk_writes_any(const char *text, size_t len)
{
    (void)text, (void)len;
    return false;
}
