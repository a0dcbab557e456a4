/// The escape sequences that keep a status line on a terminal's bottom row while a program
/// writes to the same terminal, as apt's progress bar does: a scroll region (DECSTBM) over every
/// row but the last, so the program's lines scroll above the status line and never run into it;
/// the status line is drawn with the cursor saved and restored around it, so the program's
/// output continues where it was.
public enum StatusRegion {
    private static let escape = "\u{1B}"

    /// Reserves the bottom row of a terminal `rows` high: a new line (so the row the cursor is on
    /// stays above the status line), the scroll region over rows 1…rows−1, the cursor back on its
    /// row. Nil for a terminal too small to spare a row.
    public static func reserve(rows: Int) -> String? {
        guard rows >= 3 else { return nil }
        return "\n\(escape)7\(escape)[1;\(rows - 1)r\(escape)8\(escape)[1A"
    }

    /// The scroll region again after the terminal was resized to `rows` (no new line).
    public static func resize(rows: Int) -> String? {
        guard rows >= 3 else { return nil }
        return "\(escape)7\(escape)[1;\(rows - 1)r\(escape)8"
    }

    /// `text` on the bottom row of a terminal `rows` high, the rest of the row erased, the cursor
    /// back where the program left it.
    public static func draw(_ text: String, rows: Int) -> String {
        "\(escape)7\(escape)[\(rows);1H\(text)\(escape)[K\(escape)8"
    }

    /// Gives the bottom row back: the whole screen scrolls again, the status line is erased, the
    /// cursor is where the program left it.
    public static func release(rows: Int) -> String {
        "\(escape)7\(escape)[r\(escape)[\(rows);1H\(escape)[K\(escape)8"
    }
}
