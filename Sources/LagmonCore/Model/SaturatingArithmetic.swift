/// `a - b`, or 0 when `b` is larger: differences of what the target reported never trap.
func saturatingSubtract(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : 0 }

/// `a + b`, or `UInt64.max` when that does not fit: sums of what the target reported never trap.
func saturatingAdd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : sum
}
