/*
 * A QEMU TCG plugin that counts the instructions a guest's emulated CPUs execute and keeps the
 * running total, as a decimal number and a newline, in the file named by its argument out=FILE,
 * rewritten every FLUSH_NANOS and at exit. tipc-vm --count-instructions builds and loads it.
 *
 *   qemu-system-x86_64 -plugin instruction-counter.so,out=FILE ...
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* How often the total is written: how stale a reading in the guest can be. */
#define FLUSH_NANOS 10000000L

static struct qemu_plugin_scoreboard *per_vcpu; /* one uint64_t per vCPU: no sharing between vCPU threads */
static qemu_plugin_u64 executed;
static char out_path[4096];
static char tmp_path[4096 + 4];
static pthread_t flusher;
static atomic_bool stopping;
static int write_failed;

/* Whole files only: the new total is written beside the old one and renamed over it, so a reader
 * never sees a half-written number. */
static void write_total(void)
{
    char line[32];
    int len = snprintf(line, sizeof line, "%llu\n", (unsigned long long) qemu_plugin_u64_sum(executed));
    FILE *f = fopen(tmp_path, "w");
    int ok = f != NULL && fwrite(line, 1, (size_t) len, f) == (size_t) len;
    ok = (f != NULL && fclose(f) == 0) && ok;
    ok = ok && rename(tmp_path, out_path) == 0;
    if (!ok && !write_failed) {
        write_failed = 1; /* said once: the readers in the guest then fail on a stale or missing file */
        fprintf(stderr, "instruction-counter: cannot write %s: %s\n", out_path, strerror(errno));
    }
}

static void *flush_periodically(void *unused)
{
    struct timespec interval = { 0, FLUSH_NANOS };
    (void) unused;
    while (!atomic_load(&stopping)) {
        write_total();
        nanosleep(&interval, NULL);
    }
    return NULL;
}

/* Each block adds its instruction count when it starts: an inline add in the translated code,
 * no call out of it. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void) id;
    qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, executed,
                                                      qemu_plugin_tb_n_insns(tb));
}

static void flush_at_exit(qemu_plugin_id_t id, void *unused)
{
    (void) id;
    (void) unused;
    atomic_store(&stopping, 1);
    pthread_join(flusher, NULL);
    write_total();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void) info;
    if (argc != 1 || strncmp(argv[0], "out=", 4) != 0 || argv[0][4] == '\0'
        || strlen(argv[0] + 4) >= sizeof out_path) {
        fprintf(stderr, "instruction-counter: needs one argument, out=FILE\n");
        return 1;
    }
    strcpy(out_path, argv[0] + 4);
    snprintf(tmp_path, sizeof tmp_path, "%s.new", out_path);
    per_vcpu = qemu_plugin_scoreboard_new(sizeof(uint64_t));
    executed = qemu_plugin_scoreboard_u64(per_vcpu);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, flush_at_exit, NULL);
    if (pthread_create(&flusher, NULL, flush_periodically, NULL) != 0) {
        fprintf(stderr, "instruction-counter: cannot start the thread that writes %s\n", out_path);
        return 1;
    }
    return 0;
}
