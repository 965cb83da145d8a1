package io.hadooptipc.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The tarball this build produced, unpacked once per test JVM as an operator would unpack it. */
final class UnpackedTarball {
    static final String VERSION = System.getProperty("dist.version");
    /** The tarball's name without .tar.gz, and its folder: hadoop-tipc-<version>[-hadoop-3.4]. */
    static final String NAME = System.getProperty("dist.name");
    private static Path home;

    private UnpackedTarball() {
    }

    /** The unpacked {@link #NAME} folder. */
    static synchronized Path home() throws IOException, InterruptedException {
        if (home == null) {
            Path tarball = Path.of(System.getProperty("dist.tarball"));
            Path into = Files.createTempDirectory("hadoop-tipc-dist");
            Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", into.toString())
                    .inheritIO().start();
            if (!tar.waitFor(60, TimeUnit.SECONDS) || tar.exitValue() != 0) {
                throw new IOException("could not unpack " + tarball);
            }
            home = into.resolve(NAME);
        }
        return home;
    }
}
