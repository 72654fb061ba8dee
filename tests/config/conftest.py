# The live tests' fixtures (an in-memory layer, fresh edge books, the host's fake
# clock) serve the tests here that drive a live table (test_metrics.py).
from tests.live.conftest import _fresh_edge, _in_memory_layer, fake_clock  # noqa: F401
