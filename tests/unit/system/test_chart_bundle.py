"""The HTML report's chart library is built by vl-convert once, then read from the cache folder
(system/chart_bundle.py): the same text either way, and a folder that cannot be written only
means building it again."""

from pathlib import Path

import pytest

from ssdlab.app.report import chart_library
from ssdlab.report.chart_spec import BUNDLE_GLOBALS, bundle_version, javascript_bundle
from ssdlab.system.chart_bundle import bundle_file_name, cache_folder, cached_bundle


def test_the_cache_folder_follows_xdg_cache_home_else_the_home_folder(tmp_path: Path) -> None:
    assert cache_folder({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "ssdlab"
    # the XDG rule: a relative path is invalid and ignored
    assert cache_folder({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "ssdlab"
    assert cache_folder({}) == Path.home() / ".cache" / "ssdlab"


def test_the_name_changes_with_the_version_and_the_glue() -> None:
    name = bundle_file_name("1.9.0.post1", BUNDLE_GLOBALS)
    assert name.startswith("vega-bundle-1.9.0.post1-")
    assert name.endswith(".js")
    assert bundle_file_name("1.9.1", BUNDLE_GLOBALS) != name
    assert bundle_file_name("1.9.0.post1", BUNDLE_GLOBALS + ";") != name
    assert "/" not in bundle_file_name("../../x", BUNDLE_GLOBALS)


def test_built_once_then_read_back(tmp_path: Path) -> None:
    builds: list[int] = []

    def build() -> str:
        builds.append(1)
        return "script text é"

    folder = tmp_path / "cache" / "ssdlab"
    assert cached_bundle("b.js", build, folder) == "script text é"
    assert (folder / "b.js").read_text(encoding="utf-8") == "script text é"
    assert cached_bundle("b.js", build, folder) == "script text é"
    assert builds == [1]
    assert sorted(p.name for p in folder.iterdir()) == ["b.js"]  # no temporary file left


def test_a_folder_that_cannot_be_written_means_building_each_time(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    builds: list[int] = []

    def build() -> str:
        builds.append(1)
        return "script"

    assert cached_bundle("b.js", build, blocker / "ssdlab") == "script"
    assert cached_bundle("b.js", build, blocker / "ssdlab") == "script"
    assert builds == [1, 1]


def test_an_empty_cached_file_is_built_again(tmp_path: Path) -> None:
    (tmp_path / "b.js").write_text("")
    assert cached_bundle("b.js", lambda: "script", tmp_path) == "script"
    assert (tmp_path / "b.js").read_text() == "script"


def test_the_reports_chart_library_is_vl_converts_bundle_built_or_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = chart_library()
    assert built == javascript_bundle()  # what vl-convert builds now
    assert "window.vegaEmbed=" in built  # the glue, minified with the rest
    cached = tmp_path / "ssdlab" / bundle_file_name(bundle_version(), BUNDLE_GLOBALS)
    assert cached.read_text(encoding="utf-8") == built
    assert chart_library() == built  # read back
