"""states_window.py — an attached --states experiment's intervals against its
window (tests/e2e/test_attach_states.sh, tests/progs/blocked_whole.c).

usage: states_window.py TALLY EXP PROGRAM_LOG
       states_window.py --starts EXP

--starts checks only that no interval begins before the log's start.mono_ns
(an outside-mode attach's events count from their open: the window must
start before it).

Reads EXP/states.dat's STATE records (docs/experiment-format.md) and the
log's start.mono_ns and attach.window_end_ns (the clocks' and the switch
events' stop), then checks:
  - no interval ends after the window's end (the switch events stopped
    with the clocks);
  - the reader and the sleeper, blocked from before the attach to after
    the stop (the program's own times say so), each have the whole window,
    window_end - start.mono_ns, in wait.io at block_in_read;read (reader),
    wait.sleep at sleep_through;clock_nanosleep (sleeper): not having run
    since before the window, their blocks cover the helper's set-up too
    (col_attach.c, still_since_before; 84-90% under load before).
Prints what it compares; exits 1 on a failed check.
"""
import struct
import subprocess
import sys

STATE = 30


def log_value(exp, key):
    for line in open(exp + '/log.txt', errors='replace'):
        if line.startswith(key + ': '):
            return int(line.split(': ', 1)[1].split()[0])
    return None


def states(exp):
    data = open(exp + '/states.dat', 'rb').read()
    block = struct.unpack_from('<I', data, 16)[0]
    out, at = [], 64
    while at + 8 <= len(data):
        word = struct.unpack_from('<I', data, at)[0]
        if word == 0:
            at = (at // block + 1) * block
            continue
        kind, length = word >> 24, word & 0xffffff
        if length < 8 or length % 8:
            break
        if kind == STATE and length >= 48:
            tid, off, on, runnable, stack, flags = struct.unpack_from('<IQQQIH', data, at + 4)
            out.append((tid, off, on, runnable, stack, flags))
        at += length
    return out


def collapsed(tally, exp, metric, tid):
    out = subprocess.run([tally, 'export', exp, '--format', 'collapsed', '--metric', metric,
                          '--thread', str(tid)], capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        stack, _, w = line.rpartition(' ')
        rows.append((stack, int(w)))
    return rows


def starts_in_window(exp):
    start = log_value(exp, 'start.mono_ns')
    recs = states(exp)
    early = [r for r in recs if r[1] < start]
    print(f'{len(recs)} intervals; beginning before start.mono_ns: {len(early)}'
          + (f' (the earliest {(start - min(r[1] for r in early)) / 1e6:.1f} ms before)'
             if early else ''))
    return 0 if recs and not early else 1


def main():
    if sys.argv[1] == '--starts':
        return starts_in_window(sys.argv[2])
    tally, exp, plog = sys.argv[1:4]
    start = log_value(exp, 'start.mono_ns')
    end = log_value(exp, 'attach.window_end_ns')
    if start is None or end is None:
        print('no start.mono_ns or attach.window_end_ns in the log')
        return 1
    window = end - start
    ok = True
    recs = states(exp)
    late = [r for r in recs if r[2] > end]
    print(f'{len(recs)} intervals; window {window / 1e9:.4f} s; ending after it: {len(late)}'
          + (f' (the latest {(max(r[2] for r in late) - end) / 1e3:.0f} us after)' if late else ''))
    ok &= not late
    prog = {}
    for line in open(plog):
        w = line.split()
        prog[w[0]] = [int(x) for x in w[1:]]
    for name, metric, path in (('reader', 'wait.io', ';block_in_read;read'),
                               ('sleeper', 'wait.sleep', ';sleep_through;clock_nanosleep')):
        tid, b0, b1 = prog[name]
        if not (b0 < start and b1 > end):
            print(f'{name}: its block {b0}..{b1} does not cover the window {start}..{end}')
            ok = False
            continue
        rows = collapsed(tally, exp, metric, tid)
        at = sum(w for s, w in rows if path in s)
        total = sum(w for _, w in rows)
        print(f'{name} {tid}: {metric} {total / 1e9:.4f} s, {at / 1e9:.4f} s at ...{path};'
              f' window {window / 1e9:.4f} s')
        ok &= at == window
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
