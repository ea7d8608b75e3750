"""No shell anywhere: every Python file under src, bench and tests, the Makefile and .ci are
scanned for each way Python (or a recipe) can hand a command line to a shell. The scanner is
checked against a snippet of each form, so a scan that finds nothing means something.

Forms: ``shell=`` with any value but False; ``os.system``, ``os.popen``, ``os.spawn*`` /
``os.exec*`` / ``pty.spawn`` of a shell, ``subprocess.getoutput`` / ``getstatusoutput``,
``asyncio.create_subprocess_shell``, ``loop.subprocess_shell``, ``platform.popen``; an argv
(list or tuple) that runs a shell with ``-c`` (also via ``env``); a string ``sh -c`` /
``bash -c`` given to any call; in the Makefile and .ci, ``sh -c`` / ``bash -c`` and the Python
forms in embedded code; an executable shell script anywhere in src, bench or tests.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash", "csh", "tcsh", "fish", "busybox"}
_DASH_C = re.compile(r"^-[a-zA-Z]*c[a-zA-Z]*$")  # -c, -lc, -ec, -xc ...
_SHELL_C_TEXT = re.compile(r"(?:^|[\s/'\"(\[])(?:ba|da|z|k|c|tc)?sh\s+-[a-zA-Z]*c\b")
_TEXT_FORMS = re.compile(
    r"shell\s*=\s*True|os\.system|os\.popen|getoutput|getstatusoutput|pty\.spawn"
    r"|create_subprocess_shell|subprocess_shell"
)
# always a shell, whatever the arguments
_FORBIDDEN_CALLS = {
    "os.system",
    "os.popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "asyncio.create_subprocess_shell",
    "platform.popen",
    "commands.getoutput",
    "commands.getstatusoutput",
}
# run a program: forbidden when the program is a shell
_PROGRAM_CALLS = re.compile(r"^(os\.(spawn|exec)\w*|pty\.spawn)$")


def _is_shell(value: object) -> bool:
    return isinstance(value, str) and Path(value.strip()).name in SHELLS


def _constants(node: ast.AST) -> list[object]:
    if isinstance(node, ast.List | ast.Tuple):
        return [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
    return []


def _argv_runs_shell(items: list[object]) -> bool:
    """[..., 'sh', ..., '-c', ...] (the shell may follow env or sudo)."""
    for index, item in enumerate(items):
        if _is_shell(item):
            return any(isinstance(x, str) and _DASH_C.match(x) for x in items[index + 1 :])
    return False


class _Scanner(ast.NodeVisitor):
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.found: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.aliases[alias.asname or alias.name.split(".")[0]] = (
                alias.name if alias.asname else alias.name.split(".")[0]
            )

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _qualified(self, func: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name):
            return None
        parts.append(self.aliases.get(func.id, func.id))
        return ".".join(reversed(parts))

    def visit_Call(self, node: ast.Call) -> None:
        name = self._qualified(node.func) or ""
        for keyword in node.keywords:
            if keyword.arg == "shell" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                self.found.append((node.lineno, "shell= (not False)"))
        if name in _FORBIDDEN_CALLS or name.endswith(".subprocess_shell"):
            self.found.append((node.lineno, name))
        if _PROGRAM_CALLS.match(name):
            # the program is the first argument (exec*, pty.spawn) or the second (spawn*)
            for argument in node.args[:2]:
                program = argument.value if isinstance(argument, ast.Constant) else None
                argv = _constants(argument)
                if _is_shell(program) or (argv and _is_shell(argv[0])):
                    self.found.append((node.lineno, f"{name} of a shell"))
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            text = argument.value if isinstance(argument, ast.Constant) else None
            if isinstance(text, str) and _SHELL_C_TEXT.search(text):
                self.found.append((node.lineno, f"a '-c' command line: {text!r}"))
        self.generic_visit(node)

    def visit_List(self, node: ast.List) -> None:
        self._argv(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        self._argv(node)

    def _argv(self, node: ast.List | ast.Tuple) -> None:
        if _argv_runs_shell(_constants(node)):
            self.found.append((node.lineno, "an argv that runs a shell with -c"))
        self.generic_visit(node)


def python_violations(source: str) -> list[tuple[int, str]]:
    scanner = _Scanner()
    scanner.visit(ast.parse(source))
    return scanner.found


def text_violations(text: str) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#") and number > 1:
            continue  # a comment in a recipe file
        for pattern in (_SHELL_C_TEXT, _TEXT_FORMS):
            match = pattern.search(line)
            if match:
                found.append((number, match.group().strip()))
    return found


def _python_files() -> list[Path]:
    files = []
    for top in ("src", "bench", "tests"):
        files += [p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(files)


def _shell_scripts() -> list[Path]:
    scripts = []
    for top in ("src", "bench", "tests"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts:
                with path.open("rb") as handle:
                    head = handle.read(64)
                if head.startswith(b"#!") and _is_shell(head[2:].split()[0].decode("latin-1")):
                    scripts.append(path)
    return scripts


def test_no_python_file_uses_a_shell() -> None:
    files = _python_files()
    assert len(files) > 100  # the scan really covers the tree
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in files
        for line, what in python_violations(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_makefile_and_ci_use_no_shell_command_lines() -> None:
    recipes = [ROOT / "Makefile", *sorted(p for p in (ROOT / ".ci").rglob("*") if p.is_file())]
    assert len(recipes) >= 2
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in recipes
        for line, what in text_violations(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_no_shell_scripts_in_the_tree() -> None:
    assert [str(p.relative_to(ROOT)) for p in _shell_scripts()] == []


# Every form the scanner must catch (kept as data: a snippet is parsed, never run).
CAUGHT = {
    "shell=True": "import subprocess\nsubprocess.run('ls', shell=True)",
    "shell=variable": "import subprocess\nflag = True\nsubprocess.Popen(['ls'], shell=flag)",
    "os.system": "import os\nos.system('ls')",
    "aliased os": "import os as o\no.system('ls')",
    "from os": "from os import system\nsystem('ls')",
    "from os as": "from os import popen as p\np('ls')",
    "os.popen": "import os\nos.popen('ls').read()",
    "getoutput": "import subprocess\nsubprocess.getoutput('ls')",
    "getstatusoutput": "from subprocess import getstatusoutput\ngetstatusoutput('ls')",
    "asyncio": "import asyncio\nasyncio.create_subprocess_shell('ls')",
    "loop": "async def f(loop):\n    await loop.subprocess_shell(None, 'ls')",
    "pty.spawn": "import pty\npty.spawn('/bin/bash')",
    "pty.spawn argv": "import pty\npty.spawn(['bash', '-i'])",
    "os.execvp": "import os\nos.execvp('sh', ['sh', '-c', 'ls'])",
    "spawnl": "import os\nos.spawnl(os.P_WAIT, '/bin/sh', 'sh')",
    "argv sh -c": "import subprocess\nsubprocess.run(['sh', '-c', 'ls'])",
    "argv bash -lc": "import subprocess\nsubprocess.run(('/usr/bin/bash', '-lc', 'ls'))",
    "argv via env": "argv = ['env', 'X=1', 'dash', '-ec', 'ls']",
    "string sh -c": "import shlex, subprocess\nsubprocess.run(shlex.split('sh -c ls'))",
}
NOT_CAUGHT = {
    "shell=False": "import subprocess\nsubprocess.run(['ls'], shell=False)",
    "argv without a shell": "import subprocess\nsubprocess.run(['fio', '--parse-only', 'x'])",
    "the word shell": "message = 'no shell is used'\nprint('sh is a shell; -c is a flag')",
    "python -c": "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'pass'])",
}


@pytest.mark.parametrize("form", sorted(CAUGHT))
def test_the_scanner_catches(form: str) -> None:
    assert python_violations(CAUGHT[form]), form


@pytest.mark.parametrize("form", sorted(NOT_CAUGHT))
def test_the_scanner_leaves_alone(form: str) -> None:
    assert python_violations(NOT_CAUGHT[form]) == [], form


def test_the_recipe_scan_catches() -> None:
    for text in (
        "x:\n\tsh -c 'ls'",
        "x:\n\tbash -ec ls",
        "x:\n\tpython -c 'import os; os.system(1)'",
    ):
        assert text_violations(text), text
    assert text_violations("demo:\n\t$(PY) -m ssdlab quick\n") == []
