/* LD_PRELOAD shim for bench/touched-code: makes a daemon's resident pages of its own binary the pages it
 * touched. At start-up it asks for no readahead on every mapping of the program's file (MADV_RANDOM), and
 * when the daemon trims its resident set (MADV_DONTNEED, Platform.ResidentSet) it drops the file from the
 * page cache: from then on a page fault reads that one page, and fault-around, which maps only pages already
 * cached, maps nothing the daemon did not touch itself. For measuring only: every later fault is a read. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char program[4096];
static int (*real_madvise)(void *, size_t, int);

__attribute__((constructor)) static void no_readahead(void) {
    /* Resolved here, while the process has one thread, not on the first call from any thread. */
    real_madvise = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length <= 0 || real_madvise == NULL) {
        program[0] = 0;
        return;
    }
    program[length] = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        return;
    }
    char line[8192];
    while (fgets(line, sizeof line, maps) != NULL) {
        unsigned long start, end;
        char path[4096] = "";
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &start, &end, path) >= 2 && strcmp(path, program) == 0) {
            real_madvise((void *)start, end - start, MADV_RANDOM);
        }
    }
    fclose(maps);
}

int madvise(void *address, size_t length, int advice) {
    if (real_madvise == NULL) {
        errno = ENOSYS;
        return -1;
    }
    int result = real_madvise(address, length, advice);
    int saved = errno;
    if (advice == MADV_DONTNEED && program[0] != 0) {
        int descriptor = open(program, O_RDONLY | O_CLOEXEC);
        if (descriptor >= 0) {
            posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED);
            close(descriptor);
        }
    }
    errno = saved;
    return result;
}
