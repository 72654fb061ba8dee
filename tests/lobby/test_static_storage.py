"""Static URLs worked out once per process (config/storage.py)."""

from __future__ import annotations

import pytest

from config.storage import StaticFilesStorage


@pytest.fixture
def storage(tmp_path):
    storage = StaticFilesStorage(location=str(tmp_path), base_url="/static/")
    storage.hashed_files = {"css/site.css": "css/site.0123abcd.css"}  # as the manifest says
    return storage


def test_a_url_is_the_manifest_s_and_is_worked_out_once(storage, monkeypatch):
    looked_up = []
    stored_name = StaticFilesStorage.stored_name
    monkeypatch.setattr(
        StaticFilesStorage,
        "stored_name",
        lambda self, name: looked_up.append(name) or stored_name(self, name),
    )
    assert storage.url("css/site.css") == "/static/css/site.0123abcd.css"
    assert storage.url("css/site.css") == "/static/css/site.0123abcd.css"
    assert looked_up == ["css/site.css"]


def test_a_name_the_manifest_lacks_still_raises_every_time(storage):
    for _ in range(2):
        with pytest.raises(ValueError, match="Missing staticfiles manifest entry"):
            storage.url("js/nowhere.js")
    assert "js/nowhere.js" not in storage.urls
