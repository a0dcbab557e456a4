// StrictMode: the preload shim counts calls that block and do not belong on an event loop's
// thread, made on a watched loop's thread, even when no single one is long enough to stall it:
// file I/O on regular files (read, pread, write, pwrite, readv, writev, preadv, pwritev, fsync,
// fdatasync, open, openat), DNS
// resolution (getaddrinfo), connect on a blocking socket, sleeps (sleep, usleep, nanosleep,
// clock_nanosleep), waiting for a child (waitpid, wait4 without WNOHANG) and shells (system,
// popen). Each is aggregated into the loop's slot by call and call site (the return address
// into the caller; lagmon symbolizes it), with count, total and longest time.
//
// Off a loop thread (every thread but the watched loops) a wrapper costs one thread-local load
// and a compare before the real call. Reads and writes are the loop's normal business on
// sockets, pipes and eventfds: only a regular file counts, decided with fstat once per
// descriptor and cached until the descriptor is closed or replaced through the wrappers here or
// in lagmon_preload.c (close, dup2, dup3, fclose). libc's internal calls (fopen, the waitpid in
// system, the sockets of getaddrinfo) do not go through the dynamic linker, so they are neither
// seen nor counted twice.
#define _GNU_SOURCE
#include "lagmon_strict_calls.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lagmon_strict.h"

#define LAGMON_EXPORT __attribute__((visibility("default")))

/* The slot of the loop this thread runs, while lagmon asked for StrictMode; NULL on every other
   thread (the only thing a wrapper looks at there). */
static __thread struct lagmon_slot *strict_slot __attribute__((tls_model("initial-exec")));
/* The channel the slots are in (whose discovery word a new call site posts). */
static struct lagmon_channel_header *strict_channel;

void lagmon_strict_watch(struct lagmon_channel_header *channel, struct lagmon_slot *slot) {
    int on = slot != NULL && channel != NULL && (channel->options & LAGMON_OPTION_STRICT) != 0;
    if (on) __atomic_store_n(&strict_channel, channel, __ATOMIC_RELAXED);
    strict_slot = on ? slot : NULL;
}

void lagmon_strict_after_fork_child(void) { strict_slot = NULL; }

/* ---- Descriptors ------------------------------------------------------------------------- */

/// Descriptors below this have their kind cached; above it every decision asks fstat.
#define LAGMON_STRICT_FD_CACHE 4096
enum lagmon_strict_fd_kind { LAGMON_FD_UNKNOWN = 0, LAGMON_FD_REGULAR = 1, LAGMON_FD_OTHER = 2 };
static uint8_t fd_kinds[LAGMON_STRICT_FD_CACHE];

void lagmon_strict_forget_fd(int fd) {
    if (fd >= 0 && fd < LAGMON_STRICT_FD_CACHE) __atomic_store_n(&fd_kinds[fd], LAGMON_FD_UNKNOWN, __ATOMIC_RELAXED);
}

static uint8_t lagmon_strict_stat_kind(int fd) {
    struct stat info;
    int saved = errno;
    uint8_t kind = fstat(fd, &info) != 0 ? LAGMON_FD_UNKNOWN : S_ISREG(info.st_mode) ? LAGMON_FD_REGULAR : LAGMON_FD_OTHER;
    errno = saved;
    return kind;
}

/// Whether `fd` is a regular file (a bad descriptor is not, and is not cached).
static int lagmon_strict_is_file(int fd) {
    if (fd < 0) return 0;
    if (fd >= LAGMON_STRICT_FD_CACHE) return lagmon_strict_stat_kind(fd) == LAGMON_FD_REGULAR;
    uint8_t kind = __atomic_load_n(&fd_kinds[fd], __ATOMIC_RELAXED);
    if (kind == LAGMON_FD_UNKNOWN) {
        kind = lagmon_strict_stat_kind(fd);
        __atomic_store_n(&fd_kinds[fd], kind, __ATOMIC_RELAXED);
    }
    return kind == LAGMON_FD_REGULAR;
}

/// Whether socket `fd` blocks in connect (no O_NONBLOCK).
static int lagmon_strict_is_blocking(int fd) {
    int saved = errno;
    int flags = fcntl(fd, F_GETFL);
    errno = saved;
    return flags >= 0 && (flags & O_NONBLOCK) == 0;
}

/* ---- Recording --------------------------------------------------------------------------- */

/// Whether `slot` is still this process's (a fork's child copies the forking thread's state
/// before its handler clears it; a slot another process took is never written).
static inline int lagmon_strict_owns(struct lagmon_slot *slot) {
    if (__builtin_expect(slot->pid == lagmon_probe_pid, 1)) return 1;
    strict_slot = NULL;
    return 0;
}

/// A counted call of `call` from `site`, entered at `start_ns`, just returned. A new call site
/// wakes lagmon's discovery: it names sites with the process's memory map, which it must read
/// while the process lives.
__attribute__((noinline)) static void lagmon_strict_note(struct lagmon_slot *slot, uint32_t call, uint64_t site,
                                                         uint64_t start_ns) {
    int saved = errno;
    uint64_t end_ns = lagmon_preload_clock_now();
    uint32_t used = slot->strict_used;
    lagmon_strict_record(slot, call, site, end_ns > start_ns ? end_ns - start_ns : 0);
    if (slot->strict_used != used && strict_channel != NULL) {
        lagmon_channel_post(&strict_channel->discovery_sequence);
    }
    errno = saved;
}

/* The real entry point, resolved once (every thread stores the same pointer). */
#define LAGMON_STRICT_REAL(name, type)                                 \
    static type real_##name;                                           \
    if (__builtin_expect(real_##name == NULL, 0)) {                    \
        real_##name = (type)dlsym(RTLD_NEXT, #name);                   \
    }

/* The caller's address: the call site StrictMode reports. Only meaningful in an exported
   wrapper itself (never inlined into another function). */
#define LAGMON_STRICT_SITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* Makes `real_call`; on a watched loop's thread, and when `counts` holds (evaluated only there,
   before the call), times it and records it as `call`. During the call the thread counts nothing
   else: a call made inside it through the dynamic linker (an NSS module's connect inside
   getaddrinfo) is part of it, not a second blocking call. */
#define LAGMON_STRICT_CALL(call, counts, real_call)                                                \
    do {                                                                                           \
        struct lagmon_slot *slot_ = strict_slot;                                                   \
        if (__builtin_expect(slot_ == NULL, 1) || !lagmon_strict_owns(slot_) || !(counts)) {        \
            return real_call;                                                                      \
        }                                                                                          \
        uint64_t site_ = LAGMON_STRICT_SITE();                                                     \
        uint64_t start_ = lagmon_preload_clock_now();                                              \
        strict_slot = NULL;                                                                        \
        __typeof__(real_call) result_ = real_call;                                                 \
        strict_slot = slot_;                                                                       \
        lagmon_strict_note(slot_, call, site_, start_);                                            \
        return result_;                                                                            \
    } while (0)

/* ---- File I/O ---------------------------------------------------------------------------- */

typedef ssize_t (*lagmon_read_fn)(int, void *, size_t);
typedef ssize_t (*lagmon_write_fn)(int, const void *, size_t);
typedef ssize_t (*lagmon_pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*lagmon_pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*lagmon_read_chk_fn)(int, void *, size_t, size_t);
typedef ssize_t (*lagmon_pread_chk_fn)(int, void *, size_t, off_t, size_t);
typedef int (*lagmon_fd_fn)(int);

LAGMON_EXPORT ssize_t read(int fd, void *buffer, size_t count) {
    LAGMON_STRICT_REAL(read, lagmon_read_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_READ, lagmon_strict_is_file(fd), real_read(fd, buffer, count));
}

ssize_t __read_chk(int fd, void *buffer, size_t count, size_t size);
LAGMON_EXPORT ssize_t __read_chk(int fd, void *buffer, size_t count, size_t size) {
    LAGMON_STRICT_REAL(__read_chk, lagmon_read_chk_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_READ, lagmon_strict_is_file(fd), real___read_chk(fd, buffer, count, size));
}

LAGMON_EXPORT ssize_t pread(int fd, void *buffer, size_t count, off_t offset) {
    LAGMON_STRICT_REAL(pread, lagmon_pread_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PREAD, lagmon_strict_is_file(fd), real_pread(fd, buffer, count, offset));
}

LAGMON_EXPORT ssize_t pread64(int fd, void *buffer, size_t count, off_t offset) {
    LAGMON_STRICT_REAL(pread64, lagmon_pread_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PREAD, lagmon_strict_is_file(fd), real_pread64(fd, buffer, count, offset));
}

ssize_t __pread64_chk(int fd, void *buffer, size_t count, off_t offset, size_t size);
LAGMON_EXPORT ssize_t __pread64_chk(int fd, void *buffer, size_t count, off_t offset, size_t size) {
    LAGMON_STRICT_REAL(__pread64_chk, lagmon_pread_chk_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PREAD, lagmon_strict_is_file(fd),
                       real___pread64_chk(fd, buffer, count, offset, size));
}

LAGMON_EXPORT ssize_t write(int fd, const void *buffer, size_t count) {
    LAGMON_STRICT_REAL(write, lagmon_write_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_WRITE, lagmon_strict_is_file(fd), real_write(fd, buffer, count));
}

LAGMON_EXPORT ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    LAGMON_STRICT_REAL(pwrite, lagmon_pwrite_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PWRITE, lagmon_strict_is_file(fd), real_pwrite(fd, buffer, count, offset));
}

LAGMON_EXPORT ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    LAGMON_STRICT_REAL(pwrite64, lagmon_pwrite_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PWRITE, lagmon_strict_is_file(fd), real_pwrite64(fd, buffer, count, offset));
}

typedef ssize_t (*lagmon_vector_fn)(int, const struct iovec *, int);
typedef ssize_t (*lagmon_vector_at_fn)(int, const struct iovec *, int, off_t);

LAGMON_EXPORT ssize_t readv(int fd, const struct iovec *vector, int count) {
    LAGMON_STRICT_REAL(readv, lagmon_vector_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_READV, lagmon_strict_is_file(fd), real_readv(fd, vector, count));
}

LAGMON_EXPORT ssize_t writev(int fd, const struct iovec *vector, int count) {
    LAGMON_STRICT_REAL(writev, lagmon_vector_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_WRITEV, lagmon_strict_is_file(fd), real_writev(fd, vector, count));
}

LAGMON_EXPORT ssize_t preadv(int fd, const struct iovec *vector, int count, off_t offset) {
    LAGMON_STRICT_REAL(preadv, lagmon_vector_at_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PREADV, lagmon_strict_is_file(fd), real_preadv(fd, vector, count, offset));
}

LAGMON_EXPORT ssize_t preadv64(int fd, const struct iovec *vector, int count, off_t offset) {
    LAGMON_STRICT_REAL(preadv64, lagmon_vector_at_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PREADV, lagmon_strict_is_file(fd), real_preadv64(fd, vector, count, offset));
}

LAGMON_EXPORT ssize_t pwritev(int fd, const struct iovec *vector, int count, off_t offset) {
    LAGMON_STRICT_REAL(pwritev, lagmon_vector_at_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PWRITEV, lagmon_strict_is_file(fd), real_pwritev(fd, vector, count, offset));
}

LAGMON_EXPORT ssize_t pwritev64(int fd, const struct iovec *vector, int count, off_t offset) {
    LAGMON_STRICT_REAL(pwritev64, lagmon_vector_at_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_PWRITEV, lagmon_strict_is_file(fd), real_pwritev64(fd, vector, count, offset));
}

/* Syncing is disk work whatever the descriptor (a directory's fsync makes a rename durable). */
LAGMON_EXPORT int fsync(int fd) {
    LAGMON_STRICT_REAL(fsync, lagmon_fd_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_FSYNC, 1, real_fsync(fd));
}

LAGMON_EXPORT int fdatasync(int fd) {
    LAGMON_STRICT_REAL(fdatasync, lagmon_fd_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_FDATASYNC, 1, real_fdatasync(fd));
}

/* ---- Opening files ----------------------------------------------------------------------- */

typedef int (*lagmon_open_fn)(const char *, int, ...);
typedef int (*lagmon_openat_fn)(int, const char *, int, ...);
typedef int (*lagmon_open_2_fn)(const char *, int);
typedef int (*lagmon_openat_2_fn)(int, const char *, int);

/// An open that created `fd` (or failed): a new descriptor's kind is unknown until looked at.
/// It counts when it opened a regular file, or failed (a path looked up in vain is file-system
/// work too: the missing config file).
static int lagmon_strict_opened(struct lagmon_slot *slot, uint32_t call, uint64_t site, uint64_t start_ns, int fd) {
    if (fd >= 0) lagmon_strict_forget_fd(fd);
    if (slot == NULL || (fd >= 0 && !lagmon_strict_is_file(fd))) return fd;
    lagmon_strict_note(slot, call, site, start_ns);
    return fd;
}

/// The mode argument, present when the flags create a file.
static int lagmon_strict_needs_mode(int flags) {
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

/* Opens with `real_call`, recording it as `call` on a watched loop's thread. */
#define LAGMON_STRICT_OPEN(call, real_call)                                                        \
    do {                                                                                           \
        struct lagmon_slot *slot_ = strict_slot;                                                   \
        if (__builtin_expect(slot_ == NULL, 1) || !lagmon_strict_owns(slot_)) {                    \
            int fd_ = real_call;                                                                   \
            if (fd_ >= 0) lagmon_strict_forget_fd(fd_);                                            \
            return fd_;                                                                            \
        }                                                                                          \
        uint64_t site_ = LAGMON_STRICT_SITE();                                                     \
        uint64_t start_ = lagmon_preload_clock_now();                                              \
        strict_slot = NULL;                                                                        \
        int fd_ = real_call;                                                                       \
        strict_slot = slot_;                                                                       \
        return lagmon_strict_opened(slot_, call, site_, start_, fd_);                              \
    } while (0)

#define LAGMON_STRICT_MODE(flags)                                     \
    mode_t mode = 0;                                                  \
    if (lagmon_strict_needs_mode(flags)) {                            \
        va_list arguments;                                            \
        va_start(arguments, flags);                                   \
        mode = (mode_t)va_arg(arguments, int);                        \
        va_end(arguments);                                            \
    }

LAGMON_EXPORT int open(const char *path, int flags, ...) {
    LAGMON_STRICT_MODE(flags);
    LAGMON_STRICT_REAL(open, lagmon_open_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPEN, real_open(path, flags, mode));
}

LAGMON_EXPORT int open64(const char *path, int flags, ...) {
    LAGMON_STRICT_MODE(flags);
    LAGMON_STRICT_REAL(open64, lagmon_open_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPEN, real_open64(path, flags, mode));
}

LAGMON_EXPORT int openat(int directory, const char *path, int flags, ...) {
    LAGMON_STRICT_MODE(flags);
    LAGMON_STRICT_REAL(openat, lagmon_openat_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPENAT, real_openat(directory, path, flags, mode));
}

LAGMON_EXPORT int openat64(int directory, const char *path, int flags, ...) {
    LAGMON_STRICT_MODE(flags);
    LAGMON_STRICT_REAL(openat64, lagmon_openat_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPENAT, real_openat64(directory, path, flags, mode));
}

/* _FORTIFY_SOURCE turns opens whose flags it cannot check at compile time into these. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int directory, const char *path, int flags);
int __openat64_2(int directory, const char *path, int flags);

LAGMON_EXPORT int __open_2(const char *path, int flags) {
    LAGMON_STRICT_REAL(__open_2, lagmon_open_2_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPEN, real___open_2(path, flags));
}

LAGMON_EXPORT int __open64_2(const char *path, int flags) {
    LAGMON_STRICT_REAL(__open64_2, lagmon_open_2_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPEN, real___open64_2(path, flags));
}

LAGMON_EXPORT int __openat_2(int directory, const char *path, int flags) {
    LAGMON_STRICT_REAL(__openat_2, lagmon_openat_2_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPENAT, real___openat_2(directory, path, flags));
}

LAGMON_EXPORT int __openat64_2(int directory, const char *path, int flags) {
    LAGMON_STRICT_REAL(__openat64_2, lagmon_openat_2_fn);
    LAGMON_STRICT_OPEN(LAGMON_STRICT_OPENAT, real___openat64_2(directory, path, flags));
}

/* ---- Descriptors replaced ---------------------------------------------------------------- */

typedef int (*lagmon_dup2_fn)(int, int);
typedef int (*lagmon_dup3_fn)(int, int, int);
typedef int (*lagmon_fclose_fn)(FILE *);

LAGMON_EXPORT int dup2(int old_fd, int new_fd) {
    LAGMON_STRICT_REAL(dup2, lagmon_dup2_fn);
    int result = real_dup2(old_fd, new_fd);
    if (result >= 0) lagmon_strict_forget_fd(result);
    return result;
}

LAGMON_EXPORT int dup3(int old_fd, int new_fd, int flags) {
    LAGMON_STRICT_REAL(dup3, lagmon_dup3_fn);
    int result = real_dup3(old_fd, new_fd, flags);
    if (result >= 0) lagmon_strict_forget_fd(result);
    return result;
}

/* fclose closes inside libc, out of the close wrapper's sight. */
LAGMON_EXPORT int fclose(FILE *stream) {
    LAGMON_STRICT_REAL(fclose, lagmon_fclose_fn);
    int fd = stream != NULL ? fileno(stream) : -1;
    int result = real_fclose(stream);
    lagmon_strict_forget_fd(fd);
    return result;
}

/* ---- DNS and connecting ------------------------------------------------------------------ */

typedef int (*lagmon_getaddrinfo_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
typedef int (*lagmon_connect_fn)(int, const struct sockaddr *, socklen_t);

LAGMON_EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                              struct addrinfo **result) {
    LAGMON_STRICT_REAL(getaddrinfo, lagmon_getaddrinfo_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_GETADDRINFO, 1, real_getaddrinfo(node, service, hints, result));
}

LAGMON_EXPORT int connect(int fd, const struct sockaddr *address, socklen_t length) {
    LAGMON_STRICT_REAL(connect, lagmon_connect_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_CONNECT, lagmon_strict_is_blocking(fd), real_connect(fd, address, length));
}

/* ---- Sleeping ---------------------------------------------------------------------------- */

typedef unsigned int (*lagmon_sleep_fn)(unsigned int);
typedef int (*lagmon_usleep_fn)(useconds_t);
typedef int (*lagmon_nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*lagmon_clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);

LAGMON_EXPORT unsigned int sleep(unsigned int seconds) {
    LAGMON_STRICT_REAL(sleep, lagmon_sleep_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_SLEEP, 1, real_sleep(seconds));
}

LAGMON_EXPORT int usleep(useconds_t microseconds) {
    LAGMON_STRICT_REAL(usleep, lagmon_usleep_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_USLEEP, 1, real_usleep(microseconds));
}

LAGMON_EXPORT int nanosleep(const struct timespec *duration, struct timespec *remaining) {
    LAGMON_STRICT_REAL(nanosleep, lagmon_nanosleep_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_NANOSLEEP, 1, real_nanosleep(duration, remaining));
}

LAGMON_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *duration,
                                  struct timespec *remaining) {
    LAGMON_STRICT_REAL(clock_nanosleep, lagmon_clock_nanosleep_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_CLOCK_NANOSLEEP, 1, real_clock_nanosleep(clock, flags, duration, remaining));
}

/* ---- Children ---------------------------------------------------------------------------- */

typedef pid_t (*lagmon_waitpid_fn)(pid_t, int *, int);
typedef pid_t (*lagmon_wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*lagmon_system_fn)(const char *);
typedef FILE *(*lagmon_popen_fn)(const char *, const char *);

/* A WNOHANG wait only looks: it never blocks. */
LAGMON_EXPORT pid_t waitpid(pid_t pid, int *status, int options) {
    LAGMON_STRICT_REAL(waitpid, lagmon_waitpid_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_WAITPID, (options & WNOHANG) == 0, real_waitpid(pid, status, options));
}

LAGMON_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage) {
    LAGMON_STRICT_REAL(wait4, lagmon_wait4_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_WAIT4, (options & WNOHANG) == 0, real_wait4(pid, status, options, usage));
}

LAGMON_EXPORT int system(const char *command) {
    LAGMON_STRICT_REAL(system, lagmon_system_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_SYSTEM, 1, real_system(command));
}

LAGMON_EXPORT FILE *popen(const char *command, const char *type) {
    LAGMON_STRICT_REAL(popen, lagmon_popen_fn);
    LAGMON_STRICT_CALL(LAGMON_STRICT_POPEN, 1, real_popen(command, type));
}
