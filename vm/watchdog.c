/* vm/watchdog.c — vm.max_time: the wall-clock limit of a run.
 *
 * Input: the limit in seconds (vm.max_time; --sandbox sets a default).
 * Output: unless vm_watchdog_stop comes first, "error: time limit
 * exceeded" on stderr, the program's buffered output flushed when stdout
 * is free, the --stats file written, and the process ended with
 * VM_EXIT_TIME_LIMIT (3).
 * Invariants: the limit holds wherever the program is: compiled code never
 * polls and a run-time error cannot be raised into it from another thread
 * (it may hold the collector's lock or be halfway through an object), so
 * the watchdog ends the process itself, through vm_stats_exit: the path
 * SIGINT and SIGTERM take (profile.c), which writes the final stats file
 * on the writer's thread first.  This is, with those signals, the one place
 * below cli/main.c that ends the process.  The watchdog fires while
 * holding its lock, so vm_watchdog_stop either prevents it or never
 * returns (the process ends): the caller may stop the stats writer right
 * after it.  The thread never touches the collected heap and is not
 * registered with the collector.
 */
#include "vm.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct VmWatchdog {
    int64_t seconds;
    pthread_mutex_t lock;
    pthread_cond_t cond;           /* CLOCK_MONOTONIC: immune to clock changes */
    struct timespec deadline;
    bool stop;                     /* under lock */
    pthread_t thread;
};

/* The program's buffered output, if no other thread is writing to stdout
 * now: its output up to the limit belongs to the run.  Never blocks: the
 * program may hold the lock for a write to a full pipe. */
static void flush_stdout(void)
{
    for (int tries = 0; tries < 100; tries++) {
        if (ftrylockfile(stdout) == 0) {
            fflush_unlocked(stdout);
            funlockfile(stdout);   /* --stats=- writes through stdout too */
            return;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

static void *watchdog_main(void *arg)
{
    VmWatchdog *w = arg;
    pthread_setname_np(pthread_self(), "tally-watchdog");
    pthread_mutex_lock(&w->lock);
    int r = 0;
    while (!w->stop && r != ETIMEDOUT)
        r = pthread_cond_timedwait(&w->cond, &w->lock, &w->deadline);
    if (w->stop) {
        pthread_mutex_unlock(&w->lock);
        return NULL;
    }
    /* still holding the lock: vm_watchdog_stop waits for the end */
    flush_stdout();
    fprintf(stderr, "error: time limit exceeded: the run took more than vm.max_time=%" PRId64 " s\n",
            w->seconds);
    vm_stats_exit(VM_EXIT_TIME_LIMIT);
}

VmWatchdog *vm_watchdog_start(int64_t seconds, VmError *err)
{
    if (seconds <= 0)
        return NULL;
    VmWatchdog *w = calloc(1, sizeof *w);
    if (!w) {
        vm_fail(err, "out of memory");
        return NULL;
    }
    w->seconds = seconds;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &w->deadline);
    /* a limit past time_t's range is no limit in practice */
    w->deadline.tv_sec += seconds < (int64_t)1 << 40 ? (time_t)seconds : (time_t)1 << 40;
    int rc = vm_fault(VM_FAULT_THREAD) ? EAGAIN : pthread_create(&w->thread, NULL, watchdog_main, w);
    if (rc != 0) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
        vm_fail(err, "cannot start the vm.max_time watchdog: %s", strerror(rc));
        return NULL;
    }
    return w;
}

void vm_watchdog_stop(VmWatchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
