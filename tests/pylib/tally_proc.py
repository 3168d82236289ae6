# SPDX-License-Identifier: MIT
"""tally_proc: a process's log, counters and thread records in an experiment,
whichever layout holds them: the directory LINEAGE.exp (log.txt,
counters.dat, threads.dat: the founder, and descendants before format 8) or
a descendant's process file LINEAGE.proc (format 8, src/format/exp_records.h:
a 64-byte header, the counters, a newline, then log lines and records, each a
NUL, the record and a newline), or from format 9 a slot of processes.dat
holding the same (its first line "lineage: LINEAGE"), continued in
LINEAGE.proc when the slot is full.

As a command: `python3 -m tally_proc log EXP LINEAGE` prints the log;
`python3 -m tally_proc lineages EXP` prints each descendant's lineage once;
`python3 -m tally_proc records EXP LINEAGE` prints each thread record's type;
`python3 -m tally_proc has EXP LINEAGE` exits 0 if the descendant has a
process file (slot or file); `python3 -m tally_proc threads EXP` prints
"start TID" and "end TID", one line per THREAD_START and THREAD_END record
of the founder's threads.dat (a record file: blocks, MIRROR records).
"""
import os
import re
import struct
import sys

FORMAT_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "format",
                             "exp_records.h")


def format_constant(name, header=FORMAT_HEADER):
    """The value of the format's own #define NAME (src/format/exp_records.h),
    its names replaced by their values: a size the checks use comes from the
    header the reader and writer are built with, so a change of layout
    cannot leave a check on an old number."""
    defs = {}
    for line in open(header):
        m = re.match(r"#define\s+(EXP_\w+)\s+([^/]+?)\s*(/[*/].*)?$", line)
        if m:
            defs[m.group(1)] = m.group(2)

    def value(n):
        expr = re.sub(r"\bEXP_\w+\b", lambda m: str(value(m.group(0))), defs[n])
        if not re.fullmatch(r"[0-9+*() -]+", expr):
            raise ValueError("%s: #define %s %s is not arithmetic on numbers" % (header, n, defs[n]))
        return int(eval(expr))
    return value(name)


HEAD = format_constant("EXP_PROC_HEAD_BYTES")   # a process file's head: header, counters, '\n'
SLOT = format_constant("EXP_SLOT_BYTES")        # a slot of processes.dat


def proc_path(exp, lineage):
    return os.path.join(exp, lineage + ".proc")


def slots(exp):
    """{lineage: offset} of the slots of EXP/processes.dat (format 9)."""
    found = {}
    p = os.path.join(exp, "processes.dat")
    if not os.path.isfile(p):
        return found
    data = open(p, "rb").read()
    key = b"lineage: "
    for off in range(SLOT, len(data), SLOT):
        head = data[off:off + HEAD + 300]
        if head[HEAD:HEAD + len(key)] == key:
            found[head[HEAD + len(key):head.index(b"\n", HEAD)].decode()] = off
    return found


def proc_data(exp, lineage):
    """A descendant's process file as one (its slot's, then its own file's
    items), or None if it has none."""
    off = slots(exp).get(lineage)
    own = proc_path(exp, lineage)
    rest = open(own, "rb").read() if os.path.isfile(own) else None
    if off is None:
        return rest
    data = open(os.path.join(exp, "processes.dat"), "rb").read()[off:off + SLOT].rstrip(b"\0")
    return data + (rest[HEAD:] if rest else b"")


def has_proc(exp, lineage):
    return proc_data(exp, lineage) is not None


def items(path, data=None):
    """(kind, value) of a process file: ("line", text) or ("record", (type, bytes))."""
    if data is None:
        data = open(path, "rb").read()
    assert data[:8] == b"TALLYEXP", path + ": not a tally file"
    assert struct.unpack_from("<I", data, 12)[0] == 15, path + ": not a process file"
    assert data[HEAD - 1:HEAD] == b"\n", path + ": no newline after the counters"
    at = HEAD
    while at < len(data):
        if data[at] != 0:
            end = data.index(b"\n", at)
            yield "line", data[at:end].decode("utf-8", "replace")
            at = end + 1
        else:
            word = struct.unpack_from("<I", data, at + 1)[0]
            n = word & 0xFFFFFF
            assert data[at + 1 + n:at + 2 + n] == b"\n", path + ": record cut short"
            yield "record", (word >> 24, data[at + 1:at + 1 + n])
            at += n + 2


MIRROR = 14               # EXP_REC_MIRROR
ARC_TABLE = 11            # EXP_REC_ARC_TABLE: may span whole blocks


def block_records(path):
    """(type, bytes) of each record of a record file (docs/experiment-format.md,
    "Record files"): a block named by a MIRROR record of another block is
    skipped, and so are MIRROR records."""
    data = open(path, "rb").read()
    assert data[:8] == b"TALLYEXP", path + ": not a tally file"
    bs = struct.unpack_from("<I", data, 16)[0]
    found, mirrored = [], set()
    block = 0
    while block * bs < len(data):
        at = 64 if block == 0 else block * bs
        end = min((block + 1) * bs, len(data))
        nxt = block + 1
        while at + 4 <= end:
            word = struct.unpack_from("<I", data, at)[0]
            if word == 0:
                break
            typ, n = word >> 24, word & 0xFFFFFF
            assert n >= 8 and n % 8 == 0, "%s: record length %d at %d" % (path, n, at)
            if typ == MIRROR:
                named = struct.unpack_from("<Q", data, at + 8)[0]
                if named != block:
                    mirrored.add(named)
            else:
                found.append((block, typ, data[at:at + n]))
            if typ == ARC_TABLE and at % bs == 0 and n > bs:
                nxt = block + (n + bs - 1) // bs
                break
            at += n
        block = nxt
    return [(typ, rec) for b, typ, rec in found if b not in mirrored]


def thread_ends(exp):
    """("start"|"end", tid) of each THREAD_START and THREAD_END record of the
    founder's threads.dat."""
    names = {5: "start", 6: "end"}
    return [(names[t], struct.unpack_from("<I", r, 4)[0])
            for t, r in block_records(os.path.join(exp, "threads.dat")) if t in names]


def log_lines(exp, lineage=""):
    data = proc_data(exp, lineage) if lineage else None
    if data is not None:
        return [v for k, v in items(lineage, data) if k == "line"]
    d = os.path.join(exp, lineage + ".exp") if lineage else exp
    return open(os.path.join(d, "log.txt"), encoding="utf-8", errors="replace").read().splitlines()


def counters(exp, lineage=""):
    data = proc_data(exp, lineage) if lineage else None
    if data is None:
        d = os.path.join(exp, lineage + ".exp") if lineage else exp
        data = open(os.path.join(d, "counters.dat"), "rb").read()
    return list(struct.unpack_from("<30Q", data, 64))


def lineages(exp):
    seen = set(slots(exp))
    for name in os.listdir(exp):
        if name.startswith("_") and (name.endswith(".exp") or name.endswith(".proc")):
            seen.add(name.rsplit(".", 1)[0])
    return sorted(seen)


def main(argv):
    if argv[0] == "log":
        print("\n".join(log_lines(argv[1], argv[2] if len(argv) > 2 else "")))
    elif argv[0] == "lineages":
        print("\n".join(lineages(argv[1])))
    elif argv[0] == "records":
        for k, v in items(argv[2], proc_data(argv[1], argv[2])):
            if k == "record":
                print(v[0])
    elif argv[0] == "threads":
        for kind, tid in thread_ends(argv[1]):
            print(kind, tid)
    elif argv[0] == "has":
        sys.exit(0 if has_proc(argv[1], argv[2]) else 1)
    else:
        sys.exit("usage: tally_proc log|lineages|records|threads|has EXP [LINEAGE]")


if __name__ == "__main__":
    main(sys.argv[1:])
