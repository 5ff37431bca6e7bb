"""Queue titles and pool names are read without compiling their patterns at start (issue 21): the
string path must give what the pattern gives, for every title and thread name, odd ones included."""
import random
import re

from ingest_doctor import model, threadnames

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
