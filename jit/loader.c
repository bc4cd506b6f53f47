/* jit/loader.c — from a gccjit context to loaded machine code, through
 * assembly text.
 *
 * Input: a context holding a unit's functions, a private directory, a load
 * route (or, for bakeoffs, assembly text of several contexts: the two
 * halves jit_compile_asm and jit_load_text).  Output: the loaded object (JitLoaded) in which the unit's
 * exported functions can be looked up, and the time of each phase.
 * Steps: gcc_jit_context_compile_to_file(ASSEMBLER) → read the text → the
 * edit hook (markers rewrite the text here) → either
 *   JIT_LOAD_ELF:    `as` (posix_spawn, outside libgccjit's global lock),
 *                    the object loaded in-process (elfload.c); an object
 *                    it does not support takes the next route, or
 *   JIT_LOAD_AS:     `as` + `ld -shared` + dlopen(RTLD_NOW | RTLD_LOCAL), or
 *   JIT_LOAD_GCCJIT: a fresh context with the text as top-level asm,
 *                    gcc_jit_context_compile (the portable route).
 * Invariants: failures of any step return false with the reason (the
 * first gccjit error, or the tool's own stderr); nothing is loaded then.
 * The caller owns `dir` and removes it (jit_rmdir); a loaded object does
 * not need its file any more.
 */
#include "jit_int.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double jit_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- the process's temporary directory ----------------------------------
 * Every unit's directory and libgccjit's own (it follows TMPDIR, read at
 * its first compile) go in one directory of the process,
 * $TMPDIR/tally-PID-XXXXXX (0700), removed at exit and before SIGINT,
 * SIGTERM or the time limit ends the process: an interrupted compile
 * leaves nothing behind.  A unit kept for the reader (jit.dump=units) goes
 * in $TMPDIR itself.  Set up once per process, before the first compile
 * thread starts (jit_tmp_init from jit_new): TMPDIR changes only then.
 * The directories of runs killed outright are swept up then too. */
static pthread_once_t tmp_once = PTHREAD_ONCE_INIT;
static char tmp_base[2048];    /* $TMPDIR as the process had it, or /tmp */
static char tmp_root[2100];    /* the process's directory; "" if none could be made */

/* Removes what directory fd holds, directories depth levels deep: only
 * system calls, so that a signal handler may run it. */
static void remove_contents(int fd, int depth)
{
    char buf[4096];
    for (int pass = 0; pass < 4; pass++) {   /* entries removed while read: read again */
        bool removed = false;
        if (lseek(fd, 0, SEEK_SET) < 0)
            return;
        ssize_t n;
        while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
            for (ssize_t off = 0; off < n;) {
                struct dirent64 *e = (struct dirent64 *)(buf + off);
                off += e->d_reclen;
                const char *nm = e->d_name;
                if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
                    continue;
                if (unlinkat(fd, nm, 0) == 0) {
                    removed = true;
                    continue;
                }
                int sub = depth > 0 ? openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : -1;
                if (sub >= 0) {
                    remove_contents(sub, depth - 1);
                    close(sub);
                }
                removed |= unlinkat(fd, nm, AT_REMOVEDIR) == 0;
            }
        }
        if (!removed)
            return;
    }
}

static void tmp_cleanup(void)
{
    if (!tmp_root[0])
        return;
    int fd = open(tmp_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd >= 0) {
        remove_contents(fd, 2);   /* a unit's or libgccjit's directory, its files */
        close(fd);
    }
    rmdir(tmp_root);
}

/* Removes the directories `tally-PID-XXXXXX` in tmp_base that are the
 * user's and whose process is gone (killed with -9, crashed): left by
 * a run nothing could clean up after.  A live PID, another owner, a
 * symbolic link or any other name is left alone. */
static void sweep_stale(void)
{
    DIR *d = opendir(tmp_base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char tail[16];
        if (sscanf(e->d_name, "tally-%ld-%15s", &pid, tail) != 2 || strlen(tail) != 6 || pid <= 0 ||
            pid == (long)getpid() || (kill((pid_t)pid, 0) != 0 ? errno != ESRCH : true))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        struct stat st;
        if (fd < 0)
            continue;
        if (fstat(fd, &st) == 0 && st.st_uid == geteuid()) {
            remove_contents(fd, 2);
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
        close(fd);
    }
    closedir(d);
}

static void tmp_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_base, sizeof tmp_base, "%s", tmp && *tmp ? tmp : "/tmp");
    bool made = (size_t)snprintf(tmp_root, sizeof tmp_root, "%s/tally-%ld-XXXXXX", tmp_base, (long)getpid()) <
                    sizeof tmp_root && mkdtemp(tmp_root);
    if (!made || setenv("TMPDIR", tmp_root, 1) != 0) {
        if (made)
            rmdir(tmp_root);
        tmp_root[0] = 0;   /* units go in $TMPDIR, as libgccjit's do */
        return;
    }
    atexit(tmp_cleanup);
    vm_at_fatal_signal(tmp_cleanup);
    sweep_stale();
}

void jit_tmp_init(void)
{
    pthread_once(&tmp_once, tmp_setup);
}

bool jit_tmpdir(char *buf, size_t size, bool keep, VmError *err)
{
    jit_tmp_init();
    const char *dir = keep || !tmp_root[0] ? tmp_base : tmp_root;
    if ((size_t)snprintf(buf, size, "%s/tally-jit-XXXXXX", dir) >= size)
        return vm_fail(err, "temporary directory name too long");
    if (!mkdtemp(buf))
        return vm_fail(err, "mkdtemp %s: %s", buf, strerror(errno));
    return true;
}

void jit_keep_or_remove(const JitTunables *tun, const char *dir, const char *what)
{
    if (tun && jit_dump_has(tun->dump, "units"))
        fprintf(stderr, "=== jit unit: %s: %s\n", what, dir);
    else
        jit_rmdir(dir);
}

void jit_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static bool read_text(const char *path, char **text, size_t *len, VmError *err)
{
    VmBuf b = {0};
    if (!vm_read_file(path, &b, err))
        return false;
    char *s = malloc(b.len + 1);
    if (!s) {
        vm_buf_free(&b);
        return vm_fail(err, "out of memory reading %s", path);
    }
    memcpy(s, b.data, b.len);
    s[b.len] = 0;
    *text = s;
    *len = b.len;
    vm_buf_free(&b);
    return true;
}

static bool write_text(const char *path, const char *text, size_t len, VmError *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return vm_fail(err, "cannot write %s: %s", path, strerror(errno));
    bool ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? true : vm_fail(err, "cannot write %s", path);
}

/* Runs argv with stderr to dir/tool.err; false with its first line. */
static bool run_tool(char *const argv[], const char *dir, VmError *err)
{
    char errpath[4096];
    snprintf(errpath, sizeof errpath, "%s/tool.err", dir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return vm_fail(err, "cannot run %s: %s", argv[0], strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return vm_fail(err, "waitpid %s: %s", argv[0], strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    char line[512] = "";
    FILE *f = fopen(errpath, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
        line[strcspn(line, "\n")] = 0;
    }
    return vm_fail(err, "%s failed: %s", argv[0], line[0] ? line : "(no message)");
}

/* as, then ld + dlopen (JIT_LOAD_AS) or the object loaded in-process
 * (JIT_LOAD_ELF, ld + dlopen when it is not supported). */
static bool load_as(const char *dir, const char *spath, JitLoadRoute route, JitLoaded *out, VmError *err)
{
    char opath[4096], sopath[4096];
    snprintf(opath, sizeof opath, "%s/unit.o", dir);
    snprintf(sopath, sizeof sopath, "%s/unit.so", dir);
    char *as_argv[] = {"as", "--64", "-o", opath, (char *)spath, NULL};
    if (vm_fault(VM_FAULT_ASSEMBLE))
        return vm_fail(err, "as failed: injected failure (vm.faults=assemble)");
    if (!run_tool(as_argv, dir, err))
        return false;
    if (route == JIT_LOAD_ELF) {
        VmBuf obj = {0};
        VmError why = {{0}};
        JitElf *e = NULL;
        if (vm_fault(VM_FAULT_LINK))
            return vm_fail(err, "linking the object: injected failure (vm.faults=link)");
        if (vm_fault(VM_FAULT_DLOPEN))
            return vm_fail(err, "loading the object: injected failure (vm.faults=dlopen)");
        if (vm_read_file(opath, &obj, &why))
            e = jit_elf_load(obj.data, obj.len, &why);
        vm_buf_free(&obj);
        if (e) {
            out->route = JIT_LOAD_ELF;
            out->handle = e;
            return true;
        }
    }
    /* -Bsymbolic: the object's own symbols (link slots, its functions)
     * bind inside it, so their GOT loads relax to RIP-relative addresses */
    char *ld_argv[] = {"ld", "-shared", "-Bsymbolic", "-o", sopath, opath, NULL};
    if (vm_fault(VM_FAULT_LINK))
        return vm_fail(err, "ld failed: injected failure (vm.faults=link)");
    if (!run_tool(ld_argv, dir, err))
        return false;
    if (vm_fault(VM_FAULT_DLOPEN))
        return vm_fail(err, "dlopen: injected failure (vm.faults=dlopen)");
    void *h = dlopen(sopath, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return vm_fail(err, "dlopen: %s", e ? e : "failed");
    }
    out->route = JIT_LOAD_AS;
    out->handle = h;
    return true;
}

/* Drops .file/.ident lines (a second .file confuses the assembler's line
 * tables) and wraps the rest so the outer unit's section is restored. */
static char *wrap_toplevel(const char *text)
{
    size_t n = strlen(text);
    char *o = malloc(n + 64);
    if (!o)
        return NULL;
    char *w = o;
    w += sprintf(w, "\t.pushsection .text\n");
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p + 1) : strlen(p);
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, ".file", 5) && strncmp(q, ".ident", 6)) {
            memcpy(w, p, l);
            w += l;
        }
        p += l;
    }
    if (w > o && w[-1] != '\n')
        *w++ = '\n';
    w += sprintf(w, "\t.popsection\n");
    *w = 0;
    return o;
}

static bool load_gccjit(const char *text, JitLoaded *out, VmError *err)
{
    gcc_jit_context *c = gcc_jit_context_acquire();
    if (!c)
        return vm_fail(err, "gcc_jit_context_acquire failed");
    gcc_jit_context_set_bool_print_errors_to_stderr(c, 0);
    char *wrapped = wrap_toplevel(text);
    if (!wrapped) {
        gcc_jit_context_release(c);
        return vm_fail(err, "out of memory");
    }
    gcc_jit_context_add_top_level_asm(c, NULL, wrapped);
    free(wrapped);
    gcc_jit_result *r = vm_fault(VM_FAULT_ASSEMBLE) ? NULL : gcc_jit_context_compile(c);
    bool ok = r != NULL;
    if (!ok) {
        const char *e = gcc_jit_context_get_first_error(c);
        vm_fail(err, "assembling: %s", e ? e : "gcc_jit_context_compile failed");
    }
    gcc_jit_context_release(c);
    if (!ok)
        return false;
    out->route = JIT_LOAD_GCCJIT;
    out->handle = r;
    return true;
}

bool jit_compile_asm(gcc_jit_context *ctx, const char *spath, char **text, size_t *len, VmError *err)
{
    if (vm_fault(VM_FAULT_COMPILE))
        return vm_fail(err, "gccjit: injected failure (vm.faults=compile)");
    gcc_jit_context_compile_to_file(ctx, GCC_JIT_OUTPUT_KIND_ASSEMBLER, spath);
    const char *e = gcc_jit_context_get_first_error(ctx);
    if (e && strstr(e, "fake.s"))   /* gcc stopped before writing asm: bad options */
        return vm_fail(err, "gccjit: no assembly produced (options rejected? gcc's message is on stderr): %s", e);
    if (e)
        return vm_fail(err, "gccjit: %s", e);
    return read_text(spath, text, len, err);
}

bool jit_load_text(const char *dir, const char *text, size_t len, JitLoadRoute route, JitLoaded *out, VmError *err)
{
    if (route == JIT_LOAD_GCCJIT)
        return load_gccjit(text, out, err);
    char spath[4096];
    snprintf(spath, sizeof spath, "%s/unit.s", dir);
    return write_text(spath, text, len, err) && load_as(dir, spath, route, out, err);
}

bool jit_load_unit(gcc_jit_context *ctx, const char *dir, JitLoadRoute route, JitAsmEdit edit,
                   void *edit_ctx, FILE *asm_dump, JitLoaded *out, double *us_compile,
                   double *us_assemble, VmError *err)
{
    char spath[4096];
    snprintf(spath, sizeof spath, "%s/unit.s", dir);
    double t0 = jit_now_us();
    char *text = NULL;
    size_t len = 0;
    if (!jit_compile_asm(ctx, spath, &text, &len, err))
        return false;
    double t1 = jit_now_us();
    if (us_compile)
        *us_compile = t1 - t0;
    bool ok = true;
    if (edit) {
        ok = edit(edit_ctx, &text, &len);
        if (!ok)
            vm_fail(err, "assembly edit failed");
    }
    if (ok && asm_dump)
        fwrite(text, 1, len, asm_dump);
    if (ok)
        ok = jit_load_text(dir, text, len, route, out, err);
    free(text);
    if (us_assemble)
        *us_assemble = jit_now_us() - t1;
    return ok;
}

void *jit_load_symbol(const JitLoaded *u, const char *name, size_t *size)
{
    if (u->route == JIT_LOAD_ELF)
        return jit_elf_symbol(u->handle, name, size);
    void *p = u->route == JIT_LOAD_GCCJIT ? gcc_jit_result_get_code(u->handle, name)
                                          : dlsym(u->handle, name);
    if (size) {
        *size = 0;
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        if (p && dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) && sym)
            *size = sym->st_size;
    }
    return p;
}

bool jit_links_fill(const JitLoaded *u, const JitLinks *l, VmError *err)
{
    if (!l->sym[0])   /* built with immediates */
        return true;
    char name[160];
    snprintf(name, sizeof name, "%s_link", l->sym);
    void (*set)(const void **) = (void (*)(const void **))jit_load_symbol(u, name, NULL);
    if (!set)
        return vm_fail(err, "link setter %s not found in the loaded code", name);
    set(l->v);
    return true;
}

void *jit_load_asm(const char *text, size_t len, const char *symbol, VmError *err)
{
    char dir[4096];
    JitLoaded unit = {0};
    if (!jit_tmpdir(dir, sizeof dir, false, err))
        return NULL;
    bool ok = jit_load_text(dir, text, len, JIT_LOAD_AS, &unit, err);
    jit_rmdir(dir);
    void *p = ok ? jit_load_symbol(&unit, symbol, NULL) : NULL;
    if (ok && !p)
        vm_fail(err, "symbol %s not found in the loaded code", symbol);
    return p;   /* the object stays loaded for the process's life */
}
