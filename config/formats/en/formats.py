# "3:29 PM", "Nov 29, 2026", "Nov 29, 2026, 3:29 PM" (config/formats/__init__.py).
# Not Django's "P" and "N": "3:29 p.m.", "noon" and "Nov." are not what browsers write.
TIME_FORMAT = "g:i A"
DATE_FORMAT = "M j, Y"
DATETIME_FORMAT = f"{DATE_FORMAT}, {TIME_FORMAT}"
SHORT_DATE_FORMAT = DATE_FORMAT
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
