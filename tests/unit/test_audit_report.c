/* tests/unit/test_audit_report.c — the auditor's reports (audit/report.c)
 * and the --stats writer (vm/profile.c): bakeoffs[] JSON for records in
 * every phase and outcome, with strings that need escaping, bytes that are
 * not UTF-8, unterminated strings, NaN and infinities, bad indexes; the
 * --log=audit lines; the stats hook; the periodic writer.
 *
 * Every JSON text is parsed back by json_valid below, a strict checker of
 * RFC 8259 (no python in make test): a test passes only if the output is
 * JSON, not merely if it contains the expected pieces.
 */
#include "auditor_api.h"
#include "loops.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_check.h"

/* Is text[0..n) exactly one JSON value (with whitespace around)? */
static bool json_valid_n(const char *text, size_t n)
{
    size_t at;
    const char *why = json_check(text, n, &at);
    if (why)
        test_fail(__FILE__, __LINE__, "invalid JSON (%s) at offset %zu: '%.40s'", why, at, text + at);
    return !why;
}

static bool json_valid(const char *text)
{
    return json_valid_n(text, strlen(text));
}

/* The checker itself must reject what is not JSON, or the tests prove nothing. */
TEST(audit_report_checker)
{
    const char *good[] = {"[]", "{}", "null", " [1,-0.5e+3,\"a\\u00e9\\n\",true,{\"k\":[null]}] ",
                          "\"\xc3\xa9\"", "0", "-0", "1E5"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(json_valid(good[i]));
    const char *bad[] = {"[1,]", "{\"a\":1,}", "[nan]", "[NaN]", "[inf]", "[01]", "[1.]", "[.5]",
                         "\"a\nb\"", "\"\\x\"", "\"\xff\"", "\"\xc0\x80\"", "[1", "{\"a\" 1}",
                         "[] []", "\"\\u12\"", "[+1]", "{1:2}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (!json_check(bad[i], strlen(bad[i]), NULL))
            test_fail(__FILE__, __LINE__, "checker accepted '%s'", bad[i]);
}

/* ---- records --------------------------------------------------------------- */

static void spec(AuVariantSpec *v, const char *name, const char *opts, int callee)
{
    snprintf(v->name, sizeof v->name, "%s", name);
    snprintf(v->optset, sizeof v->optset, "%s", opts);
    v->inline_max_callee_size = callee;
    v->inline_max_depth = 3;
    v->inline_max_growth = 400;
}

/* A two-variant bakeoff in the given phase and outcome; default is
 * variant 0 ("default", 1000 cycles), variant 1 "inline4x" is 5% faster. */
static AuBakeoffRecord record(uint32_t id, AuPhase phase, AuOutcome outcome)
{
    AuBakeoffRecord r;
    memset(&r, 0, sizeof r);
    r.id = id;
    snprintf(r.method, sizeof r.method, "Foo.bar");
    snprintf(r.client, sizeof r.client, "inline");
    r.phase = phase;
    r.nvariants = 2;
    spec(&r.variants[0], "default", "O2", 40);
    spec(&r.variants[1], "inline4x", "O2", 160);
    r.installed = -1;
    r.copies = 2;
    r.t_queued = 0.5;
    AuResult *res = &r.result;
    res->outcome = outcome;
    res->test = AU_TEST_SEQUENTIAL;
    res->best = res->runner_up = -1;
    if (phase >= AU_PHASE_COMPILING)
        r.t_started = 0.75;
    if (phase >= AU_PHASE_SAMPLING && phase != AU_PHASE_FAILED) {
        r.t_sampling = 1.0;
        r.turns = 1;
        r.sampled = phase == AU_PHASE_DONE ? 2.25 : 1.0;
        r.probe_cycles = 412.5;
        r.probe_samples = 256;
        r.probe_rate = 250000;
        r.deferred = true;         /* put back once (research.defer), then ran */
        res->nvariants = 2;
        /* weighted, as a recursive method's: 3 calls a timed call */
        res->v[0] = (AuVariantResult){.samples = 12000, .received = 13400, .trimmed = 1340,
                                      .mean = 1000, .stddev = 120, .cycles = 3000, .weight = 36000,
                                      .warmups = 4400, .warmup_cycles = 5125.5,
                                      .copy_samples = {6000, 6000}, .copy_mean = {990, 1010},
                                      .rel = 0.0526, .rel_lo = 0.03, .rel_hi = 0.075, .slower = true};
        res->v[1] = (AuVariantResult){.samples = 11990, .received = 13390, .trimmed = 1339,
                                      .mean = 950, .stddev = 110, .cycles = 2850, .weight = 35970,
                                      .copy_samples = {11990, 0}, .copy_mean = {950, 0}};
        res->best = 1;
        res->runner_up = 0;
        res->confidence = 0.9995;
        res->sample_every = 43;
        res->rel = -0.05, res->rel_lo = -0.07, res->rel_hi = -0.029;
    }
    if (phase == AU_PHASE_DONE) {
        r.t_decided = 3.25;
        res->install = outcome == AU_WINNER ? 1 : 0;
        r.installed = res->install;
    }
    if (phase == AU_PHASE_FAILED)
        snprintf(r.failure, sizeof r.failure, "gcc: error: unrecognized option '-fbogus'");
    return r;
}

/* What f (an open_memstream) holds after writing */
static char *take(FILE *f, char **buf)
{
    fclose(f);
    return *buf;
}

TEST(audit_report_json_phases_outcomes)
{
    AuBakeoffRecord r[8];
    size_t n = 0;
    r[n++] = record(1, AU_PHASE_QUEUED, AU_RUNNING);
    r[n++] = record(2, AU_PHASE_COMPILING, AU_RUNNING);
    r[n++] = record(3, AU_PHASE_SAMPLING, AU_RUNNING);
    r[n] = record(4, AU_PHASE_DONE, AU_WINNER);
    r[n].result.unconfirmed = 2;
    r[n].result.fresh_disagreed = 1;
    r[n].result.restarted = 3;
    r[n].yielded = 5;
    r[n++].result.held = 4;
    r[n++] = record(5, AU_PHASE_DONE, AU_NO_DIFFERENCE);
    r[n] = record(6, AU_PHASE_DONE, AU_TIMEOUT);
    r[n].result.futile = true;
    r[n++].result.placement = true;
    r[n++] = record(7, AU_PHASE_FAILED, AU_RUNNING);
    r[n] = record(8, AU_PHASE_DONE, AU_WINNER);
    r[n].oracle = true;
    r[n++].result.test = AU_TEST_PAPER;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    au_report_json(f, r, n, "");
    char *s = take(f, &buf);
    CHECK(json_valid(s));
    /* one bakeoff object per line, variants last on it */
    int lines = 0;
    for (char *p = strstr(s, "\n{\"id\":"); p; p = strstr(p + 1, "\n{\"id\":"))
        lines++;
    CHECK_INT(lines, 8);
    CHECK(!strncmp(s, "[\n{\"id\":1,", 10));
    CHECK(!strcmp(s + strlen(s) - 3, "}\n]"));

    CHECK_CONTAINS(s, "{\"id\":1,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"queued\","
                      "\"outcome\":\"running\",\"winner\":null,\"installed\":null,\"best\":null,"
                      "\"runner_up\":null,\"test\":\"sequential\",\"oracle\":false,\"futile\":false,\"placement\":false,\"between\":false,\"no_winner\":false,\"confidence\":null,"
                      "\"sample_every\":null,\"relative_difference\":null,\"relative_difference_interval\":null,"
                      "\"t_queued\":0.500000,\"t_started\":null,\"t_sampling\":null,\"t_decided\":null,"
                      "\"duration\":null,\"turns\":0,\"extended\":0,\"cut\":0,\"idled\":0,\"yielded\":0,\"unconfirmed\":0,\"fresh_disagreed\":0,\"restarted\":0,\"held\":0,\"sampled\":null,\"probe_cycles\":null,\"probe_samples\":0,\"probe_rate\":null,\"deferred\":false,\"same_code\":false,\"same_ir\":false,\"failure\":null,\"online\":null,\"variants\":[{\"name\":\"default\","
                      "\"options\":\"O2\",\"inline_max_callee_size\":40,\"inline_max_depth\":3,"
                      "\"inline_max_growth\":400,\"samples\":0,\"received\":0,\"outliers_dropped\":0,"
                      "\"warmups\":0,\"warmup_cycles\":null,\"weight\":0,\"timed_call_cycles\":null,\"mean_cycles\":null,\"stddev_cycles\":null,"
                      "\"copy_samples\":[0,0],\"copy_mean_cycles\":[null,null],\"relative_to_best\":null,"
                      "\"relative_to_best_interval\":null,\"slower\":false},{\"name\":\"inline4x\"");
    CHECK_CONTAINS(s, "{\"id\":2,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"compiling\",");
    CHECK_CONTAINS(s, "\"t_started\":0.750000,\"t_sampling\":null");
    CHECK_CONTAINS(s, "{\"id\":3,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"sampling\","
                      "\"outcome\":\"running\",\"winner\":null,\"installed\":null,\"best\":\"inline4x\","
                      "\"runner_up\":\"default\",\"test\":\"sequential\",\"oracle\":false,"
                      "\"futile\":false,\"placement\":false,\"between\":false,\"no_winner\":false,\"confidence\":0.9995,\"sample_every\":43,\"relative_difference\":-0.05,"
                      "\"relative_difference_interval\":[-0.07,-0.029],");
    CHECK_CONTAINS(s, "{\"id\":4,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"done\","
                      "\"outcome\":\"winner\",\"winner\":\"inline4x\",\"installed\":\"inline4x\",");
    CHECK_CONTAINS(s, "\"t_sampling\":1.000000,\"t_decided\":3.250000,\"duration\":2.25,\"turns\":1,\"extended\":0,\"cut\":0,\"idled\":0,\"yielded\":5,\"unconfirmed\":2,\"fresh_disagreed\":1,\"restarted\":3,\"held\":4,\"sampled\":2.25,\"probe_cycles\":412.5,\"probe_samples\":256,\"probe_rate\":250000,\"deferred\":true,\"same_code\":false,\"same_ir\":false,\"failure\":null,"
                      "\"online\":null,\"variants\":[{\"name\":\"default\",\"options\":\"O2\",\"inline_max_callee_size\":40,"
                      "\"inline_max_depth\":3,\"inline_max_growth\":400,\"samples\":12000,"
                      "\"received\":13400,\"outliers_dropped\":1340,\"warmups\":4400,"
                      "\"warmup_cycles\":5125.5,\"weight\":36000,"
                      "\"timed_call_cycles\":3000,\"mean_cycles\":1000,"
                      "\"stddev_cycles\":120,\"copy_samples\":[6000,6000],\"copy_mean_cycles\":[990,1010],"
                      "\"relative_to_best\":0.0526,"
                      "\"relative_to_best_interval\":[0.03,0.075],\"slower\":true},"
                      "{\"name\":\"inline4x\",\"options\":\"O2\",\"inline_max_callee_size\":160,"
                      "\"inline_max_depth\":3,\"inline_max_growth\":400,\"samples\":11990,"
                      "\"received\":13390,\"outliers_dropped\":1339,\"warmups\":0,"
                      "\"warmup_cycles\":null,\"weight\":35970,"
                      "\"timed_call_cycles\":2850,\"mean_cycles\":950,"
                      "\"stddev_cycles\":110,\"copy_samples\":[11990,0],\"copy_mean_cycles\":[950,null],"
                      "\"relative_to_best\":0,"
                      "\"relative_to_best_interval\":[0,0],\"slower\":false}],\"timing\":\"method\",");
    CHECK_CONTAINS(s, "{\"id\":5,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"done\","
                      "\"outcome\":\"no-difference\",\"winner\":null,\"installed\":\"default\",");
    CHECK_CONTAINS(s, "{\"id\":6,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"done\","
                      "\"outcome\":\"timeout\",\"winner\":null,\"installed\":\"default\",");
    CHECK_CONTAINS(s, "\"test\":\"sequential\",\"oracle\":false,\"futile\":true,\"placement\":true,\"between\":false,\"no_winner\":false,");
    CHECK_CONTAINS(s, "{\"id\":7,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"failed\","
                      "\"outcome\":\"running\",\"winner\":null,\"installed\":null,");
    CHECK_CONTAINS(s, "\"duration\":null,\"turns\":0,\"extended\":0,\"cut\":0,\"idled\":0,\"yielded\":0,\"unconfirmed\":0,\"fresh_disagreed\":0,\"restarted\":0,\"held\":0,\"sampled\":null,\"probe_cycles\":null,\"probe_samples\":0,\"probe_rate\":null,\"deferred\":false,\"same_code\":false,\"same_ir\":false,\"failure\":\"gcc: error: unrecognized option '-fbogus'\",");
    CHECK_CONTAINS(s, "{\"id\":8,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"done\","
                      "\"outcome\":\"winner\",\"winner\":\"inline4x\",\"installed\":\"inline4x\","
                      "\"best\":\"inline4x\",\"runner_up\":\"default\",\"test\":\"paper\",\"oracle\":true,");
    free(s);

    /* audit.verify: the decision, after which the oracle's look */
    AuBakeoffRecord v = record(9, AU_PHASE_SAMPLING, AU_RUNNING);
    v.result.online = (AuOnline){AU_WINNER, 1, -0.08, -0.1, -0.06, 1.5, 12000};
    buf = NULL;
    f = open_memstream(&buf, &len);
    au_report_json(f, &v, 1, "");
    s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"phase\":\"sampling\",\"outcome\":\"running\",\"winner\":null,");
    CHECK_CONTAINS(s, "\"failure\":null,\"online\":{\"outcome\":\"winner\",\"winner\":\"inline4x\","
                      "\"installs\":\"inline4x\",\"relative_difference\":-0.08,"
                      "\"relative_difference_interval\":[-0.1,-0.06],\"sampled\":1.5,\"samples\":12000},"
                      "\"variants\":[");
    free(s);
    v.result.online.outcome = AU_NO_DIFFERENCE;
    v.result.online.install = 0;
    buf = NULL;
    f = open_memstream(&buf, &len);
    au_report_json(f, &v, 1, "");
    s = take(f, &buf);
    CHECK_CONTAINS(s, "\"online\":{\"outcome\":\"no-difference\",\"winner\":null,\"installs\":\"default\",");
    free(s);

    /* an empty list, and an indent */
    buf = NULL;
    f = open_memstream(&buf, &len);
    au_report_json(f, r, 0, "  ");
    s = take(f, &buf);
    CHECK_STR(s, "[]");
    free(s);
    buf = NULL;
    f = open_memstream(&buf, &len);
    au_report_json(f, r, 1, "  ");
    s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK(!strncmp(s, "[\n  {\"id\":1,", 11));
    CHECK(!strcmp(s + strlen(s) - 5, "}\n  ]"));
    free(s);
}

TEST(audit_report_json_hostile_records)
{
    AuBakeoffRecord r[4];
    /* strings that need escapes, bytes that are not UTF-8, valid UTF-8 */
    r[0] = record(1, AU_PHASE_FAILED, AU_RUNNING);
    snprintf(r[0].method, sizeof r[0].method, "A\"b\\c\nd\te\x01\x7f" "caf\xc3\xa9 \xff\xfe \xc0\xaf \xed\xa0\x80");
    snprintf(r[0].client, sizeof r[0].client, "cust\"om");
    snprintf(r[0].variants[0].optset, sizeof r[0].variants[0].optset, "-O3 \"-fx\"\\");
    snprintf(r[0].failure, sizeof r[0].failure, "line1\nline2\r\x1b[31m");
    /* NaN and infinities everywhere a number goes */
    r[1] = record(2, AU_PHASE_DONE, AU_WINNER);
    r[1].result.confidence = NAN;
    r[1].result.sample_every = -1;
    r[1].result.rel = INFINITY;
    r[1].result.rel_lo = -INFINITY;
    r[1].result.v[0].mean = NAN;
    r[1].result.v[0].stddev = INFINITY;
    r[1].result.v[0].rel_hi = NAN;
    r[1].result.v[0].copy_mean[0] = NAN;
    r[1].copies = 1000;   /* clamped to JIT_MAX_COPIES */
    r[1].t_decided = NAN;
    r[1].t_queued = INFINITY;
    /* strings without their NUL, indexes out of range, a bad phase and outcome */
    r[2] = record(3, AU_PHASE_DONE, AU_WINNER);
    memset(r[2].method, 'm', sizeof r[2].method);
    memset(r[2].client, 'c', sizeof r[2].client);
    memset(r[2].variants[0].name, 'n', sizeof r[2].variants[0].name);
    memset(r[2].variants[0].optset, 'o', sizeof r[2].variants[0].optset);
    memset(r[2].failure, 'f', sizeof r[2].failure);
    r[2].result.install = 7;
    r[2].installed = 99;
    r[2].result.runner_up = -5;
    r[2].phase = (AuPhase)42;
    r[3] = record(4, AU_PHASE_DONE, AU_WINNER);
    r[3].nvariants = 1000;
    r[3].result.outcome = (AuOutcome)77;
    r[3].result.test = (AuTest)9;
    r[3].result.best = 12;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    au_report_json(f, r, 4, "");
    char *s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"method\":\"A\\\"b\\\\c\\nd\\te\\u0001\\u007fcaf\xc3\xa9 \\ufffd\\ufffd "
                      "\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\",\"client\":\"cust\\\"om\"");
    CHECK_CONTAINS(s, "\"options\":\"-O3 \\\"-fx\\\"\\\\\"");
    CHECK_CONTAINS(s, "\"failure\":\"line1\\nline2\\u000d\\u001b[31m\"");
    CHECK_CONTAINS(s, "\"confidence\":null,\"sample_every\":null,\"relative_difference\":null,"
                      "\"relative_difference_interval\":null,\"t_queued\":null,");
    CHECK_CONTAINS(s, "\"t_decided\":null,\"duration\":null,");
    CHECK_CONTAINS(s, "\"mean_cycles\":null,\"stddev_cycles\":null,\"copy_samples\":[6000,6000],"
                      "\"copy_mean_cycles\":[null,1010],\"relative_to_best\":0.0526,"
                      "\"relative_to_best_interval\":null,");
    /* bounded strings: exactly the array's bytes */
    char want[AU_NAME_MAX + 16] = "\"method\":\"";
    memset(want + 10, 'm', AU_NAME_MAX);
    memcpy(want + 10 + AU_NAME_MAX, "\",", 3);
    CHECK_CONTAINS(s, want);
    CHECK_CONTAINS(s, "\"phase\":\"unknown\",\"outcome\":\"winner\",\"winner\":null,\"installed\":null,"
                      "\"best\":\"inline4x\",\"runner_up\":null,");
    CHECK_CONTAINS(s, "{\"id\":4,\"method\":\"Foo.bar\",\"client\":\"inline\",\"phase\":\"done\","
                      "\"outcome\":\"unknown\",\"winner\":null,\"installed\":\"inline4x\",\"best\":null,"
                      "\"runner_up\":null,\"test\":\"unknown\",\"oracle\":false,\"futile\":false,\"placement\":false,\"between\":false,\"no_winner\":false,\"confidence\":null,");
    CHECK_CONTAINS(s, "{\"name\":\"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\",\"options\":\"oooo");
    /* nvariants 1000 is clamped to JIT_MAX_VARIANTS */
    const char *r4 = strstr(s, "{\"id\":4,");
    int nv = 0;
    for (const char *p = r4 ? strstr(r4, "{\"name\":") : NULL; p; p = strstr(p + 1, "{\"name\":"))
        nv++;
    CHECK_INT(nv, JIT_MAX_VARIANTS);
    free(s);
}

/* ---- the stats hook ---------------------------------------------------- */

typedef struct FakeAuditor {
    AuBakeoffRecord r[40];
    size_t n;
    size_t grow;                    /* records added at each snapshot */
    int calls;
} FakeAuditor;

static size_t fake_snapshot(AuAuditor *au, AuBakeoffRecord *out, size_t max)
{
    FakeAuditor *a = (FakeAuditor *)au;
    a->calls++;
    if (a->n + a->grow <= sizeof a->r / sizeof *a->r)
        a->n += a->grow;
    for (size_t i = 0; i < a->n && i < max; i++)
        out[i] = a->r[i];
    return a->n;
}

static void fake_extra(Vm *vm, FILE *f, void *ctx)
{
    (void)vm;
    au_report_stats(f, fake_snapshot, ctx);
}

TEST(audit_report_stats_member)
{
    static FakeAuditor a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < 40; i++)
        a.r[i] = record((uint32_t)i + 1, (AuPhase)(i % 5), (AuOutcome)(i % 4));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("{\"x\":1", f);
    au_report_stats(f, fake_snapshot, (AuAuditor *)&a);
    fputc('}', f);
    char *s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK(!strncmp(s, "{\"x\":1,\n\"bakeoffs\":[]}", 22));
    free(s);

    /* more records than the first buffer holds, growing between snapshots:
     * every record of the last snapshot, none twice */
    a.n = 14;   /* 19 at the first snapshot: more than its 16 slots */
    a.grow = 5;
    a.calls = 0;
    buf = NULL;
    f = open_memstream(&buf, &len);
    fputs("{\"x\":1", f);
    au_report_stats(f, fake_snapshot, (AuAuditor *)&a);
    fputc('}', f);
    s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK(a.calls >= 2);
    int k = 0;
    for (char *p = strstr(s, "{\"id\":"); p; p = strstr(p + 1, "{\"id\":"))
        k++;
    CHECK_INT(k, (int)a.n);
    char last[32];
    snprintf(last, sizeof last, "{\"id\":%zu,", a.n);
    CHECK_CONTAINS(s, last);
    free(s);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, k, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* vm_stats_write with the hook: one JSON document, methods and bakeoffs */
TEST(audit_report_stats_file)
{
    static FakeAuditor a;
    memset(&a, 0, sizeof a);
    a.n = 3;
    a.r[0] = record(1, AU_PHASE_DONE, AU_WINNER);
    a.r[1] = record(2, AU_PHASE_SAMPLING, AU_RUNNING);
    a.r[2] = record(3, AU_PHASE_FAILED, AU_RUNNING);
    VmModule *mod = vm_module_new();
    mod->name = strdup("prog");
    mod->nmethods = 2;
    mod->methods = calloc(2, sizeof *mod->methods);
    mod->methods[0] = (VmMethod){.name = "main", .prof = {.calls = 1}};
    mod->methods[1] = (VmMethod){.name = "Foo.bar", .prof = {.calls = 7, .hot = true}};
    Vm vm = {.module = mod};
    vm.hooks.stats_extra = fake_extra;
    vm.hooks.stats_ctx = &a;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tally-unit-report-%d.json", (int)getpid());
    VmError err = {{0}};
    CHECK(vm_stats_write(&vm, path, &err));
    char *s = slurp(path);
    CHECK(s && json_valid(s));
    CHECK_CONTAINS(s, "{\"version\":1,\"module\":\"prog\",\"methods\":[\n{\"name\":\"main\",\"calls\":1,");
    CHECK_CONTAINS(s, "\"blocks\":[]},\n{\"name\":\"Foo.bar\",\"calls\":7,\"backedges\":0,\"hot\":true,");
    CHECK_CONTAINS(s, "\"blocks\":[]}],\n\"gc\":{\"collections\":");
    CHECK_CONTAINS(s, "},\n\"stats_writes_failed\":0,\n\"bakeoffs\":[\n{\"id\":1,");
    CHECK_CONTAINS(s, "\n{\"id\":3,");
    CHECK(s && !strcmp(s + strlen(s) - 5, "}\n]}\n"));
    free(s);
    remove(path);
    for (uint32_t i = 0; i < mod->nmethods; i++)
        mod->methods[i] = (VmMethod){0};
    vm_module_free(mod);
}

/* a hook that counts its calls and makes each write visibly different */
static int extra_calls;
static void counting_extra(Vm *vm, FILE *f, void *ctx)
{
    (void)vm, (void)ctx;
    fprintf(f, ",\n\"writes\":%d", __atomic_add_fetch(&extra_calls, 1, __ATOMIC_RELAXED));
}

/* The periodic writer rewrites the file while "the program runs" (here:
 * while this thread sleeps and bumps a counter), always whole; stop
 * writes it once more.  No signals here: they would end the test runner. */
TEST(audit_report_periodic_writer)
{
    VmModule *mod = vm_module_new();
    mod->name = strdup("periodic");
    mod->nmethods = 1;
    mod->methods = calloc(1, sizeof *mod->methods);
    mod->methods[0] = (VmMethod){.name = "main"};
    Vm vm = {.module = mod};
    vm.hooks.stats_extra = counting_extra;
    extra_calls = 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tally-unit-periodic-%d.json", (int)getpid());
    remove(path);
    VmError err = {{0}};
    VmStatsWriter *w = vm_stats_writer_start(&vm, path, 20, false, &err);
    CHECK(w != NULL);
    int valid = 0, reads = 0;
    uint64_t last_calls = 0;
    bool increasing = true;
    for (int i = 0; i < 40; i++) {
        __atomic_add_fetch(&mod->methods[0].prof.calls, 3, __ATOMIC_RELAXED);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
        char *s = slurp(path);
        if (!s)
            continue;
        reads++;
        /* a reader never sees half a file: every read is complete JSON */
        valid += json_valid(s);
        const char *c = strstr(s, "\"calls\":");
        uint64_t calls = c ? strtoull(c + 8, NULL, 10) : 0;
        if (calls < last_calls)
            increasing = false;
        last_calls = calls;
        free(s);
    }
    CHECK(reads > 0);
    CHECK_INT(valid, reads);
    CHECK(increasing);
    CHECK(last_calls > 0);
    int before = __atomic_load_n(&extra_calls, __ATOMIC_RELAXED);
    CHECK(before >= 3);   /* 200 ms at a period of 20 ms */
    CHECK(vm_stats_writer_stop(w, &err));
    /* the final write; a periodic one may have begun after `before` was
     * read and ended before the stop (the writer's clock, not ours) */
    int after = __atomic_load_n(&extra_calls, __ATOMIC_RELAXED);
    CHECK(after == before + 1 || after == before + 2);
    struct timespec quiet = {0, 50 * 1000 * 1000};
    nanosleep(&quiet, NULL);
    CHECK_INT(extra_calls, after);   /* and nothing after the stop */
    char *s = slurp(path);
    CHECK(s && json_valid(s));
    CHECK_CONTAINS(s, "\"calls\":120,");
    char tmp[80];
    snprintf(tmp, sizeof tmp, "%s.tmp%d.0", path, (int)getpid());
    CHECK(access(tmp, F_OK) != 0);
    free(s);
    remove(path);

    /* period 0: only the final write */
    extra_calls = 0;
    w = vm_stats_writer_start(&vm, path, 0, false, &err);
    CHECK(w != NULL);
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(access(path, F_OK) != 0);
    CHECK(vm_stats_writer_stop(w, &err));
    CHECK_INT(extra_calls, 1);
    remove(path);

    /* a directory that does not exist: the final write says so */
    w = vm_stats_writer_start(&vm, "/nonexistent-dir/s.json", 10, false, &err);
    CHECK(w != NULL);
    nanosleep(&ts, NULL);
    CHECK(!vm_stats_writer_stop(w, &err));
    CHECK_CONTAINS(err.msg, "cannot write '/nonexistent-dir/s.json': No such file or directory");
    CHECK(vm_stats_writer_start(&vm, "", 10, false, &err) == NULL);

    for (uint32_t i = 0; i < mod->nmethods; i++)
        mod->methods[i] = (VmMethod){0};
    vm_module_free(mod);
}

/* ---- --log=audit ------------------------------------------------------------ */

static char *log_line(double t, const AuBakeoffRecord *r, AuEvent ev)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    au_log_event(f, t, r, ev);
    fclose(f);
    return buf;
}

TEST(audit_report_log_lines)
{
    AuBakeoffRecord r = record(7, AU_PHASE_QUEUED, AU_RUNNING);
    char *s = log_line(0.5, &r, AU_EV_QUEUED);
    CHECK_STR(s, "[500.000ms] audit: queued #7 Foo.bar client=inline variants=default,inline4x\n");
    free(s);
    r = record(7, AU_PHASE_COMPILING, AU_RUNNING);
    s = log_line(0.7875, &r, AU_EV_COMPILED);
    CHECK_STR(s, "[787.500ms] audit: compiled #7 Foo.bar client=inline variants=2 compile=37.5ms\n");
    free(s);
    r.probe_cycles = 412.5;   /* what the probe read before the compile */
    r.probe_samples = 256;
    s = log_line(0.7875, &r, AU_EV_COMPILED);
    CHECK_STR(s, "[787.500ms] audit: compiled #7 Foo.bar client=inline variants=2 compile=37.5ms probe=412cycles/256\n");
    free(s);
    r.probe_cycles = 41.4;    /* research.defer: back into the queue, nothing compiled */
    r.deferred = true;
    s = log_line(0.7875, &r, AU_EV_DEFERRED);
    CHECK_STR(s, "[787.500ms] audit: deferred #7 Foo.bar client=inline probe=41cycles/256\n");
    free(s);
    r = record(7, AU_PHASE_SAMPLING, AU_RUNNING);
    s = log_line(1.0, &r, AU_EV_SAMPLING);
    CHECK_STR(s, "[1000.000ms] audit: sampling #7 Foo.bar client=inline waited=250.0ms\n");
    free(s);
    r = record(7, AU_PHASE_DONE, AU_WINNER);
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_STR(s, "[3250.000ms] audit: decided #7 Foo.bar client=inline outcome=winner winner=inline4x "
                 "installed=inline4x best=inline4x confidence=0.9995 rel=-5.00% ci=[-7.00%,-2.90%] "
                 "samples=12000,11990 test=sequential duration=2.250s\n");
    free(s);
    r = record(7, AU_PHASE_DONE, AU_NO_DIFFERENCE);
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " outcome=no-difference winner=- installed=default best=inline4x ");
    free(s);
    r = record(7, AU_PHASE_DONE, AU_TIMEOUT);
    r.oracle = true;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " outcome=timeout winner=- installed=default ");
    CHECK_CONTAINS(s, " test=sequential+oracle ");
    CHECK(!strstr(s, "futile"));
    free(s);
    r = record(7, AU_PHASE_DONE, AU_TIMEOUT);
    r.result.futile = true;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " outcome=timeout winner=- installed=default ");
    CHECK_CONTAINS(s, " test=sequential futile duration=2.250s\n");
    free(s);
    r.result.placement = true;   /* futile as the copies are apart (stats.c: copies_apart) */
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " test=sequential futile placement duration=2.250s\n");
    free(s);
    r.result.placement = false;
    r.result.between = r.result.no_winner = true;   /* only a timeout left (stats.c: default_beaten) */
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " test=sequential futile between duration=2.250s\n");
    free(s);
    r.result.between = false;    /* no winner left, a no-difference not waited for (research.no_winner) */
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " test=sequential futile no-winner duration=2.250s\n");
    free(s);
    r = record(7, AU_PHASE_DONE, AU_NO_DIFFERENCE);   /* audit.verify: the oracle's look after */
    r.result.online = (AuOnline){AU_WINNER, 1, -0.08, -0.1, -0.06, 1.5, 12000};
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " outcome=no-difference winner=- installed=default ");
    CHECK_CONTAINS(s, " online=winner:inline4x@1.500s\n");
    free(s);
    r = record(7, AU_PHASE_SAMPLING, AU_RUNNING);
    s = log_line(2.0, &r, AU_EV_CANCELLED);
    CHECK_CONTAINS(s, "audit: cancelled #7 Foo.bar client=inline outcome=none winner=- installed=- ");
    CHECK_CONTAINS(s, " sampled=1.000s turns=1\n");
    free(s);
    r = record(7, AU_PHASE_SAMPLING, AU_RUNNING);   /* audit.extend */
    r.extended = 2;
    r.result.to_decide = 0.85;
    s = log_line(2.0, &r, AU_EV_EXTENDED);
    CHECK_STR(s, "[2000.000ms] audit: extended #7 Foo.bar client=inline turn=1 extra=2 decides_in=0.850s "
                 "samples=12000,11990\n");
    free(s);
    r = record(7, AU_PHASE_PAUSED, AU_RUNNING);   /* audit.cut: paused early */
    r.cut = 1;
    r.result.to_decide = INFINITY;
    s = log_line(1.25, &r, AU_EV_CUT);
    CHECK_STR(s, "[1250.000ms] audit: cut #7 Foo.bar client=inline turn=1 sampled=1.000s samples=12000,11990\n");
    free(s);
    r.result.to_decide = 4.5;
    s = log_line(1.25, &r, AU_EV_CUT);
    CHECK_CONTAINS(s, " samples=12000,11990 decides_in=4.500s\n");
    free(s);
    r = record(7, AU_PHASE_PAUSED, AU_RUNNING);   /* no timed call in its turn */
    r.idled = 1;
    r.result.to_decide = INFINITY;
    s = log_line(1.25, &r, AU_EV_IDLE);
    CHECK_STR(s, "[1250.000ms] audit: idle #7 Foo.bar client=inline turn=1 sampled=1.000s samples=12000,11990\n");
    free(s);
    r = record(7, AU_PHASE_PAUSED, AU_RUNNING);   /* a callee queued in the JIT */
    r.yielded = 1;
    r.result.to_decide = INFINITY;
    s = log_line(1.25, &r, AU_EV_YIELDED);
    CHECK_STR(s, "[1250.000ms] audit: yielded #7 Foo.bar client=inline turn=1 sampled=1.000s samples=12000,11990\n");
    free(s);
    r = record(7, AU_PHASE_DONE, AU_WINNER);
    r.extended = 2;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " duration=2.250s sampled=2.250s turns=1 extended=2\n");
    free(s);
    r.turns = 4;
    r.cut = 3;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " duration=2.250s sampled=2.250s turns=4 extended=2 cut=3\n");
    free(s);
    r.idled = 2;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " turns=4 extended=2 cut=3 idled=2\n");
    free(s);
    r.yielded = 1;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " turns=4 extended=2 cut=3 idled=2 yielded=1\n");
    free(s);
    r.result.unconfirmed = 3;   /* confirmations that did not stand, one for the fresh samples */
    r.result.fresh_disagreed = 1;
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " yielded=1 unconfirmed=3 fresh_disagreed=1\n");
    free(s);
    r.result.restarted = 2;   /* samples begun anew at two JIT installs */
    r.result.held = 5;        /* decisions held for a callee in the JIT's queue */
    s = log_line(3.25, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, " unconfirmed=3 fresh_disagreed=1 restarted=2 held=5\n");
    free(s);
    r = record(7, AU_PHASE_FAILED, AU_RUNNING);
    snprintf(r.failure, sizeof r.failure, "as: error\nsecond line");
    s = log_line(0.8, &r, AU_EV_FAILED);
    CHECK_STR(s, "[800.000ms] audit: failed #7 Foo.bar client=inline: as: error second line\n");
    free(s);
    r.failure[0] = 0;
    s = log_line(0.8, &r, AU_EV_FAILED);
    CHECK_STR(s, "[800.000ms] audit: failed #7 Foo.bar client=inline: unknown error\n");
    free(s);
    /* before any estimate, and with names that would break the words */
    r = record(9, AU_PHASE_SAMPLING, AU_RUNNING);
    r.result.best = -1;
    snprintf(r.method, sizeof r.method, "a b\nc");
    r.client[0] = 0;
    s = log_line(1.5, &r, AU_EV_DECIDED);
    CHECK_CONTAINS(s, "audit: decided #9 a_b_c client=- outcome=running winner=- installed=- best=- "
                      "confidence=- rel=- ci=[-,-] samples=12000,11990 ");
    CHECK(strchr(s, '\n') == s + strlen(s) - 1);
    free(s);
    /* a record whose strings fill their arrays: still one bounded line */
    memset(r.method, 'x', sizeof r.method);
    memset(r.failure, 'y', sizeof r.failure);
    r.phase = AU_PHASE_FAILED;
    s = log_line(1.5, &r, AU_EV_FAILED);
    CHECK(strlen(s) < 1024);
    CHECK(strchr(s, '\n') == s + strlen(s) - 1);
    free(s);
    CHECK_STR(au_event_name(AU_EV_SAMPLING), "sampling");
    CHECK_STR(au_event_name((AuEvent)99), "unknown");
    CHECK_STR(au_phase_name(AU_PHASE_DONE), "done");
    CHECK_STR(au_phase_name((AuPhase)-1), "unknown");
}

/* research.same_code: decided untimed, its variants the same code — no
 * estimate, no duration, the default installed; the JSON says so and
 * the log line ends in same-code (and same-ir, known from the IR). */
TEST(audit_report_same_code)
{
    AuBakeoffRecord r = record(9, AU_PHASE_COMPILING, AU_RUNNING);
    r.phase = AU_PHASE_DONE;
    r.result.outcome = AU_NO_DIFFERENCE;
    r.result.install = 0;
    r.installed = 0;
    r.same_code = true;
    r.t_decided = 1.5;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    au_report_json(f, &r, 1, "");
    char *s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"phase\":\"done\",\"outcome\":\"no-difference\",\"winner\":null,\"installed\":\"default\","
                      "\"best\":null,\"runner_up\":null,");
    CHECK_CONTAINS(s, "\"confidence\":null,\"sample_every\":null,\"relative_difference\":null,"
                      "\"relative_difference_interval\":null,");
    CHECK_CONTAINS(s, "\"t_sampling\":null,\"t_decided\":1.500000,\"duration\":null,\"turns\":0,");
    CHECK_CONTAINS(s, "\"deferred\":false,\"same_code\":true,\"same_ir\":false,\"failure\":null,");
    free(s);
    s = log_line(1.5, &r, AU_EV_DECIDED);
    CHECK_STR(s, "[1500.000ms] audit: decided #9 Foo.bar client=inline outcome=no-difference winner=- "
                 "installed=default best=- confidence=- rel=- ci=[-,-] samples=0,0 test=sequential same-code\n");
    free(s);
    /* research.same_ir: known from the IR, variant 0 alone compiled */
    r.same_ir = true;
    f = open_memstream(&buf, &len);
    au_report_json(f, &r, 1, "");
    s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"same_code\":true,\"same_ir\":true,");
    free(s);
    s = log_line(1.5, &r, AU_EV_DECIDED);
    CHECK_STR(s, "[1500.000ms] audit: decided #9 Foo.bar client=inline outcome=no-difference winner=- "
                 "installed=default best=- confidence=- rel=- ci=[-,-] samples=0,0 test=sequential same-code same-ir\n");
    free(s);
}

TEST(audit_report_loop_timings)
{
    /* a bakeoff timed by code markers: its points, the marker map per
     * variant, the stub's overhead and the timing-quality scores */
    AuBakeoffRecord r = record(10, AU_PHASE_DONE, AU_WINNER);
    AuMarkerSites map[2] = {{.sites = 1, .in_loop = 1}, {.sites = 3, .at_exit = 3, .guarded = 3}};
    r.npoints = 1;
    r.point_pc[0] = 7;
    r.point_line[0] = 12;   /* its source line (0: none, written null) */
    r.entry_freq = 0.0001;
    r.marker_sites = 8;
    r.marker_overhead = 74;
    r.marker_map = map;
    r.result.loops = true;
    /* what each variant's mean is made of: the call's end (weight 1) and
     * the point (1000 a call); variant 1's share unknown (no mean yet) */
    AuRegionCosts *rc = &r.result.regions;
    rc->nregions = 2;
    rc->weight[0] = 1, rc->weight[1] = 1000;
    rc->cycles[0][0] = 500, rc->cycles[0][1] = 1.5, rc->share[0][0] = 0.25, rc->share[0][1] = 0.75;
    rc->cycles[1][0] = 250, rc->cycles[1][1] = NAN, rc->share[1][0] = NAN, rc->share[1][1] = NAN;
    r.result.min_timing = 48;
    au_score_add(&r.result.score[AU_SCORE_MARKERS], 148, 48);   /* 100/(148 − 47.9) */
    au_score_add(&r.result.score[AU_SCORE_MARKERS], 248, 48);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    au_report_json(f, &r, 1, "");
    char *s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"timing\":\"markers\",\"timing_reason\":null,\"entry_freq\":0.0001,\"points\":[7],"
                      "\"marker_sites\":8,\"markers_refused\":0,\"marker_overhead\":74,");
    CHECK_CONTAINS(s, "\"markers\":[{\"point\":0,\"pc\":7,\"line\":12,\"variants\":["
                      "{\"sites\":1,\"in_loop\":1,\"at_exit\":0,\"straight\":0,\"guarded\":0,\"refused\":false,"
                      "\"cycles\":1.5,\"share\":0.75},"
                      "{\"sites\":3,\"in_loop\":0,\"at_exit\":3,\"straight\":0,\"guarded\":3,\"refused\":false,"
                      "\"cycles\":null,\"share\":null}],\"weight\":1000}],"
                      "\"outside\":{\"weight\":1,\"variants\":[{\"cycles\":500,\"share\":0.25},"
                      "{\"cycles\":250,\"share\":null}]},");
    /* 2 timings of variance 5000: converge 0.0004; perturb (0.999 + 0.4998)/2 */
    CHECK_CONTAINS(s, "\"min_timing\":48,\"scores\":{\"method\":{\"timings\":0,\"converge\":null,\"perturb\":null},"
                      "\"markers\":{\"timings\":2,\"converge\":0.0004,\"perturb\":0.749");
    free(s);
    /* a result not from loop timings (none yet): the costs are null */
    r.result.loops = false;
    f = open_memstream(&buf, &len);
    au_report_json(f, &r, 1, "");
    s = take(f, &buf);
    CHECK(json_valid(s));
    CHECK_CONTAINS(s, "\"refused\":false,\"cycles\":null,\"share\":null}],\"weight\":null}],\"outside\":null,");
    free(s);
}
