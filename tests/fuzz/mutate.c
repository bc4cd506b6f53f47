/* tests/fuzz/mutate.c — the mutation test: valid modules, randomly broken.
 *
 * usage: mutate [--runs N] [--seed S] [--save DIR] [--timeout SEC] FILE.tlb...
 *
 * Each run takes one seed module, applies a random mutation (1–8 byte
 * flips/sets, a truncation, an inserted or deleted span, or a copied span)
 * and runs the mutant through the same path as `tally run` — read, verify,
 * link, run — in a forked child with output discarded.  The child must end
 * with exit status 0, 1 or 2 (or be stopped by the time limit: a mutated
 * jump can make a real infinite loop, which is not a crash).  A signal is a
 * failure; the mutant is saved to DIR for reproduction.  Prints a summary
 * line and exits 1 if any child died of a signal.
 */
#include "vm.h"
#include "../xorshift.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rng_state;

static uint64_t rnd(void)
{
    return xorshift64s(&rng_state);   /* deterministic per --seed */
}

static size_t mutate(const VmBuf *seed, uint8_t *out, size_t cap)
{
    size_t n = seed->len;
    memcpy(out, seed->data, n);
    switch (rnd() % 6) {
    case 0: /* truncate */
        return n ? rnd() % n : 0;
    case 1: /* flip bits in 1..8 bytes */
        for (int k = 1 + rnd() % 8; k > 0 && n; k--)
            out[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
        return n;
    case 2: /* set bytes to interesting values */
        for (int k = 1 + rnd() % 4; k > 0 && n; k--) {
            static const uint8_t vals[] = {0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40};
            out[rnd() % n] = vals[rnd() % sizeof vals];
        }
        return n;
    case 3: { /* delete a span */
        if (n < 2)
            return n;
        size_t at = rnd() % n, len = 1 + rnd() % (n - at < 16 ? n - at : 16);
        memmove(out + at, out + at + len, n - at - len);
        return n - len;
    }
    case 4: { /* insert random bytes */
        size_t at = n ? rnd() % n : 0, len = 1 + rnd() % 8;
        if (n + len > cap)
            return n;
        memmove(out + at + len, out + at, n - at);
        for (size_t i = 0; i < len; i++)
            out[at + i] = (uint8_t)rnd();
        return n + len;
    }
    default: { /* copy a span over another place */
        if (n < 4)
            return n;
        size_t len = 1 + rnd() % 8;
        if (len > n)
            len = n;
        size_t from = rnd() % (n - len + 1), to = rnd() % (n - len + 1);
        memmove(out + to, seed->data + from, len);
        return n;
    }
    }
}

/* The child: what `tally run` does with a module, output discarded. */
static int run_child(const uint8_t *data, size_t len)
{
    VmError err;
    VmModule *m = vm_module_read(data, len, &err);
    if (!m)
        return 2;
    if (!vm_verify(m, &err) || m->main == VM_NONE) {
        vm_module_free(m);
        return 2;
    }
    VmTunables tun;
    vm_tunables_default(&tun);
    tun.gc_max_heap = 256 << 20;   /* a mutated size must not eat the machine */
    Vm *vm = vm_new(&tun);
    if (!vm_link(vm, m, &err))
        return 2;
    return vm_run(vm, 0, NULL);
}

int main(int argc, char **argv)
{
    long runs = 20000, timeout = 2;
    uint64_t seed = 0x7a11ull;
    const char *save = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--save") && i + 1 < argc)
            save = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
            timeout = atol(argv[++i]);
        else {
            fprintf(stderr, "mutate: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    int nseeds = argc - i;
    if (nseeds <= 0) {
        fprintf(stderr, "usage: mutate [--runs N] [--seed S] [--save DIR] FILE.tlb...\n");
        return 2;
    }
    VmBuf *seeds = calloc((size_t)nseeds, sizeof *seeds);
    size_t maxlen = 0;
    for (int k = 0; k < nseeds; k++) {
        VmError err;
        if (!vm_read_file(argv[i + k], &seeds[k], &err)) {
            fprintf(stderr, "mutate: %s\n", err.msg);
            return 2;
        }
        if (seeds[k].len > maxlen)
            maxlen = seeds[k].len;
    }
    size_t cap = maxlen + 64;
    uint8_t *buf = malloc(cap);
    rng_state = seed | 1;

    long status_count[3] = {0}, timeouts = 0, signals = 0, other = 0;
    for (long r = 0; r < runs; r++) {
        const VmBuf *s = &seeds[rnd() % (uint64_t)nseeds];
        size_t len = mutate(s, buf, cap);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            struct rlimit cpu = {(rlim_t)timeout, (rlim_t)timeout + 1};
            setrlimit(RLIMIT_CPU, &cpu);
            alarm((unsigned)timeout * 2);
            int st = run_child(buf, len);
            fflush(stdout);
            _exit(st);
        }
        int ws;
        while (waitpid(pid, &ws, 0) < 0)
            ;
        if (WIFEXITED(ws)) {
            int st = WEXITSTATUS(ws);
            if (st <= 2)
                status_count[st]++;
            else
                other++;  /* exit(n) of a mutated program: fine */
        } else if (WIFSIGNALED(ws) && (WTERMSIG(ws) == SIGALRM || WTERMSIG(ws) == SIGXCPU ||
                                       WTERMSIG(ws) == SIGKILL)) {
            timeouts++;
        } else {
            signals++;
            fprintf(stderr, "mutate: run %ld died of signal %d\n", r,
                    WIFSIGNALED(ws) ? WTERMSIG(ws) : -1);
            if (save) {
                mkdir(save, 0777);
                char path[4096];
                snprintf(path, sizeof path, "%s/crash-%ld.tlb", save, r);
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(buf, 1, len, f);
                    fclose(f);
                    fprintf(stderr, "mutate: saved %s\n", path);
                }
            }
        }
        if ((r + 1) % 5000 == 0)
            fprintf(stderr, "mutate: %ld/%ld runs\n", r + 1, runs);
    }
    printf("mutate: %ld runs from %d modules: exit 0: %ld, exit 1: %ld, exit 2: %ld, "
           "other exit: %ld, time limit: %ld, signals: %ld\n",
           runs, nseeds, status_count[0], status_count[1], status_count[2], other, timeouts,
           signals);
    return signals ? 1 : 0;
}
