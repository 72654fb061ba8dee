"""Dates and times as each language writes them (settings.FORMAT_MODULE_PATH; issue 49).

One format per language for each of a time of day (TIME_FORMAT), a date (DATE_FORMAT)
and a date with a time (DATETIME_FORMAT); the SHORT_ ones are the same, so a template or
the admin that asks for either shows the same text. Templates name the format
(``|time:"TIME_FORMAT"``, ``|date:"DATE_FORMAT"``, ``|date:"DATETIME_FORMAT"``), never
a pattern.

Each pattern is what the browser's Intl.DateTimeFormat writes for that language, so the
chat's times, which static/js/datetimes.js writes in the reader's clock, read the same
(tests/js/datetimes.test.js holds the two together). Django's own formats stay for the
rest (input formats, numbers).
"""
