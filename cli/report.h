/* cli/report.h — `tally report` (cli/report.c): the HTML report of one or
 * more --stats files, made by tools/tally-report. */
#ifndef TALLY_CLI_REPORT_H
#define TALLY_CLI_REPORT_H

#include <stdbool.h>

/* Runs ../tools/tally-report (from the tally binary's directory) with the
 * arguments after `report`; returns only when it cannot be started
 * (status 2, said on stderr). */
int cli_report(int argc, char **argv);

#endif
