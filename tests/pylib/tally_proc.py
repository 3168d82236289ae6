# SPDX-License-Identifier: MIT
"""tally_proc: a process's log, counters and thread records in an experiment,
whichever layout holds them: the directory LINEAGE.exp (log.txt,
counters.dat, threads.dat: the founder, and descendants before format 8) or
a descendant's process file LINEAGE.proc (format 8, src/format/exp_records.h:
a 64-byte header, the counters, a newline, then log lines and records, each a
NUL, the record and a newline).

As a command: `python3 -m tally_proc log EXP LINEAGE` prints the log;
`python3 -m tally_proc lineages EXP` prints each descendant's lineage once;
`python3 -m tally_proc records EXP LINEAGE` prints each thread record's type.
"""
import os
import struct
import sys

HEAD = 64 + 256 + 8        # EXP_PROC_HEAD_BYTES


def proc_path(exp, lineage):
    return os.path.join(exp, lineage + ".proc")


def items(path):
    """(kind, value) of a process file: ("line", text) or ("record", (type, bytes))."""
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


def log_lines(exp, lineage=""):
    p = proc_path(exp, lineage)
    if lineage and os.path.isfile(p):
        return [v for k, v in items(p) if k == "line"]
    d = os.path.join(exp, lineage + ".exp") if lineage else exp
    return open(os.path.join(d, "log.txt"), encoding="utf-8", errors="replace").read().splitlines()


def counters(exp, lineage=""):
    p = proc_path(exp, lineage)
    if not (lineage and os.path.isfile(p)):
        d = os.path.join(exp, lineage + ".exp") if lineage else exp
        p = os.path.join(d, "counters.dat")
    data = open(p, "rb").read()
    return list(struct.unpack_from("<30Q", data, 64))


def lineages(exp):
    seen = set()
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
        for k, v in items(proc_path(argv[1], argv[2])):
            if k == "record":
                print(v[0])
    else:
        sys.exit("usage: tally_proc log|lineages|records EXP [LINEAGE]")


if __name__ == "__main__":
    main(sys.argv[1:])
