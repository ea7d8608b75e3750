"""A model's prediction held against a measured run of the same workload (`ssdlab model
verify MODEL RUN`): the figures the run measures, with the run's own intervals where they
exist, and each figure's error — absolute, relative, and whether the measurement lies in the
prediction's interval (docs/model-fit.md, *Verifying*). Pure: the run's figures are read by
app/model_predict.py."""

from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.model_predict import Figure, Prediction, relative


@dataclass(frozen=True, slots=True)
class Comparison:
    name: str
    unit: str
    predicted: Figure
    measured: Figure
    error: float | None  # measured − predicted
    relative_error: float | None  # (predicted − measured) ÷ measured: the prediction's error
    inside: bool | None  # the measurement lies in the prediction's interval
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
        if p.value is None:
            reason = f"not predicted: {p.reason}"
        elif m.value is None:
            reason = f"not measured: {m.reason}"
        error = m.value - p.value if m.value is not None and p.value is not None else None
        inside = None
        if m.value is not None and p.value is not None and p.low is not None:
            high = p.high if p.high is not None else float("inf")
            inside = p.low <= m.value <= high
        rows.append(
            Comparison(p.name, p.unit, p, m, error, relative(p.value, m.value), inside, reason)
        )
    return tuple(rows)
