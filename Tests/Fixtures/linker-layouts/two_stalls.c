// A C epoll + timerfd loop that stalls twice, in two distinctively named functions, for the
// linker-layout tests: the integration tests build it with every linker Debian offers (GNU ld,
// gold, lld, mold), PIE and not, with and without -z separate-code, and as a static PIE, and
// check lagmon names both functions and their source lines in each.
//
// Usage: two-stalls
// A 20 ms periodic timer drives the loop. At tick 5 the handler spins in
// first_stall_for_200ms_in_linked_loop, at tick 10 in second_stall_for_300ms_in_linked_loop;
// after each it prints `stall <name> <start CLOCK_MONOTONIC ns> <duration ns>`. After five more
// ticks it prints `done` and exits 0. The first line, `two-stalls: ready`, says the loop runs.
// Each spin function's body lies between the markers `// body of <name>` and `// end of <name>`:
// the tests read the line range from this file.
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

static volatile uint64_t sink;

__attribute__((noinline)) void first_stall_for_200ms_in_linked_loop(void) {
    // body of first_stall_for_200ms_in_linked_loop
    uint64_t deadline = now_ns() + 200000000u;
    while (now_ns() < deadline) {
        for (int round = 0; round < 1000; round++) sink = sink * 6364136223846793005u + 1442695040888963407u;
    }
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
    // end of first_stall_for_200ms_in_linked_loop
}

__attribute__((noinline)) void second_stall_for_300ms_in_linked_loop(void) {
    // body of second_stall_for_300ms_in_linked_loop
    uint64_t deadline = now_ns() + 300000000u;
    while (now_ns() < deadline) {
        for (int round = 0; round < 1000; round++) sink = sink * 2862933555777941757u + 3037000493u;
    }
    __asm__ volatile("" ::: "memory");
    // end of second_stall_for_300ms_in_linked_loop
}

static void report(const char *name, uint64_t start) {
    printf("stall %s %llu %llu\n", name, (unsigned long long)start, (unsigned long long)(now_ns() - start));
    fflush(stdout);
}

int main(void) {
    int poller = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec period = {{0, 20000000}, {0, 20000000}};
    struct epoll_event event = {.events = EPOLLIN, .data.fd = timer};
    if (poller < 0 || timer < 0 || timerfd_settime(timer, 0, &period, NULL) != 0 ||
        epoll_ctl(poller, EPOLL_CTL_ADD, timer, &event) != 0) {
        perror("two-stalls");
        return 1;
    }
    printf("two-stalls: ready\n");
    fflush(stdout);
    for (int ticks = 0; ticks < 15;) {
        struct epoll_event ready;
        if (epoll_wait(poller, &ready, 1, -1) != 1) continue;
        uint64_t expirations;
        if (read(timer, &expirations, sizeof expirations) != sizeof expirations) continue;
        ticks++;
        uint64_t start = now_ns();
        if (ticks == 5) {
            first_stall_for_200ms_in_linked_loop();
            report("first_stall_for_200ms_in_linked_loop", start);
        } else if (ticks == 10) {
            second_stall_for_300ms_in_linked_loop();
            report("second_stall_for_300ms_in_linked_loop", start);
        }
    }
    printf("done\n");
    return 0;
}
