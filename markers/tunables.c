/* markers/tunables.c — the markers' tunables (markers_tunables.def) as an
 * MkTunables: the group the command's -X fills, its defaults, and the
 * checks of the string rows.
 */
#include "markers.h"

#include <string.h>

static const VmTunDesc mk_rows[] = {
#define TUNABLE(...) VM_TUN_ROW(MkTunables, __VA_ARGS__)
#define TUNABLE_STR(...) VM_TUN_ROW_STR(MkTunables, __VA_ARGS__)
#include "markers_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
};
const VmTunGroup mk_tun_group = {"markers", mk_rows, sizeof mk_rows / sizeof mk_rows[0]};

void mk_tunables_default(MkTunables *t)
{
    memset(t, 0, sizeof *t);
    vm_tun_defaults(&mk_tun_group, t);
}

static bool is(const char *s, const char *what)
{
    return s && !strcmp(s, what);
}

MkEverywhere mk_everywhere(const MkTunables *t)
{
    return is(t->everywhere, "loops") ? MK_EVERY_LOOPS : is(t->everywhere, "blocks") ? MK_EVERY_BLOCKS : MK_EVERY_OFF;
}

bool mk_pinned(const MkTunables *t)
{
    return is(t->kind, "pinned");
}

bool mk_tunables_check(const MkTunables *t, VmError *err)
{
    if (!is(t->kind, "plain") && !is(t->kind, "pinned"))
        return vm_fail(err, "tunable 'markers.kind' expects \"plain\" or \"pinned\", got '%s'", t->kind ? t->kind : "");
    if (!is(t->everywhere, "off") && !is(t->everywhere, "loops") && !is(t->everywhere, "blocks"))
        return vm_fail(err, "tunable 'markers.everywhere' expects \"off\", \"loops\" or \"blocks\", got '%s'",
                       t->everywhere ? t->everywhere : "");
    return true;
}
