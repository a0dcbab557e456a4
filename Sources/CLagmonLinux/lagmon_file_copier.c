// lagmon_copy_file_in_child: see lagmon_linux.h.
#define _GNU_SOURCE
#include "lagmon_linux.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The child's work: system calls only (the parent may hold any lock when it forks).
/// `root` is -1 (`path` opened as it is) or the descriptor `path` resolves below.
static int copy_file(int root, const char *path, uint64_t inode, uint64_t limit) {
    struct stat before, after;
    if (path == NULL) return 1;
    int file;
    if (root < 0) {
        if (stat(path, &before) != 0 || !S_ISREG(before.st_mode)) return 1;
        if (inode != 0 && (uint64_t)before.st_ino != inode) return 1;
        file = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    } else {
        // Non-blocking: a FIFO swapped in opens without waiting, and fstat refuses it.
        file = lagmon_open_in_root(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
        if (file >= 0 && fstat(file, &before) != 0) return 1;
    }
    if (file < 0) return 1;
    if (fstat(file, &after) != 0 || !S_ISREG(after.st_mode) || after.st_ino != before.st_ino ||
        after.st_dev != before.st_dev || (inode != 0 && (uint64_t)after.st_ino != inode))
        return 1;
    if ((uint64_t)after.st_size > limit) return 2;
    static char chunk[1 << 16];
    off_t offset = 0;
    for (;;) {
        ssize_t count = pread(file, chunk, sizeof chunk, offset);
        if (count == 0) return 0;
        if (count < 0) return 3;
        for (ssize_t written = 0; written < count;) {
            ssize_t result = pwrite(3, chunk + written, (size_t)(count - written), offset + written);
            if (result <= 0) return 3;
            written += result;
        }
        offset += count;
        if ((uint64_t)offset > limit) return 2;
    }
}

pid_t lagmon_copy_file_in_child(
    const char *first, int root, const char *second, uint64_t inode, int memory, uint64_t limit) {
    pid_t child = fork();
    if (child != 0) return child;
    if (memory != 3 && dup2(memory, 3) != 3) _exit(3);
    // The target's root, when given, as fd 4 (an O_PATH descriptor: it reads nothing itself).
    if (root >= 0 && root != 4 && dup2(root, 4) != 4) _exit(3);
    int keep = root >= 0 ? 4 : 3;
    // Nothing else of lagmon's stays open in the child: not its stdio, pipes or the channel.
    if (syscall(SYS_close_range, 0, 2, 0) != 0 || syscall(SYS_close_range, keep + 1, ~0U, 0) != 0) {
        for (int fd = 0; fd < 65536; fd++)
            if (fd < 3 || fd > keep) close(fd);
    }
    prctl(PR_SET_NAME, "lagmon-copy", 0, 0, 0);
    int result = copy_file(-1, first, inode, limit);
    if (result == 1) result = copy_file(root >= 0 ? 4 : -1, second, inode, limit);
    _exit(result);
}
