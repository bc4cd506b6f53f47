/* tests/unit/test_jit_elf.c — objects linked and mapped in-process
 * (jit/elfload.c, jit.load=elf): each supported relocation gives the
 * value ld would, calls out of reach go through a stub, the code is not
 * writable, an object with constructors falls back to ld + dlopen, and
 * damaged objects are refused without a crash.
 */
#include "jit_int.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* strlen through the PLT (a stub: libc is beyond 32-bit reach), a string
 * in .rodata (PC32), a global through the GOT (GOTPCRELX), a pointer in
 * .data to it (R_X86_64_64), a zeroed .bss buffer written and read. */
static const char RELOCS[] =
    "\t.text\n"
    "\t.globl\tf\n"
    "\t.type\tf, @function\n"
    "f:\n"
    "\tsubq\t$8, %rsp\n"
    "\tleaq\t.Lstr(%rip), %rdi\n"
    "\tcall\tstrlen@PLT\n"
    "\tmovq\tgval@GOTPCREL(%rip), %rcx\n"
    "\taddq\t(%rcx), %rax\n"
    "\tmovq\tptab(%rip), %rcx\n"
    "\taddq\t(%rcx), %rax\n"
    "\tmovq\t$7, zbuf+8(%rip)\n"
    "\taddq\tzbuf+8(%rip), %rax\n"
    "\taddq\tzbuf+16(%rip), %rax\n"
    "\taddq\t$8, %rsp\n"
    "\tret\n"
    "\t.size\tf, .-f\n"
    "\t.section\t.rodata\n"
    ".Lstr:\n"
    "\t.string\t\"hello\"\n"
    "\t.data\n"
    "\t.globl\tgval\n"
    "\t.type\tgval, @object\n"
    "\t.size\tgval, 8\n"
    "gval:\n"
    "\t.quad\t100\n"
    "\t.globl\tptab\n"
    "ptab:\n"
    "\t.quad\tgval\n"
    "\t.bss\n"
    "\t.globl\tzbuf\n"
    "zbuf:\n"
    "\t.zero\t64\n";

/* A constructor (.init_array): the ELF route refuses it, ld + dlopen run it. */
static const char CTOR[] =
    "\t.text\n"
    "\t.globl\tg\n"
    "\t.type\tg, @function\n"
    "g:\n"
    "\tmovq\tcval(%rip), %rax\n"
    "\tret\n"
    "\t.size\tg, .-g\n"
    "ctor:\n"
    "\tmovq\t$42, cval(%rip)\n"
    "\tret\n"
    "\t.section\t.init_array,\"aw\"\n"
    "\t.quad\tctor\n"
    "\t.bss\n"
    "cval:\n"
    "\t.zero\t8\n";

static bool load(const char *text, JitLoaded *u, VmError *err)
{
    char dir[256];
    if (!jit_tmpdir(dir, sizeof dir, false, err))
        return false;
    bool ok = jit_load_text(dir, text, strlen(text), JIT_LOAD_ELF, u, err);
    jit_rmdir(dir);
    return ok;
}

/* The object file as assembles text into. */
static bool assemble(const char *text, VmBuf *obj)
{
    char dir[256], cmd[1024], spath[300];
    VmError err;
    if (!jit_tmpdir(dir, sizeof dir, false, &err))
        return false;
    snprintf(spath, sizeof spath, "%s/t.s", dir);
    FILE *f = fopen(spath, "w");
    bool ok = f && fputs(text, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    snprintf(cmd, sizeof cmd, "as --64 -o %s/t.o %s", dir, spath);
    ok = ok && system(cmd) == 0;
    snprintf(spath, sizeof spath, "%s/t.o", dir);
    ok = ok && vm_read_file(spath, obj, &err);
    jit_rmdir(dir);
    return ok;
}

TEST(jit_elf_relocations)
{
    JitLoaded u = {0};
    VmError err = {{0}};
    VmBuf obj = {0};
    CHECK(assemble(RELOCS, &obj));
    JitElf *e = jit_elf_load(obj.data, obj.len, &err);
    if (!e)
        test_fail(__FILE__, __LINE__, "%s", err.msg);
    jit_elf_free(e);
    vm_buf_free(&obj);
    CHECK(load(RELOCS, &u, &err));
    CHECK_INT(u.route, JIT_LOAD_ELF);
    size_t size = 0;
    long (*f)(void) = (long (*)(void))jit_load_symbol(&u, "f", &size);
    CHECK(f != NULL);
    CHECK(size > 20);
    if (f)
        CHECK_INT(f(), 5 + 100 + 100 + 7 + 0);
    long *gval = jit_load_symbol(&u, "gval", &size);
    CHECK(gval && *gval == 100 && size == 8);
    CHECK(jit_load_symbol(&u, "nosuch", NULL) == NULL);
    /* the code's page is not writable: mprotect to what it is succeeds,
     * and its protection as /proc/self/maps shows it has no 'w' */
    char line[512], want[32];
    snprintf(want, sizeof want, "%lx-", (unsigned long)((uintptr_t)f & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)));
    FILE *maps = fopen("/proc/self/maps", "r");
    bool found = false;
    while (maps && fgets(line, sizeof line, maps))
        if (!strncmp(line, want, strlen(want))) {
            found = true;
            CHECK(!strncmp(strchr(line, ' ') + 1, "r-x", 3));
        }
    if (maps)
        fclose(maps);
    CHECK(found);
}

TEST(jit_elf_constructors_take_ld)
{
    JitLoaded u = {0};
    VmError err = {{0}};
    CHECK(load(CTOR, &u, &err));
    CHECK_INT(u.route, JIT_LOAD_AS);   /* refused in-process, loaded by dlopen */
    long (*g)(void) = (long (*)(void))jit_load_symbol(&u, "g", NULL);
    CHECK(g != NULL);
    if (g)
        CHECK_INT(g(), 42);
    VmBuf obj = {0};
    CHECK(assemble(CTOR, &obj));
    CHECK(jit_elf_load(obj.data, obj.len, &err) == NULL);
    CHECK_CONTAINS(err.msg, ".init_array");
    vm_buf_free(&obj);
}

/* Truncations and byte flips of a valid object: each is refused or
 * loaded, never a crash (nothing loaded here runs). */
TEST(jit_elf_damaged_objects)
{
    VmBuf obj = {0};
    CHECK(assemble(RELOCS, &obj));
    VmError err;
    CHECK(jit_elf_load(obj.data, 0, &err) == NULL);
    CHECK(jit_elf_load("not an object", 13, &err) == NULL);
    CHECK_CONTAINS(err.msg, "not a relocatable x86-64 object");
    size_t refused = 0;
    for (size_t n = 1; n < obj.len; n += 7)
        refused += jit_elf_load(obj.data, n, &err) == NULL;
    CHECK(refused > 0);
    uint8_t *copy = malloc(obj.len);
    srand(7);
    for (int k = 0; copy && k < 3000; k++) {
        memcpy(copy, obj.data, obj.len);
        for (int j = 0; j < 1 + k % 4; j++)
            copy[(size_t)rand() % obj.len] ^= (uint8_t)(1u << (rand() % 8));
        jit_elf_free(jit_elf_load(copy, obj.len, &err));
    }
    free(copy);
    vm_buf_free(&obj);
}
