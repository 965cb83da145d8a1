package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibraryCopyTest {
    @TempDir
    Path dir;

    @Test
    void copiesTheBytesToANewFileOnlyItsOwnerReads() throws IOException {
        byte[] library = {0x7f, 'E', 'L', 'F', 1, 2, 3};
        Path first = LibraryCopy.create(new ByteArrayInputStream(library), dir);
        Path second = LibraryCopy.create(new ByteArrayInputStream(library), dir);

        assertNotEquals(first, second, "each load gets a file of its own");
        assertArrayEquals(library, Files.readAllBytes(first));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first)));
        assertEquals(dir, first.getParent());
    }

    @Test
    void leavesNoPartFileWhenTheJarCannotBeRead() throws IOException {
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("zip entry truncated");
            }
        };
        IOException e = assertThrows(IOException.class, () -> LibraryCopy.create(broken, dir));
        assertEquals("zip entry truncated", e.getMessage());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.collect(Collectors.toList()));
        }
    }
}
