/// Where CPython keeps what lagmon reads from a Python process's memory: byte offsets of the
/// fields on the way from `_PyRuntime` to each thread's frames and from a frame to its code's
/// name, file and line table. One value per minor version (CPython changes these layouts between
/// minor versions only); 3.13 and later publish theirs in `_PyRuntime.debug_offsets`.
///
/// Offsets of fields a version lacks are nil. Every table was printed by
/// scripts/cpython-layout.c compiled against that version's own headers, and
/// CPythonLayoutHeaderTests recompiles it against each installed interpreter to prove it.
public struct CPythonLayout: Sendable, Equatable {
    /// How a version encodes the map from instruction offset to line.
    public enum LineTableFormat: Sendable, Equatable {
        /// 2.7: `co_lnotab`, (address delta, unsigned line delta) byte pairs.
        case lnotabUnsignedLines
        /// 3.6 to 3.9: `co_lnotab`, (address delta, signed line delta) byte pairs.
        case lnotab
        /// 3.10: `co_linetable`, (address delta, line delta) pairs, -128 for "no line".
        case lineTable310
        /// 3.11 and later: `co_linetable`, the location table of varint-coded entries.
        case locationTable
    }

    /// Major × 100 + minor (`311`, `207`).
    public var version: Int
    /// `_PyRuntime.interpreters.head` (3.6: 0, from `interp_head` itself).
    public var runtimeInterpretersHead: Int
    /// `PyInterpreterState.next`.
    public var interpreterNext: Int
    /// `PyInterpreterState.tstate_head` (3.9, 3.10) or `.threads.head`.
    public var interpreterThreadsHead: Int
    /// `PyThreadState.next`.
    public var threadNext: Int
    /// `PyThreadState.thread_id`: the thread's `pthread_t` (with glibc, its `fs_base`).
    public var threadThreadID: Int
    /// `PyThreadState.native_thread_id` (3.11 and later): the kernel's thread id.
    public var threadNativeThreadID: Int?
    /// `PyThreadState.frame` (≤ 3.10), `.cframe` (3.11, 3.12) or `.current_frame` (3.13+).
    public var threadFrame: Int
    /// `_PyCFrame.current_frame` (3.11, 3.12): one more hop from `cframe`.
    public var cframeCurrentFrame: Int?
    /// `f_back` (≤ 3.10) or `_PyInterpreterFrame.previous`.
    public var frameBack: Int
    /// `f_code` or `f_executable` (3.13+).
    public var frameCode: Int
    /// `f_lasti` (≤ 3.10, an int), `prev_instr` (3.11, 3.12) or `instr_ptr` (3.13+).
    public var frameInstruction: Int
    /// `_PyInterpreterFrame.owner` (3.11+): 3 marks the C stack's entry shim (3.12+).
    public var frameOwner: Int?
    /// `_PyInterpreterFrame.is_entry` (3.11 only).
    public var frameIsEntry: Int?
    /// `co_name`.
    public var codeName: Int
    /// `co_qualname` (3.11+).
    public var codeQualname: Int?
    /// `co_filename`.
    public var codeFilename: Int
    /// `co_firstlineno` (an int).
    public var codeFirstLineNumber: Int
    /// `co_lnotab` or `co_linetable`.
    public var codeLineTable: Int
    /// `co_code_adaptive` (3.11+): where the instructions start, inside the code object.
    public var codeInstructions: Int?
    /// `PyASCIIObject.state` (3.x; bit field: kind bits 2–4, compact bit 5, ascii bit 6).
    public var unicodeState: Int
    /// `PyASCIIObject.length`, in code points.
    public var unicodeLength: Int
    /// `sizeof(PyASCIIObject)`: where a compact ASCII string's characters start.
    public var unicodeASCIIData: Int
    /// `sizeof(PyCompactUnicodeObject)`: where other compact strings' characters start.
    public var unicodeCompactData: Int
    /// `PyVarObject.ob_size` of a bytes object (2.7: of a `str`, a PyStringObject).
    public var bytesSize: Int
    /// `PyBytesObject.ob_sval` (2.7: `PyStringObject.ob_sval`).
    public var bytesData: Int

    /// The owner value of the C stack's entry shim frames (3.12+): they end one eval call.
    public static let ownedByCStack: UInt8 = 3

    /// How this version's line table is encoded.
    public var lineTableFormat: LineTableFormat {
        version < 300
            ? .lnotabUnsignedLines : version <= 309 ? .lnotab : version == 310 ? .lineTable310 : .locationTable
    }

    /// Whether names and file names are byte strings (2.7's `str`, read as bytes objects) rather
    /// than compact unicode objects; the `unicode*` offsets are unused then.
    public var namesAreByteStrings: Bool { version < 300 }

    /// Whether frames live in `_PyInterpreterFrame`s (3.11+) rather than frame objects.
    public var hasInterpreterFrames: Bool { version >= 311 }

    /// The bytes lagmon reads of one frame: up to the last field it uses.
    public var frameReadSize: Int {
        [frameBack, frameCode, frameInstruction, frameOwner ?? 0, frameIsEntry ?? 0].max().map { $0 + 8 } ?? 8
    }

    /// The bytes lagmon reads of one thread state: up to the last field it uses.
    public var threadReadSize: Int {
        [threadNext, threadThreadID, threadNativeThreadID ?? 0, threadFrame].max().map { $0 + 8 } ?? 8
    }

    /// The bytes lagmon reads of one code object.
    public var codeReadSize: Int {
        [codeName, codeQualname ?? 0, codeFilename, codeFirstLineNumber, codeLineTable].max().map { $0 + 8 } ?? 8
    }
}
