/* What the C baselines share: failing loudly and writing a whole buffer. */
#ifndef BENCH_IO_H
#define BENCH_IO_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0)
            die("write");
        buf += n;
        len -= n;
    }
}

#endif
