/* tests/unit/mk_shapes.h — functions with code markers, built through
 * libgccjit, in the shapes gcc turns markers into (the markers scanner's
 * tests, test_markers_scan.c, and the recorder of its assembly fixtures,
 * tests/fixtures/markers/gen.c).
 *
 * Every shape is `long f(long *a, long n, long *flag, void (*cb)(long *))`
 * with INTERNAL `long` markers named <f>_mk<k>, `marker += 1` at the top
 * of each loop body (big: of each loop header).  A yieldpoint is
 * `if (__builtin_expect(__atomic_load_8(flag, RELAXED) != 0, 0)) cb(a)`:
 * a call on a cold path, which keeps gcc from moving the marker out of
 * the loop.  The functions take every address as a parameter, so their
 * assembly holds none and a recorded text loads in any process.
 *
 *   sum        s += a[i]                          (mk0: n)
 *   sum_yield  a yieldpoint, s += a[i]            (mk0: n)
 *   sum_call   s += mix(a[i], a[i] & 7), mix a static function with its
 *              own marker loop (mk0: n, mk1: Σ a[i] & 7), inlined by gcc
 *   big        12 sequential loops, loop j for i < n − j with its marker
 *              ahead of the exit test (gcc copies it into the loop's
 *              guard: tail duplication), a yieldpoint in each loop but
 *              every fourth, an if/else diamond (mkj: max(0, n − j) + 1)
 *   addr       mk0 in a first loop, then cb(&mk0): its address escapes;
 *              mk1 in a second loop (mk0: n, mk1: n)
 *   pinned     s += a[i] with a pinned marker: `addq $1, mk0` in an asm
 *              volatile ("+m"), which gcc cannot move (mk0: n)
 */
#ifndef MK_SHAPES_H
#define MK_SHAPES_H

#include <libgccjit.h>

typedef long (*MkShapeFn)(long *a, long n, long *flag, void (*cb)(long *));

typedef enum MkShape { MK_SUM, MK_SUM_YIELD, MK_SUM_CALL, MK_BIG, MK_ADDR, MK_PINNED, MK_NSHAPES } MkShape;

#define MK_BIG_LOOPS 12

/* The shape's function name ("sum", ...). */
const char *mk_shape_name(MkShape s);
/* How many markers the shape has. */
unsigned mk_shape_markers(MkShape s);
/* Adds the shape as an exported function named mk_shape_name(s) to c. */
void mk_shape_build(gcc_jit_context *c, MkShape s);
/* The shape in C: its result, and with counts (mk_shape_markers entries)
 * the number of times each marker's `+= 1` runs.  cb is called as the
 * jitted code calls it. */
long mk_shape_ref(MkShape s, long *a, long n, long *flag, void (*cb)(long *), unsigned long *counts);

#endif
