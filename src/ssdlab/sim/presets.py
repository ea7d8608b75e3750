"""Simulator presets: a few real drives approximated from published data (presets.toml).

Each preset names where its numbers come from (`source`) and what was assumed (`assumed`);
all of them are approximations, said so wherever they are shown. A preset can be scaled to
another logical capacity (raw flash and static SLC cache scaled alike), so a drive's shape
can be simulated in seconds at a fraction of its size.
"""

from dataclasses import dataclass
from importlib import resources
from typing import Any

from ssdlab.errors import UsageError
from ssdlab.model.toml_text import parse_toml
from ssdlab.sim.config import GcPolicy, SimConfig

APPROXIMATION = "approximation from published data, not the vendor's firmware"


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    summary: str
    logical_bytes: int
    physical_bytes: int
    page_bytes: int
    pages_per_block: int
    bits_per_cell: int
    slc_static_bytes: int
    slc_dynamic: bool
    pe_cycles: float
    gc: str
    source: str
    assumed: str

    def config(self, logical_bytes: int | None = None, **overrides: Any) -> SimConfig:
        """The preset as a configuration, scaled to `logical_bytes` when given."""
        if logical_bytes is None:
            # a published capacity (250 GB) need not be whole pages; the FTL maps whole ones,
            # so it is rounded down to them and the rest of the drive scaled alike
            page = overrides.get("page_bytes", self.page_bytes)
            whole = isinstance(page, int) and page > 0
            logical_bytes = self.logical_bytes - (self.logical_bytes % page if whole else 0)
        scale = logical_bytes / self.logical_bytes
        fields: dict[str, Any] = {
            "logical_bytes": logical_bytes,
            "physical_bytes": round(self.physical_bytes * scale),
            "page_bytes": self.page_bytes,
            "pages_per_block": self.pages_per_block,
            "bits_per_cell": self.bits_per_cell,
            "slc_static_bytes": round(self.slc_static_bytes * scale),
            "slc_dynamic": self.slc_dynamic,
            "gc_policy": GcPolicy(self.gc),
        }
        fields.update(overrides)
        return SimConfig(**fields)

    def source_text(self, logical_bytes: int | None = None) -> str:
        scaled = (
            ""
            if logical_bytes is None or logical_bytes == self.logical_bytes
            else f"; scaled to {logical_bytes:,} B logical (raw flash and static SLC alike)"
        )
        return f"{APPROXIMATION}: {self.source}; assumed: {self.assumed}{scaled}"


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "summary": str,
    "logical_bytes": int,
    "physical_bytes": int,
    "page_bytes": int,
    "pages_per_block": int,
    "bits_per_cell": int,
    "slc_static_bytes": int,
    "slc_dynamic": bool,
    "pe_cycles": (int, float),
    "gc": str,
    "source": str,
    "assumed": str,
}


def parse_presets(text: str, origin: str = "sim/presets.toml") -> dict[str, Preset]:
    """Presets from TOML text; a missing or mistyped field is an error naming it."""
    data = parse_toml(text, origin)
    presets = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            raise ValueError(f"preset {name!r} is not a table")
        for field, kind in _FIELDS.items():
            value = table.get(field)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"preset {name!r}: {field} is missing or not {kind}")
        unknown = set(table) - set(_FIELDS)
        if unknown:
            raise ValueError(f"preset {name!r}: unknown field(s) {', '.join(sorted(unknown))}")
        if table["gc"] not in {p.value for p in GcPolicy}:
            raise ValueError(f"preset {name!r}: unknown gc {table['gc']!r}")
        presets[name] = Preset(name=name, **table)
    return presets


def load_presets() -> dict[str, Preset]:
    text = resources.files("ssdlab.sim").joinpath("presets.toml").read_text(encoding="utf-8")
    return parse_presets(text)


def find_preset(name: str) -> Preset:
    """The named preset, or a UsageError listing the known ones."""
    presets = load_presets()
    found = presets.get(name.strip().lower())
    if found is None:
        raise UsageError(
            f"unknown preset {name!r}; known: {', '.join(sorted(presets))} "
            "('ssdlab sim presets' describes them)"
        )
    return found
