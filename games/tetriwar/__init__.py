"""TetriWar: real-time falling blocks for 1–4 players, with bombs (RULES.md §1).

``engine`` is pure Python (standard library only); Django code lives elsewhere.
"""
