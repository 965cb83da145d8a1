package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads {@link CpuTopology} from sysfs and procfs under the given roots ({@code /sys} and
 * {@code /proc} on a live machine, recorded trees in tests):
 * <ul>
 * <li>LLC groups: per CPU, {@code shared_cpu_list} of the highest-level data or unified
 * cache in {@code devices/system/cpu/cpuN/cache/index*}, or the CPU's socket where the
 * kernel describes no caches;
 * <li>sockets: {@code topology/physical_package_id}; NUMA nodes: {@code devices/system/node/nodeN/cpulist};
 * <li>NIC interrupts: lines of {@code /proc/interrupts} naming the interface, its device or
 * its PCI address, that have fired; their CPUs from {@code /proc/irq/N/effective_affinity_list}
 * or, where the kernel has none, from the counts per CPU.
 * </ul>
 */
public final class TopologyReader {
    private final Path sys;
    private final Path proc;

    public TopologyReader(Path sys, Path proc) {
        this.sys = sys;
        this.proc = proc;
    }

    /** @param nic the interface to look for; empty for the one that holds the default route */
    public CpuTopology read(String nic) throws IOException {
        Path cpuDir = sys.resolve("devices/system/cpu");
        BitSet online = CpuList.parse(readText(cpuDir.resolve("online")));
        Set<BitSet> llcs = new LinkedHashSet<>();
        Map<Integer, Integer> socketOf = new LinkedHashMap<>();
        BitSet undescribed = new BitSet();
        for (int cpu = online.nextSetBit(0); cpu >= 0; cpu = online.nextSetBit(cpu + 1)) {
            Path dir = cpuDir.resolve("cpu" + cpu);
            socketOf.put(cpu, Integer.parseInt(readText(dir.resolve("topology/physical_package_id")).trim()));
            BitSet llc = lastLevelCache(dir.resolve("cache"));
            if (llc == null) {
                undescribed.set(cpu);
            } else {
                llcs.add(llc);
            }
        }
        llcs.addAll(socketsOf(undescribed, socketOf));
        String iface = nic.isEmpty() ? defaultRouteInterface() : nic;
        BitSet irqCpus = iface.isEmpty() ? new BitSet() : irqCpus(deviceNames(iface));
        return new CpuTopology(online, Collections.unmodifiableList(new ArrayList<>(llcs)), socketOf, numaNodes(),
                iface, irqCpus);
    }

    /**
     * Where the kernel describes no caches (some virtual machines' kernels leave
     * {@code cpuN/cache} out), a CPU's last-level cache is taken to be its socket's.
     */
    private static List<BitSet> socketsOf(BitSet cpus, Map<Integer, Integer> socketOf) {
        Map<Integer, BitSet> bySocket = new LinkedHashMap<>();
        cpus.stream().forEach(cpu -> bySocket.computeIfAbsent(socketOf.get(cpu), s -> new BitSet()).set(cpu));
        return Collections.unmodifiableList(new ArrayList<>(bySocket.values()));
    }

    /** The CPUs sharing the highest-level data or unified cache; null if the kernel describes none. */
    private static BitSet lastLevelCache(Path cacheDir) throws IOException {
        if (!Files.isDirectory(cacheDir)) {
            return null;
        }
        int bestLevel = -1;
        BitSet shared = null;
        try (Stream<Path> indexes = Files.list(cacheDir)) {
            for (Path index : indexes.filter(p -> p.getFileName().toString().startsWith("index")).sorted().collect(Collectors.toList())) {
                String type = readText(index.resolve("type")).trim();
                int level = Integer.parseInt(readText(index.resolve("level")).trim());
                if (!type.equals("Instruction") && level > bestLevel) {
                    bestLevel = level;
                    shared = CpuList.parse(readText(index.resolve("shared_cpu_list")));
                }
            }
        }
        if (shared == null) {
            throw new IOException("no data or unified cache described under " + cacheDir);
        }
        return shared;
    }

    private List<BitSet> numaNodes() throws IOException {
        Path nodeDir = sys.resolve("devices/system/node");
        if (!Files.isDirectory(nodeDir)) {
            return Collections.emptyList();
        }
        try (Stream<Path> nodes = Files.list(nodeDir)) {
            List<Path> dirs = nodes.filter(p -> p.getFileName().toString().matches("node\\d+"))
                    .sorted((a, b) -> Integer.compare(nodeNumber(a), nodeNumber(b))).collect(Collectors.toList());
            List<BitSet> cpus = new ArrayList<>();
            for (Path d : dirs) {
                cpus.add(CpuList.parse(readText(d.resolve("cpulist"))));
            }
            return cpus;
        }
    }

    private static int nodeNumber(Path nodeDir) {
        return Integer.parseInt(nodeDir.getFileName().toString().substring(4));
    }

    /** The interface of the first default route in {@code /proc/net/route}, or empty. */
    private String defaultRouteInterface() throws IOException {
        Path routes = proc.resolve("net/route");
        if (!Files.exists(routes)) {
            return "";
        }
        return Files.readAllLines(routes).stream().skip(1).map(l -> l.trim().split("\\s+"))
                .filter(f -> f.length > 2 && f[1].equals("00000000")).map(f -> f[0]).findFirst().orElse("");
    }

    /**
     * Names the interface's interrupts may carry: the interface itself, its device
     * (e.g. virtio2) and the PCI address of the device or of its parent.
     */
    private Set<String> deviceNames(String iface) throws IOException {
        Set<String> names = new LinkedHashSet<>();
        names.add(iface);
        Path device = sys.resolve("class/net").resolve(iface).resolve("device");
        if (Files.exists(device)) {
            Path real = device.toRealPath();
            String name = real.getFileName().toString();
            names.add(name);
            // a virtio NIC's interrupts are named after its PCI function; a PCI NIC's parent is a bridge
            String parent = real.getParent().getFileName().toString();
            if (!isPciAddress(name) && isPciAddress(parent)) {
                names.add(parent);
            }
        }
        return names;
    }

    private static boolean isPciAddress(String name) {
        return name.matches("\\p{XDigit}{4}:\\p{XDigit}{2}:\\p{XDigit}{2}\\.\\p{XDigit}");
    }

    private BitSet irqCpus(Set<String> names) throws IOException {
        List<String> lines = Files.readAllLines(proc.resolve("interrupts"));
        int columns = lines.get(0).trim().split("\\s+").length;
        BitSet cpus = new BitSet();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length <= columns + 1 || !f[0].matches("\\d+:") || !namesAny(f, columns + 1, names)) {
                continue;
            }
            BitSet fired = new BitSet();
            for (int c = 0; c < columns; c++) {
                if (!f[c + 1].equals("0")) {
                    fired.set(c);
                }
            }
            if (fired.isEmpty()) {
                continue; // a configuration or idle queue vector: it carries no traffic
            }
            String irq = f[0].substring(0, f[0].length() - 1);
            Path effective = proc.resolve("irq").resolve(irq).resolve("effective_affinity_list");
            String list = Files.exists(effective) ? readText(effective).trim() : "";
            cpus.or(list.isEmpty() ? fired : CpuList.parse(list));
        }
        return cpus;
    }

    /** Whether the description of an interrupt line names the device, e.g. eth0-TxRx-3, mlx5_comp2@pci:0000:3b:00.0. */
    private static boolean namesAny(String[] fields, int from, Set<String> names) {
        for (int i = from; i < fields.length; i++) {
            for (String name : names) {
                String token = fields[i];
                if (token.equals(name) || token.startsWith(name + "-")
                        || (isPciAddress(name) && token.contains(name))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String readText(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }
}
