/* markers/everywhere.c — markers.everywhere: a marker in every loop (or
 * every block) of every method the JIT compiles, removed after
 * optimization.  The research mode that measures what markers cost the
 * optimizer (the code keeps whatever gcc did differently because of
 * them, minus the marker writes).
 *
 * Input: the markers' tunables.  Output: the JIT's marker hooks, for
 * jit_new: plan = mk_select_every on each
 * method's IR, edit = mk_scan + mk_rewrite_clean on each unit's
 * assembly.  Invariant: code that loads has no marker write; a unit whose
 * markers cannot all be removed (a marker's address was taken) fails to
 * compile, and the JIT retries its methods alone, as for any failed unit.
 */
#include "markers.h"
#include "jit.h"

#include <stdlib.h>
#include <string.h>

struct MkEverywhereHooks {
    bool blocks;
    bool pinned;
    bool dump;                 /* -X jit.dump=markers */
    uint64_t units, markers, sites;   /* what the edits saw (relaxed counters) */
};

static bool plan(void *ctx, const IrFunc *f, JitMarks *out)
{
    MkEverywhereHooks *h = ctx;
    MkPlan p;
    if (!mk_select_every(f, h->blocks, &p) || !p.n) {
        mk_plan_free(&p);
        return false;
    }
    int32_t *at = malloc((f->nblocks ? f->nblocks : 1) * sizeof *at);
    if (!at) {
        mk_plan_free(&p);
        return false;
    }
    for (uint32_t b = 0; b < f->nblocks; b++)
        at[b] = -1;
    for (uint32_t k = 0; k < p.n; k++)
        if (p.v[k].block < f->nblocks)
            at[p.v[k].block] = (int32_t)k;
    *out = (JitMarks){.at = at, .n = f->nblocks, .nmarkers = p.n, .pinned = h->pinned};
    mk_plan_free(&p);
    return true;
}

static bool edit(void *ctx, char **text, size_t *len)
{
    MkEverywhereHooks *h = ctx;
    MkMap map;
    VmError err = {{0}};
    if (!mk_scan(*text, *len, &map, &err)) {
        fprintf(stderr, "tally: markers: %s\n", err.msg);
        return false;
    }
    if (h->dump)
        mk_map_dump(&map, stderr);
    __atomic_add_fetch(&h->units, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->markers, map.nmarkers, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->sites, map.nsites, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < map.nmarkers; i++)
        if (map.markers[i].refused) {
            fprintf(stderr, "tally: markers: %s cannot be removed (%s)\n", map.markers[i].sym, map.markers[i].why);
            mk_map_free(&map);
            return false;
        }
    VmBuf out = {0};
    bool ok = mk_rewrite_clean(*text, *len, &map, &out, &err);
    mk_map_free(&map);
    if (!ok) {
        fprintf(stderr, "tally: markers: %s\n", err.msg);
        vm_buf_free(&out);
        return false;
    }
    free(*text);
    *text = (char *)out.data;
    *len = out.len;
    return true;
}

MkEverywhereHooks *mk_everywhere_new(const MkTunables *tun, bool dump, JitMarkerHooks *hooks)
{
    MkEverywhere what = mk_everywhere(tun);
    if (what == MK_EVERY_OFF)
        return NULL;
    MkEverywhereHooks *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->blocks = what == MK_EVERY_BLOCKS;
    h->pinned = mk_pinned(tun);
    h->dump = dump;
    *hooks = (JitMarkerHooks){plan, edit, h};
    return h;
}

void mk_everywhere_counts(const MkEverywhereHooks *h, uint64_t *units, uint64_t *markers, uint64_t *sites)
{
    *units = __atomic_load_n(&h->units, __ATOMIC_RELAXED);
    *markers = __atomic_load_n(&h->markers, __ATOMIC_RELAXED);
    *sites = __atomic_load_n(&h->sites, __ATOMIC_RELAXED);
}

void mk_everywhere_free(MkEverywhereHooks *h)
{
    free(h);
}
