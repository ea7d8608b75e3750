"""Replayed thermal series whose truth is known: a drive that heats while it works at full speed
and cools while throttled, throttling when its reading reaches `onset_c` and leaving throttle
when its reading falls below `exit_c`, as OCP TTHROTTLE-5/-7 describe.

The drive reads its composite temperature once a second (rounded to `decimals`, whole degrees as
NVMe reports) and decides on that reading; the second in which it changes state is a mix of the
two speeds (the change falls anywhere inside it), as fio's per-second average would show it.
Throughput noise is Gaussian with a coefficient of variation `cv` of the full speed.
"""

import numpy as np

from ssdlab.analysis.thermal import ThermalPoint

FULL_BYTES_PER_S = 2e9


def drive_series(
    seed: int,
    *,
    onset_c: float = 77.0,
    exit_c: float = 75.0,
    ratio: float = 0.5,
    seconds: int = 600,
    cv: float = 0.05,
    decimals: int = 0,
    start_c: float = 55.0,
    heats_to_c: float = 95.0,
    cools_to_c: float = 65.0,
    rate_per_s: float = 0.01,
) -> list[ThermalPoint]:
    rng = np.random.default_rng(seed)
    temperature = start_c
    throttled = False
    points = []
    for i in range(seconds):
        reading = round(temperature, decimals)
        now = reading >= (exit_c if throttled else onset_c)
        share_new = rng.uniform() if now != throttled else 1.0
        speed_new = FULL_BYTES_PER_S * (ratio if now else 1.0)
        speed_old = FULL_BYTES_PER_S * (ratio if throttled else 1.0)
        bw = share_new * speed_new + (1 - share_new) * speed_old
        bw += rng.normal(0.0, cv * FULL_BYTES_PER_S)
        throttled = now
        points.append(ThermalPoint(float(i), float(reading), bw))
        target = cools_to_c if throttled else heats_to_c
        temperature += (target - temperature) * rate_per_s
    return points


def flat_series(
    seed: int, *, seconds: int = 600, cv: float = 0.05, phi: float = 0.0
) -> list[ThermalPoint]:
    """No throttling: full speed with AR(1) noise (`phi` the correlation of neighbouring
    seconds), the temperature climbing slowly from 50 to 80 °C."""
    rng = np.random.default_rng(seed)
    noise = 0.0
    points = []
    for i in range(seconds):
        noise = phi * noise + rng.normal(0.0, cv * np.sqrt(1 - phi * phi))
        temperature = round(50.0 + 30.0 * i / seconds)
        points.append(ThermalPoint(float(i), float(temperature), FULL_BYTES_PER_S * (1 + noise)))
    return points
