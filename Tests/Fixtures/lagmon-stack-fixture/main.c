// An epoll loop that stalls in places that are hard on stack sampling and symbolization. Every
// timing is driven by timerfd ticks; lines on stdout say what happened (tests read them).
//
//   lagmon-stack-fixture library <path.so> <replace>
//       dlopens <path.so>, then stalls 600 ms in its stack_fixture_library_spins() (printing
//       `half-way through the stall` 300 ms in); <replace>
//       says what becomes of the file: `none`, `fifo-before` (replaced by a FIFO before the
//       stall, and another FIFO at `<path> (deleted)`, the name /proc/PID/maps then shows),
//       `fifo-during` (the same, half-way through the stall, after it printed `half-way`), `file` (deleted, and another regular file
//       written at the path before the stall: an upgrade). A SIGTERM ends the stall early and
//       prints `got SIGTERM`. A fourth argument `until-sigterm` makes the stall last until the
//       SIGTERM (30 s at most; `half-way` still 300 ms in).
//   lagmon-stack-fixture clock
//       stalls 400 ms in spins_in_clock_gettime(), a loop of clock_gettime calls (the vDSO)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "lagmon_fixture_loop.h"

typedef void (*spins_function)(int, void (*)(void), volatile int *);

static const char *library_path;
static volatile int stop;

static void on_sigterm(int signal) {
    (void)signal;
    stop = 1;
}

/// Replaces the library with a FIFO, and puts another at the name /proc/PID/maps now shows for
/// the mapping (`<path> (deleted)`): whoever opens either path blocks until a writer comes.
static void replace_with_fifo(void) {
    char shown[4096];
    snprintf(shown, sizeof shown, "%s (deleted)", library_path);
    if (unlink(library_path) != 0 || mkfifo(library_path, 0600) != 0 || mkfifo(shown, 0600) != 0) {
        perror("replace_with_fifo");
        exit(3);
    }
    printf("replaced %s with a fifo\n", library_path);
    fflush(stdout);
}

/// Called half-way through the library's stall (300 ms in: past lagmon's threshold).
static void halfway_through_the_stall(void) {
    printf("half-way through the stall\n");
    fflush(stdout);
}

static void halfway_then_replace_with_fifo(void) {
    halfway_through_the_stall();
    replace_with_fifo();
}

static void replace_with_another_file(void) {
    if (unlink(library_path) != 0) {
        perror("unlink");
        exit(3);
    }
    int fd = open(library_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    const char text[] = "not the library that was loaded\n";
    if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) {
        perror("replace_with_another_file");
        exit(3);
    }
    close(fd);
    printf("replaced %s with another file\n", library_path);
    fflush(stdout);
}

/// Calls clock_gettime (through the vDSO) for `milliseconds`: nearly every sample lands in it.
__attribute__((noinline)) void spins_in_clock_gettime(int milliseconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000ll + (now.tv_nsec - start.tv_nsec) < milliseconds * 1000000ll);
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
}

static int run(int argc, char **argv, int epoll, int timer) {
    if (argc >= 2 && strcmp(argv[1], "clock") == 0) {
        lagmon_fixture_ticks(epoll, timer, 5);
        printf("stalling in clock_gettime\n");
        fflush(stdout);
        spins_in_clock_gettime(400);
        lagmon_fixture_ticks(epoll, timer, 5);
        printf("done\n");
        return 0;
    }
    if (argc < 4 || strcmp(argv[1], "library") != 0) {
        fprintf(stderr, "usage: lagmon-stack-fixture library <path.so> none|fifo-before|fifo-during|file | clock\n");
        return 2;
    }
    library_path = argv[2];
    const char *replace = argv[3];
    void *library = dlopen(library_path, RTLD_NOW);
    spins_function spins = library ? (spins_function)dlsym(library, "stack_fixture_library_spins") : NULL;
    if (spins == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", library_path, dlerror());
        return 3;
    }
    printf("loaded %s\n", library_path);
    fflush(stdout);
    lagmon_fixture_ticks(epoll, timer, 5);
    if (strcmp(replace, "fifo-before") == 0) replace_with_fifo();
    if (strcmp(replace, "file") == 0) replace_with_another_file();
    printf("stalling in the library\n");
    fflush(stdout);
    // `until-sigterm`: the stall lasts until a SIGTERM (30 s at most), so a test's signal lands
    // in it however long a loaded machine takes to send it.
    int milliseconds = argc >= 5 && strcmp(argv[4], "until-sigterm") == 0 ? 30000 : 600;
    spins(milliseconds, strcmp(replace, "fifo-during") == 0 ? halfway_then_replace_with_fifo : halfway_through_the_stall,
          &stop);
    if (stop) printf("got SIGTERM\n");
    fflush(stdout);
    lagmon_fixture_ticks(epoll, timer, 5);
    printf("done\n");
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGTERM, on_sigterm);
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    int epoll, timer;
    lagmon_fixture_loop_open(20000000, &epoll, &timer);
    return run(argc, argv, epoll, timer);
}
