/* audit/config.c — the auditor's tunables (audit/audit_tunables.def) as an
 * AuConfig: the group the command's -X fills, its defaults, and the checks
 * a row's range cannot make.
 *
 * Input: an AuConfig whose table fields hold checked values (vm_tun_set).
 * Output: the derived fields (test, alpha) filled, or false and a message
 * naming the tunable when two values do not fit together; audit.methods
 * checked against the program and turned into the methods audited.
 */
#include "audit.h"
#include "auditor.h"
#include "record.h"
#include "vm.h"

#include <string.h>

static const VmTunDesc au_rows[] = {
#define TUNABLE(...) VM_TUN_ROW(AuConfig, __VA_ARGS__)
#define TUNABLE_STR(...) VM_TUN_ROW_STR(AuConfig, __VA_ARGS__)
#include "audit_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
};
const VmTunGroup au_tun_group = {"audit", au_rows, sizeof au_rows / sizeof au_rows[0]};

void au_config_default(AuConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    vm_tun_defaults(&au_tun_group, cfg);
    mk_tunables_default(&cfg->markers);
    au_config_check(cfg, NULL);   /* the defaults fit together */
}

bool au_config_check(AuConfig *cfg, VmError *err)
{
    const char *t = cfg->timing ? cfg->timing : "";
    if (!strcmp(t, "auto"))
        cfg->timing_mode = AU_TIMING_AUTO;
    else if (!strcmp(t, "method"))
        cfg->timing_mode = AU_TIMING_METHOD;
    else if (!strcmp(t, "markers"))
        cfg->timing_mode = AU_TIMING_MARKERS;
    else if (!strcmp(t, "naive"))
        cfg->timing_mode = AU_TIMING_NAIVE;
    else
        return vm_fail(err, "tunable 'audit.timing' expects \"auto\", \"method\", \"markers\" or \"naive\", got '%s'", t);
    int test = au_test_parse(cfg->test_name);
    if (test < 0)
        return vm_fail(err, "tunable 'audit.test' expects \"sequential\" or \"paper\", got '%s'",
                       cfg->test_name ? cfg->test_name : "");
    if (cfg->trim_drop >= cfg->trim_window)
        return vm_fail(err, "tunable 'audit.trim_drop' must be less than audit.trim_window (%lld), got %lld",
                       (long long)cfg->trim_window, (long long)cfg->trim_drop);
    if (cfg->oracle && cfg->max_samples < 2)
        return vm_fail(err, "tunable 'audit.oracle' needs audit.max_samples ≥ 2");
    if (cfg->verify && cfg->oracle)
        return vm_fail(err, "tunable 'audit.verify' samples on after the online test's decision; audit.oracle makes none: give one of them");
    if (cfg->verify && cfg->max_samples < 2)
        return vm_fail(err, "tunable 'audit.verify' needs audit.max_samples ≥ 2");
    if (!cfg->prologue && cfg->sample_every != 0)
        return vm_fail(err, "tunable 'research.prologue=0' needs audit.sample_every=0: a dispatcher without its "
                            "countdown test never times a call");
    if (cfg->confirm != 0 && cfg->confirm < 1)
        return vm_fail(err, "tunable 'audit.confirm' must be 0 or in 100..100000 (percent), got %.0f",
                       cfg->confirm * 100);
    if (cfg->record && cfg->record[0] && !au_record_check_path(cfg->record, err))
        return false;
    cfg->test = (AuTest)test;
    cfg->alpha = 1 - cfg->confidence;
    if (cfg->warmup >= cfg->burst)
        cfg->warmup = cfg->burst - 1;
    return true;
}

/* audit.methods: the methods of mod named in list (comma separated),
 * each made not excluded in ms when ms is given.  A name the program
 * lacks is an error: a misspelt one would silently audit nothing. */
static bool name_methods(const VmModule *mod, const char *list, AuMethodState *ms, VmError *err)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        bool found = false;
        for (uint32_t i = 0; i < mod->nmethods; i++) {
            const char *name = mod->methods[i].name;
            if (name && strlen(name) == len && memcmp(name, p, len) == 0) {
                if (ms)
                    ms[i].excluded = false;
                found = true;
            }
        }
        if (!found)
            return vm_fail(err, "tunable 'audit.methods': the program has no method '%.*s' (names as --stats prints them: Class.method)",
                           (int)len, p);
        p += len + (p[len] == ',');
    }
    return true;
}

bool au_check_methods(const VmModule *mod, const char *list, VmError *err)
{
    return !list || name_methods(mod, list, NULL, err);
}

/* Every method but those audit.methods names is excluded (none when it
 * is empty). */
bool au_select_methods(AuAuditor *au, const char *list, VmError *err)
{
    if (!list || !list[0])
        return true;
    for (uint32_t i = 0; i < au->nmethods; i++)
        au->ms[i].excluded = true;
    return name_methods(au->vm->module, list, au->ms, err);
}
