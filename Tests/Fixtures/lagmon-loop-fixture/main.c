// Plain C event loops for lagmon's wait-call probe tests and benchmarks: epoll + timerfd loops
// that stall on purpose in distinctively named functions, on the main thread, on a worker thread,
// or in a child process. Every timing is driven by timerfd ticks; lines on stdout say what
// happened (tests read them, never sleep).
//
//   lagmon-loop-fixture stall [--ticks-before N] [--ticks-after N] [--exit-status S]
//                             [--stalls N] [--period-ms P] [--wait epoll|poll|select]
//                             [--wait-for-input] [--exit-busy] [--then-spin-ms M]
//       main-thread loop: N ticks of P ms (20), then --stalls times (1) spin_for_250ms_in_c_loop()
//       (with --then-spin-ms, then M ms more in spin_more_in_c_loop(): two runs whose stalls
//       spent their time differently) and one tick, then N more ticks; it sleeps in the --wait call (epoll_wait). After each
//       stall it prints `busy <woke ns> <waited ns>`: CLOCK_MONOTONIC when the wait before the
//       stalling iteration returned and when the next wait was entered; before `done`,
//       `interrupted waits=N`, the wait calls that failed with EINTR (a stop breaks epoll_wait). With
//       --wait-for-input it first prints `waiting pid=<pid>` and begins on a line from stdin
//       (blocked in read: busy to an outside observer); --idle-until-input does the same but
//       sleeps in poll on stdin until the line arrives (idle, as a loop between events).
//       With --exit-busy it calls exit() inside its last iteration, just after waking (the loop
//       is never closed), and first prints `exit at <CLOCK_MONOTONIC ns>`. With --crash-busy it
//       instead spins 250 ms inside its last iteration, prints `busy from <ns> crash at <ns>`
//       and dies of a SIGSEGV (a write through a null pointer) still inside that iteration
//   lagmon-loop-fixture busy-until-input
//       main-thread loop: 3 ticks of 20 ms, then prints `busy pid=<pid>` and, inside that
//       iteration, spins in spin_until_told_in_c_loop() (no system call) until a line arrives on
//       stdin (read by a "stdin-reader" thread, blocked in read); then one tick and `done`
//   lagmon-loop-fixture idle-until-input [--wait epoll|poll|select] [--count-signals]
//       main-thread loop that prints `idle pid=<pid>` and sleeps in its wait call (no timeout) on
//       stdin until a line arrives, then prints `interrupted waits=N signals=M` and `done`; with
//       --count-signals a SIGUSR1 handler counts the signals (M), each of which breaks the wait
//   lagmon-loop-fixture idle [--ticks N]
//       main-thread loop that only wakes for its ticks
//   lagmon-loop-fixture threads
//       a small TCP server on 127.0.0.1: the main thread accepts in its epoll loop and hands each
//       connection to the "io-worker" thread, which serves requests in its own epoll loop; a
//       "client" thread (blocking calls, no loop) sends 10 requests 20 ms apart, and the fourth,
//       `slow`, makes the worker block in worker_blocks_for_300ms()
//   lagmon-loop-fixture fork-child exec|fork|loop-exec
//       starts a child running `stall` (exec'ing this program, or in a plain fork; loop-exec: the
//       child runs `exec-after-loop`) and exits with the child's status
//   lagmon-loop-fixture fork-many N
//       forks N children, each an epoll loop of 10 ms ticks that stalls once, 120 ms asleep in
//       sleep_for_120ms_in_child_loop(), then ticks a number of times that depends on its index
//       (so children exit in a scrambled order) and exits 0; the parent only wait()s for them all,
//       then prints `reaped N of N` and exits 0 (1 if any child failed)
//   lagmon-loop-fixture exec-after-loop [--ticks N]
//       main-thread loop: N ticks of 20 ms (5), then, from inside its last iteration, prints
//       `exec pid=<pid>` and execs this program's `stall` (same pid, new image)
//   lagmon-loop-fixture oneshot
//       no loop: one poll for input, then 250 ms of work (not a loop: no stalls)
//   lagmon-loop-fixture loops N [--seconds S] [--ticks-each T [--stall-last]]
//       N threads ("loop-K"), each an epoll loop ticking every 50 ms, for S seconds (60); prints
//       `loops ready` once every thread runs (the metrics benchmark scrapes N loops). With
//       --ticks-each the program instead ends once every loop has ticked T times (each then
//       keeps ticking until the end); with --stall-last the last loop, after its T ticks, prints
//       `stalling loop-<N-1> tid=<tid>`, runs spin_for_250ms_in_c_loop() and ticks twice more
//       before it counts as done. The main thread has no loop; it prints `done` at the end
//   lagmon-loop-fixture bench N
//       N epoll_wait calls with timeout 0 in a tight loop; prints the ns per call
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline __attribute__((always_inline)) uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/// Burns the CPU for 250 ms without a system call: a loop stuck in its own code.
__attribute__((noinline)) void spin_for_250ms_in_c_loop(void) {
    uint64_t until = now_ns() + 250000000ull;
    while (now_ns() < until) {
        for (int i = 0; i < 1000; i++) sink += (uint64_t)i * 2654435761u;
    }
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
}

/// Burns the CPU for `ms` milliseconds more, in a function of its own (`--then-spin-ms`).
__attribute__((noinline)) void spin_more_in_c_loop(int ms) {
    uint64_t until = now_ns() + (uint64_t)ms * 1000000ull;
    while (now_ns() < until) {
        for (int i = 0; i < 1000; i++) sink += (uint64_t)i * 2654435761u;
    }
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
}

/// Writes through a null pointer the compiler cannot see is null: a real fault, SIGSEGV.
static int *volatile nowhere;
__attribute__((noinline)) void crash_in_c_loop(void) {
    *nowhere = 1;
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void worker_blocks_for_300ms(void) {
    struct timespec pause = {0, 300000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
    __asm__ volatile("" ::: "memory");
}

static atomic_int told_to_stop;

/// Spins in its own code, without a system call, until the stdin reader says stop.
__attribute__((noinline)) void spin_until_told_in_c_loop(void) {
    while (!atomic_load_explicit(&told_to_stop, memory_order_relaxed)) {
        for (int i = 0; i < 1000; i++) sink += (uint64_t)i * 2654435761u;
    }
    __asm__ volatile("" ::: "memory");
}

static void *stdin_reader(void *unused) {
    (void)unused;
    char line[64];
    (void)!fgets(line, sizeof line, stdin);
    atomic_store(&told_to_stop, 1);
    return NULL;
}

/// The call loops sleep in: epoll_wait (default), poll or select on the timerfd.
static enum { WAIT_EPOLL, WAIT_POLL, WAIT_SELECT } wait_call = WAIT_EPOLL;

/// An epoll loop with one timerfd ticking every `period_ms`.
struct loop {
    int epoll;
    int timer;
};

static struct loop loop_open(int period_ms) {
    struct loop loop;
    loop.epoll = epoll_create1(EPOLL_CLOEXEC);
    loop.timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    /* Seconds apart: a tv_nsec of a second or more is refused (EINVAL), leaving a timer that
       never fires. */
    struct timespec period = {period_ms / 1000, (period_ms % 1000) * 1000000L};
    struct itimerspec every = {period, period};
    timerfd_settime(loop.timer, 0, &every, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = loop.timer};
    epoll_ctl(loop.epoll, EPOLL_CTL_ADD, loop.timer, &event);
    return loop;
}

/// CLOCK_MONOTONIC right after the latest wait returned, and right before the latest wait was
/// entered: the edges of a busy period as /proc sees them (the test's truth on a loaded machine,
/// where the thread can wait for a CPU anywhere in between).
static uint64_t last_woke_ns, last_wait_entry_ns;
/// Wait calls that failed with EINTR (only idle-until-input --count-signals installs a signal
/// handler: otherwise only a stop can cause one).
static int interrupted_waits;
static uint64_t loop_wait(struct loop *loop);

/// Waits for the next tick; returns the ticks elapsed.
static uint64_t loop_tick(struct loop *loop) {
    last_wait_entry_ns = now_ns();
    uint64_t result = loop_wait(loop);
    return result;
}

static uint64_t loop_wait(struct loop *loop) {
    struct epoll_event event;
    struct pollfd poller = {.fd = loop->timer, .events = POLLIN};
    fd_set readable;
    switch (wait_call) {
    case WAIT_EPOLL:
        while (epoll_wait(loop->epoll, &event, 1, -1) != 1) {
            if (errno == EINTR) interrupted_waits++;
        }
        break;
    case WAIT_POLL:
        while (poll(&poller, 1, -1) != 1) {
            if (errno == EINTR) interrupted_waits++;
        }
        break;
    case WAIT_SELECT:
        for (;;) {
            FD_ZERO(&readable);
            FD_SET(loop->timer, &readable);
            if (select(loop->timer + 1, &readable, NULL, NULL, NULL) == 1) break;
            if (errno == EINTR) interrupted_waits++;
        }
        break;
    }
    last_woke_ns = now_ns();
    uint64_t expirations = 0;
    if (read(loop->timer, &expirations, sizeof expirations) != sizeof expirations) return 0;
    return expirations;
}

static void loop_close(struct loop *loop) {
    close(loop->timer);
    close(loop->epoll);
}

static int arg_int(int argc, char **argv, const char *name, int fallback) {
    for (int i = 0; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
    }
    return fallback;
}

static int run_stall(int argc, char **argv) {
    int before = arg_int(argc, argv, "--ticks-before", 5);
    int after = arg_int(argc, argv, "--ticks-after", 5);
    int stalls = arg_int(argc, argv, "--stalls", 1);
    int more_ms = arg_int(argc, argv, "--then-spin-ms", 0);
    for (int i = 2; i < argc; i++) {
        int idle = strcmp(argv[i], "--idle-until-input") == 0;
        if (!idle && strcmp(argv[i], "--wait-for-input") != 0) continue;
        printf("waiting pid=%d\n", getpid());
        fflush(stdout);
        struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
        while (idle && poll(&input, 1, -1) < 0 && errno == EINTR) {
        }
        char line[64];
        if (!fgets(line, sizeof line, stdin)) return 1;
    }
    struct loop loop = loop_open(arg_int(argc, argv, "--period-ms", 20));
    last_woke_ns = now_ns();
    for (int tick = 0; tick < before; tick++) loop_tick(&loop);
    for (int stall = 0; stall < stalls; stall++) {
        uint64_t woke = last_woke_ns;
        printf("stalling pid=%d\n", getpid());
        fflush(stdout);
        spin_for_250ms_in_c_loop();
        if (more_ms > 0) spin_more_in_c_loop(more_ms);
        loop_tick(&loop);
        printf("busy %llu %llu\n", (unsigned long long)woke, (unsigned long long)last_wait_entry_ns);
        fflush(stdout);
    }
    for (int tick = 0; tick < after; tick++) loop_tick(&loop);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--crash-busy") != 0) continue;
        loop_tick(&loop);
        uint64_t from = now_ns();
        spin_for_250ms_in_c_loop();
        printf("busy from %llu crash at %llu\n", (unsigned long long)from, (unsigned long long)now_ns());
        fflush(stdout);
        crash_in_c_loop();
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--exit-busy") != 0) continue;
        loop_tick(&loop);
        printf("exit at %llu\n", (unsigned long long)now_ns());
        fflush(stdout);
        exit(arg_int(argc, argv, "--exit-status", 0));
    }
    loop_close(&loop);
    printf("interrupted waits=%d\n", interrupted_waits);
    printf("done\n");
    return arg_int(argc, argv, "--exit-status", 0);
}

static int run_busy(void) {
    pthread_t reader;
    if (pthread_create(&reader, NULL, stdin_reader, NULL) != 0) return 70;
    pthread_setname_np(reader, "stdin-reader");
    struct loop loop = loop_open(20);
    for (int tick = 0; tick < 3; tick++) loop_tick(&loop);
    printf("busy pid=%d\n", getpid());
    fflush(stdout);
    spin_until_told_in_c_loop();
    loop_tick(&loop);
    loop_close(&loop);
    pthread_join(reader, NULL);
    printf("done\n");
    return 0;
}

/// Signals caught by idle-until-input's --count-signals handler (SIGUSR1).
static volatile sig_atomic_t signals_caught;

static void count_signal(int signal) {
    (void)signal;
    signals_caught++;
}

static int run_idle_until_input(int argc, char **argv) {
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--count-signals") != 0) continue;
        struct sigaction action = {.sa_handler = count_signal};
        sigemptyset(&action.sa_mask);
        sigaction(SIGUSR1, &action, NULL);
        // A mask inherited from the spawning thread may block it.
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    }
    struct loop loop = {.epoll = epoll_create1(EPOLL_CLOEXEC), .timer = STDIN_FILENO};
    struct epoll_event event = {.events = EPOLLIN, .data.fd = STDIN_FILENO};
    epoll_ctl(loop.epoll, EPOLL_CTL_ADD, STDIN_FILENO, &event);
    printf("idle pid=%d\n", getpid());
    fflush(stdout);
    loop_tick(&loop);
    close(loop.epoll);
    printf("interrupted waits=%d signals=%d\n", interrupted_waits, (int)signals_caught);
    printf("done\n");
    return 0;
}

static int run_idle(int argc, char **argv) {
    int ticks = arg_int(argc, argv, "--ticks", 25);
    struct loop loop = loop_open(20);
    for (int tick = 0; tick < ticks; tick++) loop_tick(&loop);
    loop_close(&loop);
    printf("done\n");
    return 0;
}

/* The server: connections go from the acceptor (main thread) to the worker through a pipe. */
static int handoff[2];
static atomic_int client_done;

static void epoll_add(int epoll, int fd) {
    struct epoll_event event = {.events = EPOLLIN, .data.fd = fd};
    epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

static void *worker_main(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "io-worker");
    printf("worker tid=%d\n", gettid());
    fflush(stdout);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    epoll_add(epoll, handoff[0]);
    for (;;) {
        struct epoll_event events[8];
        int ready = epoll_wait(epoll, events, 8, -1);
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == handoff[0]) {
                int connection = -1;
                if (read(handoff[0], &connection, sizeof connection) != sizeof connection || connection < 0) {
                    close(epoll);
                    return NULL;
                }
                epoll_add(epoll, connection);
                continue;
            }
            char request[64];
            ssize_t got = read(fd, request, sizeof request - 1);
            if (got <= 0) {
                epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                continue;
            }
            if (strncmp(request, "slow", 4) == 0) worker_blocks_for_300ms();
            if (write(fd, "ok\n", 3) != 3) perror("write");
        }
    }
}

static void *client_main(void *argument) {
    pthread_setname_np(pthread_self(), "client");
    struct sockaddr_in address = *(struct sockaddr_in *)argument;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) perror("connect");
    for (int i = 0; i < 10; i++) {
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
        const char *request = i == 3 ? "slow\n" : "fast\n";
        char reply[8];
        if (write(fd, request, 5) != 5 || read(fd, reply, sizeof reply) <= 0) break;
    }
    close(fd);
    atomic_store(&client_done, 1);
    return NULL;
}

static int run_threads(void) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 8) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) != 0) {
        perror("listen");
        return 1;
    }
    if (pipe2(handoff, O_CLOEXEC) != 0) return 1;
    pthread_t worker, client;
    pthread_create(&worker, NULL, worker_main, NULL);
    pthread_create(&client, NULL, client_main, &address);
    /* The acceptor's loop: new connections, and a 20 ms tick to notice the client is done. */
    struct loop loop = loop_open(20);
    epoll_add(loop.epoll, listener);
    while (!atomic_load(&client_done)) {
        struct epoll_event event;
        if (epoll_wait(loop.epoll, &event, 1, -1) != 1) continue;
        if (event.data.fd == listener) {
            int connection = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            if (connection >= 0 && write(handoff[1], &connection, sizeof connection) != sizeof connection) return 1;
        } else {
            uint64_t expirations;
            if (read(loop.timer, &expirations, sizeof expirations) < 0) perror("read");
        }
    }
    int stop = -1;
    if (write(handoff[1], &stop, sizeof stop) != sizeof stop) return 1;
    pthread_join(client, NULL);
    pthread_join(worker, NULL);
    loop_close(&loop);
    close(listener);
    printf("done\n");
    return 0;
}

/// A loop that replaces itself: the new image's loop is another loop of the same pid.
static int run_exec_after_loop(int argc, char **argv, const char *self) {
    int ticks = arg_int(argc, argv, "--ticks", 5);
    struct loop loop = loop_open(20);
    for (int tick = 0; tick < ticks; tick++) loop_tick(&loop);
    printf("exec pid=%d\n", getpid());
    fflush(stdout);
    execl(self, self, "stall", (char *)NULL);
    return 127;
}

static int run_fork_child(int argc, char **argv, const char *self) {
    int use_exec = argc > 2 && strcmp(argv[2], "exec") == 0;
    int loop_exec = argc > 2 && strcmp(argv[2], "loop-exec") == 0;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0 && loop_exec) {
        char *loop_args[] = {"exec-after-loop"};
        _exit(run_exec_after_loop(1, loop_args, self));
    }
    if (child == 0) {
        if (use_exec) {
            execl(self, self, "stall", "--exit-status", "3", (char *)NULL);
            _exit(127);
        }
        char *stall_args[] = {"stall", "--exit-status", "3"};
        fflush(stdout);
        _exit(run_stall(3, stall_args));
    }
    printf("child pid=%d\n", child);
    fflush(stdout);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

__attribute__((noinline)) void sleep_for_120ms_in_child_loop(void) {
    struct timespec pause = {0, 120000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
    __asm__ volatile("" ::: "memory");
}

static int run_fork_many(int count) {
    fflush(stdout);
    for (int index = 0; index < count; index++) {
        pid_t child = fork();
        if (child < 0) return 71;
        if (child > 0) continue;
        struct loop loop = loop_open(10);
        for (int tick = 0; tick < 4; tick++) loop_tick(&loop);
        sleep_for_120ms_in_child_loop();
        for (int tick = (index * 37) % 11; tick >= 0; tick--) loop_tick(&loop);
        loop_close(&loop);
        _exit(0);
    }
    int reaped = 0, failed = 0, status = 0;
    for (;;) {
        pid_t done = wait(&status);
        if (done < 0 && errno == EINTR) continue;
        if (done < 0) break;
        reaped++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
    }
    printf("reaped %d of %d\n", reaped, count);
    return failed == 0 && reaped == count ? 0 : 1;
}

static int run_oneshot(void) {
    struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
    poll(&input, 1, 0);
    spin_for_250ms_in_c_loop();
    printf("done\n");
    return 0;
}

static int run_bench(int argc, char **argv) {
    long calls = argc > 2 ? atol(argv[2]) : 1000000;
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event;
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 5; round++) {
        uint64_t start = now_ns();
        for (long i = 0; i < calls; i++) epoll_wait(epoll, &event, 1, 0);
        uint64_t took = now_ns() - start;
        if (took < best) best = took;
    }
    close(epoll);
    printf("{\"calls\": %ld, \"nsPerCall\": %.2f}\n", calls, (double)best / (double)calls);
    return 0;
}

static int loops_running;
static pthread_mutex_t loops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t loops_cond = PTHREAD_COND_INITIALIZER;

/// With --ticks-each: ticks every loop makes before it counts as done, the loops done so far,
/// and the index of the loop that stalls once after its ticks (-1: none).
static int ticks_each, loops_done;
static long stalling_loop = -1;

static void *ticking_loop(void *arg) {
    long index = (long)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "loop-%ld", index);
    pthread_setname_np(pthread_self(), name);
    struct loop loop = loop_open(50);
    pthread_mutex_lock(&loops_lock);
    loops_running++;
    pthread_cond_broadcast(&loops_cond);
    pthread_mutex_unlock(&loops_lock);
    if (ticks_each > 0) {
        for (int tick = 0; tick < ticks_each; tick++) loop_tick(&loop);
        if (index == stalling_loop) {
            printf("stalling %s tid=%d\n", name, (int)gettid());
            fflush(stdout);
            spin_for_250ms_in_c_loop();
            loop_tick(&loop);
            loop_tick(&loop);
        }
        pthread_mutex_lock(&loops_lock);
        loops_done++;
        pthread_cond_broadcast(&loops_cond);
        pthread_mutex_unlock(&loops_lock);
    }
    for (;;) loop_tick(&loop);
    return NULL;
}

static int run_loops(int argc, char **argv) {
    int count = argc > 2 ? atoi(argv[2]) : 100;
    ticks_each = arg_int(argc, argv, "--ticks-each", 0);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--stall-last") == 0) stalling_loop = count - 1;
    }
    for (long i = 0; i < count; i++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, ticking_loop, (void *)(intptr_t)i) != 0) return 71;
    }
    pthread_mutex_lock(&loops_lock);
    while (loops_running < count) pthread_cond_wait(&loops_cond, &loops_lock);
    pthread_mutex_unlock(&loops_lock);
    printf("loops ready\n");
    fflush(stdout);
    if (ticks_each > 0) {
        pthread_mutex_lock(&loops_lock);
        while (loops_done < count) pthread_cond_wait(&loops_cond, &loops_lock);
        pthread_mutex_unlock(&loops_lock);
        printf("done\n");
        fflush(stdout);
        return 0;
    }
    struct loop clock = loop_open(1000);
    for (int second = arg_int(argc, argv, "--seconds", 60); second > 0; second--) loop_tick(&clock);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--wait") != 0) continue;
        if (strcmp(argv[i + 1], "poll") == 0) wait_call = WAIT_POLL;
        else if (strcmp(argv[i + 1], "select") == 0) wait_call = WAIT_SELECT;
    }
    if (strcmp(mode, "stall") == 0) return run_stall(argc, argv);
    if (strcmp(mode, "idle") == 0) return run_idle(argc, argv);
    if (strcmp(mode, "busy-until-input") == 0) return run_busy();
    if (strcmp(mode, "idle-until-input") == 0) return run_idle_until_input(argc, argv);
    if (strcmp(mode, "threads") == 0) return run_threads();
    if (strcmp(mode, "fork-child") == 0 || strcmp(mode, "exec-after-loop") == 0) {
        char self[4096];
        ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
        if (length <= 0) return 70;
        self[length] = '\0';
        if (mode[0] == 'e') return run_exec_after_loop(argc, argv, self);
        return run_fork_child(argc, argv, self);
    }
    if (strcmp(mode, "oneshot") == 0) return run_oneshot();
    if (strcmp(mode, "fork-many") == 0 && argc > 2) return run_fork_many(atoi(argv[2]));
    if (strcmp(mode, "bench") == 0) return run_bench(argc, argv);
    if (strcmp(mode, "loops") == 0) return run_loops(argc, argv);
    fprintf(stderr, "usage: lagmon-loop-fixture stall|busy-until-input|idle-until-input|idle|threads|fork-child exec|fork|loop-exec|fork-many N|exec-after-loop|"
                    "oneshot|loops N|bench N\n");
    return 64;
}
