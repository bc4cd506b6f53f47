/* tests/unit/test_profile.c — block counts derived from hand-set profile
 * counters, the JSON statistics dump, and output files (vm/outfile.c).
 *
 * Methods are built by hand as vm_link leaves them: branch instructions
 * carry their profile slot in k.i, and the counters are set to what an
 * interpreter run would have left.
 */
#include "test.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INSN(o, ...) ((VmInsn){.op = VM_OP_##o, __VA_ARGS__})

/*   for (i = 0; i < 10; i++) { if (flag) s += 1; else s += 2; }  run 3 times
 *   0  LDI r0, 0                     B0
 *   1  LDI r1, 0
 *   2  JGES r0, 10, L9   slot 0      B1  loop head
 *   3  JF r2, L6         slot 1      B2
 *   4  ADDK r1, r1, 1                B3  then
 *   5  JMP L7            (forward)
 *   6  ADDK r1, r1, 2                B4  else
 *   7  ADDK r0, r0, 1                B5  join
 *   8  JMP L2            slot 2      (backward)
 *   9  RET r1                        B6
 */
static VmInsn loop_if_code[] = {
    INSN(LDI, .a = 0, .k.i = 0),
    INSN(LDI, .a = 1, .k.i = 0),
    INSN(JGES, .a = 0, .b = 10, .c = 9, .k.i = 0),
    INSN(JF, .a = 2, .b = 6, .k.i = 1),
    INSN(ADDK, .a = 1, .b = 1, .k.i = 1),
    INSN(JMP, .a = 7, .k.i = 0),
    INSN(ADDK, .a = 1, .b = 1, .k.i = 2),
    INSN(ADDK, .a = 0, .b = 0, .k.i = 1),
    INSN(JMP, .a = 2, .k.i = 2),
    INSN(RET, .a = 1),
};

static VmBranchProf loop_if_slots[] = {
    {.taken = 3, .not_taken = 30, .pc = 2},
    {.taken = 12, .not_taken = 18, .pc = 3},
    {.taken = 30, .not_taken = 0, .pc = 8},
};

static VmMethod loop_if_method(void)
{
    return (VmMethod){
        .name = "Loops.mixed",
        .ncode = sizeof loop_if_code / sizeof *loop_if_code,
        .code = loop_if_code,
        .prof = {.calls = 3, .backedges = 30, .nbranches = 3, .branches = loop_if_slots},
    };
}

TEST(profile_blocks_loop_with_if)
{
    VmMethod m = loop_if_method();
    uint32_t starts[16];
    uint64_t counts[16];
    uint32_t n = vm_block_counts(&m, starts, counts);
    static const uint32_t want_start[] = {0, 2, 3, 4, 6, 7, 9};
    static const uint64_t want_count[] = {3, 33, 30, 18, 12, 30, 3};
    CHECK_INT(n, 7);
    for (uint32_t i = 0; i < n && i < 7; i++) {
        CHECK_INT(starts[i], want_start[i]);
        CHECK_INT(counts[i], want_count[i]);
    }
}

/*   0  LDI r0, 0                  B0
 *   1  LDI r1, 5
 *   2  ADDK r2, r2, 1             B1  body
 *   3  LOOP r0, r1, L2  slot 0
 *   4  RETV                       B2
 */
TEST(profile_blocks_counted_loop)
{
    VmInsn code[] = {
        INSN(LDI, .a = 0, .k.i = 0),
        INSN(LDI, .a = 1, .k.i = 5),
        INSN(ADDK, .a = 2, .b = 2, .k.i = 1),
        INSN(LOOP, .a = 0, .b = 1, .c = 2, .k.i = 0),
        INSN(RETV),
    };
    VmBranchProf slot = {.taken = 8, .not_taken = 2, .pc = 3};
    VmMethod m = {.name = "f", .ncode = 5, .code = code,
                  .prof = {.calls = 2, .nbranches = 1, .branches = &slot}};
    uint32_t starts[5];
    uint64_t counts[5];
    CHECK_INT(vm_block_counts(&m, starts, counts), 3);
    CHECK_INT(starts[0], 0);
    CHECK_INT(counts[0], 2);
    CHECK_INT(starts[1], 2);
    CHECK_INT(counts[1], 10);
    CHECK_INT(starts[2], 4);
    CHECK_INT(counts[2], 2);

    /* a slot index out of range reads as zero rather than crashing */
    code[3].k.i = 7;
    CHECK_INT(vm_block_counts(&m, starts, counts), 3);
    CHECK_INT(counts[1], 2);
    /* no code, no blocks */
    m.ncode = 0;
    CHECK_INT(vm_block_counts(&m, starts, counts), 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

TEST(profile_stats_json)
{
    VmModule *mod = vm_module_new();
    mod->name = strdup("loops \"q\"");
    mod->nmethods = 2;
    mod->methods = calloc(2, sizeof *mod->methods);
    mod->methods[0] = loop_if_method();
    mod->methods[0].prof.hot = true;
    VmClass rect = {.name = "Rect"}, circle = {.name = "Circle"};
    VmMethod target = {.name = "Shape.area"};
    VmCallSite site = {.target = &target, .pc = 4, .other = 1};
    site.seen[0].cls = &rect, site.seen[0].count = 5;
    site.seen[1].cls = &circle, site.seen[1].count = 2;
    mod->methods[0].prof.nsites = 1;
    mod->methods[0].prof.sites = &site;
    mod->methods[1] = (VmMethod){.name = "Shape.area", .flags = VM_M_ABSTRACT};

    Vm vm = {.module = mod};
    char path[64];
    snprintf(path, sizeof path, "/tmp/tally-unit-stats-%d.json", (int)getpid());
    VmError err = {{0}};
    CHECK(vm_stats_write(&vm, path, &err));
    const char *json = slurp(path);
    CHECK_CONTAINS(json, "{\"version\":1,\"module\":\"loops \\\"q\\\"\",\"methods\":[");
    CHECK_CONTAINS(json, "{\"name\":\"Loops.mixed\",\"calls\":3,\"backedges\":30,\"hot\":true,");
    CHECK_CONTAINS(json, "\"branches\":[{\"pc\":2,\"taken\":3,\"not_taken\":30},"
                         "{\"pc\":3,\"taken\":12,\"not_taken\":18},{\"pc\":8,\"taken\":30,\"not_taken\":0}]");
    CHECK_CONTAINS(json, "\"sites\":[{\"pc\":4,\"target\":\"Shape.area\",\"receivers\":"
                         "[{\"class\":\"Rect\",\"count\":5},{\"class\":\"Circle\",\"count\":2}],\"other\":1}]");
    CHECK_CONTAINS(json, "\"blocks\":[{\"start\":0,\"count\":3},{\"start\":2,\"count\":33},"
                         "{\"start\":3,\"count\":30},{\"start\":4,\"count\":18},{\"start\":6,\"count\":12},"
                         "{\"start\":7,\"count\":30},{\"start\":9,\"count\":3}]}");
    CHECK_CONTAINS(json, "{\"name\":\"Shape.area\",\"calls\":0,\"backedges\":0,\"hot\":false,"
                         "\"branches\":[],\"sites\":[],\"blocks\":[]}],\n\"gc\":{\"collections\":");
    /* the collector's counters, the failed writes (none) close the
     * document (no auditing, no faults injected here) */
    CHECK_CONTAINS(json, ",\"heap_bytes\":");
    const char *end = "},\n\"stats_writes_failed\":0}\n";
    CHECK(strlen(json) > strlen(end) && !strcmp(json + strlen(json) - strlen(end), end));
    char tmp[80];
    snprintf(tmp, sizeof tmp, "%s.tmp%d.0", path, (int)getpid());
    CHECK(fopen(tmp, "r") == NULL);  /* renamed, not left behind */
    remove(path);

    CHECK(!vm_stats_write(&vm, "/nonexistent-dir/stats.json", &err));
    CHECK_CONTAINS(err.msg, "cannot write '/nonexistent-dir/stats.json': No such file or directory");
    /* what can be rewritten whole, again and again: a regular file or none */
    CHECK(vm_outfile_replaceable(path) && !vm_outfile_replaceable("-") && !vm_outfile_replaceable("/tmp"));

    /* the methods are borrowed from statics and the stack: detach them */
    for (uint32_t i = 0; i < mod->nmethods; i++)
        mod->methods[i] = (VmMethod){0};
    vm_module_free(mod);
}

/* Names come from modules, which may hold any bytes: the writers' strings
 * stay valid JSON and UTF-8 (json_check checks both). */
TEST(profile_json_string_any_bytes)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\""},
        {"q\"b\\n\nt\t", "\"q\\\"b\\\\n\\nt\\t\""},
        {"\x01\x7f", "\"\\u0001\\u007f\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"a\xdf" "b", "\"a\\ufffdb\""},                 /* lead byte, no continuation */
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},             /* overlong '/' */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},  /* a surrogate */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},   /* beyond U+10FFFF */
        {"\xe2\x82", "\"\\ufffd\\ufffd\""},             /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        vm_json_string(f, cases[i].in, SIZE_MAX);
        fclose(f);
        CHECK_STR(text, cases[i].out);
        free(text);
    }
    /* max: the first max bytes only, a sequence cut by it included */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    vm_json_string(f, "ab\xc3\xa9", 3);
    fclose(f);
    CHECK_STR(text, "\"ab\\ufffd\"");
    free(text);
}

/* The temporary file of a replacing write is created new: a name planted
 * beside the output (a symlink to someone's file, in a shared directory)
 * is never opened, its target never written. */
TEST(outfile_planted_tmp)
{
    char dir[] = "/tmp/tally-outfile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], victim[128], planted[160];
    snprintf(path, sizeof path, "%s/out.json", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(planted, sizeof planted, "%s.tmp%d.0", path, (int)getpid());
    FILE *f = fopen(victim, "w");
    CHECK(f != NULL);
    fputs("keep", f);
    fclose(f);
    CHECK(symlink(victim, planted) == 0);
    VmError err = {{0}};
    CHECK(vm_outfile_write(path, "data\n", 5, &err));
    char buf[16] = "";
    f = fopen(victim, "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    if (f)
        fclose(f);
    CHECK_STR(buf, "keep");
    f = fopen(path, "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    if (f)
        fclose(f);
    CHECK_STR(buf, "data\n");
    char next[170];
    snprintf(next, sizeof next, "%s.tmp%d.1", path, (int)getpid());
    CHECK(access(next, F_OK) != 0);   /* renamed, not left behind */
    unlink(planted), unlink(victim), unlink(path), rmdir(dir);
}
