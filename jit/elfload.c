/* jit/elfload.c — a relocatable x86-64 object (the assembler's output)
 * loaded into this process without `ld` or dlopen (jit.load=elf).
 *
 * Input: the bytes of an ELF64 x86-64 ET_REL object.  Output: a JitElf:
 * its allocated sections in one fresh mapping, relocated, the code pages
 * read+execute and the rest read+write, and its named symbols.
 * Why: `ld -shared` and dlopen cost a unit about as much as `as` (a
 * process, a file written and read back, the dynamic loader's work), and
 * what gcc emits for tally needs none of it: the code reaches the VM by
 * immediates or its own link slots, so its relocations are PC-relative
 * references within the object.
 * Supported: SHT_PROGBITS and SHT_NOBITS sections with SHF_ALLOC (not
 * .eh_frame: nothing unwinds through compiled code, errors longjmp; notes
 * are skipped; constructors and thread-local data are refused);
 * relocations 64, PC32, PLT32, PC64, GOTPCREL, GOTPCRELX, REX_GOTPCRELX
 * (a GOT slot of our own per symbol), 32 and 32S when the value fits;
 * undefined symbols from the process (dlsym), called or loaded through a
 * stub or GOT slot of our own when beyond 32-bit reach.  Anything else
 * fails the load with its reason, and the caller takes the `ld` route.
 * Invariants: every offset and index read from the object is checked
 * against its size first; a loaded object is never unmapped (its code
 * may run until exit); a failed load unmaps everything.
 */
#include "jit_int.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct ElfSym {
    const char *name;         /* in the copy of the string table */
    uintptr_t addr;
    size_t size;
} ElfSym;

struct JitElf {
    uint8_t *map;
    size_t map_len;
    char *strtab;             /* a copy: the object's bytes are the caller's */
    ElfSym *syms;
    size_t nsyms;
};

#define STUB_SIZE 16          /* jmp *8(%rip)... : ff 25 02 00 00 00, 2 pad, 8 address */

typedef struct Loader {
    const uint8_t *obj;
    size_t len;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    uintptr_t *base;          /* per section: its address, 0 = not loaded */
    const Elf64_Sym *symtab;
    size_t nsym;
    const char *strtab;
    size_t strtab_len;
    uintptr_t *ext;           /* per symbol: resolved address of an undefined one */
    uintptr_t *got;           /* per symbol: its GOT slot, 0 = none yet */
    uintptr_t *stub;          /* per symbol: its call stub, 0 = none yet */
    uint8_t *got_next, *got_end, *stub_next, *stub_end;
    VmError *err;
} Loader;

static bool in_obj(const Loader *L, uint64_t off, uint64_t size)
{
    return off <= L->len && size <= L->len - off;
}

/* A table of the object (headers, symbols, relocations) read in place:
 * inside it and aligned for its entries. */
static bool table_in_obj(const Loader *L, uint64_t off, uint64_t size)
{
    return in_obj(L, off, size) && ((uintptr_t)L->obj + off) % 8 == 0;
}

static const char *sec_name(const Loader *L, const Elf64_Shdr *s)
{
    const Elf64_Shdr *st = &L->sh[L->eh->e_shstrndx];
    if (!in_obj(L, st->sh_offset, st->sh_size) || s->sh_name >= st->sh_size)
        return "";
    const char *n = (const char *)L->obj + st->sh_offset + s->sh_name;
    return memchr(n, 0, st->sh_size - s->sh_name) ? n : "";
}

static bool loaded_section(const Loader *L, const Elf64_Shdr *s)
{
    return (s->sh_flags & SHF_ALLOC) && s->sh_size > 0 && (s->sh_type == SHT_PROGBITS || s->sh_type == SHT_NOBITS) &&
           strcmp(sec_name(L, s), ".eh_frame") != 0;
}

/* An allocated section this loader cannot give its meaning (constructors,
 * thread-local data, anything but code, data and notes): the object is
 * for ld. */
static bool unsupported_section(const Loader *L, const Elf64_Shdr *s)
{
    if (!(s->sh_flags & SHF_ALLOC) || s->sh_type == SHT_NOTE)
        return false;
    return (s->sh_flags & SHF_TLS) || (s->sh_type != SHT_PROGBITS && s->sh_type != SHT_NOBITS &&
                                       strcmp(sec_name(L, s), ".eh_frame") != 0);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

/* The symbol's address; false when it is in a section not loaded. */
static bool sym_addr(Loader *L, size_t i, uintptr_t *out)
{
    const Elf64_Sym *s = &L->symtab[i];
    if (s->st_shndx == SHN_UNDEF) {
        *out = L->ext[i];
        return *out != 0;
    }
    if (s->st_shndx == SHN_ABS) {
        *out = (uintptr_t)s->st_value;
        return true;
    }
    if (s->st_shndx >= L->eh->e_shnum || !L->base[s->st_shndx])
        return false;
    *out = L->base[s->st_shndx] + (uintptr_t)s->st_value;
    return true;
}

static const char *sym_name(const Loader *L, size_t i)
{
    uint32_t n = L->symtab[i].st_name;
    return n < L->strtab_len ? L->strtab + n : "";
}

static bool fits32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* A GOT slot holding symbol i's address (made once). */
static bool got_of(Loader *L, size_t i, uintptr_t s, uintptr_t *out)
{
    if (!L->got[i]) {
        if (L->got_next + 8 > L->got_end)
            return vm_fail(L->err, "elf: GOT space exhausted");
        memcpy(L->got_next, &s, 8);
        L->got[i] = (uintptr_t)L->got_next;
        L->got_next += 8;
    }
    *out = L->got[i];
    return true;
}

/* A stub that jumps to symbol i's address (made once), for a call out of
 * 32-bit reach. */
static bool stub_of(Loader *L, size_t i, uintptr_t s, uintptr_t *out)
{
    if (!L->stub[i]) {
        if (L->stub_next + STUB_SIZE > L->stub_end)
            return vm_fail(L->err, "elf: stub space exhausted");
        static const uint8_t jmp[8] = {0xff, 0x25, 0x02, 0x00, 0x00, 0x00, 0x0f, 0x0b};  /* jmp *2(%rip); ud2 */
        memcpy(L->stub_next, jmp, 8);
        memcpy(L->stub_next + 8, &s, 8);
        L->stub[i] = (uintptr_t)L->stub_next;
        L->stub_next += STUB_SIZE;
    }
    *out = L->stub[i];
    return true;
}

static bool relocate(Loader *L, const Elf64_Shdr *rs)
{
    if (rs->sh_info >= L->eh->e_shnum || !L->base[rs->sh_info])
        return true;   /* for a section not loaded (.eh_frame) */
    const Elf64_Shdr *target = &L->sh[rs->sh_info];
    if (rs->sh_entsize != sizeof(Elf64_Rela) || !table_in_obj(L, rs->sh_offset, rs->sh_size))
        return vm_fail(L->err, "elf: bad relocation section");
    const Elf64_Rela *r = (const Elf64_Rela *)(L->obj + rs->sh_offset);
    size_t n = rs->sh_size / sizeof *r;
    for (size_t k = 0; k < n; k++) {
        uint32_t type = (uint32_t)ELF64_R_TYPE(r[k].r_info);
        size_t si = ELF64_R_SYM(r[k].r_info);
        if (si >= L->nsym)
            return vm_fail(L->err, "elf: relocation of symbol %zu, of %zu", si, L->nsym);
        uint64_t off = r[k].r_offset;
        size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (off > target->sh_size || width > target->sh_size - off)
            return vm_fail(L->err, "elf: relocation outside its section");
        uint8_t *where = (uint8_t *)(L->base[rs->sh_info] + off);
        uintptr_t p = (uintptr_t)where, s;
        if (!sym_addr(L, si, &s))
            return vm_fail(L->err, "elf: symbol '%s' has no address", sym_name(L, si));
        int64_t a = r[k].r_addend, v;
        switch (type) {
        case R_X86_64_NONE:
            continue;
        case R_X86_64_64: {
            uint64_t u = (uint64_t)s + (uint64_t)a;
            memcpy(where, &u, 8);
            continue;
        }
        case R_X86_64_PC64: {
            int64_t d = (int64_t)(s + (uint64_t)a - p);
            memcpy(where, &d, 8);
            continue;
        }
        case R_X86_64_PC32:
        case R_X86_64_PLT32:
            v = (int64_t)(s + (uint64_t)a - p);
            if (!fits32(v) && L->symtab[si].st_shndx == SHN_UNDEF) {
                uintptr_t t = 0;
                if (!stub_of(L, si, s, &t))
                    return false;
                v = (int64_t)(t + (uint64_t)a - p);
            }
            break;
        case R_X86_64_GOTPCREL:
        case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX: {
            uintptr_t g = 0;
            if (!got_of(L, si, s, &g))
                return false;
            v = (int64_t)(g + (uint64_t)a - p);
            break;
        }
        case R_X86_64_32:
            v = (int64_t)(s + (uint64_t)a);
            if (v < 0 || v > (int64_t)UINT32_MAX)
                return vm_fail(L->err, "elf: R_X86_64_32 value beyond 32 bits");
            {
                uint32_t u = (uint32_t)v;
                memcpy(where, &u, 4);
            }
            continue;
        case R_X86_64_32S:
            v = (int64_t)(s + (uint64_t)a);
            break;
        default:
            return vm_fail(L->err, "elf: relocation type %u not supported", type);
        }
        if (!fits32(v))
            return vm_fail(L->err, "elf: relocation of '%s' beyond 32 bits", sym_name(L, si));
        int32_t w = (int32_t)v;
        memcpy(where, &w, 4);
    }
    return true;
}

static void loader_free(Loader *L)
{
    free(L->base);
    free(L->ext);
    free(L->got);
    free(L->stub);
}

JitElf *jit_elf_load(const void *obj, size_t len, VmError *err)
{
    Loader L = {.obj = obj, .len = len, .err = err};
    const Elf64_Ehdr *eh = obj;
    if (len < sizeof *eh || (uintptr_t)obj % 8 != 0 || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_X86_64)
        return vm_fail(err, "elf: not a relocatable x86-64 object"), NULL;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
        !table_in_obj(&L, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return vm_fail(err, "elf: bad section headers"), NULL;
    L.eh = eh;
    L.sh = (const Elf64_Shdr *)((const uint8_t *)obj + eh->e_shoff);
    size_t nsec = eh->e_shnum;
    /* the symbol table and its strings */
    for (size_t i = 0; i < nsec; i++) {
        const Elf64_Shdr *s = &L.sh[i];
        if (s->sh_type != SHT_SYMTAB)
            continue;
        if (L.symtab || s->sh_entsize != sizeof(Elf64_Sym) || !table_in_obj(&L, s->sh_offset, s->sh_size) ||
            s->sh_link >= nsec || !in_obj(&L, L.sh[s->sh_link].sh_offset, L.sh[s->sh_link].sh_size))
            return vm_fail(err, "elf: bad symbol table"), NULL;
        L.symtab = (const Elf64_Sym *)(L.obj + s->sh_offset);
        L.nsym = s->sh_size / sizeof(Elf64_Sym);
        L.strtab = (const char *)L.obj + L.sh[s->sh_link].sh_offset;
        L.strtab_len = L.sh[s->sh_link].sh_size;
    }
    if (!L.symtab || !L.strtab_len || L.strtab[L.strtab_len - 1] != 0)
        return vm_fail(err, "elf: no symbol table"), NULL;
    L.base = calloc(nsec, sizeof *L.base);
    L.ext = calloc(L.nsym ? L.nsym : 1, sizeof *L.ext);
    L.got = calloc(L.nsym ? L.nsym : 1, sizeof *L.got);
    L.stub = calloc(L.nsym ? L.nsym : 1, sizeof *L.stub);
    if (!L.base || !L.ext || !L.got || !L.stub) {
        loader_free(&L);
        return vm_fail(err, "elf: out of memory"), NULL;
    }
    /* undefined symbols: this process's (counted for stubs and GOT slots) */
    size_t nund = 0, got_sym = 0;
    for (size_t i = 1; i < L.nsym; i++) {
        if (L.symtab[i].st_shndx != SHN_UNDEF || ELF64_ST_BIND(L.symtab[i].st_info) == STB_LOCAL)
            continue;
        if (L.symtab[i].st_shndx == SHN_COMMON) {
            loader_free(&L);
            return vm_fail(err, "elf: common symbol '%s' not supported", sym_name(&L, i)), NULL;
        }
        if (!strcmp(sym_name(&L, i), "_GLOBAL_OFFSET_TABLE_")) {   /* as names it for any GOT use */
            got_sym = i;
            continue;
        }
        void *a = dlsym(RTLD_DEFAULT, sym_name(&L, i));
        if (!a && ELF64_ST_BIND(L.symtab[i].st_info) != STB_WEAK) {
            loader_free(&L);
            return vm_fail(err, "elf: undefined symbol '%s'", sym_name(&L, i)), NULL;
        }
        L.ext[i] = (uintptr_t)a;
        nund++;
    }
    for (size_t i = 0; i < nsec; i++)
        if (unsupported_section(&L, &L.sh[i])) {
            loader_free(&L);
            return vm_fail(err, "elf: section '%s' not supported", sec_name(&L, &L.sh[i])), NULL;
        }
    /* layout: code, its stubs, a page boundary, the rest, the GOT */
    uint64_t code = 0, data = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nsec; i++) {
            const Elf64_Shdr *s = &L.sh[i];
            if (!loaded_section(&L, s) || !!(s->sh_flags & SHF_EXECINSTR) != (pass == 0))
                continue;
            if (s->sh_type == SHT_PROGBITS && !in_obj(&L, s->sh_offset, s->sh_size)) {
                loader_free(&L);
                return vm_fail(err, "elf: section outside the object"), NULL;
            }
            if (s->sh_addralign > 4096 || s->sh_size > (1u << 30)) {
                loader_free(&L);
                return vm_fail(err, "elf: section too large or too aligned"), NULL;
            }
            uint64_t *at = pass == 0 ? &code : &data;
            *at = align_up(*at, s->sh_addralign);
            L.base[i] = (uintptr_t)*at + 1;   /* an offset for now, + 1 so that 0 means none */
            *at += s->sh_size;
        }
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
    uint64_t stubs_at = align_up(code, 16), data_at = align_up(stubs_at + nund * STUB_SIZE, page);
    uint64_t got_at = align_up(data_at + data, 8), total = align_up(got_at + (L.nsym ? L.nsym : 1) * 8, page);
    uint8_t *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        loader_free(&L);
        return vm_fail(err, "elf: cannot map %llu bytes", (unsigned long long)total), NULL;
    }
    for (size_t i = 0; i < nsec; i++) {
        const Elf64_Shdr *s = &L.sh[i];
        if (!L.base[i])
            continue;
        L.base[i] = (uintptr_t)map + (s->sh_flags & SHF_EXECINSTR ? 0 : data_at) + L.base[i] - 1;
        if (s->sh_type == SHT_PROGBITS)
            memcpy((void *)L.base[i], L.obj + s->sh_offset, s->sh_size);
    }
    L.stub_next = map + stubs_at;
    L.stub_end = map + stubs_at + nund * STUB_SIZE;
    L.got_next = map + got_at;
    L.got_end = map + total;
    if (got_sym)
        L.ext[got_sym] = (uintptr_t)L.got_next;
    bool ok = true;
    for (size_t i = 0; i < nsec && ok; i++)
        if (L.sh[i].sh_type == SHT_RELA)
            ok = relocate(&L, &L.sh[i]);
        else if (L.sh[i].sh_type == SHT_REL && L.sh[i].sh_info < nsec && L.base[L.sh[i].sh_info])
            ok = vm_fail(err, "elf: REL relocations not supported");
    if (ok && data_at > 0 && mprotect(map, data_at, PROT_READ | PROT_EXEC) != 0)
        ok = vm_fail(err, "elf: cannot make the code executable");
    JitElf *e = ok ? calloc(1, sizeof *e) : NULL;
    if (ok && !e)
        vm_fail(err, "elf: out of memory");
    /* the named symbols defined in loaded sections */
    size_t nnamed = 0;
    for (size_t i = 1; e && i < L.nsym; i++)
        nnamed += L.symtab[i].st_name && L.symtab[i].st_shndx != SHN_UNDEF && L.symtab[i].st_shndx < nsec &&
                  L.base[L.symtab[i].st_shndx] && ELF64_ST_TYPE(L.symtab[i].st_info) != STT_SECTION;
    if (e && (!(e->syms = calloc(nnamed ? nnamed : 1, sizeof *e->syms)) || !(e->strtab = malloc(L.strtab_len)))) {
        free(e->syms);
        free(e);
        e = NULL;
        vm_fail(err, "elf: out of memory");
    }
    if (!e) {
        munmap(map, total);
        loader_free(&L);
        return NULL;
    }
    memcpy(e->strtab, L.strtab, L.strtab_len);
    for (size_t i = 1; i < L.nsym; i++) {
        const Elf64_Sym *s = &L.symtab[i];
        if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx >= nsec || !L.base[s->st_shndx] ||
            ELF64_ST_TYPE(s->st_info) == STT_SECTION)
            continue;
        e->syms[e->nsyms++] = (ElfSym){e->strtab + s->st_name, L.base[s->st_shndx] + (uintptr_t)s->st_value,
                                       (size_t)s->st_size};
    }
    e->map = map;
    e->map_len = total;
    loader_free(&L);
    return e;
}

void jit_elf_free(JitElf *e)
{
    if (!e)
        return;
    munmap(e->map, e->map_len);
    free(e->syms);
    free(e->strtab);
    free(e);
}

void *jit_elf_symbol(const JitElf *e, const char *name, size_t *size)
{
    for (size_t i = 0; e && i < e->nsyms; i++)
        if (!strcmp(e->syms[i].name, name)) {
            if (size)
                *size = e->syms[i].size;
            return (void *)e->syms[i].addr;
        }
    if (size)
        *size = 0;
    return NULL;
}
