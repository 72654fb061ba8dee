"""Viertris: connect four on an 8 × 6 board where lines of 4 vanish, Tetris-like, and
cascades score double, triple... for 2–4 players taking turns (RULES.md §2).

``engine`` (with its parts ``options``, ``intents``, ``events`` and ``board``) and ``bot``
are pure Python (standard library only); Django code lives elsewhere.
"""
