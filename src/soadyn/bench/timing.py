"""Per-call timing: median over many samples after warm-up, with the min-max spread (docs/architecture.md, Benchmarks).

A sample is ``number`` back-to-back calls timed with ``time.perf_counter`` and divided by ``number``;
``number`` is calibrated so that one sample lasts at least ``sample_s`` (this keeps the timer's own
resolution and overhead out of microsecond calls). Functions compared side by side are timed
*interleaved*, sample by sample, so that a slow phase of a shared machine hits all of them alike.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable

__all__ = ["Timing", "TimingConfig", "QUICK", "FULL", "calibrate", "time_calls"]


@dataclass(frozen=True)
class TimingConfig:
    """How long and how often to measure."""

    warmup_s: float = 0.05
    """Minimum warm-up time per function (after at least 3 calls)."""
    sample_s: float = 2e-3
    """Minimum duration of one sample (sets ``number``)."""
    repeats: int = 31
    """Samples per function; the median and the min-max spread are taken over these."""
    max_number: int = 100_000


FULL = TimingConfig()
QUICK = TimingConfig(warmup_s=0.005, sample_s=2e-4, repeats=5)


@dataclass(frozen=True)
class Timing:
    """Seconds per call: ``median``, ``min`` and ``max`` over ``repeats`` samples of ``number`` calls."""

    median: float
    min: float
    max: float
    number: int
    repeats: int

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return f"{fmt_time(self.median)} [{fmt_time(self.min)}, {fmt_time(self.max)}]"


def fmt_time(s: float) -> str:
    """Seconds in a readable unit (ns, us, ms, s) with three significant digits."""
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if s < 1000 * scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s:.3g} s"


def _warm(fn: Callable[[], object], warmup_s: float) -> float:
    """Call ``fn`` at least 3 times and for at least ``warmup_s``; return the fastest single call."""
    best = float("inf")
    t_end = time.perf_counter() + warmup_s
    n = 0
    while n < 3 or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        n += 1
    return best


def calibrate(fn: Callable[[], object], cfg: TimingConfig = FULL) -> int:
    """Warm ``fn`` up and return the number of calls per sample."""
    best = _warm(fn, cfg.warmup_s)
    return int(min(cfg.max_number, max(1, -(-cfg.sample_s // max(best, 1e-9)))))


def _sample(fn: Callable[[], object], number: int) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def time_calls(fns: dict[str, Callable[[], object]], cfg: TimingConfig = FULL) -> dict[str, Timing]:
    """Time each zero-argument callable of ``fns`` (name -> callable), interleaving their samples.

    Each function is warmed up and calibrated first; then ``cfg.repeats`` rounds each take one sample
    of every function, in a rotating order. Returns name -> :class:`Timing` (seconds per call).
    """
    numbers = {name: calibrate(fn, cfg) for name, fn in fns.items()}
    names = list(fns)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(cfg.repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            samples[name].append(_sample(fns[name], numbers[name]))
    out = {}
    for name in names:
        s = sorted(samples[name])
        n = len(s)
        med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
        out[name] = Timing(median=med, min=s[0], max=s[-1], number=numbers[name], repeats=n)
    return out
