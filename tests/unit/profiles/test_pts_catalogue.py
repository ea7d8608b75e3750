"""The PTS catalogue holds the reference's tables (../shared/reference/pts.md §1, §2, §3)."""

from importlib import resources

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.plan import Pattern
from ssdlab.model.units import KiB
from ssdlab.profiles.pts import (
    DeviceClass,
    PtsElement,
    TrackingMetric,
    TrackingVariable,
    WriteCache,
    block_label,
    load_pts_catalogue,
    parse_pts_catalogue,
)

CATALOGUE = load_pts_catalogue()
TEXT = resources.files("ssdlab.profiles").joinpath("pts.toml").read_text(encoding="utf-8")
E, C = DeviceClass.ENTERPRISE, DeviceClass.CLIENT

# pts.md §1.3 / §3.1: R/W mix outer loop, block size inner loop, in this order.
IOPS_MIXES = [100, 95, 65, 50, 35, 5, 0]
IOPS_SIZES = [1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512]


def test_default_spec_is_2_0_2_and_both_versions_are_present() -> None:
    assert CATALOGUE.default_spec == "2.0.2"
    assert set(CATALOGUE.specs) == {"2.0.2", "1.1"}
    assert CATALOGUE.test("iops").spec_version == "2.0.2"
    assert CATALOGUE.test("iops").device_class is E


@pytest.mark.parametrize(
    ("spec", "device_class"), [("2.0.2", E), ("2.0.2", C), ("1.1", E)], ids=str
)
def test_iops_round_is_56_elements_in_spec_order(spec: str, device_class: DeviceClass) -> None:
    test = CATALOGUE.test("iops", spec=spec, device_class=device_class)
    (round_,) = test.sub_tests()
    assert len(round_) == 56
    assert [(e.rwmix_read_pct, e.block_size_bytes) for e in round_] == [
        (mix, size) for mix in IOPS_MIXES for size in IOPS_SIZES
    ]
    assert all(e.pattern is Pattern.RND and e.duration_s == 60 for e in round_)
    assert round_[0].label == "RND 1024KiB 100/0"
    assert round_[7].label == "RND 0.5KiB 100/0"
    assert round_[8].label == "RND 1024KiB 95/5"
    assert round_[-1].label == "RND 0.5KiB 0/100"
    assert test.round_s == 56 * 60


def test_iops_tracking_variables_by_version() -> None:
    # pts.md §2.3: v1.1 tracks RND 4KiB 0/100 only; 2.0.x tracks three, all must pass.
    v11 = CATALOGUE.test("iops", spec="1.1")
    assert v11.tracking == (TrackingVariable(TrackingMetric.IOPS, 0, 4 * KiB),)
    for device_class in (E, C):
        v2 = CATALOGUE.test("iops", spec="2.0.2", device_class=device_class)
        assert v2.tracking == (
            TrackingVariable(TrackingMetric.IOPS, 0, 4 * KiB),
            TrackingVariable(TrackingMetric.IOPS, 65, 64 * KiB),
            TrackingVariable(TrackingMetric.IOPS, 100, 1024 * KiB),
        )
    assert [v.name for v in CATALOGUE.test("iops").tracking] == [
        "iops 0/100 4KiB",
        "iops 65/35 64KiB",
        "iops 100/0 1024KiB",
    ]


def test_class_settings() -> None:
    # pts.md §1.4: PTS-E AR 100 % with write cache disabled; PTS-C AR 75 % with it enabled.
    for spec in CATALOGUE.specs.values():
        for test in spec.tests:
            if test.device_class is E:
                assert (test.active_range_pct, test.write_cache) == (100, WriteCache.DISABLED)
            else:
                assert (test.active_range_pct, test.write_cache) == (75, WriteCache.ENABLED)
            assert test.data_pattern == "random"


def test_threads_and_queue_depth_are_not_swapped() -> None:
    # pts.md §1.4, v2.0.x recommended: IOPS E TC4/QD32, C TC2/QD16; TP TC1/QD32; LAT TC1/QD1;
    # WSAT and HIR as IOPS; XSR TC1/QD32. threads = TC (numjobs), iodepth = QD.
    expected = {
        ("iops", E): (4, 32),
        ("iops", C): (2, 16),
        ("tp", E): (1, 32),
        ("tp", C): (1, 32),
        ("lat", E): (1, 1),
        ("lat", C): (1, 1),
        ("wsat", E): (4, 32),
        ("wsat", C): (2, 16),
        ("hir", E): (4, 32),
        ("hir", C): (2, 16),
        ("xsr", E): (1, 32),
    }
    found = {
        (t.name, t.device_class): (t.threads, t.iodepth) for t in CATALOGUE.specs["2.0.2"].tests
    }
    assert found == expected


def test_v1_1_leaves_tc_and_qd_to_the_operator_except_latency() -> None:
    # pts.md §1.4: "Test Operator Choice" for IOPS/TP/WSAT/HIR; Latency fixed TC=1/QD=1.
    tests = {t.name: t for t in CATALOGUE.specs["1.1"].tests}
    assert set(tests) == {"iops", "tp", "lat", "wsat", "hir", "xsr"}
    for name in ("iops", "tp", "wsat", "hir", "xsr"):
        assert (tests[name].threads, tests[name].iodepth) == (None, None)
    assert (tests["lat"].threads, tests["lat"].iodepth) == (1, 1)
    # PTS-E 1.1 is Enterprise-only (pts.md §0).
    assert all(t.device_class is E for t in tests.values())
    with pytest.raises(UsageError, match="no client test 'iops'"):
        CATALOGUE.test("iops", spec="1.1", device_class=C)


def test_wipc() -> None:
    # pts.md §1.2: 2X user capacity, 128KiB SEQ writes; v2 IOPS E TC4/QD32, C TC2/QD16;
    # v1.1 TC/QD operator choice; TP WIPC at the test block size.
    for device_class, tc_qd in ((E, (4, 32)), (C, (2, 16))):
        wipc = CATALOGUE.test("iops", device_class=device_class).wipc
        assert wipc is not None
        assert (wipc.pattern, wipc.rwmix_read_pct, wipc.block_size_bytes) == (
            Pattern.SEQ,
            0,
            128 * KiB,
        )
        assert wipc.capacity_multiple == 2
        assert (wipc.threads, wipc.iodepth) == tc_qd
    v11 = CATALOGUE.test("iops", spec="1.1").wipc
    assert v11 is not None
    assert (v11.threads, v11.iodepth) == (None, None)
    for spec in ("2.0.2", "1.1"):
        tp_wipc = CATALOGUE.test("tp", spec=spec).wipc
        assert tp_wipc is not None
        assert tp_wipc.block_size_bytes is None
        lat_wipc = CATALOGUE.test("lat", spec=spec).wipc
        assert lat_wipc is not None
        assert lat_wipc.block_size_bytes == 128 * KiB
    # WSAT, HIR and XSR start from purge (FOB) without WIPC.
    for name in ("wsat", "hir", "xsr"):
        assert CATALOGUE.test(name).wipc is None
        assert CATALOGUE.test(name, spec="1.1").wipc is None


@pytest.mark.parametrize("spec", ["2.0.2", "1.1"])
def test_throughput_sub_tests_per_block_size(spec: str) -> None:
    # pts.md §3.2: per block size (128 KiB, then 1024 KiB) purge, WIPC, rounds of SEQ read then
    # SEQ write, 1 minute each; tracking: write MB/s of the block size under test.
    test = CATALOGUE.test("tp", spec=spec)
    assert test.block_size_per_sub_test
    assert [[e.label for e in sub] for sub in test.sub_tests()] == [
        ["SEQ 128KiB 100/0", "SEQ 128KiB 0/100"],
        ["SEQ 1024KiB 100/0", "SEQ 1024KiB 0/100"],
    ]
    assert test.round_s == 120
    assert test.tracking_for(1024 * KiB) == (TrackingVariable(TrackingMetric.BW, 0, 1024 * KiB),)
    with pytest.raises(ValueError, match="sub-test block sizes"):
        test.tracking_for(4 * KiB)
    assert CATALOGUE.test("tp", device_class=C).block_sizes_bytes == (128 * KiB, 1024 * KiB)


@pytest.mark.parametrize("spec", ["2.0.2", "1.1"])
def test_latency_is_3_block_sizes_by_3_mixes(spec: str) -> None:
    # pts.md §3.3: R/W 100/0, 65/35, 0/100 (outer) × BS 8, 4, 0.5 KiB (inner), 1 min each.
    test = CATALOGUE.test("lat", spec=spec)
    (round_,) = test.sub_tests()
    assert [(e.rwmix_read_pct, e.block_size_bytes) for e in round_] == [
        (mix, size) for mix in (100, 65, 0) for size in (8 * KiB, 4 * KiB, 512)
    ]
    assert test.round_s == 9 * 60
    assert test.tracking == (TrackingVariable(TrackingMetric.LAT_MEAN, 0, 4 * KiB),)


def test_latency_v2_adds_five_nines_and_a_histogram_run() -> None:
    # pts.md §3.3: v2.x adds the 99.999th percentile and a 20-minute RND 4KiB 0/100 run.
    v2 = CATALOGUE.test("lat")
    assert v2.latency_percentiles == (99.999,)
    assert v2.histogram == PtsElement(Pattern.RND, 0, 4 * KiB, 1200.0)
    v11 = CATALOGUE.test("lat", spec="1.1")
    assert v11.latency_percentiles == ()
    assert v11.histogram is None


def test_steady_state_rule() -> None:
    # pts.md §1.3, §2.1: 5-round window, 20 % data / 10 % slope excursion, 25 rounds, both versions.
    for spec in CATALOGUE.specs.values():
        rule = spec.steady_state
        assert (rule.window_rounds, rule.max_rounds) == (5, 25)
        assert (rule.max_data_excursion_pct, rule.max_slope_excursion_pct) == (20.0, 10.0)
        for test in spec.tests:
            if test.name in ("iops", "tp", "lat", "hir"):
                assert test.steady_state == rule
                assert test.tracking
            else:
                assert test.steady_state is None
                assert test.tracking == ()


def test_wsat() -> None:
    # pts.md §3.4: RND 4KiB 100 % W in 1-minute rounds, stop at 4X capacity or 24 h.
    for spec in ("2.0.2", "1.1"):
        test = CATALOGUE.test("wsat", spec=spec)
        assert [e.label for (e,) in test.sub_tests()] == ["RND 4KiB 0/100"]
        assert test.element_s == 60
        assert test.stop is not None
        assert (test.stop.capacity_multiple, test.stop.max_duration_s) == (4, 86400.0)
    assert CATALOGUE.test("wsat").histogram == PtsElement(Pattern.RND, 0, 4 * KiB, 1200.0)


def test_hir() -> None:
    # pts.md §3.5: wait states 1, 2, 3, 5, 10 = 5, 10, 15, 25, 50 s idle after each 5-s access,
    # 360 times; then 360 × 5 s = 1800 s of continuous baseline writes. The preconditioning round
    # length differs between implementations, so it is unknown (None).
    test = CATALOGUE.test("hir")
    assert test.hir is not None
    assert test.hir.wait_states == (1, 2, 3, 5, 10)
    assert test.hir.wait_s == (5.0, 10.0, 15.0, 25.0, 50.0)
    assert (test.hir.access_s, test.hir.access_repeats) == (5.0, 360)
    assert test.hir.baseline_repeats * test.hir.access_s == 1800
    assert test.tracking == (TrackingVariable(TrackingMetric.IOPS, 0, 4 * KiB),)
    assert test.element_s is None
    assert test.round_s is None


def test_xsr_access_groups() -> None:
    # pts.md §3.6: SEQ 1024KiB W 8 h → RND 8KiB W 6 h → SEQ 1024KiB W 8 h, one sample a minute.
    test = CATALOGUE.test("xsr")
    assert [(g.label, g.duration_s) for g in test.access_groups] == [
        ("SEQ 1024KiB 0/100", 8 * 3600.0),
        ("RND 8KiB 0/100", 6 * 3600.0),
        ("SEQ 1024KiB 0/100", 8 * 3600.0),
    ]
    assert test.sample_s == 60
    assert test.sub_tests() == ()
    with pytest.raises(UsageError, match="no client test 'xsr'"):
        CATALOGUE.test("xsr", device_class=C)


def test_every_test_names_its_source() -> None:
    for spec in CATALOGUE.specs.values():
        for test in spec.tests:
            assert "pts.md §" in test.source, (spec.version, test.name)


def test_block_label() -> None:
    assert [block_label(s) for s in (512, 4 * KiB, 1024 * KiB, 1536)] == [
        "0.5KiB",
        "4KiB",
        "1024KiB",
        "1.5KiB",
    ]


def test_unknown_names_are_usage_errors() -> None:
    with pytest.raises(UsageError, match=r"unknown PTS version '3\.0'"):
        CATALOGUE.test("iops", spec="3.0")
    with pytest.raises(UsageError, match="choose one of: iops, tp, lat, wsat, hir, xsr"):
        CATALOGUE.test("dirth")


# --- validation: a bad entry is named -------------------------------------------------------


def edited(old: str, new: str, count: int = 1) -> str:
    assert old in TEXT, old
    return TEXT.replace(old, new, count)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (edited('default_spec = "2.0.2"', 'default_spec = "9"'), "default_spec '9'"),
        (
            edited("rwmix_read_pct = [100, 95, 65, 50, 35, 5, 0]", "rwmix_read_pct = [100, 101]"),
            r"specs\.2\.0\.2\.tests\.iops\.per_class\.enterprise\.rwmix_read_pct",
        ),
        (
            edited('"0.5KiB"]', '"0.3KiB"]'),
            r"tests\.iops\.per_class\.enterprise\.block_sizes: '0\.3KiB'",
        ),
        (edited('"0.5KiB"]', '"half"]'), r"block_sizes: 'half' is not a size"),
        (edited('"1024KiB", "128KiB",', '"1024KiB", "1024KiB",'), "repeats a value"),
        (
            edited("threads = 4\niodepth = 32", "threads = 0\niodepth = 32"),
            r"tests\.iops\.per_class\.enterprise\.threads must be a whole number ≥ 1",
        ),
        (
            edited('write_cache = "disabled"', 'write_cache = "off"'),
            r"specs\.2\.0\.2\.classes\.enterprise\.write_cache: 'off' is not one of",
        ),
        (
            edited(
                '{ metric = "iops", rwmix_read_pct = 65', '{ metric = "iops", rwmix_read_pct = 70'
            ),
            r"tracking\[1\]: R/W mix 70 is not one of the test's mixes",
        ),
        (
            edited('block_size = "64KiB" }', 'block_size = "2KiB" }'),
            r"tracking\[1\]: block size 2KiB is not one of the test's",
        ),
        (
            edited(
                '{ metric = "iops", rwmix_read_pct = 0', '{ metric = "mbps", rwmix_read_pct = 0'
            ),
            r"tracking\[0\]\.metric: 'mbps'",
        ),
        (edited("element_s = 60", "element_s = 60\nelemnt_s = 60"), "unknown key.*elemnt_s"),
        (edited("max_slope_excursion_pct = 10", "max_slope_excursion_pct = 0"), "percentage"),
        (edited("max_rounds = 25", "max_rounds = 4"), r"steady_state\.max_rounds"),
        (edited("wait_s = [5, 10, 15, 25, 50]", "wait_s = [5, 10]"), "equal length"),
        (
            edited(
                '[specs."2.0.2".tests.tp.per_class.enterprise]',
                '[specs."2.0.2".tests.tp.per_class.server]',
            ),
            r"tests\.tp\.per_class\.server: 'server' is not one of",
        ),
        (
            TEXT.replace(
                '[specs."1.1".tests.iops.per_class.enterprise]',
                '[specs."1.1".tests.iops.per_class.client]',
            ),
            r"specs\.1\.1\.tests\.iops\.per_class\.client: class 'client' is not in",
        ),
    ],
)
def test_bad_entries_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_pts_catalogue(text)


def test_steady_state_flag_must_match_tracking() -> None:
    text = edited(
        "steady_state = false\nstop = { capacity_multiple = 4, max_duration_s = 86400 }\nhistogram",
        "steady_state = true\nstop = { capacity_multiple = 4, max_duration_s = 86400 }\nhistogram",
    )
    with pytest.raises(
        ValueError, match=r"tests\.wsat\.per_class\.enterprise: steady_state = true"
    ):
        parse_pts_catalogue(text)
