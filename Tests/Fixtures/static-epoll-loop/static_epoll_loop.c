// A statically linked epoll + timerfd event loop for lagmon's /proc-probe tests (LD_PRELOAD
// cannot enter it). The integration tests compile it with `cc -static`.
//
// Usage: static-epoll-loop [STALLS [STALL_MS [EXIT_STATUS]]] (defaults 3, 250, 0)
// A 20 ms periodic timer drives the loop; every fifth tick the handler spins in
// lagmon_static_fixture_spin for STALL_MS, and prints what it injected:
//   stall <start CLOCK_MONOTONIC ns> <duration ns>
// After the last stall and five quiet ticks it exits with EXIT_STATUS. The first line,
// `static-epoll-loop: ready`, says the loop runs.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

// The stall: burns CPU on the loop thread for `duration_ns` of wall time. The name is one no
// other code has, so a test can find it in a stack.
__attribute__((noinline)) void lagmon_static_fixture_spin(uint64_t duration_ns) {
    volatile uint64_t state = 1;
    uint64_t deadline = now_ns() + duration_ns;
    while (now_ns() < deadline) {
        for (int round = 0; round < 1000; round++) state = state * 6364136223846793005u + 1442695040888963407u;
    }
}

int main(int argc, char **argv) {
    int stalls = argc > 1 ? atoi(argv[1]) : 3;
    uint64_t stall_ns = (uint64_t)(argc > 2 ? atoi(argv[2]) : 250) * 1000000u;
    int exit_status = argc > 3 ? atoi(argv[3]) : 0;
    int poller = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec period = {{0, 20000000}, {0, 20000000}};
    struct epoll_event event = {.events = EPOLLIN, .data.fd = timer};
    if (poller < 0 || timer < 0 || timerfd_settime(timer, 0, &period, NULL) != 0 ||
        epoll_ctl(poller, EPOLL_CTL_ADD, timer, &event) != 0) {
        perror("static-epoll-loop");
        return 1;
    }
    printf("static-epoll-loop: ready\n");
    fflush(stdout);
    int ticks = 0, done = 0;
    while (done < stalls || ticks < 5 * (stalls + 1)) {
        struct epoll_event ready;
        if (epoll_wait(poller, &ready, 1, -1) != 1) continue;
        uint64_t expirations;
        if (read(timer, &expirations, sizeof expirations) != sizeof expirations) continue;
        ticks++;
        if (ticks % 5 == 0 && done < stalls) {
            uint64_t start = now_ns();
            lagmon_static_fixture_spin(stall_ns);
            printf("stall %llu %llu\n", (unsigned long long)start, (unsigned long long)(now_ns() - start));
            fflush(stdout);
            done++;
        }
    }
    return exit_status;
}
