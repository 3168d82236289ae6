#!/usr/bin/env python3
"""profile.py — assertions on a collapsed-stack file, for the e2e tests.

usage: profile.py FILE [--hz HZ] CHECK [CHECK...]
A CHECK is one string:
  'excl F SHARE TOL'   share of the weight whose leaf is F
  'incl F SHARE TOL'   share of stacks containing F (once per stack)
  'path A;B;C SHARE TOL' share of stacks with A;B;C as consecutive frames
  'within G incl F SHARE TOL' the same checks (excl, incl, path) among the
                       stacks containing G only (share of G's weight)
  'total VALUE RELTOL' sum of the weights
  'absent F'           no frame is F
  'depth N'            some stack has at least N frames
A share's TOL may be `Ksd` (with --hz, the rate the profile was sampled
at): K binomial standard deviations of that share among the profile's
samples, sqrt(SHARE (1 - SHARE) / N), N its CPU time over the period (the
weights are ns of CPU): a loaded machine gives the program fewer samples
in a window, and the bound widens as the run measured.  Under 30 samples
such a check fails.
Function names compare without a C++ argument list; they may hold
spaces (`path main;big;big [clone .part.0] 0.97 0.03`).  A frame of an
inlined call, `f(int) (inlined)`, compares as `f[inlined]`.  Exit 1 if any
fails, after the heaviest stacks.
"""
import re
import sys


def base(name):
    if name.endswith(' (inlined)'):
        return base(name[:-len(' (inlined)')]) + '[inlined]'
    return re.sub(r'\(.*\)( const)?$', '', name)


def main():
    stacks = []
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            frames, w = line.rsplit(' ', 1)
            stacks.append(([base(x) for x in frames.split(';')], float(w)))
    total = sum(w for _, w in stacks)
    specs = sys.argv[2:]
    hz = None
    if specs[:1] == ['--hz']:
        hz, specs = float(specs[1]), specs[2:]
    bad = 0
    for spec in specs:
        t = spec.split()
        total_of = total
        sel = stacks
        if t[0] == 'within':
            sel = [(fr, w) for fr, w in stacks if t[1] in fr]
            total_of = sum(w for _, w in sel)
            t = t[2:]
        kind = t[0]
        if kind == 'total':
            want, tol = float(t[1]), float(t[2])
            ok = abs(total - want) <= tol * want
            got = total
        elif kind == 'absent':
            got = sum(w for fr, w in stacks if t[1] in fr)
            ok = got == 0
        elif kind == 'depth':
            got = max((len(fr) for fr, _ in stacks), default=0)
            ok = got >= int(t[1])
        else:
            want, tol = float(t[-2]), t[-1]
            if tol.endswith('sd'):
                if not hz:
                    sys.exit('profile.py: %s needs --hz' % spec)
                samples = total_of * hz / 1e9
                # The bound must be well under the share it checks: at most
                # a third of min(want, 1 - want), so that a share at 0 (or
                # at 1) cannot pass.  Fewer samples than that needs fail (30
                # at 4 sd allowed 0.344 on a share of 0.333): a run that
                # lost its samples is a bug, not a wider bound.
                k = float(tol[:-2])
                tol = k * (want * (1 - want) / samples) ** 0.5 if samples else float('inf')
                if tol > min(want, 1 - want) / 3:
                    need = 9 * k * k * want * (1 - want) / min(want, 1 - want) ** 2
                    print('FAIL %s: %d samples give a tolerance of %.4g, over a third of the share; '
                          'it needs %d' % (spec, samples, tol, need + 1))
                    bad += 1
                    continue
            else:
                tol = float(tol)
            name = ' '.join(t[1:-2])       # names may hold spaces
            if kind == 'excl':
                got = sum(w for fr, w in sel if fr[-1] == name)
            elif kind == 'incl':
                got = sum(w for fr, w in sel if name in fr)
            elif kind == 'path':
                p = name.split(';')
                got = sum(w for fr, w in sel
                          if any(fr[i:i + len(p)] == p for i in range(len(fr))))
            else:
                sys.exit('profile.py: unknown check ' + spec)
            got = got / total_of if total_of else 0
            ok = abs(got - want) <= tol
        if not ok:
            bad += 1
            print('FAIL %s: got %.4g%s' % (spec, got, ' (tolerance %.4g)' % tol if spec.endswith('sd') else ''))
    if bad:
        print('(%d stacks, total %.6g; the heaviest:)' % (len(stacks), total))
        for fr, w in sorted(stacks, key=lambda s: -s[1])[:8]:
            print('  %.6g %s' % (w, ';'.join(fr)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
