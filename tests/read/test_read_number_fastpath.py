"""rest._number (the queue parser's fast path) equals as_float(get(content, key)) for every shape of
value and key: numbers, strings, bools, None, non-finite, missing and differently cased keys."""
from __future__ import annotations

import sys

from fakes.paths import BIN

if BIN not in sys.path:
    sys.path.insert(0, BIN)
from ingest_doctor.read import rest  # noqa: E402

VALUES = [0, 1, -5, 512000, 10 ** 30, 0.0, 2.5, float("nan"), float("inf"), -float("inf"), "13.90", " 7 ", '"3"',
          "x", "", "nan", "inf", True, False, None, [1], {"a": 1}]


def _same(a, b):
    return a == b or (a is None and b is None)


def test_number_equals_as_float_of_get():
    for value in VALUES:
        for content in ({"max_size_bytes": value}, {"MAX_SIZE_BYTES": value}, {"Max_Size_Bytes": value, "x": 1},
                        {"max_size_bytes": None, "MAX_SIZE_BYTES": value}, {}):
            assert _same(rest._number(content, "max_size_bytes"),
                         rest.as_float(rest.get(content, "max_size_bytes"))), (content,)


def test_number_raises_as_as_float_does():
    content = {"max_size_bytes": 10 ** 400}
    try:
        rest.as_float(rest.get(content, "max_size_bytes"))
    except OverflowError:
        try:
            rest._number(content, "max_size_bytes")
        except OverflowError:
            return
        raise AssertionError("_number did not raise")
    assert rest._number(content, "max_size_bytes") == rest.as_float(content["max_size_bytes"])


def test_lookback_seconds_through_the_fast_path_equal_as_int_of_get():
    for value in VALUES[:7] + VALUES[8:]:       # NaN aside: as_int of it is None either way
        content = {"cntr_1_lookback_time": value}
        fast = rest._number(content, "cntr_1_lookback_time")
        assert (int(fast) if fast is not None else None) == rest.as_int(rest.get(content, "cntr_1_lookback_time"))
