/* jit/cache.c — the persistent code cache: compiled methods kept on disk
 * and found again, in a later process, by what determines their code.
 *
 * Input: one compile item's functions alone in a gccjit context (built
 * with link slots, so the context holds no address of this process), the
 * option set; after a compile, the unit's object file (as's output).  Output: the
 * item's key; on a hit, the stored object loaded and the names its
 * symbols had when stored; after a compile, one entry per item.
 * Key: XXH3-128 of the context's C dump made canonical (unnamed blocks
 * numbered in order of appearance, the item's own symbol replaced), the
 * option set, the -march chosen for this CPU, libgccjit's version and
 * tally's build id.  The dump is what gcc compiles, so equal keys mean
 * equal code; the profile facts, callees' bytecode and inliner tunables a
 * compile used reach the key through the code they made.
 * Entry: DIR/<key>.o: the unit's object file, then a trailer (the
 * symbols, the object's length, a checksum of all before it, a magic).
 * It is written under a temporary name and renamed, so readers see a
 * whole entry or none; one with a bad checksum or trailer is ignored
 * (a miss) and replaced by the next store.  A hit loads the bytes it
 * checked (jit/elfload.c), never the entry's file by its name.
 * Invariants: the directory is the user's own and not open to others
 * (created 0700; any other is refused when opened); nothing here is
 * fatal: every failure is a miss, counted.
 */
#include "jit_int.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define CACHE_MAGIC "TLYCODE2"

struct JitCache {
    char dir[4096];
    uint8_t build_id[64];
    size_t build_id_len;
    JitCacheStats stats;
};

/* What follows the shared object in an entry. */
typedef struct Trailer {
    JitCacheSyms syms;
    uint64_t obj_len;
    uint64_t sum[2];           /* XXH3-128 of the object and the fields above */
    char magic[8];
} Trailer;

/* ---- the directory ------------------------------------------------------- */

bool jit_cache_dir(const char *spec, char *buf, size_t size)
{
    if (!spec || !*spec || !strcmp(spec, "off"))
        return false;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (strcmp(spec, "default"))
        n = snprintf(buf, size, "%s", spec);
    else if (xdg && *xdg == '/')
        n = snprintf(buf, size, "%s/tally", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.cache/tally", home);
    else
        return false;
    return n > 0 && (size_t)n < size;
}

/* mkdir -p of dir's parents (0700 for the ones made), then dir itself. */
static bool make_dirs(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return false;
            *s = '/';
        }
    return mkdir(p, 0700) == 0 || errno == EEXIST;
}

static int note_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    JitCache *c = data;
    if (info->dlpi_name && info->dlpi_name[0])   /* the main program only */
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz <= sizeof c->build_id && desc + nh->n_descsz <= end) {
                memcpy(c->build_id, desc, nh->n_descsz);
                c->build_id_len = nh->n_descsz;
                return 1;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

JitCache *jit_cache_open(const char *dir, VmError *err)
{
    JitCache *c = calloc(1, sizeof *c);
    if (!c) {
        vm_fail(err, "code cache: out of memory");
        return NULL;
    }
    if ((size_t)snprintf(c->dir, sizeof c->dir, "%s", dir) >= sizeof c->dir || dir[0] != '/') {
        vm_fail(err, "code cache %s: not an absolute path", dir);
        goto fail;
    }
    struct stat st;
    if (!make_dirs(dir) || stat(dir, &st) != 0) {
        vm_fail(err, "code cache %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
        vm_fail(err, "code cache %s: not a directory of this user's", dir);
        goto fail;
    }
    if (st.st_mode & 077) {
        vm_fail(err, "code cache %s: open to other users (mode %03o; chmod 700 it)", dir, st.st_mode & 0777);
        goto fail;
    }
    dl_iterate_phdr(note_build_id, c);
    if (!c->build_id_len) {
        vm_fail(err, "code cache: tally has no build id to key its entries with");
        goto fail;
    }
    return c;
fail:
    free(c);
    return NULL;
}

void jit_cache_close(JitCache *c)
{
    free(c);
}

const char *jit_cache_path(const JitCache *c)
{
    return c->dir;
}

JitCacheStats jit_cache_stats(JitCache *c)
{
    JitCacheStats s;
    __atomic_load(&c->stats.hits, &s.hits, __ATOMIC_RELAXED);
    __atomic_load(&c->stats.misses, &s.misses, __ATOMIC_RELAXED);
    __atomic_load(&c->stats.stored, &s.stored, __ATOMIC_RELAXED);
    __atomic_load(&c->stats.bad, &s.bad, __ATOMIC_RELAXED);
    __atomic_load(&c->stats.errors, &s.errors, __ATOMIC_RELAXED);
    __atomic_load(&c->stats.preloaded, &s.preloaded, __ATOMIC_RELAXED);
    return s;
}

#define COUNT(c, field) __atomic_add_fetch(&(c)->stats.field, 1, __ATOMIC_RELAXED)

void jit_cache_count_preloaded(JitCache *c)
{
    COUNT(c, preloaded);
}

/* ---- keys ---------------------------------------------------------------- */

/* The C dump of ctx, read back through an anonymous file. */
static char *dump_text(gcc_jit_context *ctx, size_t *len)
{
    int fd = memfd_create("tally-key", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    gcc_jit_context_dump_to_file(ctx, path, 0);
    char *s = NULL;
    off_t n = lseek(fd, 0, SEEK_END);
    if (n > 0 && (s = malloc((size_t)n + 1)) && pread(fd, s, (size_t)n, 0) == n) {
        s[n] = 0;
        *len = (size_t)n;
    } else {
        free(s);
        s = NULL;
    }
    close(fd);
    return s;
}

/* Appends to st the dump made canonical: "<UNNAMED BLOCK 0x…>" becomes
 * "<B k>" (k: order of first appearance), self becomes "SELF". */
static void canon_dump(XXH3_state_t *st, const char *s, size_t len, const char *self)
{
    static const char ub[] = "<UNNAMED BLOCK 0x";
    size_t nself = strlen(self), nub = sizeof ub - 1;
    struct { const char *s; size_t n; } *seen = NULL;
    size_t nseen = 0, cap = 0;
    const char *run = s, *end = s + len;
    for (const char *p = s; p < end;) {
        bool starts = p == s || !jit_ident_char(p[-1]);
        if ((size_t)(end - p) > nub && !memcmp(p, ub, nub)) {
            const char *q = p + nub;
            while (q < end && *q != '>')
                q++;
            size_t k = 0;
            while (k < nseen && !(seen[k].n == (size_t)(q - p) && !memcmp(seen[k].s, p, seen[k].n)))
                k++;
            if (k == nseen) {
                if (nseen == cap) {
                    cap = cap ? 2 * cap : 64;
                    void *v = realloc(seen, cap * sizeof *seen);
                    if (!v)
                        break;   /* the key then covers the rest raw: a miss at worst */
                    seen = v;
                }
                seen[nseen].s = p;
                seen[nseen++].n = (size_t)(q - p);
            }
            char b[32];
            XXH3_128bits_update(st, run, (size_t)(p - run));
            XXH3_128bits_update(st, b, (size_t)snprintf(b, sizeof b, "<B %zu", k));
            p = run = q;
        } else if (starts && nself && (size_t)(end - p) >= nself && !memcmp(p, self, nself)) {
            XXH3_128bits_update(st, run, (size_t)(p - run));
            XXH3_128bits_update(st, "SELF", 4);
            p = run = p + nself;
        } else {
            p++;
        }
    }
    XXH3_128bits_update(st, run, (size_t)(end - run));
    free(seen);
}

static void put_str(XXH3_state_t *st, const char *s)
{
    XXH3_128bits_update(st, s, strlen(s) + 1);
}

bool jit_cache_key(JitCache *c, gcc_jit_context *ctx, const char *self, const char *optset, JitCacheKey *key)
{
    size_t len = 0;
    char *text = dump_text(ctx, &len);
    XXH3_state_t *st = text ? XXH3_createState() : NULL;
    if (!st || XXH3_128bits_reset(st) != XXH_OK) {
        free(text);
        XXH3_freeState(st);
        COUNT(c, errors);
        return false;
    }
    char ver[64];
    snprintf(ver, sizeof ver, "gccjit %d.%d.%d", gcc_jit_version_major(), gcc_jit_version_minor(),
             gcc_jit_version_patchlevel());
    put_str(st, CACHE_MAGIC);
    XXH3_128bits_update(st, c->build_id, c->build_id_len);
    put_str(st, ver);
    put_str(st, jit_options_march());
    put_str(st, optset);
    canon_dump(st, text, len, self);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    free(text);
    key->hi = h.high64;
    key->lo = h.low64;
    return true;
}

static void entry_path(const JitCache *c, const JitCacheKey *key, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%016llx%016llx.o", c->dir, (unsigned long long)key->hi, (unsigned long long)key->lo);
}

static XXH128_hash_t entry_sum(const uint8_t *data, size_t obj_len, const Trailer *t)
{
    XXH3_state_t *st = XXH3_createState();
    XXH128_hash_t h = {0, 0};
    if (!st)
        return h;
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, data, obj_len);
    XXH3_128bits_update(st, &t->syms, sizeof t->syms);
    XXH3_128bits_update(st, &t->obj_len, sizeof t->obj_len);
    h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    return h;
}

/* ---- entries ------------------------------------------------------------- */

bool jit_cache_load(JitCache *c, const JitCacheKey *key, JitLoaded *out, JitCacheSyms *syms)
{
    char path[4200];
    entry_path(c, key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        COUNT(c, misses);
        return false;
    }
    struct stat st;
    uint8_t *data = NULL;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > sizeof(Trailer) &&
              st.st_size < (1 << 30) && (data = malloc((size_t)st.st_size)) &&
              pread(fd, data, (size_t)st.st_size, 0) == st.st_size;
    Trailer t;
    if (ok) {
        memcpy(&t, data + st.st_size - sizeof t, sizeof t);
        XXH128_hash_t h;
        ok = !memcmp(t.magic, CACHE_MAGIC, sizeof t.magic) && t.obj_len == (uint64_t)st.st_size - sizeof t &&
             (h = entry_sum(data, t.obj_len, &t), h.high64 == t.sum[0] && h.low64 == t.sum[1]) &&
             memchr(t.syms.entry, 0, sizeof t.syms.entry) && memchr(t.syms.osr, 0, sizeof t.syms.osr) &&
             memchr(t.syms.link, 0, sizeof t.syms.link);
    }
    close(fd);
    if (!ok) {
        free(data);
        COUNT(c, bad);
        return false;
    }
    /* the bytes checked, linked and mapped in this process (elfload.c) */
    VmError e;
    JitElf *h = vm_fault(VM_FAULT_DLOPEN) ? NULL : jit_elf_load(data, t.obj_len, &e);
    free(data);
    if (!h) {
        COUNT(c, errors);
        return false;
    }
    struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    utimensat(AT_FDCWD, path, now, 0);   /* recently used */
    out->route = JIT_LOAD_ELF;
    out->handle = h;
    *syms = t.syms;
    COUNT(c, hits);
    return true;
}

/* Writes a then b as DIR/name, under a temporary name renamed into place:
 * readers see the whole file or the one before it. */
static bool put_file(JitCache *c, const char *name, uint64_t tag, const void *a, size_t alen, const void *b, size_t blen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    snprintf(tmp, sizeof tmp, "%s/.tmp-%ld-%016llx", c->dir, (long)getpid(), (unsigned long long)tag);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = !vm_fault(VM_FAULT_CACHE) && write(fd, a, alen) == (ssize_t)alen && write(fd, b, blen) == (ssize_t)blen;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}

bool jit_cache_store(JitCache *c, const JitCacheKey *key, const void *obj, size_t len, const JitCacheSyms *syms)
{
    Trailer t;
    memset(&t, 0, sizeof t);
    t.syms = *syms;
    t.obj_len = len;
    XXH128_hash_t h = entry_sum(obj, len, &t);
    t.sum[0] = h.high64;
    t.sum[1] = h.low64;
    memcpy(t.magic, CACHE_MAGIC, sizeof t.magic);
    char path[4200];
    entry_path(c, key, path, sizeof path);
    if (!put_file(c, strrchr(path, '/') + 1, key->lo, obj, len, &t, sizeof t)) {
        COUNT(c, errors);
        return false;
    }
    COUNT(c, stored);
    return true;
}

/* ---- a module's files: the entries its last run used (jit/preload.c), the
 * verdicts of its bakeoffs (audit/remember.c) ------------------------------- */

void jit_cache_module_name(const JitCache *c, const void *module, size_t len, const char *config, const char *suffix,
                           char *buf, size_t size)
{
    XXH3_state_t *st = XXH3_createState();
    XXH128_hash_t h = {0, 0};
    if (st) {
        XXH3_128bits_reset(st);
        XXH3_128bits_update(st, c->build_id, c->build_id_len);   /* its addresses are this tally's */
        XXH3_128bits_update(st, module, len);
        XXH3_128bits_update(st, config, strlen(config));
        h = XXH3_128bits_digest(st);
        XXH3_freeState(st);
    }
    snprintf(buf, size, "%016llx%016llx.%s", (unsigned long long)h.high64, (unsigned long long)h.low64, suffix);
}

bool jit_cache_put_note(JitCache *c, const char *name, const void *data, size_t len)
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    uint64_t sum[2] = {h.high64, h.low64};
    bool ok = put_file(c, name, h.low64, data, len, sum, sizeof sum);
    if (!ok)
        COUNT(c, errors);
    return ok;
}

bool jit_cache_get_note(JitCache *c, const char *name, VmBuf *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    uint64_t sum[2];
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size >= sizeof sum &&
              st.st_size < (1 << 26);
    if (ok) {
        size_t len = (size_t)st.st_size - sizeof sum;
        uint8_t *d = malloc(len + 1);
        ok = d && pread(fd, d, len, 0) == (ssize_t)len && pread(fd, sum, sizeof sum, (off_t)len) == (ssize_t)sizeof sum;
        XXH128_hash_t h = ok ? XXH3_128bits(d, len) : (XXH128_hash_t){0, 0};
        ok = ok && h.high64 == sum[0] && h.low64 == sum[1];
        if (ok) {
            vm_buf_free(out);
            *out = (VmBuf){d, len, len + 1};
        } else {
            free(d);
        }
    }
    close(fd);
    if (!ok)
        COUNT(c, bad);
    return ok;
}

/* ---- the directory as a whole: tally cache, jit.cache_max ----------------- */

typedef struct Ent {
    char name[64];
    uint64_t bytes;
    struct timespec used;
} Ent;

/* An entry's file name: 32 hex digits and ".o" (code), ".run" (a
 * module's preload list) or ".won" (its remembered bakeoff verdicts);
 * ".so", code of an older tally, is removed by trims and clears alike. */
static bool is_entry(const char *n)
{
    size_t k = 0;
    while (k < 32 && ((n[k] >= '0' && n[k] <= '9') || (n[k] >= 'a' && n[k] <= 'f')))
        k++;
    return k == 32 && (!strcmp(n + 32, ".o") || !strcmp(n + 32, ".so") || !strcmp(n + 32, ".run") ||
                       !strcmp(n + 32, ".won"));
}

/* The entries of dir into *out (malloc'd, *n of them) and the count of
 * temporary files; false + err when dir cannot be read. */
static bool list_entries(const char *dir, Ent **out, size_t *n, uint64_t *temps, VmError *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return vm_fail(err, "code cache %s: %s", dir, strerror(errno));
    Ent *v = NULL;
    size_t cap = 0;
    *n = 0;
    *temps = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        bool tmp = !strncmp(e->d_name, ".tmp-", 5);
        if (!tmp && !is_entry(e->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (tmp) {
            ++*temps;
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            Ent *w = realloc(v, cap * sizeof *v);
            if (!w) {
                free(v);
                closedir(d);
                return vm_fail(err, "code cache: out of memory");
            }
            v = w;
        }
        memcpy(v[*n].name, e->d_name, strlen(e->d_name) + 1);   /* is_entry: at most 36 characters */
        v[*n].bytes = (uint64_t)st.st_size;
        v[*n].used = st.st_mtim;
        ++*n;
    }
    closedir(d);
    *out = v;
    return true;
}

bool jit_cache_usage(const char *dir, JitCacheUsage *u, VmError *err)
{
    size_t n;
    Ent *v;
    memset(u, 0, sizeof *u);
    if (!list_entries(dir, &v, &n, &u->temps, err))
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *suffix = v[i].name + 32;   /* is_entry */
        u->runs += !strcmp(suffix, ".run");
        u->verdicts += !strcmp(suffix, ".won");
        u->entries += !strcmp(suffix, ".o") || !strcmp(suffix, ".so");
        u->bytes += v[i].bytes;
        double t = (double)v[i].used.tv_sec + v[i].used.tv_nsec / 1e9;
        if (!i || t < u->oldest)
            u->oldest = t;
        if (t > u->newest)
            u->newest = t;
    }
    free(v);
    return true;
}

static int by_use(const void *a, const void *b)
{
    const Ent *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

bool jit_cache_trim(const char *dir, uint64_t max_bytes, uint64_t *removed, VmError *err)
{
    size_t n;
    uint64_t temps, total = 0;
    Ent *v;
    *removed = 0;
    if (!list_entries(dir, &v, &n, &temps, err))
        return false;
    for (size_t i = 0; i < n; i++)
        total += v[i].bytes;
    if (n)
        qsort(v, n, sizeof *v, by_use);
    char path[4200];
    for (size_t i = 0; i < n && total > max_bytes; i++) {   /* least recently used first */
        snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
        if (unlink(path) == 0) {
            total -= v[i].bytes;
            ++*removed;
        }
    }
    free(v);
    return true;
}

bool jit_cache_clear(const char *dir, uint64_t *removed, VmError *err)
{
    size_t n;
    uint64_t temps;
    Ent *v;
    *removed = 0;
    if (!list_entries(dir, &v, &n, &temps, err))
        return false;
    char path[4200];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
        *removed += unlink(path) == 0;
    }
    free(v);
    DIR *d = opendir(dir);   /* temporary files a writer left (a crash) */
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, ".tmp-", 5))
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    return true;
}
