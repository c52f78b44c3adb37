/*
 * A slow disk, simulated for bench/gate.ts: preloaded (LD_PRELOAD) into a benchmark process, it makes
 * every fsync and fdatasync of every thread last at least GLEANER_BENCH_FSYNC_MS milliseconds, as on
 * a cloud volume or a small VPS disk. The calling thread sleeps (a waiting disk burns no CPU), and the
 * real call still runs, so durability is unchanged. It reaches the wasm engine's fsync (Node's fs) and
 * the native one (node:sqlite) alike.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static long delay_ns = -1;

static void wait_out(const struct timespec *start) {
  if (delay_ns < 0) {
    const char *ms = getenv("GLEANER_BENCH_FSYNC_MS");
    delay_ns = ms ? atol(ms) * 1000000L : 0;
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long spent = (now.tv_sec - start->tv_sec) * 1000000000L + (now.tv_nsec - start->tv_nsec);
  if (spent < delay_ns) {
    long left = delay_ns - spent;
    struct timespec pause = {left / 1000000000L, left % 1000000000L};
    nanosleep(&pause, NULL);
  }
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int result = real(fd);
  wait_out(&start);
  return result;
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int result = real(fd);
  wait_out(&start);
  return result;
}
