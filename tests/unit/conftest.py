"""Engine unit tests need no Django: run them with ``-p no:django`` if you like.

The root conftest's autouse fixture asks for pytest-django's ``settings``; engine
tests never hash passwords, so here it is replaced by one that needs nothing.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing():
    yield
