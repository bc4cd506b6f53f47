/* bench/kernels/c/binarytrees.c — C twin of bench/kernels/binarytrees.tl
 * (CLBG binary-trees).  Input: max depth N (argv[1], default 6).  Output:
 * the Benchmarks Game's lines.  Invariant: one malloc per node and the
 * trees freed when dropped (the plain C way; tally leaves them to its GC). */
#include "tallyfmt.h"

struct node { struct node *left, *right; };

static struct node *new_node(struct node *left, struct node *right)
{
    struct node *n = malloc(sizeof *n);
    if (!n) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    n->left = left;
    n->right = right;
    return n;
}

static struct node *bottom_up(long depth)
{
    if (depth > 0)
        return new_node(bottom_up(depth - 1), bottom_up(depth - 1));
    return new_node(NULL, NULL);
}

static long check(const struct node *n)
{
    if (!n->left)
        return 1;
    return 1 + check(n->left) + check(n->right);
}

static void free_tree(struct node *n)
{
    if (n->left) {
        free_tree(n->left);
        free_tree(n->right);
    }
    free(n);
}

int main(int argc, char **argv)
{
    long n = arg_or(argc, argv, 6);
    long min_depth = 4, max_depth = n;
    if (min_depth + 2 > max_depth)
        max_depth = min_depth + 2;
    long stretch = max_depth + 1;
    struct node *t = bottom_up(stretch);
    printf("stretch tree of depth %ld\t check: %ld\n", stretch, check(t));
    free_tree(t);
    struct node *long_lived = bottom_up(max_depth);
    for (long depth = min_depth; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + min_depth), sum = 0;
        for (long i = 0; i < iterations; i++) {
            t = bottom_up(depth);
            sum += check(t);
            free_tree(t);
        }
        printf("%ld\t trees of depth %ld\t check: %ld\n", iterations, depth, sum);
    }
    printf("long lived tree of depth %ld\t check: %ld\n", max_depth, check(long_lived));
    free_tree(long_lived);
    return 0;
}
