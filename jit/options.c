/* jit/options.c — named gcc option sets and the options every compile gets.
 *
 * Input: an option set: a name from `sets` below, or raw gcc options
 * ("-O3 -funroll-loops", whitespace separated, each starting with '-').
 * Output: the options added to a gccjit context.
 * Invariants: every compile also gets -fno-math-errno (no errno writes
 * around sqrt and friends), -ffp-contract=off (GNU C's default "fast"
 * fuses a*b+c into an FMA on FMA-capable -march values, which rounds
 * once instead of twice: results would differ from the interpreter's),
 * -mno-red-zone (markers insert plain calls into
 * the assembly, which would clobber a leaf's red zone), an explicit
 * -march for this host (libgccjit runs no driver, so "native" is
 * rejected) and -falign-functions=64: every function on a cache line of
 * its own, so that a method's code is laid out the same wherever it lands
 * in a unit.  At gcc's default (16 bytes) where a function's loops fall
 * in the 64-byte lines depends on what comes before it, which can cost a
 * benchmark a quarter of its speed and make a bakeoff's two copies of one
 * method differ by several percent (docs/auditing.md).  They come first,
 * so a raw set can still override them.  --param=ggc-min-heapsize=4096
 * (KB) lets gcc's own collector run once its heap passes 4 MB instead of
 * the default's 128 MB or so: gcc's garbage, kept in the process between
 * compiles, was most of a JIT run's resident memory.
 * -mmemset-strategy clears a known size up to 2 KB (frame objects and
 * arrays, ir/escape.c) with a loop of vector stores: generic tuning
 * picks `rep stosq` from 128 bytes on, whose start-up alone costs a
 * frame array of 52 words four times the stores on AMD Zen
 * (docs/results.md, "Clearing frame arrays").
 * The optimisation level is also set through gccjit's own int option so
 * its internal -O agrees with ours.
 */
#include "jit_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define JIT_MEMSET_STRATEGY "vector_loop:2048:noalign,libcall:-1:noalign"

typedef struct OptSet {
    const char *name;
    int level;            /* GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL */
    const char *options;  /* further options, space separated */
} OptSet;

static const OptSet sets[] = {
    {"O0", 0, "-O0"},
    {"O1", 1, "-O1"},
    {"O2", 2, "-O2"},
    {"O3", 3, "-O3"},
    {"unroll", 3, "-O3 -funroll-loops"},
    {"vectorize", 3, "-O3 -ftree-vectorize"},
    {"novectorize", 2, "-O2 -fno-tree-vectorize"},
    {"size", 2, "-Os"},
};

static const char *const names[] = {"O0", "O1", "O2", "O3", "unroll", "vectorize", "novectorize", "size", NULL};

const char *const *jit_options_names(void)
{
    return names;
}

const char *jit_options_march(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma"))
        return "x86-64-v3";
    if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
        __builtin_cpu_supports("ssse3"))
        return "x86-64-v2";
    return "x86-64";
}

/* Adds each whitespace-separated word of s as one option. */
static void add_words(gcc_jit_context *ctx, const char *s)
{
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        const char *e = s;
        while (*e && !isspace((unsigned char)*e))
            e++;
        if (e > s) {
            char *w = strndup(s, (size_t)(e - s));
            if (w) {
                gcc_jit_context_add_command_line_option(ctx, w);   /* copies */
                free(w);
            }
        }
        s = e;
    }
}

/* The -O level a raw option string asks for (last one wins), default 2. */
static int raw_level(const char *s)
{
    int level = 2;
    for (const char *p = strstr(s, "-O"); p; p = strstr(p + 2, "-O")) {
        if (p != s && !isspace((unsigned char)p[-1]))
            continue;
        char c = p[2];
        level = c >= '0' && c <= '3' ? c - '0' : c == 's' ? 2 : c == 0 || isspace((unsigned char)c) ? 1 : level;
    }
    return level;
}

/* The named set, or NULL for raw options (*raw: after leading blanks);
 * false + err when it is neither. */
static bool find_set(const char *optset, const OptSet **set, const char **raw, VmError *err)
{
    *set = NULL;
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
        if (!strcmp(sets[i].name, optset))
            *set = &sets[i];
    const char *p = optset;
    while (isspace((unsigned char)*p))
        p++;
    *raw = p;
    if (!*set && *p != '-') {
        const char *s = vm_suggest(optset, names, sizeof names / sizeof *names - 1);
        return vm_fail(err, "unknown option set '%s'%s%s%s", optset, s ? " (did you mean '" : "",
                       s ? s : "", s ? "'?)" : "");
    }
    return true;
}

bool jit_optset_check(const char *optset, VmError *err)
{
    const OptSet *set;
    const char *raw;
    return find_set(optset && *optset ? optset : "O2", &set, &raw, err);
}

bool jit_options_apply(gcc_jit_context *ctx, const char *optset, VmError *err)
{
    if (!optset || !*optset)
        optset = "O2";
    const OptSet *set;
    const char *p;
    if (!find_set(optset, &set, &p, err))
        return false;
    gcc_jit_context_set_int_option(ctx, GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL, set ? set->level : raw_level(p));
    char march[64];
    snprintf(march, sizeof march, "-march=%s", jit_options_march());
    gcc_jit_context_add_command_line_option(ctx, "-fno-math-errno");
    gcc_jit_context_add_command_line_option(ctx, "-ffp-contract=off");
    gcc_jit_context_add_command_line_option(ctx, "-mno-red-zone");
    gcc_jit_context_add_command_line_option(ctx, march);
    gcc_jit_context_add_command_line_option(ctx, "-falign-functions=64");
    gcc_jit_context_add_command_line_option(ctx, "-mmemset-strategy=" JIT_MEMSET_STRATEGY);
    gcc_jit_context_add_command_line_option(ctx, "--param=ggc-min-heapsize=4096");
    add_words(ctx, set ? set->options : p);
    return true;
}
