//! The value of the field `--keep max:FIELD` / `min:FIELD` chooses by, as one number that
//! orders: a number as it is, an ISO 8601 date or date-time as seconds since 1970-01-01 UTC
//! (so `2024-03-01T23:30:00-02:00` is later than `2024-03-02T00:00:00Z`), a missing or empty
//! value as [`MISSING`] (such a document is kept only when no member has a value).
//!
//! Accepted dates are what crawls, feeds and datasets write: `YYYY-MM-DD`, then optionally
//! `T` or a space and `HH:MM`, `:SS`, a fraction, and `Z` or `±HH[:MM]` (no offset: UTC).
//! A value that is neither a number nor such a date is an error the caller names with its
//! file and line: ranking by a mistyped field silently would keep arbitrary documents.

/// A document without a value.
pub const MISSING: f64 = f64::NAN;

/// The value of a JSON field (`None` or `null`: missing).
pub fn of_json(field: &str, v: Option<&serde_json::Value>) -> Result<f64, String> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(MISSING),
        Some(serde_json::Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| format!("keep field `{field}` holds {n}, not a number")),
        Some(serde_json::Value::String(s)) => of_text(field, s),
        Some(other) => Err(wrong(field, &other.to_string())),
    }
}

/// The value of a text (a CSV cell, a Parquet value read as text; empty: missing).
pub fn of_text(field: &str, s: &str) -> Result<f64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(MISSING);
    }
    if let Ok(x) = t.parse::<f64>()
        && x.is_finite()
    {
        return Ok(x);
    }
    seconds_of_date(t).ok_or_else(|| wrong(field, &format!("{s:?}")))
}

fn wrong(field: &str, shown: &str) -> String {
    format!(
        "keep field `{field}` must hold a number or an ISO 8601 date (2024-03-01, \
         2024-03-01T12:00:00Z), not {shown}"
    )
}

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date or date-time.
pub fn seconds_of_date(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let year = digits(b, 0, 4)? as i64;
    let month = (b.get(4) == Some(&b'-')).then(|| digits(b, 5, 2))??;
    let day = (b.get(7) == Some(&b'-')).then(|| digits(b, 8, 2))??;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut seconds = days_from_civil(year, month, day) as f64 * 86_400.0;
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(seconds);
    }
    let time = rest.strip_prefix(['T', 't', ' '])?;
    let (clock, offset) = split_offset(time)?;
    seconds += seconds_of_clock(clock)? - offset;
    Some(seconds)
}

/// `HH:MM[:SS[.fraction]]` in seconds.
fn seconds_of_clock(clock: &str) -> Option<f64> {
    let b = clock.as_bytes();
    let (hour, minute) = (digits(b, 0, 2)?, digits(b, 3, 2)?);
    if b.get(2) != Some(&b':') || hour > 23 || minute > 59 {
        return None;
    }
    let second = match &clock[5..] {
        "" => 0.0,
        s => {
            let s = s.strip_prefix(':')?;
            let whole = digits(s.as_bytes(), 0, 2)?;
            let fraction = &s[2..];
            if whole > 60
                || !(fraction.is_empty()
                    || fraction.len() > 1
                        && fraction.starts_with(['.', ','])
                        && fraction[1..].bytes().all(|c| c.is_ascii_digit()))
            {
                return None;
            }
            let fraction = match fraction {
                "" => 0.0,
                f => format!("0.{}", &f[1..]).parse::<f64>().ok()?,
            };
            whole as f64 + fraction
        }
    };
    Some(hour as f64 * 3600.0 + minute as f64 * 60.0 + second)
}

/// The clock and its offset from UTC in seconds (`Z` or none: 0).
fn split_offset(time: &str) -> Option<(&str, f64)> {
    if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        return Some((clock, 0.0));
    }
    let Some(at) = time.rfind(['+', '-']) else {
        return Some((time, 0.0));
    };
    let (clock, offset) = time.split_at(at);
    let sign = if offset.starts_with('-') { -1.0 } else { 1.0 };
    let o = &offset.as_bytes()[1..];
    let hours = digits(o, 0, 2)?;
    let minutes = match o.len() {
        2 => 0,
        4 => digits(o, 2, 2)?,
        5 if o[2] == b':' => digits(o, 3, 2)?,
        _ => return None,
    };
    Some((
        clock,
        sign * (hours as f64 * 3600.0 + minutes as f64 * 60.0),
    ))
}

/// The number written by the `n` ASCII digits at `at`.
fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let d = b.get(at..at + n)?;
    d.iter().all(u8::is_ascii_digit).then(|| {
        d.iter()
            .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'))
    })
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms", `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: days counted one by one from 1970-01-01.
    fn days_by_counting(year: i64, month: u32, day: u32) -> i64 {
        let mut days = 0i64;
        for y in 1970..year {
            days += (1..=12).map(|m| days_in_month(y, m) as i64).sum::<i64>();
        }
        days += (1..month)
            .map(|m| days_in_month(year, m) as i64)
            .sum::<i64>();
        days + day as i64 - 1
    }

    #[test]
    fn days_agree_with_counting_them() {
        for year in 1970..2101 {
            for month in 1..=12 {
                for day in [1, 15, days_in_month(year, month)] {
                    assert_eq!(
                        days_from_civil(year, month, day),
                        days_by_counting(year, month, day),
                        "{year}-{month}-{day}"
                    );
                }
            }
        }
    }

    #[test]
    fn dates_become_seconds_since_the_epoch() {
        let cases = [
            ("1970-01-01", 0.0),
            ("1970-01-02", 86_400.0),
            ("2000-03-01T00:00:00Z", 951_868_800.0),
            ("2024-02-29 12:30", 1_709_209_800.0),
            ("2024-02-29T12:30:15.5Z", 1_709_209_815.5),
            ("2024-03-01T23:30:00-02:00", 1_709_343_000.0),
            ("2024-03-02T01:30:00+0000", 1_709_343_000.0),
            ("2024-03-02T03:30:00+02", 1_709_343_000.0),
        ];
        for (s, want) in cases {
            assert_eq!(seconds_of_date(s), Some(want), "{s}");
        }
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "2024-03-01X",
            "2024-03-01T25:00",
            "2024-03-01T12:00:00+5",
            "yesterday",
            "2024-03-01T12:00:00.",
            "2024-03-01Té",
            "2024-03-01T1é:00",
            "2024-03-01T12:0é",
            "2024-03-01T12:00:é",
            "2024-03-01T12:00+é",
            "2024-03-01T12:00:00Zé",
            "2024-03-01T",
            "2024-03-",
        ] {
            assert_eq!(seconds_of_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn values_are_numbers_dates_or_missing() {
        use serde_json::json;
        assert_eq!(of_json("s", Some(&json!(3))), Ok(3.0));
        assert_eq!(of_json("s", Some(&json!(-2.5))), Ok(-2.5));
        assert_eq!(of_json("s", Some(&json!("7"))), Ok(7.0));
        assert_eq!(of_json("d", Some(&json!("1970-01-02"))), Ok(86_400.0));
        assert!(of_json("s", None).unwrap().is_nan());
        assert!(of_json("s", Some(&json!(null))).unwrap().is_nan());
        assert!(of_text("s", " ").unwrap().is_nan());
        for bad in [json!(true), json!([1]), json!("soon"), json!("NaN")] {
            let e = of_json("when", Some(&bad)).unwrap_err();
            assert!(
                e.contains("keep field `when`") && e.contains("ISO 8601"),
                "{e}"
            );
        }
    }
}
