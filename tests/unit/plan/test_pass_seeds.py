"""Each fio pass draws its own seed from the run's (plan/seeds.py): repeatable, distinct from
pass to pass, and only where the plan asks for it."""

from dataclasses import replace

from ssdlab.model.plan import SEED_MAX, FioJob
from ssdlab.plan.pts import plan_pts_hir, plan_pts_iops
from ssdlab.plan.seeds import pass_job, pass_seed, seeded_job
from ssdlab.plan.sweep import plan_sweep
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET

JOB = FioJob(
    global_options=(("filename", "/dev/x"), ("randseed", "20201001"), ("randrepeat", "0")),
    sections=(("a", (("rw", "randwrite"),)), ("b", (("randseed", "7"),))),
)


def test_a_pass_seed_is_repeatable_in_fios_range_and_differs_by_step_round_and_seed() -> None:
    seeds = {pass_seed(s, k, r) for s in (1, 2) for k in ("ws1-a1", "ws1-a2") for r in (1, 2, 3)}
    assert len(seeds) == 12
    assert all(1 <= v <= SEED_MAX for v in seeds)
    assert pass_seed(20201001, "pc", 4) == pass_seed(20201001, "pc", 4)


def test_seeded_job_replaces_every_randseed_and_nothing_else() -> None:
    job = seeded_job(JOB, "ws1-a1", 6)
    assert dict(job.global_options)["randseed"] == str(pass_seed(20201001, "ws1-a1", 6))
    assert dict(job.sections[1][1])["randseed"] == str(pass_seed(7, "ws1-a1", 6))
    assert [n for n, _ in job.global_options] == [n for n, _ in JOB.global_options]
    assert job.sections[0] == JOB.sections[0]
    plain = FioJob(global_options=(("rw", "write"),), sections=())
    assert seeded_job(plain, "x", 1) == plain


def test_pts_plans_seed_each_pass_with_randrepeat_off_and_other_plans_do_not() -> None:
    for plan in (plan_pts_hir({}, DEVICE_TARGET), plan_pts_iops({}, DEVICE_TARGET)):
        assert plan.pass_seeds
        for step in plan.fio_steps:
            assert step.job is not None
            options = dict(step.job.global_options)
            if "randseed" in options:  # fio takes the seed only with randrepeat off (fio #1502)
                assert options["randrepeat"] == "0"
                assert "allrandrepeat" not in options  # it replaces every seed (fio #1391)
    sweep = plan_sweep({}, FILE_TARGET)
    assert not sweep.pass_seeds
    step = sweep.fio_steps[0]
    assert pass_job(sweep, step, 3) is step.job
    pts = plan_pts_hir({}, DEVICE_TARGET)
    first = next(s for s in pts.fio_steps if s.job and "randseed" in dict(s.job.global_options))
    assert pass_job(pts, first, 1) != pass_job(pts, first, 2)
    assert pass_job(replace(pts, pass_seeds=False), first, 2) is first.job
