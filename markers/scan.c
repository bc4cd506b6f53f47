/* markers/scan.c — the marker map of optimized assembly.  Not yet built. */
#include "markers.h"

#include <stdlib.h>
#include <string.h>

void mk_symbol(char *buf, size_t size, const char *fn, uint32_t k)
{
    snprintf(buf, size, "%s_mk%u", fn, k);
}

bool mk_scan(const char *text, size_t len, MkMap *out, VmError *err)
{
    (void)text, (void)len;
    memset(out, 0, sizeof *out);
    return vm_fail(err, "markers: the scanner is not built");
}

void mk_map_free(MkMap *m)
{
    free(m->markers);
    free(m->sites);
    memset(m, 0, sizeof *m);
}

void mk_map_dump(const MkMap *m, FILE *out)
{
    (void)m, (void)out;
}

int mk_map_find(const MkMap *m, const char *sym)
{
    for (uint32_t i = 0; i < m->nmarkers; i++)
        if (!strcmp(m->markers[i].sym, sym))
            return (int)i;
    return -1;
}
