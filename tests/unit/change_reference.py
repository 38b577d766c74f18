#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The change statistics of common/change.c against references computed
# here: numpy's median for the ratio, scipy's Student t for the stretch,
# scipy.stats.bootstrap (percentile) where the hierarchical bootstrap reduces
# to the ordinary one (one value per round), and an independent numpy
# hierarchical bootstrap otherwise. Both sides resample many times, so they
# agree to within the bootstrap's own Monte Carlo error.
import math
import os
import subprocess
import sys

try:
    import numpy as np
    from scipy import stats
except ImportError:
    # The distribution's python3 has them when the one on PATH is another.
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("skip: numpy/scipy not installed (scripts/deps installs them)")
    sys.exit(77)

TOOL = os.environ["CHANGE_CI"]
RESAMPLES = 20000
TOL = 0.015  # relative, on each end of the interval
rng = np.random.default_rng(12345)


def c_change(a_rounds, b_rounds):
    args = [TOOL, "--resamples", str(RESAMPLES)]
    args += [",".join(repr(float(x)) for x in r) for r in a_rounds] + ["--"]
    args += [",".join(repr(float(x)) for x in r) for r in b_rounds]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), out[3]


def stretch(a_rounds, b_rounds):
    df = len(a_rounds) + len(b_rounds) - 2
    return stats.t.ppf(0.975, df) / stats.norm.ppf(0.975)


def widen(ratio, lo, hi, s):
    lr = math.log(ratio)
    return math.exp(lr + s * (math.log(lo) - lr)), math.exp(lr + s * (math.log(hi) - lr))


def numpy_hierarchical(a_rounds, b_rounds):
    def replicate(rounds):
        picked = rng.integers(0, len(rounds), len(rounds))
        drawn = [rng.choice(rounds[r], len(rounds[r])) for r in picked]
        return np.median(np.concatenate(drawn))

    ratios = np.array([replicate(b_rounds) / replicate(a_rounds) for _ in range(RESAMPLES)])
    return np.percentile(ratios, [2.5, 97.5])


failures = 0


def check(what, got, want):
    global failures
    ok = all(abs(g / w - 1) <= TOL for g, w in zip(got, want))
    print(f"{'ok' if ok else 'FAIL'}: {what}: C {got[0]:.4f} {got[1]:.4f}, "
          f"reference {want[0]:.4f} {want[1]:.4f}")
    failures += not ok


# One value per round: the ordinary two-sample bootstrap of the ratio.
a = rng.lognormal(math.log(40), 0.1, 8)
b = rng.lognormal(math.log(44), 0.1, 8)
ratio, lo, hi, verdict = c_change([[x] for x in a], [[x] for x in b])
want_ratio = np.median(b) / np.median(a)
assert abs(ratio / want_ratio - 1) < 1e-9, (ratio, want_ratio)
res = stats.bootstrap((a, b), lambda x, y, axis: np.median(y, axis=axis) / np.median(x, axis=axis),
                      vectorized=True, paired=False, n_resamples=RESAMPLES,
                      confidence_level=0.95, method="percentile", random_state=1)
ci = res.confidence_interval
check("one value per round vs scipy.stats.bootstrap", (lo, hi),
      widen(want_ratio, ci.low, ci.high, stretch(a, b)))

# Rounds of jobs: the hierarchical bootstrap, done again in numpy.
for rounds, jobs, shift in ((3, 30, 0.0), (4, 12, 0.15), (2, 40, -0.1)):
    a_r = [rng.lognormal(math.log(40) + rng.normal(0, 0.03), 0.1, jobs) for _ in range(rounds)]
    b_r = [rng.lognormal(math.log(40 * (1 + shift)) + rng.normal(0, 0.03), 0.1, jobs)
           for _ in range(rounds)]
    ratio, lo, hi, verdict = c_change(a_r, b_r)
    want_ratio = np.median(np.concatenate(b_r)) / np.median(np.concatenate(a_r))
    assert abs(ratio / want_ratio - 1) < 1e-9, (ratio, want_ratio)
    plo, phi = numpy_hierarchical(a_r, b_r)
    check(f"{rounds} rounds x {jobs} jobs, shift {shift:+.0%}", (lo, hi),
          widen(want_ratio, plo, phi, stretch(a_r, b_r)))

sys.exit(1 if failures else 0)
