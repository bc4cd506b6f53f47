/* audit/record.c — raw samples on disk: the writer of -X audit.record=FILE
 * and the reader `tally study` uses.
 *
 * Input (writer): every sample the analysis thread drains, with what the
 * analysis made of it (received, unknown bakeoff, invalid), and each
 * bakeoff's names as the lifecycle begins its analysis.  Output: FILE in
 * the format of audit/record.h, complete or absent.  Input (reader): such
 * a file; output: its samples and bakeoffs in memory, names resolved.
 *
 * Invariants:
 * - Only the analysis thread appends records (au_record_round ..
 *   au_record_round_end, under the recorder's lock); program threads
 *   never reach this file.  Bakeoff entries come from the bakeoff thread
 *   (or the program's, audit.hot_threshold=0) under the same lock.
 * - The records go to a temporary file beside FILE (FILE.tmpPID.N, created
 *   new) in AU_REC_BUF-sized writes; au_record_finish appends the tables,
 *   writes the header with its counts last and renames the file into
 *   place: a reader never sees a half-written FILE.  A failed write (a
 *   full disk; the `write` fault point) stops the recording: the samples
 *   after it are counted as lost, finish removes the temporary file and
 *   fails, and an existing FILE keeps its old contents.
 * - finish runs once (at the end of the run, or on the stats writer's
 *   thread when a signal or the time limit ends the process); later
 *   rounds and calls are ignored.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AU_REC_BUF (1u << 16)   /* bytes buffered between writes */

/* ---- little-endian fields ---------------------------------------------------- */

static void put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> 8 * i);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> 8 * i);
}

static void put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(p, v);
}

static uint16_t get_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static double get_f64(const unsigned char *p)
{
    uint64_t v = get_u64(p);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* The offsets of the tables (X-macros of record.h). */
enum {
#define X(name, type, off, what) HDR_##name = off,
    AU_REC_HEADER_FIELDS(X)
#undef X
};
enum {
#define X(name, type, off, size, letter, what) REC_##name = off,
    AU_REC_FIELDS(X)
#undef X
};
enum {
#define X(name, off, what) BK_##name = off,
    AU_REC_BAKEOFF_FIELDS(X)
#undef X
};
static const struct {
    const char *name;
    uint16_t off;
    uint8_t size;
    char type;
} rec_fields[] = {
#define X(name, type, off, size, letter, what) {#name, off, size, letter},
    AU_REC_FIELDS(X)
#undef X
};
#define NFIELDS (sizeof rec_fields / sizeof *rec_fields)
#define HEADER_SIZE ((AU_REC_HEADER_FIXED + NFIELDS * AU_REC_FIELD_SIZE + 7) / 8 * 8)

/* ---- the writer ---------------------------------------------------------------- */

struct AuRecorder {
    pthread_mutex_t lock;
    char *path, *tmp;
    int fd;                        /* -1 once closed */
    unsigned char *buf;
    size_t nbuf;
    uint64_t offset;               /* bytes written to fd */
    uint64_t records;              /* samples received (the file's records, if complete) */
    uint64_t lost;                 /* of them, not written: in a buffer whose write failed, or after */
    uint64_t write_failures;
    int write_errno;
    bool finished, complete;
    uint64_t time_ns;              /* the current round's */
    double min_timing;
    uint32_t timing;
    uint64_t seed;
    unsigned char *bakeoffs;       /* nbakeoffs × AU_REC_BAKEOFF_SIZE */
    size_t nbakeoffs, capbakeoffs;
    char *strings;
    size_t nstrings, capstrings;
};

bool au_record_check_path(const char *path, VmError *err)
{
    if (!path || !*path || !strcmp(path, "-"))
        return vm_fail(err, "tunable 'audit.record' needs a file name (not standard output: the file is written in place)");
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return vm_fail(err, "tunable 'audit.record': '%s' is not a regular file", path);
    } else if (errno != ENOENT) {
        return vm_fail(err, "tunable 'audit.record': cannot write '%s': %s", path, strerror(errno));
    }
    char *copy = strdup(path);
    if (!copy)
        return vm_fail(err, "out of memory");
    const char *dir = dirname(copy);
    bool ok = access(dir, W_OK | X_OK) == 0;
    int e = errno;
    if (!ok)
        vm_fail(err, "tunable 'audit.record': cannot write in '%s': %s", dir, strerror(e));
    free(copy);
    return ok;
}

/* Lock held: the buffer to the file; on failure the recording stops. */
static bool flush(AuRecorder *r)
{
    if (r->write_failures)
        return false;
    if (r->nbuf && !vm_write_all(r->fd, r->buf, r->nbuf)) {
        r->write_errno = errno;
        r->write_failures++;
        r->lost += r->nbuf / AU_REC_RECORD_SIZE;
        fprintf(stderr, "tally: warning: cannot write samples to '%s': %s; recording stopped\n", r->path,
                strerror(r->write_errno));
        r->nbuf = 0;
        return false;
    }
    r->offset += r->nbuf;
    r->nbuf = 0;
    return true;
}

static void header(const AuRecorder *r, unsigned char *h, uint64_t nrecords, uint64_t bk_off, uint64_t str_off,
                   double cycles_hz, const AuCounters *c, bool complete)
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h + HDR_magic, AU_REC_MAGIC, 8);
    put_u32(h + HDR_version, AU_REC_VERSION);
    put_u32(h + HDR_header_size, (uint32_t)HEADER_SIZE);
    put_u32(h + HDR_record_size, AU_REC_RECORD_SIZE);
    put_u32(h + HDR_nfields, (uint32_t)NFIELDS);
    put_u64(h + HDR_nrecords, nrecords);
    put_u64(h + HDR_bakeoffs_offset, bk_off);
    put_u32(h + HDR_nbakeoffs, (uint32_t)r->nbakeoffs);
    put_u32(h + HDR_bakeoff_size, AU_REC_BAKEOFF_SIZE);
    put_u64(h + HDR_strings_offset, str_off);
    put_u64(h + HDR_strings_size, r->nstrings);
    put_f64(h + HDR_min_timing, r->min_timing);
    put_f64(h + HDR_cycles_hz, cycles_hz);
    put_u32(h + HDR_timing, r->timing);
    put_u32(h + HDR_flags, complete ? AU_REC_COMPLETE : 0);
    put_u64(h + HDR_dropped, c ? c->drain.dropped : 0);
    put_u64(h + HDR_unknown, c ? c->unknown : 0);
    put_u64(h + HDR_invalid, c ? c->invalid : 0);
    put_u64(h + HDR_seed, r->seed);
    for (size_t i = 0; i < NFIELDS; i++) {
        unsigned char *e = h + AU_REC_HEADER_FIXED + i * AU_REC_FIELD_SIZE;
        snprintf((char *)e, 16, "%s", rec_fields[i].name);
        put_u16(e + 16, rec_fields[i].off);
        e[18] = rec_fields[i].size;
        e[19] = (unsigned char)rec_fields[i].type;
    }
}

AuRecorder *au_record_open(const char *path, const AuConfig *cfg, double min_timing, VmError *err)
{
    AuRecorder *r = calloc(1, sizeof *r);
    size_t n = strlen(path) + 24;
    if (!r || !(r->path = strdup(path)) || !(r->tmp = malloc(n)) || !(r->buf = malloc(AU_REC_BUF))) {
        if (r)
            free(r->path), free(r->tmp);
        free(r);
        vm_fail(err, "out of memory");
        return NULL;
    }
    r->fd = -1;
    for (int k = 0; k < 100 && r->fd < 0; k++) {
        snprintf(r->tmp, n, "%s.tmp%d.%d", path, (int)getpid(), k);
        r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (r->fd < 0 && errno != EEXIST)
            break;
    }
    if (r->fd < 0) {
        vm_fail(err, "cannot record samples to '%s': %s", path, strerror(errno));
        free(r->path), free(r->tmp), free(r->buf), free(r);
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    r->min_timing = min_timing;
    r->timing = (uint32_t)cfg->timing_mode;
    r->seed = (uint64_t)cfg->seed;
    /* an incomplete header first: a file left by a crash says what it is */
    header(r, r->buf, 0, 0, 0, 0, NULL, false);
    r->nbuf = HEADER_SIZE;
    return r;
}

/* Lock held: offset of s in the string table (0 without memory: ""). */
static uint32_t intern(AuRecorder *r, const char *s)
{
    size_t len = strlen(s) + 1;
    if (!r->capstrings) {   /* offset 0 is the empty string */
        if (!(r->strings = malloc(256)))
            return 0;
        r->capstrings = 256;
        r->strings[0] = 0;
        r->nstrings = 1;
    }
    if (!s[0])
        return 0;
    if (r->nstrings + len > r->capstrings) {
        size_t cap = 2 * (r->nstrings + len);
        char *p = realloc(r->strings, cap);
        if (!p)
            return 0;
        r->strings = p, r->capstrings = cap;
    }
    memcpy(r->strings + r->nstrings, s, len);
    uint32_t at = (uint32_t)r->nstrings;
    r->nstrings += len;
    return at;
}

void au_record_bakeoff(AuRecorder *r, uint32_t analysis, uint32_t id, const char *method, const char *client,
                       int nvariants, const char *const *variant_names, int copies, uint32_t npoints)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    if (r->nbakeoffs == r->capbakeoffs) {
        size_t cap = r->capbakeoffs ? 2 * r->capbakeoffs : 16;
        unsigned char *p = realloc(r->bakeoffs, cap * AU_REC_BAKEOFF_SIZE);
        if (!p) {
            pthread_mutex_unlock(&r->lock);
            return;   /* its records stay, without names */
        }
        r->bakeoffs = p, r->capbakeoffs = cap;
    }
    unsigned char *e = r->bakeoffs + r->nbakeoffs++ * AU_REC_BAKEOFF_SIZE;
    memset(e, 0, AU_REC_BAKEOFF_SIZE);
    put_u32(e + BK_analysis, analysis);
    put_u32(e + BK_id, id);
    put_u32(e + BK_method, intern(r, method));
    put_u32(e + BK_client, intern(r, client));
    put_u32(e + BK_nvariants, (uint32_t)nvariants);
    put_u32(e + BK_copies, (uint32_t)copies);
    put_u32(e + BK_npoints, npoints);
    for (int k = 0; k < nvariants && k < JIT_MAX_VARIANTS; k++)
        put_u32(e + AU_REC_BAKEOFF_VARIANTS + 4 * k, intern(r, variant_names[k]));
    pthread_mutex_unlock(&r->lock);
}

void au_record_round(AuRecorder *r, double t)
{
    pthread_mutex_lock(&r->lock);
    r->time_ns = t > 0 ? (uint64_t)(t * 1e9) : 0;
}

void au_record_sample(AuRecorder *r, const AuSample *s, uint32_t variant, uint32_t copy, uint32_t region,
                      bool warmup, int status)
{
    if (r->finished)
        return;
    r->records++;
    if (r->write_failures || (r->nbuf + AU_REC_RECORD_SIZE > AU_REC_BUF && !flush(r))) {
        r->lost++;
        return;
    }
    unsigned char *p = r->buf + r->nbuf;
    memset(p, 0, AU_REC_RECORD_SIZE);
    put_u64(p + REC_time_ns, r->time_ns);
    put_u64(p + REC_cycles, s->cycles);
    put_u32(p + REC_bakeoff, s->bakeoff);
    put_u32(p + REC_weight, s->weight);
    put_u32(p + REC_thread, s->thread);
    put_u32(p + REC_region, region);
    put_u16(p + REC_variant, (uint16_t)variant);
    p[REC_copy] = (unsigned char)(copy > 255 ? 255 : copy);
    p[REC_flags] = (unsigned char)((warmup ? AU_REC_WARMUP : 0) | (unsigned)status << 1);
    put_u32(p + REC_seq, (uint32_t)s->seq);
    r->nbuf += AU_REC_RECORD_SIZE;
}

void au_record_round_end(AuRecorder *r)
{
    pthread_mutex_unlock(&r->lock);
}

bool au_record_finish(AuRecorder *r, double cycles_hz, const AuCounters *counters, VmError *err)
{
    if (!r)
        return true;
    pthread_mutex_lock(&r->lock);
    if (r->finished) {
        bool ok = r->complete;
        pthread_mutex_unlock(&r->lock);
        return ok || vm_fail(err, "samples were not recorded to '%s'", r->path);
    }
    r->finished = true;
    intern(r, "");   /* the table exists: offset 0 is "" */
    uint64_t nrecords = r->records;
    bool ok = flush(r);
    uint64_t bk_off = r->offset, str_off = bk_off + r->nbakeoffs * AU_REC_BAKEOFF_SIZE;
    ok = ok && vm_write_all(r->fd, r->bakeoffs ? (void *)r->bakeoffs : (void *)"", r->nbakeoffs * AU_REC_BAKEOFF_SIZE) &&
         vm_write_all(r->fd, r->strings, r->nstrings);
    unsigned char h[HEADER_SIZE];
    header(r, h, nrecords, bk_off, str_off, cycles_hz, counters, true);
    if (ok) {
        ssize_t n;
        while ((n = pwrite(r->fd, h, sizeof h, 0)) < 0 && errno == EINTR)
            ;
        ok = n == (ssize_t)sizeof h;
        if (!ok && n >= 0)
            errno = EIO;
    }
    if (!ok && !r->write_failures) {
        r->write_errno = errno;
        r->write_failures++;
    }
    if (close(r->fd) != 0 && ok)
        ok = false, r->write_errno = errno, r->write_failures++;
    r->fd = -1;
    if (ok && rename(r->tmp, r->path) != 0) {
        ok = vm_fail(err, "cannot rename '%s' to '%s': %s", r->tmp, r->path, strerror(errno));
        r->write_failures++;
    } else if (!ok) {
        vm_fail(err, "cannot record samples to '%s': %s (%" PRIu64 " samples received, no file written)", r->path,
                strerror(r->write_errno), nrecords);
    }
    if (!ok)
        unlink(r->tmp);
    r->complete = ok;
    pthread_mutex_unlock(&r->lock);
    return ok;
}

void au_record_json(FILE *f, AuRecorder *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    fputs(",\n\"audit_record\":{\"file\":", f);
    vm_json_string(f, r->path, strlen(r->path) + 1);
    fprintf(f, ",\"records\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"write_failures\":%" PRIu64 ",\"complete\":%s}",
            r->records, r->lost, r->write_failures, r->complete ? "true" : "false");
    pthread_mutex_unlock(&r->lock);
}

void au_record_free(AuRecorder *r)
{
    if (!r)
        return;
    if (r->fd >= 0) {   /* never finished: nothing complete to keep */
        close(r->fd);
        unlink(r->tmp);
    }
    pthread_mutex_destroy(&r->lock);
    free(r->path), free(r->tmp), free(r->buf), free(r->bakeoffs), free(r->strings);
    free(r);
}

/* ---- the reader ---------------------------------------------------------------- */

void au_record_unload(AuRecFile *f)
{
    free(f->samples);
    free(f->bakeoffs);
    free(f->strings);
    memset(f, 0, sizeof *f);
}

const AuRecBakeoff *au_record_find(const AuRecFile *f, uint32_t analysis)
{
    for (size_t i = 0; i < f->nbakeoffs; i++)
        if (f->bakeoffs[i].analysis == analysis)
            return &f->bakeoffs[i];
    return NULL;
}

static const char *string_at(const AuRecFile *f, uint64_t size, uint32_t off)
{
    return off < size ? f->strings + off : "";
}

/* The whole file into memory (malloc'd); false + err. */
static bool slurp(const char *path, unsigned char **data, size_t *len, VmError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return vm_fail(err, "cannot read '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *d = malloc(cap);
    while (d) {
        n += fread(d + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *p = realloc(d, cap *= 2);
        if (!p)
            free(d);
        d = p;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!d || bad) {
        free(d);
        return vm_fail(err, "cannot read '%s': %s", path, d ? "read error" : "out of memory");
    }
    *data = d, *len = n;
    return true;
}

bool au_record_load(const char *path, AuRecFile *out, VmError *err)
{
    memset(out, 0, sizeof *out);
    unsigned char *d = NULL;
    size_t len = 0;
    if (!slurp(path, &d, &len, err))
        return false;
    bool ok = false;
    if (len < 8 || memcmp(d, AU_REC_MAGIC, 8) != 0) {
        vm_fail(err, "%s: not a samples file (no TLYSAMP1 magic: -X audit.record writes them)", path);
        goto done;
    }
    if (len < AU_REC_HEADER_FIXED) {
        vm_fail(err, "%s: truncated samples file (%zu bytes, shorter than its header)", path, len);
        goto done;
    }
    if (get_u32(d + HDR_version) != AU_REC_VERSION) {
        vm_fail(err, "%s: samples file version %" PRIu32 ", this tally reads version %d", path,
                get_u32(d + HDR_version), AU_REC_VERSION);
        goto done;
    }
    if (!(get_u32(d + HDR_flags) & AU_REC_COMPLETE)) {
        vm_fail(err, "%s: incomplete samples file (the run that wrote it did not finish it)", path);
        goto done;
    }
    uint64_t hsize = get_u32(d + HDR_header_size), rsize = get_u32(d + HDR_record_size);
    uint64_t nrec = get_u64(d + HDR_nrecords), bk_off = get_u64(d + HDR_bakeoffs_offset);
    uint64_t nbk = get_u32(d + HDR_nbakeoffs), bksize = get_u32(d + HDR_bakeoff_size);
    uint64_t str_off = get_u64(d + HDR_strings_offset), str_size = get_u64(d + HDR_strings_size);
    if (rsize != AU_REC_RECORD_SIZE || bksize != AU_REC_BAKEOFF_SIZE || hsize != HEADER_SIZE ||
        get_u32(d + HDR_nfields) != NFIELDS) {
        vm_fail(err, "%s: unexpected layout (record %" PRIu64 " bytes, bakeoff entry %" PRIu64 " bytes)", path, rsize,
                bksize);
        goto done;
    }
    if (nrec > (UINT64_MAX - hsize) / rsize || bk_off != hsize + nrec * rsize || nbk > UINT32_MAX ||
        str_off != bk_off + nbk * bksize || str_size > UINT64_MAX - str_off) {
        vm_fail(err, "%s: corrupted samples file (its header's offsets do not add up)", path);
        goto done;
    }
    if (len != str_off + str_size) {
        vm_fail(err, "%s: %s samples file (%zu bytes, its header says %" PRIu64 ")", path,
                len < str_off + str_size ? "truncated" : "corrupted", len, str_off + str_size);
        goto done;
    }
    if (str_size == 0 || d[str_off + str_size - 1] != 0) {
        vm_fail(err, "%s: corrupted samples file (its string table does not end in NUL)", path);
        goto done;
    }
    out->samples = malloc((nrec ? nrec : 1) * sizeof *out->samples);
    out->bakeoffs = malloc((nbk ? nbk : 1) * sizeof *out->bakeoffs);
    out->strings = malloc(str_size);
    if (!out->samples || !out->bakeoffs || !out->strings) {
        vm_fail(err, "%s: out of memory", path);
        goto done;
    }
    memcpy(out->strings, d + str_off, str_size);
    for (uint64_t i = 0; i < nrec; i++) {
        const unsigned char *p = d + hsize + i * rsize;
        out->samples[i] = (AuRecSample){get_u64(p + REC_time_ns), get_u64(p + REC_cycles),
                                        get_u32(p + REC_bakeoff), get_u32(p + REC_weight),
                                        get_u32(p + REC_thread), get_u32(p + REC_region),
                                        get_u32(p + REC_seq), get_u16(p + REC_variant),
                                        p[REC_copy], p[REC_flags]};
    }
    for (uint64_t i = 0; i < nbk; i++) {
        const unsigned char *p = d + bk_off + i * bksize;
        AuRecBakeoff *k = &out->bakeoffs[i];
        k->analysis = get_u32(p + BK_analysis);
        k->id = get_u32(p + BK_id);
        k->method = string_at(out, str_size, get_u32(p + BK_method));
        k->client = string_at(out, str_size, get_u32(p + BK_client));
        k->nvariants = get_u32(p + BK_nvariants);
        k->copies = get_u32(p + BK_copies);
        k->npoints = get_u32(p + BK_npoints);
        if (k->nvariants < 2 || k->nvariants > JIT_MAX_VARIANTS) {
            vm_fail(err, "%s: corrupted samples file (bakeoff %" PRIu32 " has %" PRIu32 " variants)", path, k->id,
                    k->nvariants);
            goto done;
        }
        for (uint32_t v = 0; v < JIT_MAX_VARIANTS; v++)
            k->variant[v] = string_at(out, str_size, get_u32(p + AU_REC_BAKEOFF_VARIANTS + 4 * v));
    }
    out->nsamples = nrec;
    out->nbakeoffs = nbk;
    out->min_timing = get_f64(d + HDR_min_timing);
    out->cycles_hz = get_f64(d + HDR_cycles_hz);
    out->timing = get_u32(d + HDR_timing);
    out->dropped = get_u64(d + HDR_dropped);
    out->unknown = get_u64(d + HDR_unknown);
    out->invalid = get_u64(d + HDR_invalid);
    out->seed = get_u64(d + HDR_seed);
    ok = true;
done:
    free(d);
    if (!ok)
        au_record_unload(out);
    return ok;
}
