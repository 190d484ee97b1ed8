# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
    # Each round starts one place further on: every implementation takes
    # every place in a round equally often.
    assert calls == ["peer", "tle", "tle", "peer", "peer", "tle"]
    assert times == {"peer": [0.0, 3.0, 4.0], "tle": [1.0, 2.0, 5.0]}


def test_rounds_rotate_through_every_place():
    calls = []
    functions = {name: (lambda name=name: name) for name in "abc"}
    tle_bench.interleaved(functions, lambda fn: calls.append(fn()) or 0.0, 3)
    assert calls == list("abc") + list("bca") + list("cab")
