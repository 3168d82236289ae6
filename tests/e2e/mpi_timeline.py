#!/usr/bin/env python3
"""mpi_timeline.py — the time axis of an MPI job, for tests/e2e/test_mpi.sh:
the chrome trace-event export and the HTML report's timeline each draw one
process (track group) per rank, labelled with its rank, with the rank's MPI
calls as intervals ("MPI: MPI_Barrier") whose durations add up to the
rank's MPI time in `tally report --ranks`.

usage: mpi_timeline.py TRACE_JSON HTML RANKS_JSON
Prints what it checked; exit 1 if any check fails.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'pylib'))
from tally_page import page_json  # noqa: E402

RANK = re.compile(r'\brank (\d+)\]$')


def chrome(path):
    """{rank: (MPI call names, total µs)} from the trace events."""
    events = json.load(open(path))['traceEvents']
    rank_of = {}
    for e in events:
        if e['ph'] == 'M' and e['name'] == 'process_name':
            m = RANK.search(e['args']['name'])
            if m:
                assert e['pid'] not in rank_of, ('two ranks in one process', e)
                rank_of[e['pid']] = int(m.group(1))
    threads = {(e['pid'], e['tid']) for e in events if e['ph'] == 'M' and e['name'] == 'thread_name'}
    begin, out = {}, {r: (set(), 0) for r in rank_of.values()}
    for e in events:
        if e['ph'] not in ('b', 'e') or not e['name'].startswith('MPI: '):
            continue
        assert e['pid'] in rank_of and (e['pid'], e['tid']) in threads, ('MPI call outside a rank thread', e)
        if e['ph'] == 'b':
            begin[e['id']] = e
            continue
        b = begin.pop(e['id'])
        assert b['pid'] == e['pid'] and b['tid'] == e['tid'] and b['name'] == e['name'], (b, e)
        names, total = out[rank_of[e['pid']]]
        names.add(e['name'][5:])
        out[rank_of[e['pid']]] = (names, total + e['ts'] - b['ts'])
    assert not begin, ('unmatched begin events', list(begin.values())[:2])
    return out


def html(path):
    """{rank: (MPI call names, total µs)} from the page's timeline."""
    s = open(path).read()
    d = json.loads(page_json(s))['timeline']
    assert d['dropped'] == 0, d['dropped']
    out = {}
    for t in d['tracks']:
        m = RANK.search(t['group'])
        if not m:
            continue
        names, total = out.get(int(m.group(1)), (set(), 0))
        for start, dur, label in t['iv']:
            if d['labels'][label].startswith('MPI: '):
                names.add(d['labels'][label][5:])
                total += dur
        out[int(m.group(1))] = (names, total)
    return out


def main():
    ranks = {r['rank']: r for r in json.load(open(sys.argv[3]))['ranks']}
    bad = 0
    for what, got in (('chrome', chrome(sys.argv[1])), ('html', html(sys.argv[2]))):
        ok = sorted(got) == sorted(ranks)
        print('%s %s: a group per rank: %s' % ('ok  ' if ok else 'FAIL', what, sorted(got)))
        bad += not ok
        for r, (names, us) in sorted(got.items()):
            want = ranks.get(r, {}).get('mpi_time', -1)
            ok = 'MPI_Barrier' in names and abs(us / 1e6 - want) <= 0.002 + want * 0.001
            print('%s %s: rank %d: MPI calls %s, %.6f s as intervals, %.6f s in --ranks'
                  % ('ok  ' if ok else 'FAIL', what, r, sorted(names), us / 1e6, want))
            bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
