/* markers/select.c — timing-point selection (thesis Fig. III.15).  Not yet built. */
#include "markers.h"

#include <stdlib.h>
#include <string.h>

bool mk_select(const IrFunc *f, const MkTunables *tun, bool forced, MkPlan *out)
{
    (void)f, (void)tun, (void)forced;
    memset(out, 0, sizeof *out);
    snprintf(out->reason, sizeof out->reason, "selection not built");
    return true;
}

bool mk_select_every(const IrFunc *f, bool blocks, MkPlan *out)
{
    memset(out, 0, sizeof *out);
    out->v = calloc(f->nblocks ? f->nblocks : 1, sizeof *out->v);
    if (!out->v)
        return false;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        bool header = b->loop && b->loop->header == b;
        if (!blocks && !header)
            continue;
        out->v[out->n++] = (MkPoint){b->id, b->pc, b->depth, -1, b->freq};
    }
    return true;
}

void mk_plan_free(MkPlan *p)
{
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

uint64_t mk_cost_distance(const IrFunc *f, uint32_t a, uint32_t b)
{
    (void)f, (void)a, (void)b;
    return UINT64_MAX;
}
