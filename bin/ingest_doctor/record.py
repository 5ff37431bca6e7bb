"""Records: the core's classes of named values (evidence, findings, the pipeline model, thresholds).

A record names its values in `__slots__`, in order, and sets them in a plain `__init__` whose
arguments have the same names. `Record` compares and shows it by those values; `fields`, `replace`
and `asdict` do for it what dataclasses' functions do for a dataclass. A `Frozen` record is also
hashable by its values: nothing assigns to one once it is made (the tables of model.py, thresholds.py,
read/endpoints.py), which, unlike a frozen dataclass, it does not enforce.

Not dataclasses: `diagnose` imports some forty of these classes, and dataclasses (the module, and
the code it generates and compiles for each class) cost more than half of its start (issue 21).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Tuple


_FIELDS: Dict[type, Tuple[str, ...]] = {}


def fields(record: Any) -> Tuple[str, ...]:
    """The names of a record's (or a record class's) values, in order: its bases' first."""
    cls = record if isinstance(record, type) else type(record)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(n for c in reversed(cls.__mro__) for n in c.__dict__.get("__slots__", ()))
    return names


def values(record: Any) -> Tuple[Any, ...]:
    return tuple(getattr(record, n) for n in fields(record))


def replace(record: Any, **changes: Any) -> Any:
    """A new record of the same class, with `changes` over this one's values."""
    unknown = set(changes).difference(fields(record))
    if unknown:
        raise TypeError("%s has no field %s" % (type(record).__name__, ", ".join(sorted(unknown))))
    return type(record)(**{n: changes[n] if n in changes else getattr(record, n) for n in fields(record)})


def asdict(record: Any) -> Any:
    """A record as a dict of its values, records, lists and dicts within it converted too (copies)."""
    if isinstance(record, Record):
        return {n: asdict(getattr(record, n)) for n in fields(record)}
    if isinstance(record, (list, tuple)):
        return type(record)(asdict(v) for v in record)
    if isinstance(record, dict):
        return {k: asdict(v) for k, v in record.items()}
    return record


class Record:
    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return values(self) == values(other)

    __hash__ = None     # type: ignore[assignment]    # values change: not a dict key

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__qualname__,
                           ", ".join("%s=%r" % (n, getattr(self, n)) for n in fields(self)))


class Frozen(Record):
    """A record nothing assigns to once it is made: hashable by its values."""
    __slots__ = ()

    def __hash__(self) -> int:
        return hash(values(self))
