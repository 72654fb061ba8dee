// The chat's times (static/js/datetimes.js) as the server writes the same instant
// (config/formats; tests/config/test_date_formats.py checks the server's side).
import { test } from "node:test";
import assert from "node:assert/strict";
import { whenText } from "../../static/js/datetimes.js";

const AT = "2026-11-29T15:29:00+00:00";
const EXPECTED = {
  en: ["3:29 PM", "Nov 29, 2026", "Nov 29, 2026, 3:29 PM"],
  de: ["15:29", "29.11.2026", "29.11.2026, 15:29"],
  es: ["15:29", "29/11/2026", "29/11/2026, 15:29"],
  "zh-hans": ["15:29", "2026年11月29日", "2026年11月29日 15:29"],
};

for (const [language, [time, date, datetime]] of Object.entries(EXPECTED)) {
  test(`${language}: one format for a time, a date, and both`, () => {
    assert.equal(whenText(AT, language, "time", "UTC"), time);
    assert.equal(whenText(AT, language, "date", "UTC"), date);
    assert.equal(whenText(AT, language, "datetime", "UTC"), datetime);
  });
}

test("midnight on a 12-hour clock is 12, a morning hour on a 24-hour clock has two digits", () => {
  assert.equal(whenText("2026-09-05T00:05:00Z", "en", "time", "UTC"), "12:05 AM");
  assert.equal(whenText("2026-09-05T09:05:00Z", "de", "time", "UTC"), "09:05");
});

test("the reader's clock: the same instant in another time zone", () => {
  assert.equal(whenText(AT, "de", "time", "Europe/Berlin"), "16:29");
});

test("a language the site does not speak is written as English; no date comes back as it is", () => {
  assert.equal(whenText(AT, "", "time", "UTC"), "3:29 PM");
  assert.equal(whenText("soon", "de"), "soon");
});
