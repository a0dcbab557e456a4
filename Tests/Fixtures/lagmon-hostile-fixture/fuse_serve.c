// The FUSE scenario of lagmon-hostile-fixture: a file system served by this process that answers
// only the program it was made for and never answers anybody else — lagmon included.
//
//   lagmon-hostile-fixture fuse-serve MOUNTPOINT FILE NAME COMM[,COMM…]
//
// Mounts a FUSE file system at MOUNTPOINT (speaking the kernel's protocol on /dev/fuse itself:
// no libfuse) holding one read-only file, NAME, whose bytes are FILE's. A request is answered
// only when the thread that made it has one of the names COMM (its /proc/TID/comm; the kernel's own
// requests, pid 0, too); any other request is read and left unanswered for ever, so whoever
// made it waits in the kernel until this process dies. No cache timeouts: every stat and open
// reaches the server. Prints `mounted MOUNTPOINT` once it serves, `ignored OPCODE from TID COMM`
// for each request left unanswered. Ends (and the mount with it) on SIGTERM/SIGKILL; prints
// `fuse unavailable: <reason>` and exits 77 where FUSE cannot be mounted.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum { ROOT_NODE = 1, FILE_NODE = 2 };

static int device = -1;
static int served = -1;
static const char *served_name;
static const char *answer_comm;
static uint64_t served_size;

/// Sends a reply: the header, then `size` bytes of `body`.
static void reply(uint64_t unique, int error, const void *body, size_t size) {
    struct fuse_out_header header = {.len = sizeof header + (error ? 0 : size), .error = -error, .unique = unique};
    struct iovec parts[2] = {{&header, sizeof header}, {(void *)body, error ? 0 : size}};
    if (writev(device, parts, error || size == 0 ? 1 : 2) < 0 && errno != ENOENT) perror("fuse reply");
}

static void fill_attributes(struct fuse_attr *attr, uint64_t node) {
    memset(attr, 0, sizeof *attr);
    attr->ino = node;
    attr->nlink = 1;
    attr->blksize = 4096;
    if (node == ROOT_NODE) {
        attr->mode = S_IFDIR | 0755;
        attr->nlink = 2;
    } else {
        attr->mode = S_IFREG | 0755;
        attr->size = served_size;
        attr->blocks = (served_size + 511) / 512;
    }
}

/// Whether the thread that made the request is the one to answer.
static int answers(uint32_t tid, char *comm, size_t size) {
    comm[0] = 0;
    if (tid == 0) return 1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/comm", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;  // gone: nobody waits for the answer
    ssize_t count = read(fd, comm, size - 1);
    close(fd);
    if (count <= 0) return 1;
    comm[count] = 0;
    if (comm[count - 1] == '\n') comm[count - 1] = 0;
    // COMM is a comma-separated list of names.
    size_t length = strlen(comm);
    for (const char *name = answer_comm; *name;) {
        const char *end = strchr(name, ',');
        size_t name_length = end ? (size_t)(end - name) : strlen(name);
        if (name_length == length && strncmp(name, comm, length) == 0) return 1;
        if (!end) break;
        name = end + 1;
    }
    return 0;
}

static void serve_request(const struct fuse_in_header *in, const char *body) {
    switch (in->opcode) {
    case FUSE_INIT: {
        const struct fuse_init_in *init = (const void *)body;
        struct fuse_init_out out = {.major = FUSE_KERNEL_VERSION,
                                    .minor = init->minor < FUSE_KERNEL_MINOR_VERSION ? init->minor
                                                                                    : FUSE_KERNEL_MINOR_VERSION,
                                    .max_readahead = init->max_readahead,
                                    .max_write = 4096,
                                    .max_background = 1,
                                    .congestion_threshold = 1};
        reply(in->unique, 0, &out, init->minor < 23 ? FUSE_COMPAT_22_INIT_OUT_SIZE : sizeof out);
        return;
    }
    case FUSE_LOOKUP: {
        if (in->nodeid != ROOT_NODE || strcmp(body, served_name) != 0) return reply(in->unique, ENOENT, NULL, 0);
        struct fuse_entry_out out = {.nodeid = FILE_NODE, .generation = 1};
        fill_attributes(&out.attr, FILE_NODE);
        return reply(in->unique, 0, &out, sizeof out);
    }
    case FUSE_GETATTR: {
        struct fuse_attr_out out = {0};
        fill_attributes(&out.attr, in->nodeid == ROOT_NODE ? ROOT_NODE : FILE_NODE);
        return reply(in->unique, 0, &out, sizeof out);
    }
    case FUSE_OPEN:
    case FUSE_OPENDIR: {
        struct fuse_open_out out = {0};
        return reply(in->unique, 0, &out, sizeof out);
    }
    case FUSE_READ: {
        const struct fuse_read_in *read_in = (const void *)body;
        static char data[1 << 17];
        size_t size = read_in->size < sizeof data ? read_in->size : sizeof data;
        ssize_t count = in->nodeid == FILE_NODE ? pread(served, data, size, (off_t)read_in->offset) : 0;
        return reply(in->unique, count < 0 ? EIO : 0, data, count < 0 ? 0 : (size_t)count);
    }
    case FUSE_RELEASE:
    case FUSE_RELEASEDIR:
    case FUSE_FLUSH:
    case FUSE_ACCESS:
        return reply(in->unique, 0, NULL, 0);
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
    case FUSE_INTERRUPT:
        return;
    case FUSE_DESTROY:
        exit(0);
    default:
        return reply(in->unique, ENOSYS, NULL, 0);
    }
}

int run_fuse_serve(const char *mountpoint, const char *file, const char *name, const char *comm) {
    served_name = name;
    answer_comm = comm;
    served = open(file, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (served < 0 || fstat(served, &status) != 0) {
        perror(file);
        return 3;
    }
    served_size = (uint64_t)status.st_size;
    device = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (device < 0) {
        printf("fuse unavailable: /dev/fuse: %s\n", strerror(errno));
        return 77;
    }
    char options[128];
    snprintf(options, sizeof options, "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", device);
    if (mount("lagmon-hostile-fixture", mountpoint, "fuse", MS_NOSUID | MS_NODEV, options) != 0) {
        printf("fuse unavailable: mount: %s\n", strerror(errno));
        return 77;
    }
    printf("mounted %s\n", mountpoint);
    fflush(stdout);
    static char buffer[FUSE_MIN_READ_BUFFER + (1 << 17)];
    for (;;) {
        ssize_t count = read(device, buffer, sizeof buffer);
        if (count < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN)) continue;
        if (count < 0 && errno == ENODEV) return 0;  // unmounted
        if (count < (ssize_t)sizeof(struct fuse_in_header)) {
            perror("fuse read");
            return 3;
        }
        const struct fuse_in_header *in = (const void *)buffer;
        char requester[64];
        if (in->opcode != FUSE_INIT && !answers(in->pid, requester, sizeof requester)) {
            printf("ignored %u from %u %s\n", in->opcode, in->pid, requester);
            fflush(stdout);
            continue;
        }
        serve_request(in, buffer + sizeof *in);
    }
}
