"""Queue titles, pool and window names are read without compiling their patterns at start (issue 21):
the string path must give what the pattern gives, for every name, odd ones included."""
import random
import re

from ingest_doctor import model, threadnames
from ingest_doctor.engine import series

ALPHABET = "aQz_-.0179\n é٣²İK"
TITLES = ["parsingQueue", "parsingQueue.2", "tcpout_default-autolb-group", "tcpout_x.0", "httpInputQ.12",
          "", ".", "x.", ".3", "_a.3", "9a.1", "a.b.3", "a..3", "parsingQueue.2\n", "queue\n", "a-.07",
          "é.1", "a.٣", "aggQueue.1a", "-a.1", "a b.1"]
NAMES = ["indexertpoolworker-3", "indexertpoolworker-03", "indexertpoolworker-", "indexertpoolworker",
         "indexertpoolworker-3\n", "-3", "a-1-2", "a--3", "x-3a", "a-٣", "indexertpoolworker-٣", "1-2", ""]


def _title_by_pattern(title):
    m = re.match(model.TITLE, title)
    if not m:
        return model.canonical_queue(title), None
    pset = m.group("pset")
    return model.canonical_queue(m.group("name")), (int(pset) if pset is not None else None)


def _pool_by_pattern(name):
    m = re.match(threadnames.POOL, name)
    return m.group("base") if m and m.group("base") in threadnames._ALL else name


def _odd(rng, n):
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8))) for _ in range(n)]


def test_queue_titles_equal_the_pattern():
    rng = random.Random(21)
    for title in TITLES + _odd(rng, 5000):
        assert model.split_queue_title(title) == _title_by_pattern(title), repr(title)


def test_pool_names_equal_the_pattern():
    rng = random.Random(21)
    pools = sorted(threadnames._ALL)
    names = NAMES + _odd(rng, 5000) + [p + s for p in pools for s in ("-1", "-12", "-", "-x", "-1\n", "-٣")]
    for name in names:
        assert threadnames.pool_name(name) == _pool_by_pattern(name), repr(name)


def _window_by_pattern(window):
    m = re.match(series.WINDOW, window or "")
    return float(m.group(1)) / (60.0 if m.group(2) == "s" else 1.0) if m else None


def test_window_names_equal_the_pattern():
    rng = random.Random(21)
    windows = ["10m", "900s", "1.5m", "sample", "", None, "m", "s", ".5m", "5.m", "1e3m", "+5m", " 5m", "5_0m",
               "10m\n", "10M", "٣m", "1.٣s", "1..2m", "10m\n\n", "inf m", "nanm"]
    odd = ["".join(rng.choice("0123.ms\n _٣²e+") for _ in range(rng.randint(0, 6))) for _ in range(5000)]
    for window in windows + odd:
        series.window_minutes.cache_clear()
        assert series.window_minutes(window) == _window_by_pattern(window), repr(window)
