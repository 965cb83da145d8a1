package io.hadooptipc.shuffle.server;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;

/** The connected, blocking byte stream a response is written to. */
public interface ResponseStream {

    void writeFully(ByteBuffer bytes) throws IOException;

    /** Sends {@code count} bytes of the file from {@code position}, all of them, without copying through the JVM. */
    void sendFile(FileDescriptor file, long position, long count) throws IOException;
}
