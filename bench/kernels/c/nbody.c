/* bench/kernels/c/nbody.c — C twin of bench/kernels/nbody.tl (CLBG n-body).
 * Input: steps (argv[1], default 1000).  Output: the energy before and after,
 * printed like tally prints floats.  Invariant: every floating operation is
 * the tally kernel's, in the same order, so the results agree bit for bit. */
#include "tallyfmt.h"

#define PI 3.141592653589793
#define SOLAR_MASS (4.0 * PI * PI)
#define DAYS_PER_YEAR 365.24

struct body { double x, y, z, vx, vy, vz, mass; };

static void init_body(struct body *b, double x, double y, double z, double vx,
                      double vy, double vz, double mass)
{
    b->x = x;
    b->y = y;
    b->z = z;
    b->vx = vx * DAYS_PER_YEAR;
    b->vy = vy * DAYS_PER_YEAR;
    b->vz = vz * DAYS_PER_YEAR;
    b->mass = mass * SOLAR_MASS;
}

#define NB 5

static void make_bodies(struct body *b)
{
    init_body(&b[0], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
    init_body(&b[1], 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
              1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
              9.54791938424326609e-04);
    init_body(&b[2], 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
              -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
              2.85885980666130812e-04);
    init_body(&b[3], 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
              2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
              4.36624404335156298e-05);
    init_body(&b[4], 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
              2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
              5.15138902046611451e-05);
}

static void offset_momentum(struct body *b)
{
    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < NB; i++) {
        px += b[i].vx * b[i].mass;
        py += b[i].vy * b[i].mass;
        pz += b[i].vz * b[i].mass;
    }
    b[0].vx = -px / SOLAR_MASS;
    b[0].vy = -py / SOLAR_MASS;
    b[0].vz = -pz / SOLAR_MASS;
}

static void advance(struct body *b, double dt)
{
    for (int i = 0; i < NB; i++) {
        struct body *bi = &b[i];
        for (int j = i + 1; j < NB; j++) {
            struct body *bj = &b[j];
            double dx = bi->x - bj->x;
            double dy = bi->y - bj->y;
            double dz = bi->z - bj->z;
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            double mi = bi->mass * mag;
            double mj = bj->mass * mag;
            bi->vx -= dx * mj;
            bi->vy -= dy * mj;
            bi->vz -= dz * mj;
            bj->vx += dx * mi;
            bj->vy += dy * mi;
            bj->vz += dz * mi;
        }
    }
    for (int i = 0; i < NB; i++) {
        b[i].x += dt * b[i].vx;
        b[i].y += dt * b[i].vy;
        b[i].z += dt * b[i].vz;
    }
}

static double energy(const struct body *b)
{
    double e = 0.0;
    for (int i = 0; i < NB; i++) {
        const struct body *bi = &b[i];
        e += 0.5 * bi->mass * (bi->vx * bi->vx + bi->vy * bi->vy + bi->vz * bi->vz);
        for (int j = i + 1; j < NB; j++) {
            const struct body *bj = &b[j];
            double dx = bi->x - bj->x;
            double dy = bi->y - bj->y;
            double dz = bi->z - bj->z;
            e -= bi->mass * bj->mass / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

int main(int argc, char **argv)
{
    long steps = arg_or(argc, argv, 1000);
    struct body bodies[NB];
    make_bodies(bodies);
    offset_momentum(bodies);
    print_float(energy(bodies));
    putchar('\n');
    for (long i = 0; i < steps; i++)
        advance(bodies, 0.01);
    print_float(energy(bodies));
    putchar('\n');
    return 0;
}
