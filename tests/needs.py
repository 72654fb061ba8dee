"""The rule for tests that need a service.

A test that needs Chromium, PostgreSQL or Redis skips with a clear reason when
the service is missing, except under CI=true, where it must run (and so fails).
"""

from __future__ import annotations

import os
import shutil
import socket

import pytest

CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = "/usr/bin/chromium"


def need(available: bool, reason: str) -> None:
    if available:
        return
    if CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def need_chromium() -> None:
    need(os.access(CHROMIUM, os.X_OK) or bool(shutil.which("chromium")),
         f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")


def node() -> str | None:
    """Node.js (20 or later runs the JavaScript engine's tests and the differential test)."""
    return shutil.which("node")


def need_node() -> str:
    found = node()
    need(found is not None, "Node.js is not installed (apt-get install -y nodejs): the JavaScript engine is untested")
    return found  # type: ignore[return-value]
