// Dates and times as the server writes them (config/formats/<language>/formats.py), in
// the reader's clock: one format per language for a time of day, a date, and a date with
// a time. Each language's options make Intl write exactly the server's pattern for the
// same instant and time zone (tests/js/datetimes.test.js, tests/config/test_date_formats.py).
const HOUR_12 = { hour: "numeric", minute: "2-digit", hourCycle: "h12" }; // g:i A
const HOUR_24 = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }; // H:i
const DAY_MONTH_YEAR = { year: "numeric", month: "2-digit", day: "2-digit" }; // d.m.Y, d/m/Y

const FORMATS = {
  en: { time: HOUR_12, date: { year: "numeric", month: "short", day: "numeric" } }, // M j, Y
  de: { time: HOUR_24, date: DAY_MONTH_YEAR },
  es: { time: HOUR_24, date: DAY_MONTH_YEAR },
  "zh-hans": { time: HOUR_24, date: { year: "numeric", month: "long", day: "numeric" } }, // Y年n月j日
};

// `kind` is "time", "date" or "datetime" (TIME_FORMAT, DATE_FORMAT, DATETIME_FORMAT);
// `timeZone` is the reader's unless given. Text that is no date comes back as it is.
export function whenText(iso, language, kind = "time", timeZone = undefined) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  const locale = String(language || "").toLowerCase() in FORMATS ? String(language).toLowerCase() : "en";
  const formats = FORMATS[locale];
  const options = kind === "datetime" ? { ...formats.date, ...formats.time } : formats[kind] || formats.time;
  // Newer ICU puts a narrow no-break space before AM/PM; the server writes a space.
  return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(when).replace(/\u202f/g, " ");
}
