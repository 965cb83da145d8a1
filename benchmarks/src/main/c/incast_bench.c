/*
 * The C baseline for the incast benchmark (IncastBenchmark.java): one receiver asks N
 * senders at once for a partition and waits for all of them, as a reducer's shuffle does.
 *
 *   incast_bench sender tipc TYPE INSTANCE | sender tcp PORT | sender sctp PORT
 *   incast_bench receiver tipc|tcp|sctp ROUNDS SIZE PERIOD_US PEER...
 *
 * A PEER is TYPE:INSTANCE for tipc, IPV4:PORT for tcp and sctp; one connection per PEER.
 * Protocol, per connection: the receiver sends a 4-byte SIZE (host order), the sender answers
 * SIZE bytes; repeated each round until the receiver closes. A round starts with the requests
 * to every sender and ends when the last byte of the last partition has arrived; with
 * PERIOD_US > 0 rounds start that far apart (a round longer than that delays the next).
 * The receiver prints each round's seconds, one a line, then "cpu BUSY TOTAL": the jiffies of
 * the machine's first /proc/stat line from the first round's start to the end of the rounds.
 * ROUNDS 0 runs a round for every byte read from stdin, until its end, and prints each round's
 * seconds as soon as it ends: another receiver can take turns with this one round by round.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <linux/sctp.h>
#include <linux/tipc.h>

#include "bench_io.h"

#define MAX_PARTITION (1 << 20)

/* Requests and answers are small: no Nagle delay on either side, for every transport. */
static void no_delay(int fd, int protocol)
{
    int one = 1;
    if (protocol == 0 && setsockopt(fd, SOL_TIPC, TIPC_NODELAY, &one, sizeof(one)) < 0)
        die("TIPC_NODELAY");
    if (protocol == IPPROTO_TCP && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
        die("TCP_NODELAY");
    if (protocol == IPPROTO_SCTP && setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one)) < 0)
        die("SCTP_NODELAY");
}

/* The socket protocol: 0 for TIPC. */
static int ip_protocol(const char *transport)
{
    return !strcmp(transport, "tipc") ? 0 : !strcmp(transport, "sctp") ? IPPROTO_SCTP : IPPROTO_TCP;
}

static void serve_partitions(int c)
{
    static char partition[MAX_PARTITION];
    uint32_t size;
    for (;;) {
        ssize_t n = recv(c, &size, sizeof(size), MSG_WAITALL);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) /* a TIPC receiver's close resets */
            exit(0);
        if (n != sizeof(size) || size > MAX_PARTITION)
            die("request");
        write_all(c, partition, size);
    }
}

static void run_sender(int argc, char **argv)
{
    int fd, one = 1;
    if (!strcmp(argv[2], "tipc") && argc == 5) {
        struct sockaddr_tipc a = { .family = AF_TIPC, .addrtype = TIPC_SERVICE_ADDR, .scope = TIPC_CLUSTER_SCOPE };
        a.addr.name.name.type = strtoul(argv[3], NULL, 0);
        a.addr.name.name.instance = strtoul(argv[4], NULL, 0);
        if ((fd = socket(AF_TIPC, SOCK_STREAM, 0)) < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
            die("tipc bind");
    } else if (argc == 4) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[3])) };
        if ((fd = socket(AF_INET, SOCK_STREAM, ip_protocol(argv[2]))) < 0
            || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0
            || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
            die("bind");
    } else {
        return;
    }
    if (listen(fd, 256) < 0)
        die("listen");
    signal(SIGCHLD, SIG_IGN);
    for (;;) { /* a process per connection, as the seed's model forked one per mapper */
        int c = accept(fd, NULL, NULL);
        if (c < 0)
            die("accept");
        if (fork() == 0) {
            close(fd);
            no_delay(c, ip_protocol(argv[2]));
            serve_partitions(c);
        }
        close(c);
    }
}

static int connect_peer(const char *transport, const char *peer)
{
    char host[64];
    unsigned long port;
    int fd;
    if (sscanf(peer, "%63[^:]:%lu", host, &port) != 2) {
        fprintf(stderr, "bad peer %s\n", peer);
        exit(2);
    }
    if (!strcmp(transport, "tipc")) {
        struct sockaddr_tipc a = { .family = AF_TIPC, .addrtype = TIPC_SERVICE_ADDR, .scope = TIPC_CLUSTER_SCOPE };
        a.addr.name.name.type = strtoul(host, NULL, 0);
        a.addr.name.name.instance = port;
        if ((fd = socket(AF_TIPC, SOCK_STREAM, 0)) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
            die("tipc connect");
        no_delay(fd, 0);
        return fd;
    }
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        die("inet_pton");
    if ((fd = socket(AF_INET, SOCK_STREAM, ip_protocol(transport))) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
        die("connect");
    no_delay(fd, ip_protocol(transport));
    return fd;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* The machine's busy and total jiffies so far, from the first line of /proc/stat. */
static void cpu_jiffies(unsigned long long *busy, unsigned long long *total)
{
    unsigned long long v[8] = { 0 };
    FILE *f = fopen("/proc/stat", "r");
    if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]) != 8)
        die("/proc/stat");
    fclose(f);
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *busy = *total - v[3] - v[4]; /* all but idle and iowait */
}

/* Waits on an epoll set, as the Java receivers' selectors do, so that Java against C compares the
 * binding and not poll(2), which re-arms every descriptor on every call, with epoll. */
static void run_receiver(int argc, char **argv)
{
    const char *transport = argv[2];
    int rounds = atoi(argv[3]);
    uint32_t size = strtoul(argv[4], NULL, 0);
    long period_us = atol(argv[5]);
    int n = argc - 6;
    int *fds = calloc(n, sizeof(*fds));
    uint32_t *remaining = calloc(n, sizeof(*remaining));
    struct epoll_event *ready = calloc(n, sizeof(*ready));
    static char sink[MAX_PARTITION];
    int ep = epoll_create1(0);
    if (ep < 0)
        die("epoll_create1");
    for (int i = 0; i < n; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
        fds[i] = connect_peer(transport, argv[6 + i]);
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
            die("epoll_ctl");
    }

    unsigned long long busy0, total0, busy1, total1;
    cpu_jiffies(&busy0, &total0);
    double next = now();
    for (int r = 0; rounds == 0 ? getchar() != EOF : r < rounds; r++) {
        double start = now();
        for (int i = 0; i < n; i++) {
            write_all(fds[i], (char *)&size, sizeof(size));
            remaining[i] = size;
        }
        for (int pending = n; pending > 0;) {
            int k = epoll_wait(ep, ready, n, -1);
            if (k < 0 && errno != EINTR)
                die("epoll_wait");
            for (int j = 0; j < k; j++) {
                int i = ready[j].data.u32;
                if (remaining[i] == 0) /* done this round; as the Java receivers, read nothing */
                    continue;
                ssize_t got = read(fds[i], sink, remaining[i]);
                if (got <= 0)
                    die(got == 0 ? "read: sender closed" : "read");
                remaining[i] -= got;
                if (remaining[i] == 0)
                    pending--;
            }
        }
        printf("%.7f\n", now() - start);
        if (rounds == 0)
            fflush(stdout);
        if (period_us > 0) {
            next += period_us / 1e6;
            double wait = next - now();
            if (wait > 0) {
                struct timespec t = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
                nanosleep(&t, NULL);
            } else {
                next = now(); /* overran: start the next period now rather than catch up in a burst */
            }
        }
    }
    cpu_jiffies(&busy1, &total1);
    printf("cpu %llu %llu\n", busy1 - busy0, total1 - total0);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "sender"))
        run_sender(argc, argv);
    if (argc >= 7 && !strcmp(argv[1], "receiver")) {
        run_receiver(argc, argv);
        return 0;
    }
    fprintf(stderr, "usage: %s sender tipc TYPE INSTANCE | sender tcp PORT | sender sctp PORT\n"
                    "       %s receiver tipc|tcp|sctp ROUNDS SIZE PERIOD_US PEER...\n",
            argv[0], argv[0]);
    return 2;
}
