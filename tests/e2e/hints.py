"""The commands ssdlab's messages tell the user to run, read back as a shell reads them, so a
test can run exactly what it would copy."""

import re
import shlex

# 'ssdlab …', or "ssdlab …" when a word of it is quoted itself (model/next_command.py)
HINT = re.compile(r"'(ssdlab [^']*)'|\"(ssdlab [^\"]*)\"")


def hinted(text: str, verb: str) -> list[str]:
    """The words after `ssdlab` of the first `ssdlab VERB …` command in `text`."""
    for match in HINT.finditer(text):
        words = shlex.split(match.group(1) or match.group(2))
        if words[1:2] == [verb]:
            return words[1:]
    raise AssertionError(f"no 'ssdlab {verb} …' in {text!r}")
