/* vm/outfile.c — writing a file the user named (--stats, asm -o).
 *
 * Input: a path and the bytes to put there.  Output: the bytes written,
 * or an error naming the path.  What is done depends on what the path is
 * (lstat, never followed to decide):
 *   absent or a regular file   a temporary file beside it (PATH.tmpPID.N,
 *                              created new, never through an existing name),
 *                              renamed over it: a reader never sees half a
 *                              file, and a failed write leaves the old one;
 *   "-"                        standard output;
 *   a FIFO, a device, a        opened and written in place as a stream: it
 *   symlink                    is never replaced (a symlink is written
 *                              through to an existing target, never
 *                              created there);
 *   anything else              an error (a directory, a socket).
 * Invariants: a short or failed write (ENOSPC on a full device) is an
 * error; nothing is left behind under a name the user did not give but
 * the temporary file, which a failure removes.
 */
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool vm_outfile_replaceable(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-"))
        return false;
    return lstat(path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode);
}

bool vm_write_all(int fd, const void *data, size_t len)
{
    if (vm_fault(VM_FAULT_WRITE)) {
        errno = ENOSPC;
        return false;
    }
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n, len -= (size_t)n;
    }
    return true;
}

/* A FIFO, a device or a symlink: in place, as a stream. */
static bool write_stream(const char *path, const void *data, size_t len, VmError *err)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return vm_fail(err, "cannot write '%s': %s", path, strerror(errno));
    bool ok = vm_write_all(fd, data, len);
    int e = errno;
    if (close(fd) != 0 && ok)
        ok = false, e = errno;
    return ok || vm_fail(err, "cannot write '%s': %s", path, strerror(e));
}

static bool write_replacing(const char *path, const void *data, size_t len, VmError *err)
{
    size_t n = strlen(path) + 24;
    char *tmp = malloc(n);
    if (!tmp)
        return vm_fail(err, "out of memory");
    /* O_EXCL: never opened through a name someone else put there first (a
     * symlink planted in a shared directory would make us overwrite its
     * target); a name taken tries the next */
    int fd = -1;
    for (int k = 0; k < 100 && fd < 0; k++) {
        snprintf(tmp, n, "%s.tmp%d.%d", path, (int)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    bool ok = false;
    if (fd < 0) {
        vm_fail(err, "cannot write '%s': %s", path, strerror(errno));
    } else {
        ok = vm_write_all(fd, data, len);
        int e = errno;
        if (close(fd) != 0 && ok)
            ok = false, e = errno;
        if (!ok)
            vm_fail(err, "cannot write '%s': %s", path, strerror(e));
        else if (rename(tmp, path) != 0)
            ok = vm_fail(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        if (!ok)
            unlink(tmp);
    }
    free(tmp);
    return ok;
}

bool vm_outfile_write(const char *path, const void *data, size_t len, VmError *err)
{
    if (!strcmp(path, "-")) {
        fflush(stdout);
        return vm_write_all(STDOUT_FILENO, data, len) || vm_fail(err, "cannot write to standard output: %s",
                                                              strerror(errno));
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return vm_fail(err, "cannot write '%s': %s", path, strerror(errno));
        return write_replacing(path, data, len, err);
    }
    if (S_ISREG(st.st_mode))
        return write_replacing(path, data, len, err);
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISLNK(st.st_mode))
        return write_stream(path, data, len, err);
    return vm_fail(err, "cannot write '%s': %s", path,
                   S_ISDIR(st.st_mode) ? "it is a directory" : "not a file, FIFO or device");
}
