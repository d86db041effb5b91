//! Byte sizes as people write them (`4GiB`, `500MB`, `1.5e9`) and as the tools print them
//! (`1.5 GB`). No dependencies, so every module (errors included) can use it.

/// Parses a size: a number with an optional unit B, KB, MB, GB, TB (powers of 1000) or KiB,
/// MiB, GiB, TiB (powers of 1024); case-insensitive, a space allowed before the unit.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim());
    let value: f64 = num.parse().map_err(|_| {
        format!("`{s}` is not a size (a number, then B, KB, MB, GB, KiB, MiB, GiB…)")
    })?;
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "`{s}`: unknown unit `{other}` (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ));
        }
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{s}` is not a size between 1 byte and 16 EiB"));
    }
    Ok(bytes.round() as u64)
}

/// `1.5 GB`, `830 MB`, `12 kB`, `512 B` (powers of 1000).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_bytes("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_bytes("500 MB").unwrap(), 500_000_000);
        assert_eq!(parse_bytes("1.5gb").unwrap(), 1_500_000_000);
        assert_eq!(parse_bytes("123").unwrap(), 123);
        assert!(parse_bytes("abc").unwrap_err().contains("not a size"));
        assert!(
            parse_bytes("4 parsecs")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_bytes("0").is_err());
        assert_eq!(human_bytes(7_539_000_000), "7.5 GB");
        assert_eq!(human_bytes(999), "999 B");
    }
}
