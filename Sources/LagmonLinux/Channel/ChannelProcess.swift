import CLagmonShared
import LagmonCore

/// lagmon's view of one entry of the channel's process table (read-only).
public struct ChannelProcess: Sendable, Equatable {
    /// The entry's index (slots name it).
    public var index: Int
    public var pid: Int32
    public var ppid: Int32
    /// `lagmon_process_flag` bits.
    public var flags: UInt32
    /// When the probe attached, and when the image ended (exit or exec; 0 before), channel clock.
    public var attachedNs: UInt64
    public var endedNs: UInt64
    /// argv as the probe copied it.
    public var command: [String]

    /// Reads the entry at `entry`; nil unless a probe published it.
    init?(entry: UnsafeMutableRawPointer, index: Int) {
        let process = entry.assumingMemoryBound(to: lagmon_process.self)
        guard lagmon_load_u32(Self.field(process, \.state)) == LAGMON_SLOT_ACTIVE.rawValue else { return nil }
        self.index = index
        pid = lagmon_load_i32(Self.field(process, \.pid))
        // The probe's word (a pid is never negative; the report's schema says so too).
        ppid = max(0, lagmon_load_i32(Self.field(process, \.ppid)))
        flags = lagmon_load_u32(Self.field(process, \.flags))
        attachedNs = lagmon_load_u64(Self.field(process, \.attached_ns))
        endedNs = lagmon_load_u64(Self.field(process, \.ended_ns))
        let length = min(Int(lagmon_load_u32(Self.field(process, \.command_length))), Int(LAGMON_PROCESS_COMMAND_BYTES))
        let bytes = UnsafeRawBufferPointer(start: lagmon_process_command(process), count: length)
        command = Self.arguments(Array(bytes))
    }

    /// The process as the recording keeps it; `endNs` is the earlier of the probe's end and
    /// lagmon's own notice of the process's death.
    public func recording(noticedEndNs: UInt64?) -> ProcessRecording {
        let probeEnd: UInt64? = endedNs == 0 ? nil : endedNs
        let end = [probeEnd, noticedEndNs].compactMap { $0 }.min()
        return ProcessRecording(
            index: index, pid: pid, ppid: ppid, command: command,
            commandTruncated: flags & LAGMON_PROCESS_COMMAND_TRUNCATED.rawValue != 0,
            forked: flags & LAGMON_PROCESS_FORKED.rawValue != 0, execed: flags & LAGMON_PROCESS_EXECED.rawValue != 0,
            attachedNs: attachedNs, endNs: end)
    }

    /// NUL-terminated arguments; a last one without its NUL (cut) is kept.
    static func arguments(_ bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var words = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if bytes.last == 0 { words.removeLast() }
        return words
    }

    private static func field<T>(_ process: UnsafeMutablePointer<lagmon_process>, _ path: KeyPath<lagmon_process, T>)
        -> UnsafeMutablePointer<T>
    {
        (UnsafeMutableRawPointer(process) + MemoryLayout<lagmon_process>.offset(of: path)!).assumingMemoryBound(
            to: T.self)
    }
}
