from collections.abc import Callable
from typing import Any

def run(
    job: dict[str, Any], should_stop: Callable[[], bool] | None = None
) -> list[tuple[int, ...]]: ...
