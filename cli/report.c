/* cli/report.c — `tally report STATS.json… -o report.html`: runs the
 * report generator, tools/tally-report (Python 3 with matplotlib), found
 * from the tally binary's directory as ../tools/tally-report.
 *
 * Input: the arguments after `report`, passed on unchanged.  Output: the
 * generator's own (it writes the HTML file and says what is wrong);
 * its exit status is tally's.  Invariant: a generator that cannot be
 * found or started is a clear message and status 2, never a hang.
 */
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 2

/* <directory of the tally executable>/../tools/<name>, or false. */
static bool tool_path(const char *name, char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return false;
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = 0;   /* .../bin */
    int w = snprintf(out, n, "%s/../tools/%s", exe, name);
    return w > 0 && (size_t)w < n;
}

int cli_report(int argc, char **argv)
{
    char path[PATH_MAX + 32];
    if (!tool_path("tally-report", path, sizeof path) || access(path, X_OK) != 0) {
        fprintf(stderr, "tally: report: the report generator is missing (looked for %s: %s); it is "
                        "tools/tally-report of the source tree, next to bin/\n",
                path, strerror(errno ? errno : ENOENT));
        return EXIT_USAGE;
    }
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        fputs("tally: report: out of memory\n", stderr);
        return EXIT_USAGE;
    }
    args[0] = path;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    fflush(stdout);
    execv(path, args);
    /* only on failure: most often no python3 (tools/setup.sh installs it) */
    fprintf(stderr, "tally: report: cannot run %s: %s (tools/setup.sh installs python3 and python3-matplotlib)\n",
            path, strerror(errno));
    free(args);
    return EXIT_USAGE;
}
