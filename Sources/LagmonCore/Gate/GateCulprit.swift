/// Where a measured number came from, for people to open: a stall (the worst of its
/// fingerprint), a blocking call site or a busy thread, with its diagnosis, the function to
/// blame, its source file and line, and the top of its stack. CI outputs show it beside a failed
/// check; GitHub and GitLab point at its file and line.
public struct GateCulprit: Sendable, Equatable {
    /// What it is: `stall #4 (260ms, 1 of 2 stalls in this code)`, `read from 3 call sites`.
    public var subject: String
    /// Why, in one line: `waiting on a lock (futex) for 260ms`.
    public var diagnosis: String
    /// The function to blame (`ThumbnailCache.value(for:)`); nil when no frame was named.
    public var function: String?
    /// Its source file as the debug information names it (usually absolute); nil without one.
    public var file: String?
    /// Its line in `file`.
    public var line: Int?
    /// Whether `file` and `line` are where the function was called from, because no sample of
    /// the function itself had a source line.
    public var lineIsCaller = false
    /// `file` relative to the source root (the repository), when it lies under it: set by
    /// `GateVerdict.locating(in:)`; nil before, and for files outside the root.
    public var sourcePath: String?
    /// The top of its stack, innermost first, at most `maxFrames`: `read (libc.so.6)`,
    /// `ImageStore.bytes(of:) (ImageList.swift:30)`.
    public var frames: [String]

    /// Frames a culprit keeps.
    public static let maxFrames = 5

    public init(
        subject: String, diagnosis: String, function: String?, file: String? = nil, line: Int? = nil,
        frames: [String] = []
    ) {
        self.subject = subject
        self.diagnosis = diagnosis
        self.function = function
        self.file = file
        self.line = line
        self.frames = Array(frames.prefix(Self.maxFrames))
    }

    /// `ImageList.swift:19` (the file's last component, and the line when known); nil without a file.
    public var shortLocation: String? {
        file.map { PathText.lastComponent($0) + (line.map { ":\($0)" } ?? "") }
    }

    /// `Sources/App/ImageList.swift:19` when the file is in the repository, else the file as
    /// recorded; nil without a file.
    public var location: String? {
        (sourcePath ?? file).map { $0 + (line.map { ":\($0)" } ?? "") }
    }

    /// `ThumbnailCache.value(for:) at Sources/App/ImageList.swift:19` (`called at …` when the
    /// line is its caller's), or whichever half is known.
    public var place: String? {
        switch (function, location) {
        case (let function?, let location?): "\(function) \(lineIsCaller ? "called at" : "at") \(location)"
        case (let function?, nil): function
        case (nil, let location?): location
        case (nil, nil): nil
        }
    }

    /// How a frame reads in a culprit's `frames`: its name, then its module or its place.
    static func frameText(_ frame: Frame) -> String {
        let name = QuotedText.printable(frame.displayName, limit: 160)
        if frame.runtime != nil { return name }
        let place = frame.file.map { PathText.lastComponent($0) + (frame.line.map { ":\($0)" } ?? "") }
        let module = frame.symbol == nil ? nil : frame.module
        guard let detail = place ?? module else { return name }
        return "\(name) (\(QuotedText.printable(detail, limit: 120)))"
    }
}
