// A plain C epoll loop for lagmon's StrictMode tests: inside one iteration, far below the stall
// threshold, its main thread (a watched loop) makes every kind of blocking call StrictMode
// counts, each from a distinctively named function; then a "strict-worker" thread (no loop)
// makes the very same calls from the very same functions, which must not be counted. Calls the
// loop makes that are its normal business (reading its eventfd, a non-blocking connect, a
// WNOHANG wait) must not be counted either.
//
//   lagmon-strict-fixture
//       prints `strict-truth` and the number of counted calls of each kind the loop made
//       (`read=2 pread=1 …`), then `strict-off-loop calls=N`: calls the worker made
//   lagmon-strict-fixture many-sites
//       the loop instead calls sleep(0) from 40 distinct call sites, more than the probe's table
//       holds (32), and prints `strict-sites calls=40`
//
// The loop wakes on an eventfd it signals itself, except that iterations 1-4 wait for a 20 ms
// timer each: the loop is idle for 80 ms before it makes any call, so lagmon (which names call
// sites from the process's memory map, read while it runs) has the CPU to look.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Calls made through each kind, in lagmon's names; `calls` counts them all.
struct strict_tally {
    int read, pread, write, pwrite, fsync, fdatasync, open, openat, getaddrinfo, connect, sleep, usleep,
        nanosleep, clock_nanosleep, waitpid, wait4, system, popen, readv, writev, preadv, pwritev, calls;
};

static char file_path[] = "/tmp/lagmon-strict-fixture-XXXXXX";
static struct sockaddr_in listener_address;
static volatile int sink;

#define COUNT(tally, kind) ((tally)->kind++, (tally)->calls++)

__attribute__((noinline)) void strict_file_io_on_loop(struct strict_tally *tally) {
    char buffer[16] = "lagmon strictly";
    int fd = open(file_path, O_RDWR);
    COUNT(tally, open);
    int other = openat(AT_FDCWD, file_path, O_RDONLY);
    COUNT(tally, openat);
    for (int i = 0; i < 2; i++) sink += (int)write(fd, buffer, sizeof buffer), COUNT(tally, write);
    sink += (int)pwrite(fd, buffer, sizeof buffer, 0);
    COUNT(tally, pwrite);
    sink += fsync(fd);
    COUNT(tally, fsync);
    sink += fdatasync(fd);
    COUNT(tally, fdatasync);
    for (int i = 0; i < 2; i++) sink += (int)read(other, buffer, sizeof buffer), COUNT(tally, read);
    sink += (int)pread(other, buffer, sizeof buffer, 0);
    COUNT(tally, pread);
    struct iovec vector = {buffer, sizeof buffer};
    sink += (int)writev(fd, &vector, 1);
    COUNT(tally, writev);
    sink += (int)pwritev(fd, &vector, 1, 0);
    COUNT(tally, pwritev);
    sink += (int)readv(other, &vector, 1);
    COUNT(tally, readv);
    sink += (int)preadv(other, &vector, 1, 0);
    COUNT(tally, preadv);
    close(other);
    close(fd);
}

__attribute__((noinline)) void strict_resolve_on_loop(struct strict_tally *tally) {
    struct addrinfo hints = {0};
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo *found = NULL;
    sink += getaddrinfo("127.0.0.1", "80", &hints, &found);
    COUNT(tally, getaddrinfo);
    if (found != NULL) freeaddrinfo(found);
}

__attribute__((noinline)) void strict_connect_on_loop(struct strict_tally *tally) {
    int blocking = socket(AF_INET, SOCK_STREAM, 0);
    sink += connect(blocking, (struct sockaddr *)&listener_address, sizeof listener_address);
    COUNT(tally, connect);
    close(blocking);
    /* Non-blocking: the loop's normal way to connect, not counted. */
    int nonblocking = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sink += connect(nonblocking, (struct sockaddr *)&listener_address, sizeof listener_address);
    close(nonblocking);
}

__attribute__((noinline)) void strict_sleep_on_loop(struct strict_tally *tally) {
    sink += (int)sleep(0);
    COUNT(tally, sleep);
    sink += usleep(1000);
    COUNT(tally, usleep);
    struct timespec millisecond = {0, 1000000};
    sink += nanosleep(&millisecond, NULL);
    COUNT(tally, nanosleep);
    sink += clock_nanosleep(CLOCK_MONOTONIC, 0, &millisecond, NULL);
    COUNT(tally, clock_nanosleep);
}

__attribute__((noinline)) void strict_children_on_loop(struct strict_tally *tally) {
    int status = 0;
    pid_t child = fork();
    if (child == 0) _exit(0);
    sink += (int)waitpid(child, &status, WNOHANG); /* only looks: not counted */
    sink += (int)waitpid(child, &status, 0);
    COUNT(tally, waitpid);
    child = fork();
    if (child == 0) _exit(0);
    sink += (int)wait4(child, &status, 0, NULL);
    COUNT(tally, wait4);
    sink += system("true");
    COUNT(tally, system);
    FILE *pipe = popen("true", "r");
    COUNT(tally, popen);
    if (pipe != NULL) sink += pclose(pipe);
}

/// Every kind once or more, each from its own function.
static void strict_calls(struct strict_tally *tally) {
    strict_file_io_on_loop(tally);
    strict_resolve_on_loop(tally);
    strict_connect_on_loop(tally);
    strict_sleep_on_loop(tally);
    strict_children_on_loop(tally);
}

#define SITE sink += (int)sleep(0), calls++;
#define TEN_SITES SITE SITE SITE SITE SITE SITE SITE SITE SITE SITE

/// sleep(0) from 40 call sites (each expansion is a call instruction of its own).
__attribute__((noinline)) int strict_many_sites_on_loop(void) {
    int calls = 0;
    TEN_SITES TEN_SITES TEN_SITES TEN_SITES
    return calls;
}

static void *strict_worker(void *tally) {
    strict_calls((struct strict_tally *)tally);
    return NULL;
}

static int listen_on_loopback(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    listener_address.sin_family = AF_INET;
    listener_address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof listener_address;
    if (bind(fd, (struct sockaddr *)&listener_address, length) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&listener_address, &length) != 0) {
        perror("listen");
        exit(2);
    }
    return fd;
}

int main(int argc, char **argv) {
    int many_sites = argc > 1 && strcmp(argv[1], "many-sites") == 0;
    int site_calls = 0;
    int file = mkstemp(file_path);
    if (file < 0) {
        perror("mkstemp");
        return 2;
    }
    close(file);
    int listener = listen_on_loopback();
    int wake = eventfd(1, EFD_CLOEXEC);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = wake};
    epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct epoll_event tick = {.events = EPOLLIN, .data.fd = timer};
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &tick);
    struct itimerspec in_20ms = {.it_value = {0, 20000000}};
    struct strict_tally on_loop = {0}, off_loop = {0};
    /* Five quiet iterations (the third wait makes the thread a loop), the calls, the worker. */
    for (int iteration = 0; iteration < 8; iteration++) {
        struct epoll_event ready;
        if (epoll_wait(epoll, &ready, 1, -1) != 1) return 3;
        uint64_t value = 0;
        /* An eventfd and a timerfd: not counted. */
        sink += (int)read(ready.data.fd, &value, sizeof value);
        if (iteration == 5 && many_sites) site_calls = strict_many_sites_on_loop();
        if (iteration == 5 && !many_sites) strict_calls(&on_loop);
        if (iteration == 6 && !many_sites) {
            pthread_t worker;
            pthread_create(&worker, NULL, strict_worker, &off_loop);
            pthread_setname_np(worker, "strict-worker");
            pthread_join(worker, NULL);
        }
        value = 1;
        if (iteration < 4) {
            timerfd_settime(timer, 0, &in_20ms, NULL);
        } else {
            sink += (int)write(wake, &value, sizeof value);
        }
    }
    close(epoll);
    close(listener);
    unlink(file_path);
    if (many_sites) {
        printf("strict-sites calls=%d\n", site_calls);
        return 0;
    }
    printf("strict-truth read=%d pread=%d write=%d pwrite=%d fsync=%d fdatasync=%d open=%d openat=%d "
           "getaddrinfo=%d connect=%d sleep=%d usleep=%d nanosleep=%d clock_nanosleep=%d waitpid=%d wait4=%d "
           "system=%d popen=%d readv=%d writev=%d preadv=%d pwritev=%d\n",
           on_loop.read, on_loop.pread, on_loop.write, on_loop.pwrite, on_loop.fsync, on_loop.fdatasync,
           on_loop.open, on_loop.openat, on_loop.getaddrinfo, on_loop.connect, on_loop.sleep, on_loop.usleep,
           on_loop.nanosleep, on_loop.clock_nanosleep, on_loop.waitpid, on_loop.wait4, on_loop.system, on_loop.popen,
           on_loop.readv, on_loop.writev, on_loop.preadv, on_loop.pwritev);
    printf("strict-off-loop calls=%d\n", off_loop.calls);
    return 0;
}
