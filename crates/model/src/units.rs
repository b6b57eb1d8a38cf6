//! Quantities in words, the same in every output (terminal, SVG, the app's panes).

/// Bytes in the largest unit that keeps them ≥ 1 ("12.6 MB").
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_take_the_largest_unit_that_stays_above_one() {
        assert_eq!(super::bytes(999), "999 B");
        assert_eq!(super::bytes(12_600_000), "12.6 MB");
        assert_eq!(super::bytes(u64::MAX), "18446744.1 TB");
    }
}
