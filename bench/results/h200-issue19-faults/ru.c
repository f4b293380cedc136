// ru CMD...: runs CMD, prints "wall_ms minflt majflt maxrss_MB user_ms sys_ms" on stderr.
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t p = fork();
    if (p == 0) { execvp(argv[1], argv + 1); _exit(127); }
    int st; struct rusage ru; wait4(p, &st, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "ru %.1f %ld %ld %.0f %.0f %.0f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6,
            ru.ru_minflt, ru.ru_majflt, ru.ru_maxrss / 1024.0, ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
            ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
