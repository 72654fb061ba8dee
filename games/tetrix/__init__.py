"""Te-Trix: a dice game of tetrominoes on paper for 1–4 players, and solo (RULES.md §5).
In turn one player rolls four dice of circles, squares and crosses and arranges them
into a tetromino; every player writes that same shape with the same symbols on their
own 7 × 7 sheet, turned but never mirrored. Areas of five or more equal symbols score:
for each symbol, the number of such areas × the cells in them.

``engine`` (with its parts ``constants``, ``options``, ``intents``, ``events`` and
``sheet``) and ``bot`` are pure Python (standard library only).
"""
