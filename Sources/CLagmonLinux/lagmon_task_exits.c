// The kernel's taskstats over generic netlink: a listener for every task exit on the machine
// (each with its elapsed time since the task started, CLOCK_MONOTONIC in microseconds), and a
// query of a live task's elapsed time. Together they date a death nothing in the process could
// record (SIGKILL, _exit): start = now - elapsed (queried), death = start + elapsed (at exit).
// Every message is parsed within its received length; the kernel's structs only grow at the end.
#define _GNU_SOURCE
#include "lagmon_linux.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum { message_bytes = 1024, receive_bytes = 16384 };

struct request {
    struct nlmsghdr header;
    struct genlmsghdr generic;
    char attributes[256];
};

static int send_request(int fd, uint16_t family, uint8_t command, uint16_t type, const void *data, size_t length) {
    struct request request;
    if (NLA_HDRLEN + length > sizeof request.attributes) return -EINVAL;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_type = family;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    request.generic.cmd = command;
    request.generic.version = 1;
    struct nlattr *attribute = (struct nlattr *)request.attributes;
    attribute->nla_type = type;
    attribute->nla_len = (uint16_t)(NLA_HDRLEN + length);
    memcpy(request.attributes + NLA_HDRLEN, data, length);
    request.header.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(attribute->nla_len);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    ssize_t sent = sendto(fd, &request, request.header.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel);
    return sent < 0 ? -errno : 0;
}

/// The first attribute of `type` among those in [start, start + length); NULL if none fits.
static const struct nlattr *find_attribute(const char *start, size_t length, uint16_t type) {
    size_t offset = 0;
    while (offset + NLA_HDRLEN <= length) {
        const struct nlattr *attribute = (const struct nlattr *)(start + offset);
        size_t size = attribute->nla_len;
        if (size < NLA_HDRLEN || offset + size > length) return NULL;
        if ((attribute->nla_type & NLA_TYPE_MASK) == type) return attribute;
        offset += NLA_ALIGN(size);
    }
    return NULL;
}

static int open_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0) return -errno;
    struct sockaddr_nl self = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&self, sizeof self) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    struct timeval timeout = {.tv_sec = 0, .tv_usec = 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

/// The TASKSTATS family's id, asked of the generic netlink controller; negative errno if none.
static int family_id(int fd) {
    int error = send_request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
                             sizeof TASKSTATS_GENL_NAME);
    if (error < 0) return error;
    char buffer[receive_bytes];
    ssize_t received = recv(fd, buffer, sizeof buffer, 0);
    if (received < 0) return -errno;
    const struct nlmsghdr *header = (const struct nlmsghdr *)buffer;
    if ((size_t)received < NLMSG_LENGTH(GENL_HDRLEN) || header->nlmsg_len > (size_t)received) return -EPROTO;
    if (header->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *failure = NLMSG_DATA(header);
        return failure->error < 0 ? failure->error : -EPROTO;
    }
    const char *attributes = (const char *)NLMSG_DATA(header) + GENL_HDRLEN;
    const struct nlattr *id =
        find_attribute(attributes, header->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), CTRL_ATTR_FAMILY_ID);
    if (id == NULL || id->nla_len < NLA_HDRLEN + sizeof(uint16_t)) return -ENOENT;
    uint16_t value;
    memcpy(&value, (const char *)id + NLA_HDRLEN, sizeof value);
    return value;
}

int lagmon_task_exits_open(const char *cpus, int *family) {
    int fd = open_socket();
    if (fd < 0) return fd;
    int id = family_id(fd);
    if (id < 0) {
        close(fd);
        return id;
    }
    // Room for the exits that come before lagmon_task_exits_only narrows the socket to one
    // process (SO_RCVBUFFORCE needs CAP_NET_ADMIN, which the registration needs too).
    int bytes = 1 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    }
    int error = send_request(fd, (uint16_t)id, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus,
                             strlen(cpus) + 1);
    if (error == 0) {
        // The registration is acknowledged only on failure (no NLM_F_ACK): look for an error
        // without waiting.
        char buffer[receive_bytes];
        ssize_t received = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT | MSG_PEEK);
        const struct nlmsghdr *header = (const struct nlmsghdr *)buffer;
        if (received >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) && header->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *failure = NLMSG_DATA(header);
            error = failure->error < 0 ? failure->error : -EPROTO;
        }
    }
    if (error < 0) {
        close(fd);
        return error;
    }
    *family = id;
    return fd;
}

/// From one received datagram: the task and the elapsed time of its first per-task record.
/// 1 when found, 0 for another message, negative errno for a netlink error.
static int parse_task(const char *buffer, size_t length, int32_t *tid, uint64_t *elapsed_us) {
    const struct nlmsghdr *header = (const struct nlmsghdr *)buffer;
    if (length < NLMSG_HDRLEN || header->nlmsg_len < NLMSG_HDRLEN || header->nlmsg_len > length) return 0;
    if (header->nlmsg_type == NLMSG_ERROR) {
        if (header->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) return -EPROTO;
        const struct nlmsgerr *failure = NLMSG_DATA(header);
        return failure->error < 0 ? failure->error : 0;
    }
    if (header->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) return 0;
    const char *attributes = (const char *)NLMSG_DATA(header) + GENL_HDRLEN;
    size_t attributes_length = header->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
    const struct nlattr *aggregate = find_attribute(attributes, attributes_length, TASKSTATS_TYPE_AGGR_PID);
    if (aggregate == NULL) return 0;
    const char *inner = (const char *)aggregate + NLA_HDRLEN;
    size_t inner_length = aggregate->nla_len - NLA_HDRLEN;
    const struct nlattr *pid = find_attribute(inner, inner_length, TASKSTATS_TYPE_PID);
    const struct nlattr *stats = find_attribute(inner, inner_length, TASKSTATS_TYPE_STATS);
    size_t needed = offsetof(struct taskstats, ac_etime) + sizeof(uint64_t);
    if (pid == NULL || pid->nla_len < NLA_HDRLEN + sizeof(int32_t) || stats == NULL ||
        stats->nla_len < NLA_HDRLEN + needed) {
        return 0;
    }
    memcpy(tid, (const char *)pid + NLA_HDRLEN, sizeof *tid);
    memcpy(elapsed_us, (const char *)stats + NLA_HDRLEN + offsetof(struct taskstats, ac_etime), sizeof *elapsed_us);
    return 1;
}

int lagmon_task_exits_only(int fd, const pid_t *pids, uint32_t count) {
    if (count > LAGMON_TASK_EXITS_MAX_PIDS) return -E2BIG;
    // An exit record is [nlmsghdr 16][genlmsghdr 4][AGGR_PID attribute 4][PID attribute 4][pid]:
    // the pid's 4 bytes at 28. Classic BPF loads words in network order, hence htonl. The
    // program: load the pid; one comparison per followed process, each jumping to "accept" on a
    // match (jump offsets are 8 bits: the bound keeps them in range); otherwise drop.
    enum { pid_offset = NLMSG_HDRLEN + GENL_HDRLEN + 2 * NLA_HDRLEN };
    struct sock_filter code[LAGMON_TASK_EXITS_MAX_PIDS + 3];
    uint32_t length = 0;
    code[length++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, pid_offset);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t to_accept = (uint8_t)(count - i); /* past the remaining comparisons and the drop */
        code[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl((uint32_t)pids[i]), to_accept, 0);
    }
    code[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
    code[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffff);
    struct sock_fprog program = {.len = (unsigned short)length, .filter = code};
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) == 0 ? 0 : -errno;
}

int lagmon_task_exits_next(int fd, int32_t *tid, uint64_t *elapsed_us, int wait) {
    char buffer[message_bytes * 4];
    for (;;) {
        ssize_t received = recv(fd, buffer, sizeof buffer, wait ? 0 : MSG_DONTWAIT);
        if (received < 0) {
            // ENOBUFS: exits were dropped while the buffer was full; go on with the next.
            if (errno == ENOBUFS || errno == EINTR) continue;
            return -errno;
        }
        int found = parse_task(buffer, (size_t)received, tid, elapsed_us);
        if (found != 0) return found;
    }
}

int lagmon_task_elapsed(pid_t pid, uint64_t *elapsed_us) {
    int fd = open_socket();
    if (fd < 0) return fd;
    int family = family_id(fd);
    int error = family < 0 ? family
                           : send_request(fd, (uint16_t)family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &pid,
                                          sizeof pid);
    char buffer[receive_bytes];
    while (error == 0) {
        ssize_t received = recv(fd, buffer, sizeof buffer, 0);
        if (received < 0) {
            error = -errno;
            break;
        }
        int32_t tid = 0;
        int found = parse_task(buffer, (size_t)received, &tid, elapsed_us);
        if (found < 0) error = found;
        if (found > 0 && tid == pid) break;
    }
    close(fd);
    return error;
}
