/* tests/unit/test_jit_policy.c — what the background tier (--jit=on) asks
 * to compile, and when: the single-activation threshold (vm.osr_threshold),
 * no OSR entry for methods whose calls are short, and the ordinary entry of
 * a method entered once put off until it is called again.
 *
 * The compiler is a stub that records each request (method, OSR header,
 * OSR-only) and returns at once, so what is checked is the policy, not gcc:
 * for an OSR-only request it returns OSR code for no header (the
 * interpreter never enters it), for the others an entry that interprets. */
#include "test.h"

#include "jit.h"
#include "tier.h"

#include <pthread.h>
#include <string.h>

enum { POL_MAX = 64 };

static pthread_mutex_t pol_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { VmMethod *m; bool osr, osr_only; } pol_rq[POL_MAX];
static int pol_n;
static const VmOsr pol_no_osr = {.pc = NULL, .entry = NULL};

static VmValue pol_entry(VmThread *t, VmMethod *m, VmValue *args)
{
    return vm_interp_entry(t, m, args);
}

static bool pol_compile(Jit *jit, JitRequest *rq, JitResult *out, VmError *err)
{
    (void)jit;
    (void)err;
    pthread_mutex_lock(&pol_mu);
    if (pol_n < POL_MAX) {
        pol_rq[pol_n].m = rq->m;
        pol_rq[pol_n].osr = rq->osr_pc != NULL;
        pol_rq[pol_n].osr_only = rq->osr_only;
        pol_n++;
    }
    pthread_mutex_unlock(&pol_mu);
    if (rq->osr_only)
        *out = (JitResult){.osr = &pol_no_osr};
    else
        *out = (JitResult){.entry = pol_entry, .code_bytes = 8u * rq->m->ncode};
    return true;
}

/* The requests for m, as "e" (entry only), "eo" (entry and OSR) or "o"
 * (OSR only), in order, comma separated. */
static void pol_requests(const VmMethod *m, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    pthread_mutex_lock(&pol_mu);
    for (int i = 0; i < pol_n && len + 4 < size; i++)
        if (pol_rq[i].m == m)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                                    pol_rq[i].osr_only ? "o" : pol_rq[i].osr ? "eo" : "e");
    pthread_mutex_unlock(&pol_mu);
}

/* Compiles src, runs it under a --jit=on tier with the stub (thread paused
 * if asked, then resumed and drained), and leaves the log in text. */
static Vm *pol_run(const char *src, const VmTunables *tun, bool paused, const char *want_out, char *text,
                   size_t size)
{
    Vm *vm = test_load_tl("policy.tl", src, tun);
    if (!vm)
        return NULL;
    pthread_mutex_lock(&pol_mu);
    pol_n = 0;
    pthread_mutex_unlock(&pol_mu);
    FILE *log = tmpfile();
    JitTestHooks hooks = {.compile = pol_compile, .log = log, .paused = paused};
    jit_set_test_hooks(&hooks);
    VmError err;
    Jit *jit = jit_new(vm, JIT_ON, NULL, NULL, NULL, &err);
    jit_set_test_hooks(NULL);
    if (!jit) {
        test_fail(__FILE__, __LINE__, "jit_new: %s", err.msg);
        fclose(log);
        test_unload(vm);
        return NULL;
    }
    FILE *tmp;
    char out[256];
    int saved = test_redirect(1, &tmp);
    int status = vm_run(vm, 0, NULL);
    test_restore(1, saved, tmp, out, sizeof out);
    CHECK_INT(status, 0);
    CHECK_STR(out, want_out);
    jit_test_pause(jit, false);
    jit_test_wait_idle(jit);
    jit_free(jit);
    fflush(log);
    rewind(log);
    size_t n = fread(text, 1, size - 1, log);
    text[n] = 0;
    fclose(log);
    return vm;
}

static void pol_tunables(VmTunables *tun, int64_t osr_threshold)
{
    vm_tunables_default(tun);
    tun->hot_threshold = 50;
    tun->osr_poll = 100;
    tun->osr_threshold = osr_threshold;
}

/* main, entered once, runs a 3,000-iteration start-up loop: below
 * vm.osr_threshold it asks for nothing; above it, for OSR code only, and
 * its ordinary entry is put off (main is never called again). */
TEST(jit_policy_osr_threshold)
{
    static const char *const src =
        "fn main() { var s = 0; for i in 0..3000 { s += i; } println(s); }\n";
    char text[4096], req[64];
    VmTunables tun;
    pol_tunables(&tun, 5000);
    Vm *vm = pol_run(src, &tun, true, "4498500\n", text, sizeof text);
    if (!vm)
        return;
    pol_requests(test_method(vm, "main"), req, sizeof req);
    CHECK_STR(req, "");
    test_unload(vm);

    pol_tunables(&tun, 1000);
    vm = pol_run(src, &tun, true, "4498500\n", text, sizeof text);
    if (!vm)
        return;
    pol_requests(test_method(vm, "main"), req, sizeof req);
    CHECK_STR(req, "o");
    CHECK(strstr(text, " main: entered once") != NULL && strstr(text, "jit: deferred #") != NULL);
    test_unload(vm);
}

/* work is called 400 times with 5 iterations each: it gets hot at a back
 * edge, but a call never lasts a poll, so it gets its entry without OSR. */
TEST(jit_policy_short_calls_no_osr)
{
    static const char *const src =
        "fn work(n: int): int { var s = 0; for i in 0..n { s += i; } return s; }\n"
        "fn main() { var t = 0; for k in 0..400 { t += work(5); } println(t); }\n";
    char text[4096], req[64];
    VmTunables tun;
    pol_tunables(&tun, 100000);
    tun.hot_threshold = 30;   /* 5 calls + 25 back edges: hot at a back edge */
    Vm *vm = pol_run(src, &tun, false, "4000\n", text, sizeof text);
    if (!vm)
        return;
    pol_requests(test_method(vm, "work"), req, sizeof req);
    CHECK_STR(req, "e");
    test_unload(vm);
}

/* work's first call loops 200,000 times: OSR code only, its entry put off;
 * main then waits for that compile and calls work(0) 3,000 times — the
 * calls find it interpreted and ask for the ordinary entry. */
TEST(jit_policy_entry_after_second_call)
{
    static const char *const src =
        "fn work(n: int): int { var s = 0; for i in 0..n { s += i % 7; } return s; }\n"
        "fn main() {\n"
        "    var t = work(200000);\n"
        "    let t0 = clock();\n"
        "    while clock() < t0 + 0.3 { }\n"
        "    for k in 0..3000 { t += work(0); }\n"
        "    println(t);\n"
        "}\n";
    char text[8192], req[64];
    VmTunables tun;
    pol_tunables(&tun, 1000);
    Vm *vm = pol_run(src, &tun, false, "599994\n", text, sizeof text);
    if (!vm)
        return;
    VmMethod *work = test_method(vm, "work");
    pol_requests(work, req, sizeof req);
    CHECK(!strncmp(req, "o,", 2));          /* OSR only first ... */
    CHECK(strstr(req, ",e") != NULL);       /* ... the entry after more calls */
    CHECK(strstr(text, " work: entered once") != NULL);
    CHECK(work->entry == pol_entry);
    test_unload(vm);
}
