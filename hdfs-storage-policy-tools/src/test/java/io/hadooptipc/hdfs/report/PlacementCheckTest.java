package io.hadooptipc.hdfs.report;

import static org.apache.hadoop.fs.StorageType.ARCHIVE;
import static org.apache.hadoop.fs.StorageType.DISK;
import static org.apache.hadoop.fs.StorageType.SSD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.junit.jupiter.api.Test;

class PlacementCheckTest {
    private static final BlockStoragePolicySuite POLICIES = BlockStoragePolicySuite.createDefaultSuite();

    private static PlacementCheck check(String policy, StorageType... actual) {
        BlockStoragePolicy p = POLICIES.getPolicy(policy);
        return PlacementCheck.of(p, (short) 3, actual);
    }

    @Test
    void oneSsdAtReplicationThreeWantsOneSsdAndTwoDisks() {
        PlacementCheck c = check("ONE_SSD", DISK, SSD, DISK);
        assertTrue(c.satisfied());
        assertEquals(List.of(SSD, DISK, DISK), c.expected());
    }

    @Test
    void reportsWhatIsMissingAndWhatWasNotAskedFor() {
        PlacementCheck c = check("ONE_SSD", DISK, DISK, DISK);
        assertFalse(c.satisfied());
        assertEquals(List.of(SSD), c.missing());
        assertEquals(List.of(DISK), c.excess());
    }

    @Test
    void anUnderReplicatedBlockMissesAReplica() {
        PlacementCheck c = check("ALL_SSD", SSD, SSD);
        assertEquals(List.of(SSD), c.missing());
        assertTrue(c.excess().isEmpty());
    }

    @Test
    void warmWantsOneDiskAndTwoArchives() {
        assertTrue(check("WARM", ARCHIVE, DISK, ARCHIVE).satisfied());
        assertFalse(check("WARM", ARCHIVE, SSD, ARCHIVE).satisfied());
    }
}
