package io.hadooptipc.hdfs.affinity;

import java.util.BitSet;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;

/** The calling thread's CPU affinity and kernel thread id, through glibc via JNA. */
final class LinuxThreads {
    /** glibc's cpu_set_t: 1024 CPUs. */
    private static final int CPU_SET_LONGS = 16;

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int sched_setaffinity(int pid, NativeLong cpusetsize, long[] mask) throws LastErrorException;

        int sched_getaffinity(int pid, NativeLong cpusetsize, long[] mask) throws LastErrorException;

        int gettid();
    }

    private LinuxThreads() {
    }

    /** Binds the calling thread (pid 0 means the caller) to the given CPUs. */
    static void setCurrentThreadAffinity(BitSet cpus) {
        long[] mask = new long[CPU_SET_LONGS];
        long[] words = cpus.toLongArray();
        System.arraycopy(words, 0, mask, 0, Math.min(words.length, mask.length));
        LibC.INSTANCE.sched_setaffinity(0, new NativeLong(mask.length * 8L), mask);
    }

    /** The CPUs the calling thread may run on. */
    static BitSet currentThreadAffinity() {
        long[] mask = new long[CPU_SET_LONGS];
        LibC.INSTANCE.sched_getaffinity(0, new NativeLong(mask.length * 8L), mask);
        return BitSet.valueOf(mask);
    }

    static int currentThreadId() {
        return LibC.INSTANCE.gettid();
    }
}
