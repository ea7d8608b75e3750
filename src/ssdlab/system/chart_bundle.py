"""The HTML report's chart library (Vega, Vega-Lite and vega-embed as one offline script),
kept on disk after it is first built.

vl-convert builds the script anew on every call: about 1.5 s of CPU for the same 0.9 MB of
text each time, for a given vl-convert version. So the first report built with a version
writes the script to `$XDG_CACHE_HOME/ssdlab/` (else `~/.cache/ssdlab/`) under a name that
holds the version and a digest of the page's glue code, and later reports read it back. The
file is written to a temporary name and renamed, so a report never reads half a file; where
the folder cannot be written or read, the script is built as before."""

import hashlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

CACHE_SUBDIR = "ssdlab"


def cache_folder(env: dict[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/ssdlab`, else `~/.cache/ssdlab` (the XDG base directory rule)."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_CACHE_HOME", "")
    if base and os.path.isabs(base):
        return Path(base) / CACHE_SUBDIR
    return Path.home() / ".cache" / CACHE_SUBDIR


def bundle_file_name(version: str, glue: str) -> str:
    """The cached script's name: the vl-convert version that built it and the glue's digest."""
    digest = hashlib.sha256(glue.encode("utf-8")).hexdigest()[:16]
    safe_version = "".join(c if c.isalnum() or c in ".-" else "_" for c in version)
    return f"vega-bundle-{safe_version}-{digest}.js"


def cached_bundle(name: str, build: Callable[[], str], folder: Path) -> str:
    """The text of `folder/name` if it is there, else `build()`'s, written there for next time."""
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if text:
        return text
    text = build()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temporary, flags, 0o644)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)
    except OSError:
        pass  # no cache here: the next report builds the script again
    return text
