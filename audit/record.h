/* audit/record.h — raw samples on disk (-X audit.record=FILE): the file
 * format, its writer (the analysis thread's) and its reader (tally study).
 *
 * The format is defined once, here, by the X-macro tables below; the
 * writer, the reader, `tally study` and tools/tallysamples.py (which reads
 * the field table from the file's header) follow them.  docs/workbench.md
 * ("samples and studies") describes it for readers in other languages.
 *
 * File (every integer little-endian, every float IEEE 754 binary64):
 *   header     AU_REC_HEADER_FIXED bytes (AU_REC_HEADER_FIELDS), then the
 *              field table: one AU_REC_FIELD_SIZE entry per record field
 *              (name, offset, size, type), padded to 8 bytes
 *   records    nrecords × record_size bytes (AU_REC_FIELDS), in the order
 *              the analysis thread received the samples
 *   bakeoffs   nbakeoffs × AU_REC_BAKEOFF_SIZE bytes (AU_REC_BAKEOFF_FIELDS)
 *   strings    strings_size bytes of NUL-terminated UTF-8; a bakeoff's
 *              names are offsets into them
 * A file is complete when `flags` has AU_REC_COMPLETE and its size is
 * strings_offset + strings_size: the writer puts the header's counts in
 * last, then renames the temporary file to FILE.
 */
#ifndef TALLY_AUDIT_RECORD_H
#define TALLY_AUDIT_RECORD_H

#include "audit.h"

#include <stdbool.h>
#include <stdint.h>

#define AU_REC_MAGIC "TLYSAMP1"   /* 8 bytes, no NUL */
#define AU_REC_VERSION 1
#define AU_REC_HEADER_FIXED 128
#define AU_REC_FIELD_SIZE 24      /* name[16], u16 offset, u8 size, u8 type, u32 0 */
#define AU_REC_COMPLETE 1u

/* X(name, C type, offset, what) — the header's fixed part. */
#define AU_REC_HEADER_FIELDS(X)                                                            \
    X(magic, char8, 0, "\"TLYSAMP1\"")                                                     \
    X(version, u32, 8, "format version (1)")                                               \
    X(header_size, u32, 12, "bytes before the first record")                               \
    X(record_size, u32, 16, "bytes per record")                                            \
    X(nfields, u32, 20, "entries of the field table")                                      \
    X(nrecords, u64, 24, "records")                                                        \
    X(bakeoffs_offset, u64, 32, "offset of the bakeoff table")                             \
    X(nbakeoffs, u32, 40, "its entries")                                                   \
    X(bakeoff_size, u32, 44, "bytes per entry")                                            \
    X(strings_offset, u64, 48, "offset of the strings")                                    \
    X(strings_size, u64, 56, "their bytes")                                                \
    X(min_timing, f64, 64, "cycles of two back-to-back counter reads (the scores' MIN_TIMING)") \
    X(cycles_hz, f64, 72, "the cycle counter's rate, measured over the run (0: unknown)")  \
    X(timing, u32, 80, "audit.timing: 0 auto, 1 method, 2 markers, 3 naive")               \
    X(flags, u32, 84, "bit 0: complete")                                                   \
    X(dropped, u64, 88, "samples lost to full ring buffers (never received)")              \
    X(unknown, u64, 96, "records of no running bakeoff (status 1)")                        \
    X(invalid, u64, 104, "records the analysis refused (status 2)")                        \
    X(seed, u64, 112, "audit.seed (0: from the clock)")

/* X(name, C type, offset, size, type letter, what) — one sample. */
#define AU_REC_FIELDS(X)                                                                           \
    X(time_ns, uint64_t, 0, 8, 'u', "ns from the analysis's start to the round that received it")   \
    X(cycles, uint64_t, 8, 8, 'u', "the timing: cycles")                                            \
    X(bakeoff, uint32_t, 16, 4, 'u', "the analysis's bakeoff id (the bakeoff table's `analysis`)")  \
    X(weight, uint32_t, 20, 4, 'u', "source iterations or calls the timing stands for (1: a call)") \
    X(thread, uint32_t, 24, 4, 'u', "the program thread's buffer: 1, 2, ... in order of first sample") \
    X(region, uint32_t, 28, 4, 'u', "timing region: 0 a whole call, 1 a loop-timed call's end, 2+K marker point K") \
    X(variant, uint16_t, 32, 2, 'u', "variant (status 1: the raw part c·N+k)")                     \
    X(copy, uint8_t, 34, 1, 'u', "copy of its code (255: unknown)")                                \
    X(flags, uint8_t, 35, 1, 'u', "bit 0 warm-up call; bits 1-2 status: 0 received, 1 unknown bakeoff, 2 invalid") \
    X(seq, uint32_t, 36, 4, 'u', "the sample's position in its thread's ring (low 32 bits)")

#define AU_REC_RECORD_SIZE 40
#define AU_REC_WARMUP 1u
#define AU_REC_STATUS(flags) (((flags) >> 1) & 3u)
enum { AU_REC_RECEIVED, AU_REC_UNKNOWN, AU_REC_INVALID };

/* X(name, offset, what) — one bakeoff table entry, all u32. */
#define AU_REC_BAKEOFF_FIELDS(X)                                                          \
    X(analysis, 0, "the analysis's id: records' `bakeoff`")                               \
    X(id, 4, "the bakeoff's id in --stats and --log=audit (one may begin again: pause_idle)") \
    X(method, 8, "string: Class.method")                                                  \
    X(client, 12, "string: the client")                                                   \
    X(nvariants, 16, "variants")                                                          \
    X(copies, 20, "copies of each variant's code")                                        \
    X(npoints, 24, "loop timing points (0: method timings)")                              \
    X(reserved, 28, "0")
#define AU_REC_BAKEOFF_VARIANTS 32   /* then JIT_MAX_VARIANTS u32: the variants' names */
#define AU_REC_BAKEOFF_SIZE (AU_REC_BAKEOFF_VARIANTS + 4 * JIT_MAX_VARIANTS)

/* ---- the writer ------------------------------------------------------------ */

typedef struct AuRecorder AuRecorder;

/* Whether path can be recorded to: a new name in a writable directory or
 * a regular file (false + err otherwise: a directory, a FIFO, "-"). */
bool au_record_check_path(const char *path, VmError *err);
/* Opens a temporary file beside path; NULL + err when it cannot. */
AuRecorder *au_record_open(const char *path, const AuConfig *cfg, double min_timing, VmError *err);
/* A bakeoff began in the analysis under id `analysis` (any thread). */
void au_record_bakeoff(AuRecorder *r, uint32_t analysis, uint32_t id, const char *method, const char *client,
                       int nvariants, const char *const *variant_names, int copies, uint32_t npoints);
/* The analysis thread, around one drain: the round's time (seconds since
 * the analysis began), then each received sample with what became of it.
 * Buffered; a failed write stops the recording, counted. */
void au_record_round(AuRecorder *r, double t);
void au_record_sample(AuRecorder *r, const AuSample *s, uint32_t variant, uint32_t copy, uint32_t region,
                      bool warmup, int status);
void au_record_round_end(AuRecorder *r);
/* Writes the tables and header and renames the file into place (once:
 * later calls do nothing); true when FILE is complete. */
bool au_record_finish(AuRecorder *r, double cycles_hz, const AuCounters *counters, VmError *err);
/* `,\n"audit_record":{...}` for --stats (docs/stats.md). */
void au_record_json(FILE *f, AuRecorder *r);
void au_record_free(AuRecorder *r);

/* ---- the reader ------------------------------------------------------------ */

typedef struct AuRecSample {
    uint64_t time_ns, cycles;
    uint32_t bakeoff, weight, thread, region, seq;
    uint16_t variant;
    uint8_t copy, flags;
} AuRecSample;

typedef struct AuRecBakeoff {
    uint32_t analysis, id, nvariants, copies, npoints;
    const char *method, *client;
    const char *variant[JIT_MAX_VARIANTS];
} AuRecBakeoff;

typedef struct AuRecFile {
    double min_timing, cycles_hz;
    uint32_t timing;
    uint64_t dropped, unknown, invalid, seed;
    size_t nsamples, nbakeoffs;
    AuRecSample *samples;
    AuRecBakeoff *bakeoffs;
    char *strings;
} AuRecFile;

/* Loads a complete file; false + err naming the path and what is wrong
 * (not a samples file, another version, truncated, inconsistent). */
bool au_record_load(const char *path, AuRecFile *out, VmError *err);
void au_record_unload(AuRecFile *f);
/* The bakeoff table's entry of analysis id `analysis`, or NULL. */
const AuRecBakeoff *au_record_find(const AuRecFile *f, uint32_t analysis);

#endif
