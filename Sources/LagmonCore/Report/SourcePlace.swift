/// A place in a source file: where a frame of a call tree ran.
public struct SourcePlace: Sendable, Hashable {
    /// The file, as the debug information (or the interpreter) names it.
    public var file: String
    /// The line; nil when only the file is known.
    public var line: Int?

    public init(file: String, line: Int?) {
        self.file = file
        self.line = line
    }

    /// `ImageDecoder.swift:35`: the file's last component and the line.
    public var shortText: String {
        let name = PathText.lastComponent(file)
        return line.map { "\(name):\($0)" } ?? name
    }

    /// The full path and the line.
    public var text: String { line.map { "\(file):\($0)" } ?? file }
}
