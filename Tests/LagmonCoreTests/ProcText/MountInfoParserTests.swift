import Foundation
import LagmonCore
import Testing

struct MountInfoParserTests {
    @Test func readsEachMountsDeviceAndTypeWhateverOptionalFieldsItHas() {
        let text = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            27 1 254:0 / / rw,relatime master:1 - ext4 /dev/vda rw
            61 27 0:53 / /tmp/lagmon-test-fuse rw,nosuid,nodev,relatime shared:30 master:2 - fuse lagmon rw,user_id=0
            62 27 0:54 / /mnt/ssh rw - fuse.sshfs host:/ rw
            63 27 0:55 / /mnt/nfs rw - nfs4 server:/export rw
            this line is garbage
            64 27 0:56 / /mnt/x rw no separator here ext4 /dev/x rw
            """
        let mounts = MountInfoParser.parse(text)
        #expect(
            mounts.map { [String($0.device >> 32), String($0.device & 0xffff_ffff), $0.fileSystemType] } == [
                ["0", "21", "proc"], ["254", "0", "ext4"], ["0", "53", "fuse"], ["0", "54", "fuse.sshfs"],
                ["0", "55", "nfs4"],
            ])
    }

    @Test(arguments: [
        ("fuse", true), ("fuseblk", true), ("fuse.sshfs", true), ("nfs", true), ("nfs4", true), ("cifs", true),
        ("9p", true), ("ceph", true), ("virtiofs", true), ("ext4", false), ("tmpfs", false), ("overlay", false),
        ("proc", false), ("btrfs", false),
    ])
    func knowsWhichFileSystemsAnotherProcessServes(type: String, served: Bool) {
        #expect(MountInfoParser.isServedByAnotherProcess(type) == served)
    }

    @Test func aMapsLinesDeviceMatchesTheMountInfoOfItsFileSystem() throws {
        // This process's own executable: its mapping's device is its file system's in mountinfo.
        let maps = MemoryMapParser.parse(try Self.whole("/proc/self/maps"))
        let executable = try #require(maps.first { $0.isExecutable && $0.isFile && $0.inode != 0 })
        let mounts = MountInfoParser.parse(try Self.whole("/proc/self/mountinfo"))
        #expect(executable.device != 0)
        #expect(mounts.contains { $0.device == executable.device }, "\(executable) not in \(mounts)")
    }

    /// A /proc file read to its end (String(contentsOfFile:) stops after one page of it).
    private static func whole(_ path: String) throws -> String {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        return String(decoding: try #require(try handle.readToEnd()), as: UTF8.self)
    }
}
