import Foundation
import Glibc
import LagmonCore
import LagmonLinux
import Testing

@testable import LagmonSymbols

/// Opening what a process maps: regular files only, never blocking, the mapped inode only.
struct MappedFileTests {
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let path = NSTemporaryDirectory() + "lagmon-fifo-\(UUID().uuidString)"
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // No writer: a plain open for reading would block here for ever.
        #expect(MappedFile.openRegularFile(path) == nil)
        #expect(ELFFileReader(path: path) == nil)
    }

    @Test func devicesAndDirectoriesAreRefused() {
        #expect(MappedFile.openRegularFile("/dev/null") == nil)
        #expect(MappedFile.openRegularFile("/dev/tty") == nil)
        #expect(MappedFile.openRegularFile("/tmp") == nil)
    }

    @Test func aPathNamingAnotherInodeIsRefused() throws {
        var status = stat()
        #expect(stat("/proc/self/exe", &status) == 0)
        #expect(MappedFile.openRegularFile("/proc/self/exe", inode: UInt64(status.st_ino)) != nil)
        #expect(MappedFile.openRegularFile("/proc/self/exe", inode: UInt64(status.st_ino) &+ 1) == nil)
    }

    @Test func aDeletedMappedFileIsOpenedThroughMapFiles() throws {
        // Map a copy of an ELF file, delete the copy: only /proc/self/map_files still reaches it.
        let path = NSTemporaryDirectory() + "lagmon-mapped-\(UUID().uuidString)"
        try Data(contentsOf: URL(fileURLWithPath: "/proc/self/exe")).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        #expect(descriptor >= 0)
        let mapped = mmap(nil, 4096, PROT_READ, MAP_PRIVATE, descriptor, 0)
        close(descriptor)
        #expect(mapped != MAP_FAILED)
        defer { munmap(mapped, 4096) }
        unlink(path)
        let map = try #require(ProcessMemoryMap.read(pid: getpid()))
        let start = UInt64(UInt(bitPattern: mapped))
        let mapping = try #require(map.mapping(containing: start))
        #expect(mapping.isDeleted)
        let file = try TargetFileSystem(pid: getpid()).open(mapping).get()
        let header = try #require(file.reader()?.read(at: 0, count: 4))
        #expect(header == [0x7f, UInt8(ascii: "E"), UInt8(ascii: "L"), UInt8(ascii: "F")])
        // The external tool reaches the same file through lagmon's descriptor.
        #expect(FileManager.default.fileExists(atPath: file.openPath))
    }

    @Test func thisProcessesVDSOHasAnUnwindTable() throws {
        let map = try #require(ProcessMemoryMap.read(pid: getpid()))
        let vdso = try #require(map.mappings.first { $0.path == "[vdso]" })
        let reader = try #require(ELFFileReader(pid: getpid(), address: vdso.start, size: vdso.end - vdso.start))
        let table = try #require(ELFUnwindTable(reader: reader))
        #expect(table.entryCount > 0)
        let bias = try #require(table.loadBias(in: vdso))
        #expect(bias &+ table.headerAddress >= vdso.start && bias &+ table.headerAddress < vdso.end)
    }
}
