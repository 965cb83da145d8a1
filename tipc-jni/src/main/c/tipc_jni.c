/*
 * JNI shim for AF_TIPC: each function is one system call. Results are passed
 * back unchanged, failures as -errno. Addresses arrive already packed as
 * struct sockaddr_tipc by the Java side (Sockaddr.java); nothing is decided here.
 * Calls that block are restarted when a signal interrupts them (EINTR), the
 * timed waits with what is left of their timeout; connect and close are not
 * (an interrupted connect goes on in the background and Java waits for it, an
 * interrupted close has closed the descriptor already).
 * The functions are registered with the Java class in JNI_OnLoad rather than found by
 * their exported names, so the library works with a relocated (shaded) copy of the
 * classes; the class's name comes from the Java side, which sets it before loading.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <linux/tipc.h>

#include <jni.h>

#define JNI(name) JNICALL native_##name
#define MAX_EVENTS 1024

/* The syscall's result, or -errno when it failed. */
static inline jlong result(jlong r)
{
    return r < 0 ? -errno : r;
}

/* Evaluates a system call again for as long as it fails with EINTR. */
#define RESTARTED(call) ({ long r_; do r_ = (call); while (r_ < 0 && errno == EINTR); r_; })

/* When a timeout begins. Only a positive one needs the clock: a wait forever or none at all, as
 * a selector makes on every wake-up, reads no clock. */
static struct timespec timeout_begins(int timeout)
{
    struct timespec start = { 0, 0 };
    if (timeout > 0)
        clock_gettime(CLOCK_MONOTONIC, &start);
    return start;
}

/* Milliseconds left of a timeout that began at *start; a negative timeout (forever) stays. */
static int time_left(int timeout, const struct timespec *start)
{
    struct timespec now;
    if (timeout <= 0)
        return timeout;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
    return elapsed >= timeout ? 0 : timeout - (int)elapsed;
}

_Static_assert(sizeof(struct sockaddr_tipc) == 16, "Sockaddr.java assumes 16 bytes");

static void get_addr(JNIEnv *env, jbyteArray from, struct sockaddr_tipc *to)
{
    (*env)->GetByteArrayRegion(env, from, 0, sizeof(*to), (jbyte *)to);
}

static void put_addr(JNIEnv *env, const struct sockaddr_tipc *from, jbyteArray to)
{
    (*env)->SetByteArrayRegion(env, to, 0, sizeof(*from), (const jbyte *)from);
}

/* java.io.FileDescriptor keeps the descriptor in a private int field "fd"; looked up once, in JNI_OnLoad. */
static jfieldID file_descriptor_fd;

static char *buffer_at(JNIEnv *env, jobject direct, jint position)
{
    return (char *)(*env)->GetDirectBufferAddress(env, direct) + position;
}

static jint JNI(socket)(JNIEnv *env, jclass cls, jint type)
{
    return result(socket(AF_TIPC, type | SOCK_CLOEXEC, 0));
}

static jint JNI(bind)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr)
{
    struct sockaddr_tipc sa;
    get_addr(env, addr, &sa);
    return result(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
}

static jint JNI(connect)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr)
{
    struct sockaddr_tipc sa;
    get_addr(env, addr, &sa);
    return result(connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
}

static jint JNI(listen)(JNIEnv *env, jclass cls, jint fd, jint backlog)
{
    return result(listen(fd, backlog));
}

static jint JNI(accept)(JNIEnv *env, jclass cls, jint fd, jbyteArray peer)
{
    struct sockaddr_tipc sa;
    socklen_t len = sizeof(sa);
    int r = RESTARTED(accept4(fd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC));
    if (r >= 0)
        put_addr(env, &sa, peer);
    return result(r);
}

static jint name_of(JNIEnv *env, jint fd, jbyteArray addr,
                    int (*get)(int, struct sockaddr *, socklen_t *))
{
    struct sockaddr_tipc sa;
    socklen_t len = sizeof(sa);
    int r = get(fd, (struct sockaddr *)&sa, &len);
    if (r == 0)
        put_addr(env, &sa, addr);
    return result(r);
}

static jint JNI(getsockname)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr)
{
    return name_of(env, fd, addr, getsockname);
}

static jint JNI(getpeername)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr)
{
    return name_of(env, fd, addr, getpeername);
}

static jint JNI(recv)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len)
{
    return result(RESTARTED(recv(fd, buffer_at(env, buf, pos), len, 0)));
}

static jint JNI(send)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len)
{
    return result(RESTARTED(send(fd, buffer_at(env, buf, pos), len, MSG_NOSIGNAL)));
}

static jint JNI(sendto)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len,
                           jbyteArray addr)
{
    struct sockaddr_tipc sa;
    get_addr(env, addr, &sa);
    return result(RESTARTED(sendto(fd, buffer_at(env, buf, pos), len, MSG_NOSIGNAL,
                                   (struct sockaddr *)&sa, sizeof(sa))));
}

static jint JNI(recvfrom)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len,
                             jbyteArray addr)
{
    struct sockaddr_tipc sa;
    socklen_t salen = sizeof(sa);
    int r = RESTARTED(recvfrom(fd, buffer_at(env, buf, pos), len, 0, (struct sockaddr *)&sa, &salen));
    if (r >= 0)
        put_addr(env, &sa, addr);
    return result(r);
}

static jlong JNI(sendfile)(JNIEnv *env, jclass cls, jint fd, jobject file, jlong offset,
                              jlong count)
{
    off_t off = offset;
    int in = (*env)->GetIntField(env, file, file_descriptor_fd);
    return result(RESTARTED(sendfile(fd, in, &off, count)));
}

static jint JNI(setsockopt)(JNIEnv *env, jclass cls, jint fd, jint level, jint opt, jint value)
{
    int v = value;
    return result(setsockopt(fd, level, opt, &v, sizeof(v)));
}

/* A SOL_SOCKET timeout option (SO_RCVTIMEO, SO_SNDTIMEO), which takes a struct timeval. */
static jint JNI(setTimeout)(JNIEnv *env, jclass cls, jint fd, jint opt, jint millis)
{
    struct timeval tv = { .tv_sec = millis / 1000, .tv_usec = (millis % 1000) * 1000 };
    return result(setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)));
}

static jint JNI(getsockopt)(JNIEnv *env, jclass cls, jint fd, jint level, jint opt,
                               jintArray value)
{
    int v = 0;
    socklen_t len = sizeof(v);
    int r = getsockopt(fd, level, opt, &v, &len);
    if (r == 0)
        (*env)->SetIntArrayRegion(env, value, 0, 1, &v);
    return result(r);
}

static jint JNI(nodeIdentity)(JNIEnv *env, jclass cls, jint fd, jint node, jbyteArray identity)
{
    struct tipc_sioc_nodeid_req req = { .peer = node };
    int r = ioctl(fd, SIOCGETNODEID, &req);
    if (r == 0)
        (*env)->SetByteArrayRegion(env, identity, 0, TIPC_NODEID_LEN, (const jbyte *)req.node_id);
    return result(r);
}

static jint JNI(setBlocking)(JNIEnv *env, jclass cls, jint fd, jboolean blocking)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return -errno;
    flags = blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK;
    return result(fcntl(fd, F_SETFL, flags));
}

static jint JNI(shutdown)(JNIEnv *env, jclass cls, jint fd, jint how)
{
    return result(shutdown(fd, how));
}

static jint JNI(close)(JNIEnv *env, jclass cls, jint fd)
{
    return result(close(fd));
}

static jint JNI(poll)(JNIEnv *env, jclass cls, jint fd, jint events, jint timeout)
{
    struct pollfd p = { .fd = fd, .events = events };
    struct timespec start = timeout_begins(timeout);
    int r = RESTARTED(poll(&p, 1, time_left(timeout, &start)));
    return r > 0 ? p.revents : result(r);
}

static jint JNI(epollCreate)(JNIEnv *env, jclass cls)
{
    return result(epoll_create1(EPOLL_CLOEXEC));
}

static jint JNI(epollCtl)(JNIEnv *env, jclass cls, jint epfd, jint op, jint fd, jint events)
{
    struct epoll_event ev = { .events = events, .data.fd = fd };
    return result(epoll_ctl(epfd, op, fd, &ev));
}

static jint JNI(epollWait)(JNIEnv *env, jclass cls, jint epfd, jintArray out, jint timeout)
{
    struct epoll_event events[MAX_EVENTS];
    jint pairs[2 * MAX_EVENTS];
    int max = (*env)->GetArrayLength(env, out) / 2;
    struct timespec start = timeout_begins(timeout);
    int n = RESTARTED(epoll_wait(epfd, events, max < MAX_EVENTS ? max : MAX_EVENTS, time_left(timeout, &start)));
    for (int i = 0; i < n; i++) {
        pairs[2 * i] = events[i].data.fd;
        pairs[2 * i + 1] = events[i].events;
    }
    if (n > 0)
        (*env)->SetIntArrayRegion(env, out, 0, 2 * n, pairs);
    return result(n);
}

static jint JNI(eventfd)(JNIEnv *env, jclass cls)
{
    return result(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

static jint JNI(eventfdSignal)(JNIEnv *env, jclass cls, jint fd)
{
    return result(eventfd_write(fd, 1));
}

static jint JNI(eventfdDrain)(JNIEnv *env, jclass cls, jint fd)
{
    eventfd_t ignored;
    int r = eventfd_read(fd, &ignored);
    return r < 0 && errno == EAGAIN ? 0 : result(r);
}

static jstring JNI(strerror)(JNIEnv *env, jclass cls, jint errnum)
{
    char buf[256];
    return (*env)->NewStringUTF(env, strerror_r(errnum, buf, sizeof(buf)));
}

#define METHOD(name, signature) { #name, signature, (void *)native_##name }

static const JNINativeMethod methods[] = {
    METHOD(socket, "(I)I"),
    METHOD(bind, "(I[B)I"),
    METHOD(connect, "(I[B)I"),
    METHOD(listen, "(II)I"),
    METHOD(accept, "(I[B)I"),
    METHOD(getsockname, "(I[B)I"),
    METHOD(getpeername, "(I[B)I"),
    METHOD(recv, "(ILjava/nio/ByteBuffer;II)I"),
    METHOD(send, "(ILjava/nio/ByteBuffer;II)I"),
    METHOD(sendto, "(ILjava/nio/ByteBuffer;II[B)I"),
    METHOD(recvfrom, "(ILjava/nio/ByteBuffer;II[B)I"),
    METHOD(sendfile, "(ILjava/io/FileDescriptor;JJ)J"),
    METHOD(setsockopt, "(IIII)I"),
    METHOD(setTimeout, "(III)I"),
    METHOD(getsockopt, "(III[I)I"),
    METHOD(nodeIdentity, "(II[B)I"),
    METHOD(setBlocking, "(IZ)I"),
    METHOD(shutdown, "(II)I"),
    METHOD(close, "(I)I"),
    METHOD(poll, "(III)I"),
    METHOD(epollCreate, "()I"),
    METHOD(epollCtl, "(IIII)I"),
    METHOD(epollWait, "(I[II)I"),
    METHOD(eventfd, "()I"),
    METHOD(eventfdSignal, "(I)I"),
    METHOD(eventfdDrain, "(I)I"),
    METHOD(strerror, "(I)Ljava/lang/String;"),
};

/* The internal name (a/b/C) of the class to register with, from the system property the Java side set. */
static jclass native_class(JNIEnv *env)
{
    jclass system = (*env)->FindClass(env, "java/lang/System");
    jmethodID get = system ? (*env)->GetStaticMethodID(env, system, "getProperty",
                                                       "(Ljava/lang/String;)Ljava/lang/String;") : NULL;
    jstring key = get ? (*env)->NewStringUTF(env, "hadooptipc.native.class") : NULL;
    jstring name = key ? (*env)->CallStaticObjectMethod(env, system, get, key) : NULL;
    const char *chars = name ? (*env)->GetStringUTFChars(env, name, NULL) : NULL;
    if (chars == NULL)
        return NULL;
    jclass cls = (*env)->FindClass(env, chars);
    (*env)->ReleaseStringUTFChars(env, name, chars);
    return cls;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    jclass cls = native_class(env);
    jclass fd_class = cls ? (*env)->FindClass(env, "java/io/FileDescriptor") : NULL;
    file_descriptor_fd = fd_class ? (*env)->GetFieldID(env, fd_class, "fd", "I") : NULL;
    if (file_descriptor_fd == NULL
        || (*env)->RegisterNatives(env, cls, methods, sizeof(methods) / sizeof(methods[0])) != 0) {
        (*env)->ExceptionClear(env); /* System.load then fails with UnsatisfiedLinkError */
        return JNI_ERR;
    }
    return JNI_VERSION_1_8;
}
