"""What every fuzz test shares: the hypothesis profile, the per-input hang guard, the real
captures to mutate, and the mutation strategies.

The only allowed outcome of a parser on any input is a result or its documented error
(``ParseError``); anything else escapes and hypothesis shrinks it to a minimal failing input.
A single input that uses more than ``GUARD_S`` seconds of CPU fails the test as a hang: that is
a hang detector with a generous bound, not a speed assertion. It counts the process's CPU time
(ITIMER_PROF), not the wall clock, so a loaded machine, where the test waits for a core, never
turns a slow input into a hang; a stuck C loop, which no Python handler interrupts, is caught
by faulthandler after ``STUCK_S`` seconds of wall clock, far beyond any load.
"""

import contextlib
import faulthandler
import json
import math
import os
import random
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from ssdlab.errors import ParseError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SHARED_SMART = ROOT.parent / "shared" / "testdata" / "smart"

# Thousands of inputs per parser: SSDLAB_FUZZ_EXAMPLES raises or lowers the count per test.
EXAMPLES = int(os.environ.get("SSDLAB_FUZZ_EXAMPLES", "1000"))
settings.register_profile(
    "fuzz",
    max_examples=EXAMPLES,
    deadline=None,  # the hang guard below bounds each input instead
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    # the same inputs on every run, so the suite is a gate, not a lottery;
    # SSDLAB_FUZZ_RANDOM=1 explores new ones (and new finds become regression tests)
    derandomize=os.environ.get("SSDLAB_FUZZ_RANDOM", "") != "1",
)
FUZZ = settings.get_profile("fuzz")
# A second mutation test of a parser already fuzzed with FUZZ (other captures, other edits).
HALF = settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
# Generated (not mutated) inputs: fewer per test, several tests per parser.
GENERATED = settings(FUZZ, max_examples=max(EXAMPLES // 8, 1))

GUARD_S = 5.0  # CPU seconds one input may use
STUCK_S = 600.0  # wall-clock seconds after which the interpreter itself is stuck

T = TypeVar("T")


class Hang(BaseException):
    """A single input ran past the hang guard."""


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise Hang(f"one input used more than {GUARD_S:g} s of CPU: the parser hangs on it")


@contextlib.contextmanager
def hang_guard(seconds: float = GUARD_S) -> Iterator[None]:
    """Fail the input that uses more than `seconds` of CPU; if the interpreter itself is stuck
    (a C loop that never returns to Python), faulthandler dumps every stack and ends the
    process after STUCK_S seconds."""
    previous = signal.signal(signal.SIGPROF, _on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    faulthandler.dump_traceback_later(max(STUCK_S, seconds * 6), exit=True)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGPROF, previous)


def outcome(
    parse: Callable[..., T],
    *args: Any,
    allowed: tuple[type[Exception], ...] = (ParseError,),
    **kwargs: Any,
) -> T | None:
    """The parser's result, or None for a clean, documented error; anything else propagates."""
    with hang_guard():
        try:
            result = parse(*args, **kwargs)
        except allowed as error:
            if not str(error).strip():
                raise AssertionError("a parse error must say what is wrong") from error
            return None
    return result


# --- real captures ------------------------------------------------------------------------


def files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if p.is_file())


def shared_smart(pattern: str) -> list[Path]:
    """Real third-party smartctl captures, read in place; the test skips when absent."""
    found = files(SHARED_SMART, pattern) if SHARED_SMART.is_dir() else []
    if not found:
        pytest.skip(f"no shared smartctl captures in {SHARED_SMART}")
    return found


class Samples(list[str]):
    """Real captures to mutate, shown by their names (hypothesis prints the strategy's
    arguments; the texts themselves would be hundreds of kB)."""

    def __init__(self, items: dict[str, str]) -> None:
        super().__init__(items.values())
        self.names = list(items)

    def __repr__(self) -> str:
        return f"Samples({', '.join(self.names)})"


def texts(paths: list[Path]) -> Samples:
    assert paths, "no captures found to mutate"
    return Samples({p.name: p.read_text(encoding="utf-8") for p in paths})


# --- mutation strategies ------------------------------------------------------------------

HOSTILE_NUMBERS = (
    "-1", "0", "-0", "1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1e-400",
    "99999999999999999999999999999999", "-99999999999999999999999", "0x7f", "1,5", "1_000",
    "٣", "１２", "1e309", "4.9e-324", "18446744073709551616", "", " ", "+5", ".", "e",
    "1.2.3", "9" * 400, "9" * 5000, "340282366920938463463374607431768211456",
)  # fmt: skip
HOSTILE_TEXT = st.text(
    alphabet=st.sampled_from(
        [
            *list("0123456789-+.,:;=[]{}()<>\"'\\/#$ \t\r\n%xXeE"),
            "\x00",
            "\x7f",
            "\u2028",
            "é",
            "\ufeff",
            "𝟙",
        ]
    ),
    max_size=24,
)


_INSERT_CHARS = [
    *"0123456789-+.,:;=[]{}()<>\"'\\/#$ \t\r\n%xXeE",
    "\x00",
    "\x7f",
    "\u2028",
    "é",
    "\ufeff",
]
_OPS = ("cut", "dup", "insert", "number", "lines", "truncate", "char")


@st.composite
def mutated_text(draw: st.DrawFn, samples: list[str]) -> str:
    """A real capture with 1-4 edits: cut, duplicate, insert, replace a number, swap lines,
    truncate, or change a character. Hypothesis chooses the capture and the edits; where they
    land comes from a seeded generator (one draw instead of dozens keeps thousands of inputs
    per parser affordable)."""
    text = draw(st.sampled_from(samples))
    ops = draw(st.lists(st.sampled_from(_OPS), min_size=1, max_size=4))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for op in ops:
        size = len(text)
        start = rng.randint(0, size)
        end = rng.randint(start, min(size, start + 200))
        if op == "cut":
            text = text[:start] + text[end:]
        elif op == "dup":
            text = text[:end] + text[start:end] * rng.randint(1, 3) + text[end:]
        elif op == "insert":
            inserted = "".join(rng.choices(_INSERT_CHARS, k=rng.randint(1, 24)))
            text = text[:start] + inserted + text[start:]
        elif op == "number":
            text = _replace_number(text, start, rng.choice(HOSTILE_NUMBERS))
        elif op == "lines":
            lines = text.splitlines(keepends=True)
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                text = "".join(lines)
        elif op == "truncate":
            text = text[:start]
        elif size:
            index = min(start, size - 1)
            text = text[:index] + chr(rng.randint(0, 0x2FF)) + text[index + 1 :]
    return text


def _replace_number(text: str, start: int, replacement: str) -> str:
    """Replace the first run of digits at or after `start` (wrapping around)."""
    for offset in (start, 0):
        index = next((i for i in range(offset, len(text)) if text[i].isdigit()), None)
        if index is not None:
            end = index
            while end < len(text) and (text[end].isdigit() or text[end] in ".eE+-"):
                end += 1
            return text[:index] + replacement + text[end:]
    return text + replacement


HOSTILE_JSON = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, -1, 1, 2**63, -(2**63) - 1, 10**40, 10**400, 255, 65535, 2**32]),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308, 5e-324, 0.5, -1.5]),
    st.sampled_from(["", "0", "-1", "1e400", "NaN", "0x10", "12 34", "1,024", "abc", "\x00"]),
    st.lists(st.integers(-5, 5), max_size=3),
    st.dictionaries(
        st.sampled_from(["raw", "value", "id", "name", "string"]), st.integers(), max_size=2
    ),
    st.text(max_size=8),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _set(node: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    """A copy of `node` with the value at `path` replaced or deleted; only the containers on
    the path are copied (the captures are large). A path that a previous edit removed is
    left alone."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict) and head in node:
        copy: Any = dict(node)
    elif isinstance(node, list) and isinstance(head, int) and head < len(node):
        copy = list(node)
    else:
        return node
    if rest:
        copy[head] = _set(node[head], rest, value, delete)
    elif delete:
        del copy[head]
    else:
        copy[head] = value
    return copy


_DECODED: dict[str, tuple[str, Any, list[tuple[Any, ...]]]] = {}


def _split_json(text: str) -> tuple[str, Any, list[tuple[Any, ...]]]:
    """Text before the document (fio's warnings), the decoded document and its node paths."""
    if text not in _DECODED:
        start = 0 if text.startswith("{") else text.index("\n{") + 1
        doc = json.JSONDecoder().raw_decode(text, start)[0]
        _DECODED[text] = (text[:start], doc, list(_paths(doc)))
    return _DECODED[text]


@st.composite
def mutated_json_doc(draw: st.DrawFn, samples: list[str]) -> Any:
    """A real JSON capture with 1-5 nodes replaced by hostile values or deleted."""
    _prefix, doc, paths = _split_json(draw(st.sampled_from(samples)))
    for _ in range(draw(st.integers(1, 5))):
        # half the edits near the top, where the structure is; the rest anywhere (bins, tables)
        near = [p for p in paths[:2000] if len(p) <= 3] if draw(st.booleans()) else paths
        path = draw(st.sampled_from(near or paths))
        delete = bool(path) and draw(st.booleans())
        doc = _set(doc, path, draw(HOSTILE_JSON), delete)
    return doc


@st.composite
def mutated_json(draw: st.DrawFn, samples: list[str]) -> str:
    """As mutated_json_doc, serialised (NaN and Infinity as Python's json writes them); now and
    then the text is mutated as well."""
    prefix = _split_json(draw(st.sampled_from(samples)))[0] if draw(st.booleans()) else ""
    doc = draw(mutated_json_doc(samples))
    text = prefix + json.dumps(doc, indent=draw(st.sampled_from([None, 2])))
    if draw(st.integers(0, 4)) == 0:
        text = draw(mutated_text(Samples({"json": text})))
    return text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
