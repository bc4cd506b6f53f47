/* tests/gen/tlreduce.c — shrinks a program while a predicate holds.
 *
 * Usage: tlreduce [-o OUT] [--max-tests N] FILE CMD [ARG...]
 * Input: a source file and a predicate command; the predicate is run as
 * `CMD ARG... CANDIDATE` and a candidate is "interesting" when it exits 0.
 * Output: the smallest interesting candidate found, written to OUT (or
 * stdout); status 0, or 1 when FILE itself is not interesting, 2 on bad
 * use.
 *
 * It works on lines, for programs written one statement per line with a
 * block's `{` ending its header line and its `}` opening a line of its own
 * (what tests/gen/tlgen.c writes; hand-written tally mostly is too):
 *  1. blocks: a line that opens more braces than it closes, through the
 *     line where they balance, is dropped as a unit — whole declarations,
 *     loops, if/else chains — the outermost first;
 *  2. unwrapping: the header and closing lines of a block are dropped,
 *     keeping its body;
 *  3. lines: the remaining lines in chunks halving down to single lines
 *     (delta debugging), a chunk whose braces do not balance never tried.
 * The passes repeat until none removes anything (or the test budget is
 * spent).  Every candidate is a subset of the lines in order, so the
 * result is deterministic for a deterministic predicate.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    char **line;
    int n;
    bool *keep;
    char **cmd;          /* CMD ARG... NULL slot for the candidate, NULL */
    int ncmd;
    char cand[64];
    long tests, max_tests;
} Red;

/* braces a line opens minus those it closes, outside string and char
 * literals and // comments */
static int net_braces(const char *s)
{
    int d = 0;
    for (; *s; s++) {
        if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q) s += (*s == '\\' && s[1]) ? 2 : 1;
            if (!*s) break;
        } else if (s[0] == '/' && s[1] == '/') {
            break;
        } else if (*s == '{') {
            d++;
        } else if (*s == '}') {
            d--;
        }
    }
    return d;
}

static bool write_cand(Red *r, const bool *keep)
{
    FILE *f = fopen(r->cand, "w");
    if (!f) return false;
    for (int i = 0; i < r->n; i++)
        if (keep[i]) fputs(r->line[i], f);
    return fclose(f) == 0;
}

/* runs the predicate on the lines keep selects */
static bool interesting(Red *r, const bool *keep)
{
    if (r->tests >= r->max_tests || !write_cand(r, keep)) return false;
    r->tests++;
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        int null = open("/dev/null", 1);
        if (null >= 0) dup2(null, 1), dup2(null, 2);
        execvp(r->cmd[0], r->cmd);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return false;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* tries dropping the lines of idx[0..k); keeps the drop when interesting */
static bool try_drop(Red *r, const int *idx, int k)
{
    int bal = 0;
    for (int i = 0; i < k; i++) bal += net_braces(r->line[idx[i]]);
    if (bal != 0) return false;
    bool *t = malloc((size_t)r->n);
    memcpy(t, r->keep, (size_t)r->n);
    for (int i = 0; i < k; i++) t[idx[i]] = false;
    bool ok = interesting(r, t);
    if (ok) memcpy(r->keep, t, (size_t)r->n);
    free(t);
    return ok;
}

/* the kept line where the block opened at line i closes, or -1 */
static int block_end(Red *r, int i)
{
    int d = 0;
    for (int j = i; j < r->n; j++) {
        if (!r->keep[j]) continue;
        d += net_braces(r->line[j]);
        if (d <= 0) return d == 0 ? j : -1;
    }
    return -1;
}

static bool pass_blocks(Red *r, bool unwrap)
{
    bool any = false;
    int *idx = malloc(sizeof(int) * (size_t)r->n);
    for (int i = 0; i < r->n; i++) {
        if (!r->keep[i] || net_braces(r->line[i]) <= 0) continue;
        int j = block_end(r, i);
        if (j < 0) continue;
        int k = 0;
        if (unwrap) {
            idx[k++] = i, idx[k++] = j;
        } else {
            for (int t = i; t <= j; t++)
                if (r->keep[t]) idx[k++] = t;
        }
        if (try_drop(r, idx, k)) any = true;
    }
    free(idx);
    return any;
}

static bool pass_lines(Red *r)
{
    bool any = false;
    int *kept = malloc(sizeof(int) * (size_t)r->n);
    for (int chunk = r->n / 2; chunk >= 1; chunk /= 2) {
        int nk = 0;
        for (int i = 0; i < r->n; i++)
            if (r->keep[i]) kept[nk++] = i;
        if (chunk > nk) continue;
        /* from the end: later lines use earlier declarations */
        for (int s = nk - chunk; s >= 0; s -= chunk) {
            if (try_drop(r, kept + s, chunk)) {
                any = true;
                /* the kept list shifted; recompute and go on from here */
                int nk2 = 0;
                for (int i = 0; i < r->n; i++)
                    if (r->keep[i]) kept[nk2++] = i;
                nk = nk2;   /* the lines before s did not move */
            }
        }
    }
    free(kept);
    return any;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    Red r = { .max_tests = 5000 };
    int a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1]; a++) {
        if (!strcmp(argv[a], "-o") && a + 1 < argc) out = argv[++a];
        else if (!strcmp(argv[a], "--max-tests") && a + 1 < argc) r.max_tests = atol(argv[++a]);
        else break;
    }
    if (argc - a < 2) {
        fprintf(stderr, "usage: tlreduce [-o OUT] [--max-tests N] FILE CMD [ARG...]\n");
        return 2;
    }
    FILE *f = fopen(argv[a], "r");
    if (!f) { perror(argv[a]); return 2; }
    size_t cap = 0;
    char *buf = NULL;
    ssize_t len;
    int lcap = 0;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        if (r.n == lcap) {
            lcap = lcap ? 2 * lcap : 256;
            r.line = realloc(r.line, sizeof(char *) * (size_t)lcap);
        }
        r.line[r.n++] = strdup(buf);
    }
    free(buf);
    fclose(f);
    if (r.n == 0) { fprintf(stderr, "tlreduce: %s is empty\n", argv[a]); return 2; }
    r.keep = malloc((size_t)r.n);
    memset(r.keep, 1, (size_t)r.n);
    /* the candidate: a .tl file next to nothing else (the predicate may
     * name it in messages; the directory is the temporary one) */
    const char *tmp = getenv("TMPDIR");
    snprintf(r.cand, sizeof r.cand, "%s/tlreduce.%d.tl", tmp && strlen(tmp) < 30 ? tmp : "/tmp", (int)getpid());
    r.ncmd = argc - a - 1;
    r.cmd = calloc((size_t)r.ncmd + 2, sizeof(char *));
    for (int i = 0; i < r.ncmd; i++) r.cmd[i] = argv[a + 1 + i];
    r.cmd[r.ncmd] = r.cand;

    if (!interesting(&r, r.keep)) {
        fprintf(stderr, "tlreduce: %s does not satisfy the predicate\n", argv[a]);
        unlink(r.cand);
        return 1;
    }
    bool changed = true;
    while (changed && r.tests < r.max_tests) {
        changed = false;
        changed |= pass_blocks(&r, false);
        changed |= pass_blocks(&r, true);
        changed |= pass_lines(&r);
    }
    int kept = 0;
    for (int i = 0; i < r.n; i++) kept += r.keep[i];
    fprintf(stderr, "tlreduce: %d of %d lines kept, %ld tests\n", kept, r.n, r.tests);
    FILE *o = out ? fopen(out, "w") : stdout;
    if (!o) { perror(out); return 2; }
    for (int i = 0; i < r.n; i++)
        if (r.keep[i]) fputs(r.line[i], o);
    if (out) fclose(o);
    unlink(r.cand);
    return 0;
}
