"""Third Option: pen-and-paper Tetris for 1–12 players (RULES.md §3). Each fills a 9 × 9
grid with the shapes of the two cards revealed each round, all at the same time; a
player for whom neither fits gets a third card of their own, and is out if that one
does not fit either. Fewest empty squares wins.

``engine`` (with its parts ``constants``, ``options``, ``intents``, ``events`` and
``board``) and ``bot`` are pure Python (standard library only); Django code lives in
``live`` and ``forms``.
"""
