/* cli/tools.c — commands that are scripts of tools/: `tally report`
 * (tools/tally-report: the HTML report of --stats files) and `tally lab`
 * (tools/tally-lab: experiment matrices), found from the tally binary's
 * directory as ../tools/tally-CMD, so a checkout and an install alike
 * run the scripts that came with their binary.
 *
 * Input: the arguments after the command, passed on unchanged.  Output:
 * the script's own (it writes its files and says what is wrong); its exit
 * status is tally's.  Invariant: a script that cannot be found or started
 * is a clear message and status 2, never a hang.
 */
#include "tools.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 2

/* the commands, and what their scripts need (said when one cannot start) */
static const struct { const char *cmd, *needs; } tools[] = {
    {"report", "python3 and python3-matplotlib"},
    {"lab", "python3 and GNU parallel"},
};
#define NTOOLS (sizeof tools / sizeof *tools)

bool cli_is_tool(const char *cmd)
{
    for (size_t k = 0; k < NTOOLS; k++)
        if (!strcmp(cmd, tools[k].cmd))
            return true;
    return false;
}

int cli_tool(const char *cmd, int argc, char **argv)
{
    const char *needs = "python3";
    for (size_t k = 0; k < NTOOLS; k++)
        if (!strcmp(cmd, tools[k].cmd))
            needs = tools[k].needs;
    char exe[PATH_MAX], path[PATH_MAX + 32];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) {
        fprintf(stderr, "tally: %s: cannot find the tally executable: %s\n", cmd, strerror(errno));
        return EXIT_USAGE;
    }
    exe[k] = 0;
    setenv("TALLY_EXE", exe, 1);
    *strrchr(exe, '/') = 0;   /* readlink gives an absolute path: there is a slash */
    snprintf(path, sizeof path, "%s/../tools/tally-%s", exe, cmd);
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "tally: %s: its script is missing (looked for %s: %s); it is tools/tally-%s of the "
                        "source tree, next to bin/\n",
                cmd, path, strerror(errno), cmd);
        return EXIT_USAGE;
    }
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        fprintf(stderr, "tally: %s: out of memory\n", cmd);
        return EXIT_USAGE;
    }
    args[0] = path;
    for (int a = 0; a < argc; a++)
        args[a + 1] = argv[a];
    fflush(stdout);
    execv(path, args);
    fprintf(stderr, "tally: %s: cannot run %s: %s (tools/setup.sh installs %s)\n", cmd, path, strerror(errno), needs);
    free(args);
    return EXIT_USAGE;
}
