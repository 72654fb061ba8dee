"""Block-Killer: a card game of falling blocks for 3–6 players (RULES.md §4). Each turn a
player may attack another by stacking garbage cards from hand into a 10 × 20 field and
placing block cards in it; line clears make attack, the target answers with a defence
played the same way, and whoever holds more than 12 garbage cards is out.

``engine`` (with its parts ``constants``, ``options``, ``intents``, ``events``,
``cards``, ``field``), ``search`` and ``bot`` are pure Python (standard library only).
"""
