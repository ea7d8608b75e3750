"""Property tests: unit invariance, signs, None propagation and the resolution refusal rule."""

from dataclasses import dataclass

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ssdlab.analysis.waf import MAX_WAF_ERROR_PCT
from ssdlab.analysis.wear import WearReport, compare_samples
from ssdlab.model.health import UNKNOWN, DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.units import GiB, MiB

RESOLUTIONS = st.sampled_from([512.0, 4096.0, 512_000.0, 32.0 * MiB, 1e9, float(GiB)])


@dataclass(frozen=True)
class Pair:
    """Two samples' raw numbers: counts of each counter's resolution, and times."""

    host_res: float
    nand_res: float
    host0: int
    host_steps: int
    nand0: int
    nand_steps: int
    wear0: int
    wear_steps: int
    t0_s: float
    elapsed_s: float

    def samples(
        self,
        *,
        byte_scale: float = 1.0,
        time_scale: float = 1.0,
        drop: frozenset[str] = frozenset(),
    ) -> tuple[HealthSample, HealthSample]:
        def hv(name: str, value: float, resolution: float) -> HealthValue:
            return (
                UNKNOWN
                if name in drop
                else HealthValue(value, Provenance("t", value, "t", resolution))
            )

        def one(t_s: float, host: int, nand: int, wear: int) -> HealthSample:
            return HealthSample(
                taken_at_s=None if "time" in drop else t_s * time_scale,
                identity=DriveIdentity("ATA", "m", "S", "f", None),
                host_written_bytes=hv(
                    "host", host * self.host_res * byte_scale, self.host_res * byte_scale
                ),
                nand_written_bytes=hv(
                    "nand", nand * self.nand_res * byte_scale, self.nand_res * byte_scale
                ),
                wear_used_pct=hv("wear", float(wear), 1.0),
            )

        return (
            one(self.t0_s, self.host0, self.nand0, self.wear0),
            one(
                self.t0_s + self.elapsed_s,
                self.host0 + self.host_steps,
                self.nand0 + self.nand_steps,
                self.wear0 + self.wear_steps,
            ),
        )


pairs = st.builds(
    Pair,
    host_res=RESOLUTIONS,
    nand_res=RESOLUTIONS,
    host0=st.integers(0, 10**7),
    host_steps=st.integers(0, 10**6),
    nand0=st.integers(0, 10**7),
    nand_steps=st.integers(0, 10**6),
    wear0=st.integers(0, 120),
    wear_steps=st.integers(0, 40),
    t0_s=st.floats(0, 2e9),
    elapsed_s=st.floats(60, 1e8),
)


def compare(pair: Pair, **kwargs: float | frozenset[str]) -> WearReport:
    return compare_samples(*pair.samples(**kwargs))  # type: ignore[arg-type]


@given(pairs, st.integers(-10, 20))
def test_scaling_bytes_by_a_power_of_two_changes_no_waf_and_no_decision(pair: Pair, n: int) -> None:
    base, scaled = compare(pair), compare(pair, byte_scale=2.0**n)
    for a, b in ((base.waf, scaled.waf), (base.lifetime_waf, scaled.lifetime_waf)):
        assert a.waf == b.waf  # exact: scaling by 2**n keeps every mantissa
        assert a.quantisation_error_pct == b.quantisation_error_pct
        assert (a.reason is None) == (b.reason is None)
    assert base.wear_rate.pct_per_day == scaled.wear_rate.pct_per_day
    if base.wear_rate.pct_per_host_tb is not None:
        assert scaled.wear_rate.pct_per_host_tb == pytest.approx(
            base.wear_rate.pct_per_host_tb / 2.0**n
        )
    assert base.projection.days_to_eol == scaled.projection.days_to_eol


@given(pairs, st.sampled_from([1e-3, 0.3, 7.0, 1000.0, 1e6]))
def test_scaling_bytes_by_any_factor_keeps_waf(pair: Pair, k: float) -> None:
    base, scaled = compare(pair), compare(pair, byte_scale=k)
    error = base.waf.quantisation_error_pct
    assume(error is None or abs(error - MAX_WAF_ERROR_PCT) > 1e-6)
    assert (base.waf.waf is None) == (scaled.waf.waf is None)
    if base.waf.waf is not None:
        assert scaled.waf.waf == pytest.approx(base.waf.waf, rel=1e-8)  # Δ of large totals


@given(pairs, st.sampled_from([1 / 24, 0.5, 3.0, 100.0]))
def test_scaling_time_by_k_scales_rates_by_one_over_k(pair: Pair, k: float) -> None:
    base, slow = compare(pair), compare(pair, time_scale=k)
    assert base.waf.waf == slow.waf.waf
    assert base.wear_rate.pct_per_host_tb == slow.wear_rate.pct_per_host_tb
    if base.wear_rate.pct_per_day is None:
        assert slow.wear_rate.pct_per_day is None
    else:
        assert slow.wear_rate.pct_per_day == pytest.approx(base.wear_rate.pct_per_day / k)
        assert slow.projection.days_to_eol == pytest.approx(
            base.projection.days_to_eol * k  # type: ignore[operator]
        )
    if base.host_written_bytes_per_day is not None:
        assert slow.host_written_bytes_per_day == pytest.approx(base.host_written_bytes_per_day / k)


@given(pairs)
def test_monotonic_counters_give_non_negative_results(pair: Pair) -> None:
    report = compare(pair)
    values = [
        report.waf.waf,
        report.lifetime_waf.waf,
        report.wear_rate.pct_per_day,
        report.wear_rate.pct_per_host_tb,
        report.projection.days_to_eol,
        report.host_written_bytes_per_day,
        report.host_written_bytes.delta,
        report.nand_written_bytes.delta,
    ]
    assert all(v is None or v >= 0 for v in values)


@given(pairs, st.sets(st.sampled_from(["host", "nand", "wear", "time"])))
def test_missing_inputs_give_none_with_a_reason_never_zero(pair: Pair, drop: set[str]) -> None:
    report = compare(pair, drop=frozenset(drop))
    for estimate in (report.waf, report.lifetime_waf, report.erase_count_waf):
        assert (estimate.waf is None) == (estimate.reason is not None)
    rate, projection = report.wear_rate, report.projection
    if rate.pct_per_day is None and rate.pct_per_host_tb is None:
        assert rate.reason
    elif rate.pct_per_day is None or rate.pct_per_host_tb is None:
        assert rate.notes
    if projection.days_to_eol is None or projection.host_written_at_eol_bytes is None:
        assert projection.reason or projection.notes
    if drop & {"host", "nand"}:
        assert report.waf.waf is None
    if "host" in drop:
        assert rate.pct_per_host_tb is None
        assert report.host_written_bytes_per_day is None
        assert report.lifetime_waf.waf is None
    if "wear" in drop:  # no erase counts or rated P/E either: nothing to fall back to
        assert rate.pct_per_day is None
        assert rate.reason
        assert projection.days_to_eol is None
    if "time" in drop:
        assert rate.pct_per_day is None
        assert report.elapsed_s is None
        assert report.elapsed_reason


@given(
    RESOLUTIONS,
    RESOLUTIONS,
    st.floats(0.2, 10.0),
    st.floats(0.0, 1e12),
)
def test_refused_just_below_the_threshold_and_computed_just_above(
    host_res: float, nand_res: float, waf: float, start: float
) -> None:
    # e = r_host/Δhost + r_nand/Δnand = 5 % exactly at Δhost = (r_host + r_nand / waf) / 5 %
    threshold = (host_res + nand_res / waf) / (MAX_WAF_ERROR_PCT / 100)

    def estimate(host_delta: float) -> float | None:
        before = HealthSample(
            0.0,
            DriveIdentity(None, None, None, None, None),
            host_written_bytes=HealthValue(start, Provenance("t", 0, "t", host_res)),
            nand_written_bytes=HealthValue(start, Provenance("t", 0, "t", nand_res)),
        )
        after = HealthSample(
            60.0,
            DriveIdentity(None, None, None, None, None),
            host_written_bytes=HealthValue(start + host_delta, Provenance("t", 0, "t", host_res)),
            nand_written_bytes=HealthValue(
                start + host_delta * waf, Provenance("t", 0, "t", nand_res)
            ),
        )
        return compare_samples(before, after).waf.waf

    assert estimate(threshold * 0.99) is None
    computed = estimate(threshold * 1.01)
    assert computed == pytest.approx(waf, rel=1e-6)


@given(pairs, st.integers(1, 10**6))
def test_a_counter_that_goes_down_is_refused(pair: Pair, drop_steps: int) -> None:
    before, after = pair.samples()
    host_after = before.host_written_bytes.value - drop_steps * pair.host_res  # type: ignore[operator]
    assume(host_after >= 0)
    went_down = HealthSample(
        after.taken_at_s,
        after.identity,
        host_written_bytes=HealthValue(host_after, before.host_written_bytes.provenance),
        nand_written_bytes=after.nand_written_bytes,
        wear_used_pct=after.wear_used_pct,
    )
    report = compare_samples(before, went_down)
    assert report.host_written_bytes.delta is None
    assert report.host_written_bytes.decreased
    assert report.waf.waf is None
    assert "went down" in (report.waf.reason or "")
    assert report.wear_rate.pct_per_host_tb is None
