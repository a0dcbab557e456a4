extension CPythonLayout {
    /// The layout of CPython `version` (major × 100 + minor: 207, and 306 to 312, the versions
    /// without debug offsets that lagmon knows); nil for others. 3.13 and later:
    /// `init(debugOffsets:)`.
    public static func table(version: Int) -> CPythonLayout? {
        switch version {
        case 207: return v27
        case 306: return v36
        case 307: return v37
        case 308: return v38
        case 309: return v39
        case 310: return v310
        case 311: return v311
        case 312: return v312
        default: return nil
        }
    }

    /// The global symbol the interpreter list of CPython `version` starts from: `_PyRuntime`
    /// (3.7+), or the static `interp_head` of pystate.c in 2.7 and 3.6 (a local symbol of
    /// `.symtab`; offset 0 holds the head itself).
    public static func runtimeSymbol(version: Int) -> String { version <= 306 ? "interp_head" : "_PyRuntime" }

    // Printed by scripts/cpython-layout.c against each version's headers (x86_64, glibc).
    // 2.7 has no unicode offsets (its names are PyStringObjects): those fields are 0, unused.
    static let v27 = CPythonLayout(
        version: 207, runtimeInterpretersHead: 0, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 0,
        threadThreadID: 144, threadNativeThreadID: nil, threadFrame: 16, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 120, frameOwner: nil, frameIsEntry: nil, codeName: 88, codeQualname: nil,
        codeFilename: 80, codeFirstLineNumber: 96, codeLineTable: 104, codeInstructions: nil, unicodeState: 0,
        unicodeLength: 0, unicodeASCIIData: 0, unicodeCompactData: 0, bytesSize: 16, bytesData: 36)

    static let v36 = CPythonLayout(
        version: 306, runtimeInterpretersHead: 0, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 8,
        threadThreadID: 152, threadNativeThreadID: nil, threadFrame: 24, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 120, frameOwner: nil, frameIsEntry: nil, codeName: 104, codeQualname: nil,
        codeFilename: 96, codeFirstLineNumber: 36, codeLineTable: 112, codeInstructions: nil, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v37 = CPythonLayout(
        version: 307, runtimeInterpretersHead: 24, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 8,
        threadThreadID: 176, threadNativeThreadID: nil, threadFrame: 24, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 104, frameOwner: nil, frameIsEntry: nil, codeName: 104, codeQualname: nil,
        codeFilename: 96, codeFirstLineNumber: 36, codeLineTable: 112, codeInstructions: nil, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v38 = CPythonLayout(
        version: 308, runtimeInterpretersHead: 32, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 8,
        threadThreadID: 176, threadNativeThreadID: nil, threadFrame: 24, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 104, frameOwner: nil, frameIsEntry: nil, codeName: 112, codeQualname: nil,
        codeFilename: 104, codeFirstLineNumber: 40, codeLineTable: 120, codeInstructions: nil, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v39 = CPythonLayout(
        version: 309, runtimeInterpretersHead: 32, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 8,
        threadThreadID: 176, threadNativeThreadID: nil, threadFrame: 24, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 104, frameOwner: nil, frameIsEntry: nil, codeName: 112, codeQualname: nil,
        codeFilename: 104, codeFirstLineNumber: 40, codeLineTable: 120, codeInstructions: nil, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v310 = CPythonLayout(
        version: 310, runtimeInterpretersHead: 32, interpreterNext: 0, interpreterThreadsHead: 8, threadNext: 8,
        threadThreadID: 176, threadNativeThreadID: nil, threadFrame: 24, cframeCurrentFrame: nil, frameBack: 24,
        frameCode: 32, frameInstruction: 96, frameOwner: nil, frameIsEntry: nil, codeName: 112, codeQualname: nil,
        codeFilename: 104, codeFirstLineNumber: 40, codeLineTable: 120, codeInstructions: nil, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v311 = CPythonLayout(
        version: 311, runtimeInterpretersHead: 40, interpreterNext: 0, interpreterThreadsHead: 16, threadNext: 8,
        threadThreadID: 152, threadNativeThreadID: 160, threadFrame: 56, cframeCurrentFrame: 8, frameBack: 48,
        frameCode: 32, frameInstruction: 56, frameOwner: 69, frameIsEntry: 68, codeName: 120, codeQualname: 128,
        codeFilename: 112, codeFirstLineNumber: 72, codeLineTable: 136, codeInstructions: 184, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 48, unicodeCompactData: 72, bytesSize: 16, bytesData: 32)

    static let v312 = CPythonLayout(
        version: 312, runtimeInterpretersHead: 40, interpreterNext: 0, interpreterThreadsHead: 72, threadNext: 8,
        threadThreadID: 136, threadNativeThreadID: 144, threadFrame: 56, cframeCurrentFrame: 0, frameBack: 8,
        frameCode: 0, frameInstruction: 56, frameOwner: 70, frameIsEntry: nil, codeName: 120, codeQualname: 128,
        codeFilename: 112, codeFirstLineNumber: 68, codeLineTable: 136, codeInstructions: 192, unicodeState: 32,
        unicodeLength: 16, unicodeASCIIData: 40, unicodeCompactData: 56, bytesSize: 16, bytesData: 32)
}
