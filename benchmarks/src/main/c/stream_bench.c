/*
 * The C baseline for the stream benchmark: the same protocol as StreamBenchmark.java,
 * over TIPC or TCP.
 *
 *   stream_bench server tipc TYPE INSTANCE | server tcp PORT
 *   stream_bench client tipc TYPE INSTANCE MSG_SIZE TOTAL | client tcp HOST PORT MSG_SIZE TOTAL
 *
 * Protocol, per connection: the client sends an 8-byte TOTAL (host order), then
 * TOTAL bytes in writes of MSG_SIZE; the server reads them all and answers one byte.
 * The client prints "bytes seconds" measured from its first byte to the answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/tipc.h>

#include "bench_io.h"

static void read_all(int fd, char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, buf, len);
        if (n <= 0)
            die(n == 0 ? "read: early end of stream" : "read");
        buf += n;
        len -= n;
    }
}

static struct sockaddr_tipc tipc_name(const char *type, const char *instance)
{
    struct sockaddr_tipc a = { .family = AF_TIPC, .addrtype = TIPC_SERVICE_ADDR,
                               .scope = TIPC_CLUSTER_SCOPE };
    a.addr.name.name.type = strtoul(type, NULL, 0);
    a.addr.name.name.instance = strtoul(instance, NULL, 0);
    return a;
}

static struct sockaddr_in tcp_addr(const char *host, const char *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        die("inet_pton");
    return a;
}

static void serve(int listener)
{
    static char buf[1 << 20];
    for (;;) {
        int c = accept(listener, NULL, NULL);
        if (c < 0)
            die("accept");
        uint64_t total;
        read_all(c, (char *)&total, sizeof(total));
        while (total > 0) {
            ssize_t n = read(c, buf, total < sizeof(buf) ? total : sizeof(buf));
            if (n <= 0)
                die("read");
            total -= n;
        }
        write_all(c, "k", 1);
        close(c);
    }
}

static void run_client(int fd, size_t msg, uint64_t total)
{
    char *buf = calloc(1, msg);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    write_all(fd, (char *)&total, sizeof(total));
    for (uint64_t sent = 0; sent < total; sent += msg)
        write_all(fd, buf, total - sent < msg ? total - sent : msg);
    char ack;
    read_all(fd, &ack, 1);
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%llu %.6f\n", (unsigned long long)total,
           (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "server")) {
        int one = 1, fd;
        if (!strcmp(argv[2], "tipc") && argc == 5) {
            struct sockaddr_tipc a = tipc_name(argv[3], argv[4]);
            if ((fd = socket(AF_TIPC, SOCK_STREAM, 0)) < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                die("tipc bind");
        } else if (!strcmp(argv[2], "tcp") && argc == 4) {
            struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[3])) };
            if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0
                || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0
                || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                die("tcp bind");
        } else {
            goto usage;
        }
        if (listen(fd, 128) < 0)
            die("listen");
        serve(fd);
    }
    if (argc == 7 && !strcmp(argv[1], "client")) {
        int fd;
        if (!strcmp(argv[2], "tipc")) {
            struct sockaddr_tipc a = tipc_name(argv[3], argv[4]);
            if ((fd = socket(AF_TIPC, SOCK_STREAM, 0)) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                die("tipc connect");
        } else if (!strcmp(argv[2], "tcp")) {
            struct sockaddr_in a = tcp_addr(argv[3], argv[4]);
            if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                die("tcp connect");
        } else {
            goto usage;
        }
        run_client(fd, strtoul(argv[5], NULL, 0), strtoull(argv[6], NULL, 0));
        return 0;
    }
usage:
    fprintf(stderr, "usage: %s server tipc TYPE INSTANCE | server tcp PORT\n"
                    "       %s client tipc TYPE INSTANCE MSG_SIZE TOTAL | client tcp HOST PORT MSG_SIZE TOTAL\n",
            argv[0], argv[0]);
    return 2;
}
