"""Both simulator cores run the same tests; the Rust one is skipped when it is not built."""

import pytest

from ssdlab.sim import available_cores

NO_RUST = "ssdlab_simcore is not built (make install builds it when cargo is available)"
needs_rust = pytest.mark.skipif("rust" not in available_cores(), reason=NO_RUST)


@pytest.fixture(params=["python", pytest.param("rust", marks=needs_rust)])
def core(request: pytest.FixtureRequest) -> str:
    return str(request.param)
