package io.hadooptipc.tipc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The bundled JNI library copied out of the jar, so that {@code System.load} can map it: a new
 * file created exclusively (nothing planted under its name is followed) and readable by its owner
 * only. The name comes from the clock, not from {@code Files.createTempFile}, whose SecureRandom
 * seeding cost every fresh task JVM about half a second under emulation.
 */
final class LibraryCopy {
    private static final int ATTEMPTS = 100;
    private static final Set<StandardOpenOption> CREATE_NEW = EnumSet.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    private LibraryCopy() {
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
    }

    /** Copies {@code library} to a new file in {@code dir}; the caller deletes it once loaded. */
    static Path create(InputStream library, Path dir) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Path copy = dir.resolve("libhadooptipc-" + Long.toHexString(System.nanoTime()) + ".so");
            try (OutputStream out = Channels.newOutputStream(Files.newByteChannel(copy, CREATE_NEW, OWNER_ONLY))) {
                try {
                    copy(library, out);
                } catch (IOException e) {
                    Files.deleteIfExists(copy);
                    throw e;
                }
                return copy;
            } catch (FileAlreadyExistsException e) {
                if (attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
