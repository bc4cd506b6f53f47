#!/usr/bin/python3
"""tools/tallysamples.py — read the samples files of `-X audit.record=FILE`.

Input: a samples file (format: audit/record.h, docs/workbench.md).
Output, as a module: load(path) -> Samples, whose .records is a numpy
structured array (one row per sample, the fields of the file's own field
table), .bakeoffs a list of dicts with names resolved, .header a dict, and
.table() a dict of numpy arrays with each sample's method, client and
variant name besides its fields.  As a command: a summary of each file
(`tallysamples.py FILE...`), or `--csv` to print the samples as CSV.
Errors: a file that is not a complete samples file raises SamplesError
(the command prints it and exits 2).  write() makes a file of given
samples (tests, synthetic studies); it writes what the C writer writes.

Invariants: the layout is read from the file's header and field table,
never assumed; every offset is checked against the file's size before
it is used.
"""
import struct
import sys

MAGIC = b"TLYSAMP1"
VERSION = 1
HEADER_FIXED = 128
FIELD_SIZE = 24
BAKEOFF_VARIANTS = 32
MAX_VARIANTS = 8
BAKEOFF_SIZE = BAKEOFF_VARIANTS + 4 * MAX_VARIANTS
COMPLETE = 1
TIMING = {0: "auto", 1: "method", 2: "markers", 3: "naive"}
STATUS = {0: "received", 1: "unknown", 2: "invalid"}
# the header's fixed part: name, struct code, offset (audit/record.h)
HEADER = [("version", "I", 8), ("header_size", "I", 12), ("record_size", "I", 16),
          ("nfields", "I", 20), ("nrecords", "Q", 24), ("bakeoffs_offset", "Q", 32),
          ("nbakeoffs", "I", 40), ("bakeoff_size", "I", 44), ("strings_offset", "Q", 48),
          ("strings_size", "Q", 56), ("min_timing", "d", 64), ("cycles_hz", "d", 72),
          ("timing", "I", 80), ("flags", "I", 84), ("dropped", "Q", 88),
          ("unknown", "Q", 96), ("invalid", "Q", 104), ("seed", "Q", 112)]
# the records' fields as the C writer lays them out (written into the file's field table)
FIELDS = [("time_ns", 0, 8), ("cycles", 8, 8), ("bakeoff", 16, 4), ("weight", 20, 4),
          ("thread", 24, 4), ("region", 28, 4), ("variant", 32, 2), ("copy", 34, 1),
          ("flags", 35, 1), ("seq", 36, 4)]
RECORD_SIZE = 40
BAKEOFF = ["analysis", "id", "method", "client", "nvariants", "copies", "npoints", "reserved"]


class SamplesError(Exception):
    """The file is not a complete samples file; the message says why."""


def _numpy():
    try:
        import numpy
    except ImportError:
        raise SamplesError("python3-numpy is missing (tools/setup.sh installs it)")
    return numpy


class Samples:
    """A loaded samples file: header, records (numpy structured array), bakeoffs."""

    def __init__(self, header, records, bakeoffs):
        self.header = header
        self.records = records
        self.bakeoffs = bakeoffs
        self.by_analysis = {b["analysis"]: b for b in bakeoffs}

    def status(self):
        return (self.records["flags"] >> 1) & 3

    def warmup(self):
        return (self.records["flags"] & 1) != 0

    def table(self):
        """A dict of numpy arrays, one entry per sample, names resolved."""
        np = _numpy()
        out = {name: self.records[name] for name in self.records.dtype.names}
        ids = self.records["bakeoff"]
        method = np.empty(len(ids), dtype=object)
        client = np.empty(len(ids), dtype=object)
        vname = np.empty(len(ids), dtype=object)
        stats_id = np.zeros(len(ids), dtype=np.uint32)
        for a in np.unique(ids):
            sel = ids == a
            b = self.by_analysis.get(int(a))
            method[sel] = b["method"] if b else None
            client[sel] = b["client"] if b else None
            stats_id[sel] = b["id"] if b else 0
            if b:
                names = np.array(b["variants"] + [None], dtype=object)
                v = self.records["variant"][sel].astype(int)
                # status 1 (its bakeoff had ended): the raw part c·N + k
                v = np.where(self.status()[sel] == 1, v % b["nvariants"], v)
                vname[sel] = names[np.where(v < len(b["variants"]), v, len(b["variants"]))]
        out.update(method=method, client=client, variant_name=vname, id=stats_id,
                   status=self.status(), warmup=self.warmup())
        return out


def _check(cond, path, msg):
    if not cond:
        raise SamplesError("%s: %s" % (path, msg))


def load(path):
    """Loads a complete samples file; SamplesError when it is not one."""
    np = _numpy()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SamplesError("%s: %s" % (path, e.strerror))
    _check(data[:8] == MAGIC, path, "not a samples file (no TLYSAMP1 magic: -X audit.record writes them)")
    _check(len(data) >= HEADER_FIXED, path, "truncated samples file (%d bytes, shorter than its header)" % len(data))
    h = {name: struct.unpack_from("<" + code, data, off)[0] for name, code, off in HEADER}
    _check(h["version"] == VERSION, path, "samples file version %d, this reader reads version %d" % (h["version"], VERSION))
    _check(h["flags"] & COMPLETE, path, "incomplete samples file (the run that wrote it did not finish it)")
    nf = h["nfields"]
    _check(HEADER_FIXED + nf * FIELD_SIZE <= h["header_size"] <= len(data), path, "corrupted samples file (its field table does not fit)")
    names, formats, offsets = [], [], []
    kinds = {"u": "u", "i": "i", "f": "f"}
    for i in range(nf):
        e = data[HEADER_FIXED + i * FIELD_SIZE:HEADER_FIXED + (i + 1) * FIELD_SIZE]
        name = e[:16].split(b"\0", 1)[0].decode("ascii", "replace")
        off, size, kind = struct.unpack_from("<HBB", e, 16)
        kind = chr(kind)
        _check(kind in kinds and size in (1, 2, 4, 8) and off + size <= h["record_size"], path,
               "corrupted samples file (field %r)" % name)
        names.append(name)
        formats.append("<%s%d" % (kinds[kind], size))
        offsets.append(off)
    dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": h["record_size"]})
    n, rs, hs = h["nrecords"], h["record_size"], h["header_size"]
    end = h["strings_offset"] + h["strings_size"]
    _check(h["bakeoffs_offset"] == hs + n * rs and h["bakeoff_size"] == BAKEOFF_SIZE and
           h["strings_offset"] == h["bakeoffs_offset"] + h["nbakeoffs"] * BAKEOFF_SIZE, path,
           "corrupted samples file (its header's offsets do not add up)")
    _check(len(data) == end, path, "%s samples file (%d bytes, its header says %d)" %
           ("truncated" if len(data) < end else "corrupted", len(data), end))
    strings = data[h["strings_offset"]:end]
    _check(strings.endswith(b"\0"), path, "corrupted samples file (its string table does not end in NUL)")

    def string(off):
        _check(off < len(strings), path, "corrupted samples file (a name outside the string table)")
        return strings[off:strings.index(b"\0", off)].decode("utf-8", "replace")

    records = np.frombuffer(data, dtype=dtype, count=n, offset=hs).copy() if n else np.zeros(0, dtype=dtype)
    bakeoffs = []
    for i in range(h["nbakeoffs"]):
        off = h["bakeoffs_offset"] + i * BAKEOFF_SIZE
        v = struct.unpack_from("<%dI" % (len(BAKEOFF) + MAX_VARIANTS), data, off)
        b = dict(zip(BAKEOFF, v[:len(BAKEOFF)]))
        _check(2 <= b["nvariants"] <= MAX_VARIANTS, path, "corrupted samples file (a bakeoff of %d variants)" % b["nvariants"])
        b["method"], b["client"] = string(b["method"]), string(b["client"])
        b["variants"] = [string(x) for x in v[len(BAKEOFF):len(BAKEOFF) + b["nvariants"]]]
        del b["reserved"]
        bakeoffs.append(b)
    h["timing_name"] = TIMING.get(h["timing"], "?")
    return Samples(h, records, bakeoffs)


def write(path, samples, bakeoffs, min_timing=20.0, cycles_hz=0.0, timing=1, seed=0):
    """Writes a complete samples file.  samples: dict of equal-length
    sequences keyed by field name (missing fields are 0); bakeoffs: dicts
    with analysis, id, method, client, variants (names), copies, npoints."""
    np = _numpy()
    n = len(samples["cycles"])
    rec = np.zeros(n, dtype=np.dtype({"names": [f[0] for f in FIELDS],
                                      "formats": ["<u%d" % f[2] for f in FIELDS],
                                      "offsets": [f[1] for f in FIELDS], "itemsize": RECORD_SIZE}))
    for name, _, _ in FIELDS:
        if name in samples:
            rec[name] = samples[name]
    strings = bytearray(b"\0")

    def intern(s):
        if not s:
            return 0
        strings.extend(s.encode() + b"\0")
        return len(strings) - len(s.encode()) - 1

    table = bytearray()
    for b in bakeoffs:
        names = [intern(x) for x in b["variants"]] + [0] * (MAX_VARIANTS - len(b["variants"]))
        table += struct.pack("<%dI" % (len(BAKEOFF) + MAX_VARIANTS), b["analysis"], b["id"], intern(b["method"]),
                             intern(b["client"]), len(b["variants"]), b.get("copies", 1), b.get("npoints", 0), 0, *names)
    hs = (HEADER_FIXED + len(FIELDS) * FIELD_SIZE + 7) // 8 * 8
    head = bytearray(hs)
    head[:8] = MAGIC
    bk = hs + n * RECORD_SIZE
    vals = dict(version=VERSION, header_size=hs, record_size=RECORD_SIZE, nfields=len(FIELDS), nrecords=n,
                bakeoffs_offset=bk, nbakeoffs=len(bakeoffs), bakeoff_size=BAKEOFF_SIZE,
                strings_offset=bk + len(table), strings_size=len(strings), min_timing=min_timing,
                cycles_hz=cycles_hz, timing=timing, flags=COMPLETE, dropped=0, unknown=0, invalid=0, seed=seed)
    for name, code, off in HEADER:
        struct.pack_into("<" + code, head, off, vals[name])
    for i, (name, off, size) in enumerate(FIELDS):
        struct.pack_into("<16sHBBI", head, HEADER_FIXED + i * FIELD_SIZE, name.encode(), off, size, ord("u"), 0)
    with open(path, "wb") as f:
        f.write(bytes(head) + rec.tobytes() + bytes(table) + bytes(strings))


def summary(s, path, out):
    np = _numpy()
    h, r = s.header, s.records
    st = s.status()
    out.write("%s: %d samples, %d bakeoffs; timing %s, MIN_TIMING %.0f cycles, counter %.3g Hz; "
              "received %d, unknown bakeoff %d, invalid %d; lost to full buffers %d\n" %
              (path, len(r), len(s.bakeoffs), h["timing_name"], h["min_timing"], h["cycles_hz"],
               int((st == 0).sum()), int((st == 1).sum()), int((st == 2).sum()), h["dropped"]))
    out.write("%6s %8s  %-32s %-9s %-8s %9s %8s %8s %12s\n" %
              ("id", "analysis", "method", "client", "variant", "calls", "warm-up", "regions", "mean cycles"))
    for b in s.bakeoffs:
        sel = (r["bakeoff"] == b["analysis"]) & (st == 0)
        for k, name in enumerate(b["variants"]):
            v = sel & (r["variant"] == k)
            calls = v & (r["region"] == 0) & ~s.warmup()
            warm = v & s.warmup()
            loops = v & (r["region"] != 0)
            mean = r["cycles"][calls].mean() if calls.any() else float("nan")
            out.write("%6d %8d  %-32s %-9s %-8s %9d %8d %8d %12.1f\n" %
                      (b["id"], b["analysis"], b["method"][:32], b["client"], name, int(calls.sum()),
                       int(warm.sum()), int(loops.sum()), mean))


def main(argv):
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            sys.stderr.write("tallysamples: %s\ntry 'tallysamples.py --help'\n" % message)
            sys.exit(2)

    p = Parser(description="Summarize samples files written by tally -X audit.record=FILE.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--csv", action="store_true", help="print every sample as CSV (names resolved)")
    a = p.parse_args(argv)
    try:
        for path in a.files:
            s = load(path)
            if a.csv:
                t = s.table()
                cols = ["id", "method", "client", "variant_name"] + list(s.records.dtype.names) + ["status", "warmup"]
                sys.stdout.write("file," + ",".join(cols) + "\n")
                for i in range(len(s.records)):
                    sys.stdout.write(path + "," + ",".join(str(t[c][i]) for c in cols) + "\n")
            else:
                summary(s, path, sys.stdout)
    except SamplesError as e:
        sys.stderr.write("tallysamples: %s\n" % e)
        return 2
    except BrokenPipeError:   # a reader that stopped early (head)
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
