"""The benchmark harness's bookkeeping, without torch or a GPU."""

import tle.bench as tle_bench


def test_rounds_interleave_the_implementations():
    calls = []
    clock = iter(range(100))
    functions = {"peer": lambda: "peer", "tle": lambda: "tle"}

    def measure(fn):
        calls.append(fn())
        return float(next(clock))

    times = tle_bench.interleaved(functions, measure, 3)
    assert calls == ["peer", "tle"] * 3
    assert times == {"peer": [0.0, 2.0, 4.0], "tle": [1.0, 3.0, 5.0]}
