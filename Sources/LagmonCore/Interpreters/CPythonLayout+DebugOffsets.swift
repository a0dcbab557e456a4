extension CPythonLayout {
    /// `_Py_DebugOffsets` starts with this cookie (`_PyRuntime.debug_offsets.cookie`, 3.13+).
    public static let debugCookie: [UInt8] = Array("xdebugpy".utf8)

    /// Bytes of 3.13's `_Py_DebugOffsets` that lagmon reads.
    public static let debugOffsetsSize = 568

    /// Where 3.13's `_Py_DebugOffsets` keeps each offset lagmon needs (byte positions in the
    /// struct, from Include/internal/pycore_runtime.h of 3.13; scripts/cpython-layout.c prints
    /// them from the headers and CPythonLayoutHeaderTests compares).
    enum DebugPosition {
        static let version = 8
        static let freeThreaded = 16
        static let runtimeInterpretersHead = 40
        static let interpreterNext = 64
        static let interpreterThreadsHead = 72
        static let threadNext = 168
        static let threadCurrentFrame = 184
        static let threadThreadID = 192
        static let threadNativeThreadID = 200
        static let framePrevious = 232
        static let frameExecutable = 240
        static let frameInstructionPointer = 248
        static let frameOwner = 264
        static let codeFilename = 280
        static let codeName = 288
        static let codeQualname = 296
        static let codeLineTable = 304
        static let codeFirstLineNumber = 312
        static let codeInstructions = 344
        static let bytesSize = 520
        static let bytesData = 528
        static let unicodeState = 544
        static let unicodeLength = 552
        static let unicodeASCIISize = 560
    }

    /// The layout a 3.13 (or later 3.13.x) interpreter publishes at the start of `_PyRuntime`;
    /// nil when `bytes` (read from there) lacks the cookie, is another minor version (its
    /// struct differs), a free-threaded build, or holds an offset out of a sane range.
    public init?(debugOffsets bytes: [UInt8]) {
        guard bytes.count >= Self.debugOffsetsSize, Array(bytes[0..<8]) == Self.debugCookie else { return nil }
        func field(_ position: Int) -> Int? {
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
            return value < 1 << 20 ? Int(value) : nil
        }
        let hex = bytes[DebugPosition.version..<DebugPosition.version + 8].reversed().reduce(UInt64(0)) {
            $0 << 8 | UInt64($1)
        }
        guard hex >> 24 == 3, (hex >> 16) & 0xff == 13, field(DebugPosition.freeThreaded) == 0,
            let interpreters = field(DebugPosition.runtimeInterpretersHead),
            let next = field(DebugPosition.interpreterNext),
            let threads = field(DebugPosition.interpreterThreadsHead), let threadNext = field(DebugPosition.threadNext),
            let current = field(DebugPosition.threadCurrentFrame), let threadID = field(DebugPosition.threadThreadID),
            let native = field(DebugPosition.threadNativeThreadID), let previous = field(DebugPosition.framePrevious),
            let executable = field(DebugPosition.frameExecutable),
            let instruction = field(DebugPosition.frameInstructionPointer), let owner = field(DebugPosition.frameOwner),
            let filename = field(DebugPosition.codeFilename), let name = field(DebugPosition.codeName),
            let qualname = field(DebugPosition.codeQualname), let lineTable = field(DebugPosition.codeLineTable),
            let firstLine = field(DebugPosition.codeFirstLineNumber),
            let instructions = field(DebugPosition.codeInstructions), let bytesSize = field(DebugPosition.bytesSize),
            let bytesData = field(DebugPosition.bytesData), let state = field(DebugPosition.unicodeState),
            let length = field(DebugPosition.unicodeLength), let asciiSize = field(DebugPosition.unicodeASCIISize)
        else { return nil }
        self.init(
            version: 313, runtimeInterpretersHead: interpreters, interpreterNext: next, interpreterThreadsHead: threads,
            threadNext: threadNext, threadThreadID: threadID, threadNativeThreadID: native, threadFrame: current,
            cframeCurrentFrame: nil, frameBack: previous, frameCode: executable, frameInstruction: instruction,
            frameOwner: owner, frameIsEntry: nil, codeName: name, codeQualname: qualname, codeFilename: filename,
            codeFirstLineNumber: firstLine, codeLineTable: lineTable, codeInstructions: instructions,
            // PyCompactUnicodeObject is PyASCIIObject plus utf8_length and utf8 (two words).
            unicodeState: state, unicodeLength: length, unicodeASCIIData: asciiSize, unicodeCompactData: asciiSize + 16,
            bytesSize: bytesSize, bytesData: bytesData)
    }
}
