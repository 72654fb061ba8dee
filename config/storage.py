"""Static files as WhiteNoise serves them, each URL worked out once per process.

The manifest storage reads its manifest once, when the process starts, and never
again; yet every ``{% static %}`` looks the name up in it, cleans the name and joins
it to ``STATIC_URL`` (``urljoin``) again: seven times a table page (the stylesheet,
htmx and its extension, the scripts, the icon), some 50 µs of a page's 1.5 ms. While the
manifest cannot change, neither can the answer, so it is kept. A name the manifest
lacks still raises, every time, as it does in Django.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.urls: dict[str, str] = {}

    def url(self, name: str, force: bool = False) -> str:
        if force:
            return super().url(name, force)
        url = self.urls.get(name)
        if url is None:
            url = self.urls[name] = super().url(name)
        return url
