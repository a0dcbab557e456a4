#include "lagmon_fixture_loop.h"

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

void lagmon_fixture_loop_open(long period_ns, int *epoll, int *timer) {
    *epoll = epoll_create1(EPOLL_CLOEXEC);
    *timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct timespec period = {period_ns / 1000000000, period_ns % 1000000000};
    struct itimerspec every = {period, period};
    timerfd_settime(*timer, 0, &every, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = *timer};
    epoll_ctl(*epoll, EPOLL_CTL_ADD, *timer, &event);
}

void lagmon_fixture_ticks(int epoll, int timer, int count) {
    for (int done = 0; done < count;) {
        struct epoll_event event;
        if (epoll_wait(epoll, &event, 1, -1) == 1) {
            uint64_t expirations;
            if (read(timer, &expirations, sizeof expirations) == sizeof expirations) done++;
        }
    }
}
