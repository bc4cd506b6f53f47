/* cli/tools.h — the commands that are scripts of tools/ (cli/tools.c):
 * `tally report` (tools/tally-report) and `tally lab` (tools/tally-lab). */
#ifndef TALLY_CLI_TOOLS_H
#define TALLY_CLI_TOOLS_H

#include <stdbool.h>

/* Is cmd a command that a script of tools/ runs? */
bool cli_is_tool(const char *cmd);

/* Runs the script of cmd, ../tools/tally-CMD from the tally binary's
 * directory, with the arguments after the command and TALLY_EXE set to
 * this tally; returns only when it cannot be started (status 2, said on
 * stderr). */
int cli_tool(const char *cmd, int argc, char **argv);

#endif
