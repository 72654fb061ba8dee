"""A URLconf with a view that crashes, to exercise the 500 page."""

from __future__ import annotations

from django.urls import path


def boom(request):
    raise RuntimeError("boom")


urlpatterns = [path("boom/", boom)]
