// An epoll loop whose iterations spin and then sleep in one wait call with a timeout, with
// nothing ready: the call times out. It exits nonzero on any EINTR that no signal explains, so a
// stop of lagmon's that lands in the wait and reaches the program fails it. Every iteration is a
// busy period to lagmon (the loop's own wait is an epoll_wait on another descriptor), so under
// `lagmon run --threshold 1ms --sample-interval 1ms` the sampler stops the thread inside the
// call again and again.
//
//   lagmon-wait-fixture CALL [--rounds N] [--spin-ms S] [--wait-ms T] [--max-wait-ms M] [--min-wait-ms E] [--signals|--handler]
//       CALL: epoll_wait epoll_pwait epoll_pwait2 poll ppoll select pselect nanosleep
//       clock_nanosleep read readv recv recvfrom recvmsg accept futex (the socket calls on a
//       socket with SO_RCVTIMEO T: nothing arrives) write send sendmsg (on a socket with
//       SO_SNDTIMEO T whose buffer is full: nothing is read) sigtimedwait (SIGUSR2, blocked,
//       timeout T: nothing arrives) sigwaitinfo (SIGUSR2, no timeout: a helper thread sends it T ms
//       into the call) io_uring_enter (an io_uring wait for one completion, no timeout of its own:
//       the completion is a timeout request of T ms submitted before it) io_uring_enter_timeout
//       (an io_uring wait with a timeout T, IORING_ENTER_EXT_ARG, nothing submitted). N rounds (default 100) of: one 1 ms tick of the loop's wait, a spin of
//       S ms (default 5), CALL with a timeout of T ms (default 50). Exits 3 on an EINTR with no
//       signal caught during the call, 4 when a call waited longer than M ms (default 10000:
//       a wait restarted with its whole timeout at every stop would never end), 5 when a socket
//       call or sigtimedwait failed otherwise than with EAGAIN (its timeout) or succeeded, or
//       sigwaitinfo returned anything but SIGUSR2, or io_uring_enter_timeout anything but ETIME
//       (its timeout), or io_uring_enter anything but its request's timeout, 6 when one of those calls
//       timed out after less than --min-wait-ms (default 0: a timeout that ended early). With --signals
//       a helper thread sends SIGUSR1 (handler without SA_RESTART) to the loop while it sleeps
//       in CALL, every third round: those EINTRs are expected; --handler installs the handler
//       only (a test sends the signal). Prints `ready pid=P` first, and at the end
//       `CALL waits=N longest_ms=X shortest_ms=Y signal_eintrs=K signals=M`, and exits 0. Exits 7
//       when the kernel refuses io_uring (`io_uring unavailable: …`).
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int wait_ms = 50;
static int sockets[2] = {-1, -1};
static int full_sockets[2] = {-1, -1};
static int listener = -1;
static int wait_epoll = -1;
static atomic_int futex_word;
static volatile sig_atomic_t signals_caught;
static atomic_int in_call;
/* Wait calls the loop has entered: the helper threads follow rounds by this count, not by
   in_call's ups and downs, which a helper kept off the CPU for a round's few milliseconds between
   two calls would miss (the sigwaitinfo waker then waited for ever, and so did the loop). */
static atomic_int calls_entered;
static pid_t loop_tid;
static sigset_t signal_wait_set;

/// The io_uring calls' ring: its descriptor, and where its submission and completion rings and
/// entries are mapped (raw system calls: liburing is not needed for one request at a time).
static struct {
    int fd;
    unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    struct __kernel_timespec timeout;
} ring = {.fd = -1};

/// Sets the ring up; 0, or -1 with errno set (io_uring disabled, or refused by seccomp).
static int make_ring(void) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    ring.fd = (int)syscall(SYS_io_uring_setup, 4, &params);
    if (ring.fd < 0) return -1;
    size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.fd, IORING_OFF_SQ_RING);
    char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.fd, IORING_OFF_CQ_RING);
    ring.sqes = mmap(NULL, params.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_POPULATE, ring.fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || ring.sqes == MAP_FAILED) return -1;
    ring.sq_tail = (unsigned *)(sq + params.sq_off.tail);
    ring.sq_mask = (unsigned *)(sq + params.sq_off.ring_mask);
    ring.sq_array = (unsigned *)(sq + params.sq_off.array);
    ring.cq_head = (unsigned *)(cq + params.cq_off.head);
    ring.cq_tail = (unsigned *)(cq + params.cq_off.tail);
    ring.cq_mask = (unsigned *)(cq + params.cq_off.ring_mask);
    ring.cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
    return 0;
}

/// io_uring_enter: submits a timeout request of T ms (alone: nothing else to submit), then
/// waits for its completion in a call of its own, with no timeout. Returns the wait's result,
/// and on success the completion's (-ETIME: the request timed out) as -1 with errno set.
static long io_uring_wait(void) {
    ring.timeout = (struct __kernel_timespec){.tv_sec = wait_ms / 1000, .tv_nsec = (long long)(wait_ms % 1000) * 1000000};
    unsigned tail = *ring.sq_tail;
    struct io_uring_sqe *sqe = &ring.sqes[tail & *ring.sq_mask];
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_TIMEOUT;
    sqe->addr = (unsigned long)&ring.timeout;
    sqe->len = 1;
    ring.sq_array[tail & *ring.sq_mask] = tail & *ring.sq_mask;
    __atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
    if (syscall(SYS_io_uring_enter, ring.fd, 1, 0, 0, NULL, 0) != 1) return -3;
    long result = syscall(SYS_io_uring_enter, ring.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
    if (result < 0) return result;
    unsigned head = *ring.cq_head;
    if (head == __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE)) return -4;  // woken with no completion
    int completion = ring.cqes[head & *ring.cq_mask].res;
    __atomic_store_n(ring.cq_head, head + 1, __ATOMIC_RELEASE);
    errno = -completion;
    return -1;
}

/// io_uring_enter_timeout: a wait for one completion, nothing submitted, with the timeout T in
/// its extended argument; it ends with ETIME.
static long io_uring_wait_with_timeout(void) {
    struct __kernel_timespec timeout = {.tv_sec = wait_ms / 1000, .tv_nsec = (long long)(wait_ms % 1000) * 1000000};
    struct io_uring_getevents_arg argument = {.ts = (unsigned long)&timeout};
    return syscall(SYS_io_uring_enter, ring.fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &argument,
                   sizeof argument);
}

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void count_signal(int signal) {
    (void)signal;
    signals_caught++;
}

static struct timespec wait_timespec(void) {
    return (struct timespec){.tv_sec = wait_ms / 1000, .tv_nsec = (long)(wait_ms % 1000) * 1000000};
}

/// One call of `call` with the timeout, nothing ready. Returns its result (-1 with errno set on
/// failure, like the calls themselves); -2 for an unknown call.
static long wait_call(const char *call) {
    struct epoll_event event;
    struct timespec timeout = wait_timespec();
    struct timeval timeval = {.tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000};
    struct pollfd pollfd = {.fd = sockets[0], .events = POLLIN};
    fd_set read_set;
    FD_ZERO(&read_set);
    FD_SET(sockets[0], &read_set);
    char byte;
    if (strcmp(call, "epoll_wait") == 0) return epoll_wait(wait_epoll, &event, 1, wait_ms);
    if (strcmp(call, "epoll_pwait") == 0) return epoll_pwait(wait_epoll, &event, 1, wait_ms, NULL);
    if (strcmp(call, "epoll_pwait2") == 0) return syscall(SYS_epoll_pwait2, wait_epoll, &event, 1, &timeout, NULL, 8);
    if (strcmp(call, "poll") == 0) return poll(&pollfd, 1, wait_ms);
    if (strcmp(call, "ppoll") == 0) return ppoll(&pollfd, 1, &timeout, NULL);
    if (strcmp(call, "select") == 0) return select(sockets[0] + 1, &read_set, NULL, NULL, &timeval);
    if (strcmp(call, "pselect") == 0) return pselect(sockets[0] + 1, &read_set, NULL, NULL, &timeout, NULL);
    if (strcmp(call, "nanosleep") == 0) return nanosleep(&timeout, NULL);
    if (strcmp(call, "clock_nanosleep") == 0) {
        int result = clock_nanosleep(CLOCK_MONOTONIC, 0, &timeout, NULL);
        errno = result;
        return result == 0 ? 0 : -1;
    }
    struct iovec vector = {.iov_base = &byte, .iov_len = 1};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    if (strcmp(call, "read") == 0) return read(sockets[0], &byte, 1);
    if (strcmp(call, "readv") == 0) return readv(sockets[0], &vector, 1);
    if (strcmp(call, "accept") == 0) return accept(listener, NULL, NULL);
    if (strcmp(call, "write") == 0) return write(full_sockets[0], &byte, 1);
    if (strcmp(call, "send") == 0) return send(full_sockets[0], &byte, 1, 0);
    if (strcmp(call, "sendmsg") == 0) return sendmsg(full_sockets[0], &message, 0);
    if (strcmp(call, "recv") == 0) return recv(sockets[0], &byte, 1, 0);
    if (strcmp(call, "recvfrom") == 0) return recvfrom(sockets[0], &byte, 1, 0, NULL, NULL);
    if (strcmp(call, "recvmsg") == 0) return recvmsg(sockets[0], &message, 0);
    if (strcmp(call, "futex") == 0) return syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &timeout, NULL, 0);
    if (strcmp(call, "sigtimedwait") == 0) return sigtimedwait(&signal_wait_set, NULL, &timeout);
    if (strcmp(call, "sigwaitinfo") == 0) return sigwaitinfo(&signal_wait_set, NULL);
    if (strcmp(call, "io_uring_enter") == 0) return io_uring_wait();
    if (strcmp(call, "io_uring_enter_timeout") == 0) return io_uring_wait_with_timeout();
    return -2;
}

static int socket_call(const char *call);

/// The error `call` times out with: ETIME for the io_uring calls, EAGAIN for the socket calls
/// and sigtimedwait; 0 for the others, which time out with a result of their own.
static int timeout_error(const char *call) {
    if (strncmp(call, "io_uring_enter", 14) == 0) return ETIME;
    return socket_call(call) ? EAGAIN : 0;
}

/// Whether `call` is one of the socket calls or sigtimedwait, which time out with EAGAIN.
static int socket_call(const char *call) {
    static const char *const calls[] = {"read",  "readv", "recv",    "recvfrom",    "recvmsg",
                                        "accept", "write", "send", "sendmsg", "sigtimedwait"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strcmp(call, calls[i]) == 0) return 1;
    return 0;
}

/// The sockets the socket calls wait on, each with the timeout T: a connected pair with nothing
/// sent, a listener nobody connects to, and a pair whose sending side's buffer is full.
static void make_sockets(void) {
    struct timeval timeout = {.tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000};
    socketpair(AF_UNIX, SOCK_STREAM, 0, sockets);
    setsockopt(sockets[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    // An abstract name (leading NUL): nothing in the file system to clean up.
    int length = snprintf(address.sun_path + 1, sizeof address.sun_path - 1, "lagmon-wait-fixture-%d", (int)getpid());
    bind(listener, (struct sockaddr *)&address, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length));
    listen(listener, 1);
    setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    socketpair(AF_UNIX, SOCK_STREAM, 0, full_sockets);
    char chunk[4096] = {0};
    while (send(full_sockets[0], chunk, sizeof chunk, MSG_DONTWAIT) > 0) {
    }
    while (send(full_sockets[0], chunk, 1, MSG_DONTWAIT) > 0) {
    }
    setsockopt(full_sockets[0], SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

static void spin_in_wait_fixture_iteration(int milliseconds) {
    uint64_t end = now_ns() + (uint64_t)milliseconds * 1000000u;
    while (now_ns() < end) {
    }
}

/// --signals: SIGUSR1 to the loop thread while it is in its wait call, every third round.
static void *send_signals(void *unused) {
    (void)unused;
    struct timespec pause = {.tv_sec = 0, .tv_nsec = (long)wait_ms * 1000000 / 4};
    for (int seen = 0;;) {
        int call;
        while ((call = atomic_load(&calls_entered)) == seen) nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL);
        seen = call;
        nanosleep(&pause, NULL);
        // Still in that call (not a later one): the signal interrupts the call it was meant for.
        if (call % 3 == 1 && atomic_load(&in_call) && atomic_load(&calls_entered) == call) {
            syscall(SYS_tgkill, getpid(), loop_tid, SIGUSR1);
        }
    }
    return NULL;
}

/// sigwaitinfo: SIGUSR2 to the loop thread T ms after it entered the call, every round.
static void *wake_signal_waits(void *unused) {
    (void)unused;
    struct timespec pause = wait_timespec();
    // One signal a call: a call ends only by its signal, so the next call entered is the next round.
    for (int seen = 0;;) {
        while (atomic_load(&calls_entered) == seen) nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL);
        seen++;
        nanosleep(&pause, NULL);
        syscall(SYS_tgkill, getpid(), loop_tid, SIGUSR2);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: lagmon-wait-fixture CALL [--rounds N] [--spin-ms S] [--wait-ms T] "
                        "[--max-wait-ms M] [--signals]\n");
        return 2;
    }
    const char *call = argv[1];
    int rounds = 100, spin_ms = 5, max_wait_ms = 10000, min_wait_ms = 0, signals = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--signals") == 0) signals = 2;
        else if (strcmp(argv[i], "--handler") == 0) signals = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--spin-ms") == 0) spin_ms = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--wait-ms") == 0) wait_ms = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--max-wait-ms") == 0) max_wait_ms = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--min-wait-ms") == 0) min_wait_ms = atoi(argv[++i]);
    }
    make_sockets();
    if (strncmp(call, "io_uring_enter", 14) == 0 && make_ring() != 0) {
        printf("io_uring unavailable: %s\n", strerror(errno));
        return 7;
    }
    // The signal waits' SIGUSR2, blocked in every thread (the helper threads inherit the mask).
    sigemptyset(&signal_wait_set);
    sigaddset(&signal_wait_set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &signal_wait_set, NULL);
    wait_epoll = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event watched = {.events = EPOLLIN};
    epoll_ctl(wait_epoll, EPOLL_CTL_ADD, sockets[0], &watched);
    // The loop's own wait: an epoll set with nothing in it, woken by its 1 ms timeout.
    int loop_epoll = epoll_create1(EPOLL_CLOEXEC);
    loop_tid = (pid_t)syscall(SYS_gettid);
    if (strcmp(call, "sigwaitinfo") == 0) {
        pthread_t waker;
        pthread_create(&waker, NULL, wake_signal_waits, NULL);
    }
    if (signals) {
        struct sigaction action = {.sa_handler = count_signal};
        sigemptyset(&action.sa_mask);
        sigaction(SIGUSR1, &action, NULL);
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_UNBLOCK, &usr1, NULL);
        if (signals == 2) {
            pthread_t sender;
            // The sender must not take the signal itself.
            pthread_sigmask(SIG_BLOCK, &usr1, NULL);
            pthread_create(&sender, NULL, send_signals, NULL);
            pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
        }
    }
    // The loop qualifies on its own wait set first (three waits on one key: lagmon_waitcall.h).
    for (int tick = 0; tick < 3; tick++) {
        struct epoll_event event;
        epoll_wait(loop_epoll, &event, 1, 1);
    }
    printf("ready pid=%d\n", (int)getpid());
    fflush(stdout);
    uint64_t longest = 0, shortest = UINT64_MAX;
    int signal_eintrs = 0;
    for (int round = 0; round < rounds; round++) {
        struct epoll_event event;
        epoll_wait(loop_epoll, &event, 1, 1);
        spin_in_wait_fixture_iteration(spin_ms);
        sig_atomic_t caught_before = signals_caught;
        uint64_t start = now_ns();
        atomic_store(&in_call, 1);
        atomic_fetch_add(&calls_entered, 1);
        errno = 0;
        long result = wait_call(call);
        int error = errno;
        atomic_store(&in_call, 0);
        uint64_t waited = now_ns() - start;
        if (result == -2) {
            fprintf(stderr, "lagmon-wait-fixture: unknown call %s\n", call);
            return 2;
        }
        if (result < 0 && error == EINTR) {
            if (signals_caught == caught_before) {
                printf("EINTR from %s in round %d with no signal\n", call, round);
                return 3;
            }
            signal_eintrs++;
            continue;
        }
        if (strcmp(call, "sigwaitinfo") == 0 && result != SIGUSR2) {
            printf("%s returned %ld (%s) in round %d, not SIGUSR2\n", call, result, strerror(error), round);
            return 5;
        }
        if (timeout_error(call) && !(result == -1 && (error == timeout_error(call) || (error == EWOULDBLOCK && timeout_error(call) == EAGAIN)))) {
            printf("%s returned %ld (%s) in round %d, not its timeout's %s\n", call, result, strerror(error), round,
                   strerror(timeout_error(call)));
            return 5;
        }
        if (timeout_error(call) && waited < (uint64_t)min_wait_ms * 1000000u) {
            printf("%s timed out after %llu ms, asked for %d\n", call, (unsigned long long)(waited / 1000000), wait_ms);
            return 6;
        }
        if (waited > longest) longest = waited;
        if (waited < shortest) shortest = waited;
        if (waited > (uint64_t)max_wait_ms * 1000000u) {
            printf("%s waited %llu ms, asked for %d\n", call, (unsigned long long)(waited / 1000000), wait_ms);
            return 4;
        }
    }
    printf("%s waits=%d longest_ms=%llu shortest_ms=%llu signal_eintrs=%d signals=%d\n", call, rounds,
           (unsigned long long)(longest / 1000000), (unsigned long long)(shortest == UINT64_MAX ? 0 : shortest / 1000000),
           signal_eintrs, (int)signals_caught);
    return 0;
}
