"""Every `ssdlab …` example the documentation gives, read from where it is written.

An example is a command line people are shown to type:

- a line of a fenced code block (untagged, `sh`, `bash`, `console`, `shell` or `text`) of
  README.md or docs/*.md that starts with `ssdlab ` (or `$ ssdlab `), continued over lines
  ending in a backslash; a line joined with `&&` gives an example of each part that is ssdlab;
- an inline code span of those files that is a whole command line with a value or an option
  (`ssdlab report 3 7 -o report.html`), not a command's name in a sentence (`ssdlab fleet`)
  nor an option's (`ssdlab quick --start-at`);
- a line of a `--help` text's examples (`ssdlab COMMAND --help`, read from the real parser:
  cli/main.py's EPILOG, every cli/*_options.py epilog and every option table's examples).

What follows the command is not part of it: a shell comment (`# …`), and in untagged blocks
and help texts the description after two or more spaces. A synopsis (a line with `[...]`,
`A|B`, `…`, or a placeholder in capitals such as RUN, TARGET or FILE) shows a command's shape,
not a command to type, and is no example.
"""

import argparse
import functools
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ssdlab.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
SHELL_BLOCKS = frozenset({"", "sh", "bash", "console", "shell", "text"})
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
INLINE = re.compile(r"(?<!`)`(ssdlab [^`]+)`(?!`)")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.\.\.|…)?$|^[A-Z][A-Z_]*\.[a-z]+$")


@dataclass(frozen=True, slots=True)
class Example:
    """One documented command: where it is written, as written, and its words after
    `ssdlab` (a `> FILE` redirection taken out into `stdout_to`)."""

    where: str
    text: str
    words: tuple[str, ...]
    stdout_to: str | None = None


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@functools.cache
def parser() -> argparse.ArgumentParser:
    """ssdlab's parser, built once (reading it changes nothing)."""
    return build_parser()


@functools.cache
def commands() -> frozenset[str]:
    """ssdlab's commands, from its parser."""
    return frozenset(_subparsers(parser()))


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cut_description(line: str) -> str:
    """The command without the words that describe it after two or more spaces (quoted text
    is kept whole)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif line.startswith("  ", i):
            return line[:i]
    return line


def _names_an_option(words: list[str]) -> bool:
    """Whether the words end in an option that takes a value, without it: a sentence naming
    the option (`ssdlab quick --start-at`), not a command to type."""
    command = parser()
    for word in words[1:]:
        child = _subparsers(command).get(word)
        if child is None:
            break
        command = child
    last = command._option_string_actions.get(words[-1])
    return last is not None and last.nargs != 0


def _is_synopsis(words: list[str]) -> bool:
    for word in words:
        if any(mark in word for mark in ("[", "]", "…", "...")) or PLACEHOLDER.match(word):
            return True
        if "|" in word and not word.startswith(("'", '"')) and " " not in word:
            return True
    return False


def parse_line(where: str, line: str, *, described: bool) -> Iterator[Example]:
    """The examples on one command line (its `&&` parts that run ssdlab)."""
    for part in line.split("&&"):
        text = part.strip()
        if text.startswith("$ "):
            text = text[2:]
        if not text.startswith("ssdlab "):
            continue
        if described:
            text = _cut_description(text)
        words = shlex.split(text, comments=True)
        stdout_to = None
        if ">" in words:
            at = words.index(">")
            stdout_to, words = words[at + 1], words[:at]
        if len(words) < 2 or words[1] not in commands() or _is_synopsis(words):
            continue
        yield Example(where, " ".join(shlex.quote(w) for w in words), tuple(words[1:]), stdout_to)


def _block_lines(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line number, fence language, line joined with its continuations) inside code blocks."""
    language: str | None = None
    pending: tuple[int, str] | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            language = (fence.group(2) or "") if language is None else None
            continue
        if language is None:
            continue
        if pending is not None:
            start, text = pending
            line, number = text + " " + line.strip(), start
        if line.rstrip().endswith("\\"):
            pending = (number, line.rstrip()[:-1].rstrip())
            continue
        pending = None
        yield number, language, line


def markdown_examples(path: Path) -> Iterator[Example]:
    name = str(path.relative_to(ROOT))
    for number, language, line in _block_lines(path):
        if language in SHELL_BLOCKS:
            yield from parse_line(f"{name}:{number}", line, described=language != "sh")
    in_block = {number for number, _, _ in _block_lines(path)}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if number in in_block or FENCE.match(line):
            continue
        for span in INLINE.findall(line):
            words = shlex.split(span)
            has_value = any(w.startswith("-") or re.search(r"[/.\d]", w) for w in words[1:])
            if has_value and not _names_an_option(words):
                yield from parse_line(f"{name}:{number}", span, described=False)


def help_examples() -> Iterator[Example]:
    """The examples of every `--help` text, read from the parser ssdlab builds."""

    def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[Example]:
        for line in (parser.epilog or "").splitlines():
            yield from parse_line(f"`{path} --help`", line, described=True)
        for name, child in _subparsers(parser).items():
            yield from walk(child, f"{path} {name}")

    yield from walk(parser(), "ssdlab")


def every_example() -> list[Example]:
    found = [e for path in documents() for e in markdown_examples(path)]
    return found + list(help_examples())
