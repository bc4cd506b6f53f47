/* tests/xorshift.h — the test tools' random numbers (header-only):
 * xorshift64*, the same stream from a seed on every machine, so a seed
 * names a mutation or a generated program for good.  The state must not
 * be 0. */
#ifndef TALLY_XORSHIFT_H
#define TALLY_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64s(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

#endif
