"""A model's prediction held against a measured run of the same workload (`ssdlab model
verify MODEL RUN`): the figures the run measures, with the run's own intervals where they
exist, and each figure's error — absolute, relative, and whether the measurement lies in the
prediction's interval (docs/model-fit.md, *Verifying*). Pure: the run's figures are read by
app/model_predict.py."""

from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.model_predict import DAYS, WAF, Figure, Prediction, relative

NO_NAND_WAF = (
    "the drive reports no NAND writes: WAF cannot be verified on it (a drive with a "
    "NAND-written counter can: docs/model-fit.md, *On a real drive*)"
)
NO_NAND_DAYS = "days to end of life follow from WAF, which cannot be verified on this drive"


def unverifiable(nand_counter: bool | None) -> tuple[tuple[str, str], ...]:
    """(figure, why) for what a run of a drive cannot verify: WAF and the days that follow
    from it when the drive reports no NAND writes (`nand_counter` False)."""
    return ((WAF, NO_NAND_WAF), (DAYS, NO_NAND_DAYS)) if nand_counter is False else ()


@dataclass(frozen=True, slots=True)
class Comparison:
    name: str
    unit: str
    predicted: Figure
    measured: Figure
    error: float | None  # measured − predicted
    relative_error: float | None  # (predicted − measured) ÷ measured: the prediction's error
    inside: bool | None  # the measurement lies in the prediction's interval (or assumed range)
    reason: str | None = None


def compare(prediction: Prediction, measured: Sequence[Figure]) -> tuple[Comparison, ...]:
    """One row a measured figure, in the prediction's order; a figure the run does not
    measure is left out."""
    by_name = {m.name: m for m in measured}
    rows: list[Comparison] = []
    for p in prediction.figures:
        m = by_name.get(p.name)
        if m is None:
            continue
        reason = None
        if p.value is None and not p.assumed:
            reason = f"not predicted: {p.reason}"
        elif m.value is None:
            reason = f"not measured: {m.reason}"
        elif p.assumed:
            reason = f"predicted over an assumed range only: {p.reason}"
        error = m.value - p.value if m.value is not None and p.value is not None else None
        inside = None
        if m.value is not None and (p.value is not None or p.assumed) and p.low is not None:
            high = p.high if p.high is not None else float("inf")
            inside = p.low <= m.value <= high
        rows.append(
            Comparison(p.name, p.unit, p, m, error, relative(p.value, m.value), inside, reason)
        )
    return tuple(rows)
