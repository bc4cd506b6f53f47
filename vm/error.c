/* vm/error.c — errors: those library code returns (vm_fail), and run-time
 * errors: message, stack trace, unwinding.
 *
 * Input: a thread whose frame stack (t->frames .. t->fp) describes the
 * active calls, each frame's pc pointing at its current instruction.
 * Output: "error: <msg>" and one "  at <method> (<file>:<line>)" line per
 * frame, innermost first, on stderr (<file> is the method's own source
 * file: the module's `source`, or files[file - 1] for code that came from
 * an import); then a longjmp to t->escape with t->status set.  Traces
 * longer than 2 × vm.trace_frames keep both ends.
 * stdout is flushed first so program output and the error appear in order.
 */
#include "vm.h"

#include <stdarg.h>
#include <stdlib.h>

bool vm_fail(VmError *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return false;
}

int vm_line_of(const VmMethod *m, const VmInsn *pc)
{
    if (!m || !pc || !m->code || pc < m->code || pc >= m->code + m->ncode || !m->nlines)
        return 0;
    uint32_t at = (uint32_t)(pc - m->code);
    /* last entry whose pc <= at */
    uint32_t lo = 0, hi = m->nlines;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->lines[mid].pc <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? (int)m->lines[lo - 1].line : 0;
}

static void print_frame(const VmFrame *f)
{
    const VmMethod *m = f->m;
    const char *name = m && m->name ? m->name : "?";
    const VmModule *mod = m ? m->module : NULL;
    const char *src = NULL;
    if (mod && m->file == 0)
        src = mod->source;
    else if (mod && m->file <= mod->nfiles && mod->files)
        src = mod->files[m->file - 1];
    if (!src)
        src = "?";
    int line = vm_line_of(m, f->pc);
    if (line)
        fprintf(stderr, "  at %s (%s:%d)\n", name, src, line);
    else
        fprintf(stderr, "  at %s (%s)\n", name, src);
}

static _Noreturn void unwind(VmThread *t, int status)
{
    t->status = status;
    if (!t->escape) {
        /* nobody to unwind to: a VM bug, not a program error */
        fprintf(stderr, "fatal: run-time error outside vm_run\n");
        abort();
    }
    longjmp(*t->escape, 1);
}

void vm_raise(VmThread *t, const char *fmt, ...)
{
    fflush(stdout);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "error: %s\n", msg);
    if (!t) {
        fprintf(stderr, "fatal: run-time error without a thread\n");
        abort();
    }

    long n = t->fp && t->frames && t->fp >= t->frames ? (long)(t->fp - t->frames) + 1 : 0;
    long keep = t->vm ? (long)t->vm->tun.trace_frames : 20;
    if (keep < 0)
        keep = 0;
    if (n > 2 * keep) {
        for (long i = 0; i < keep; i++)
            print_frame(t->fp - i);
        fprintf(stderr, "  ... %ld more frames\n", n - 2 * keep);
        for (long i = keep - 1; i >= 0; i--)
            print_frame(t->frames + i);
    } else {
        for (long i = 0; i < n; i++)
            print_frame(t->fp - i);
    }
    fflush(stderr);
    unwind(t, 1);
}

void vm_exit(VmThread *t, int status)
{
    fflush(stdout);
    unwind(t, status);
}
