package io.hadooptipc.hdfs.read;

import static org.apache.hadoop.fs.StorageType.ARCHIVE;
import static org.apache.hadoop.fs.StorageType.DISK;
import static org.apache.hadoop.fs.StorageType.RAM_DISK;
import static org.apache.hadoop.fs.StorageType.SSD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.hadoop.fs.StorageType;
import org.junit.jupiter.api.Test;

class ReadCostModelTest {
    static final class Replica {
        private final String node;
        private final StorageType type;
        private final int distance;

        Replica(String node, StorageType type, int distance) {
            this.node = node;
            this.type = type;
            this.distance = distance;
        }

        public String node() {
            return node;
        }

        public StorageType type() {
            return type;
        }

        public int distance() {
            return distance;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Replica)) {
                return false;
            }
            Replica that = (Replica) o;
            return Objects.equals(node, that.node) && Objects.equals(type, that.type) && distance == that.distance;
        }

        @Override
        public int hashCode() {
            return Objects.hash(node, type, distance);
        }

        @Override
        public String toString() {
            return "Replica[node=" + node + ", type=" + type + ", distance=" + distance + "]";
        }
    }

    private final ReadCostModel model = new ReadCostModel(
            Map.of(SSD, 1000.0, DISK, 150.0, ARCHIVE, 50.0),
            Map.of(0, 10000.0, 2, 1200.0, 4, 600.0),
            EnumSet.of(SSD, DISK));

    private List<List<Replica>> rank(Replica... replicas) {
        return model.rank(List.of(replicas), Replica::type, Replica::distance);
    }

    @Test
    void remoteSsdBeatsLocalDisk() {
        Replica localDisk = new Replica("a", DISK, 0);
        Replica remoteDisk = new Replica("b", DISK, 2);
        Replica remoteSsd = new Replica("c", SSD, 2);
        assertEquals(List.of(List.of(remoteSsd), List.of(localDisk), List.of(remoteDisk)),
                rank(localDisk, remoteDisk, remoteSsd));
    }

    @Test
    void slowNetworkKeepsTheLocalDiskFirst() {
        ReadCostModel slowNetwork = new ReadCostModel(Map.of(SSD, 1000.0, DISK, 150.0),
                Map.of(0, 10000.0, 2, 100.0), EnumSet.of(SSD, DISK));
        Replica localDisk = new Replica("a", DISK, 0);
        Replica remoteSsd = new Replica("c", SSD, 2);
        assertEquals(List.of(List.of(localDisk), List.of(remoteSsd)),
                slowNetwork.rank(List.of(remoteSsd, localDisk), Replica::type, Replica::distance));
    }

    @Test
    void equalThroughputIsRankedByDistanceAndEqualDistanceIsTied() {
        Replica offRackSsd = new Replica("a", SSD, 4);
        Replica rackSsd1 = new Replica("b", SSD, 2);
        Replica rackSsd2 = new Replica("c", SSD, 2);
        Replica localDisk = new Replica("d", DISK, 0);
        // off-rack SSD (600) and rack SSD (1000) differ; both beat the local DISK (150)
        assertEquals(List.of(List.of(rackSsd1, rackSsd2), List.of(offRackSsd), List.of(localDisk)),
                rank(offRackSsd, rackSsd1, localDisk, rackSsd2));
    }

    @Test
    void storageCappedReplicasStillPreferTheNearerOne() {
        Replica farDisk = new Replica("a", DISK, 4);
        Replica nearDisk = new Replica("b", DISK, 2);
        Replica ssd = new Replica("c", SSD, 4);
        assertEquals(List.of(List.of(ssd), List.of(nearDisk), List.of(farDisk)), rank(farDisk, ssd, nearDisk));
    }

    @Test
    void unlistedDistanceCostsLikeTheNextSmallerOne() {
        ReadCostModel fastStorage = new ReadCostModel(Map.of(SSD, 20000.0),
                Map.of(0, 10000.0, 2, 1200.0, 4, 600.0), EnumSet.of(SSD));
        assertEquals(10000.0, fastStorage.expectedMbps(SSD, 1));
        assertEquals(1200.0, fastStorage.expectedMbps(SSD, 3));
        assertEquals(600.0, fastStorage.expectedMbps(SSD, 6));
        assertEquals(600.0, fastStorage.expectedMbps(SSD, Integer.MAX_VALUE));
        assertEquals(150.0, model.expectedMbps(DISK, 0), "the storage caps a local read");
    }

    @Test
    void ranksOnlyMixedBlocksOfOrderedTypes() {
        assertTrue(model.ranks(new StorageType[] {SSD, DISK, DISK}, 3));
        assertFalse(model.ranks(new StorageType[] {DISK, DISK, DISK}, 3), "one type: stock order");
        assertFalse(model.ranks(new StorageType[] {SSD, ARCHIVE}, 2), "ARCHIVE is not ordered");
        assertFalse(model.ranks(new StorageType[] {SSD, null}, 2), "unknown type");
        assertFalse(model.ranks(new StorageType[] {SSD, DISK}, 1), "only the active prefix counts");
    }

    @Test
    void rejectsIncompleteCosts() {
        assertThrows(IllegalArgumentException.class, () -> new ReadCostModel(
                Map.of(SSD, 1000.0), Map.of(0, 1.0), EnumSet.of(SSD, DISK)));
        assertThrows(IllegalArgumentException.class, () -> new ReadCostModel(
                Map.of(SSD, 1000.0, RAM_DISK, 1.0), Map.of(2, 1.0), EnumSet.of(SSD)));
    }
}
