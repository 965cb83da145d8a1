package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcDatagramChannel;
import io.hadooptipc.tipc.TipcException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Examines this node, in the order a fix has to happen: the kernel's TIPC module and its
 * known bugs, the native library, AF_TIPC, the configured service type, whether it serves
 * over TIPC and under which encryption, node identity, bearers (and whether one is UDP),
 * links to other nodes and how soon they report a node lost, the TIPC island, and the shuffle names in the
 * name table.
 * A check that cannot run because an earlier one failed is skipped, not failed again.
 */
public final class NodeDoctor {
    private static final String NEEDS_TIPC = "needs AF_TIPC (see af-tipc)";

    private final Configuration conf;
    private final List<String> bearerCommand;
    private final BooleanSupplier nodeManagerRunning;
    private final SystemRoot root;

    /**
     * @param conf               the node's configuration (yarn-site.xml, mapred-site.xml)
     * @param bearerCommand      the command that lists bearers, normally {@code tipc bearer list}
     * @param nodeManagerRunning whether a NodeManager runs here, asked when its names are missing
     * @param root               where /proc, /sys, /lib/modules and /etc are read, normally /
     */
    public NodeDoctor(Configuration conf, List<String> bearerCommand, BooleanSupplier nodeManagerRunning,
                      SystemRoot root) {
        this.conf = conf;
        this.bearerCommand = Collections.unmodifiableList(new ArrayList<>(bearerCommand));
        this.nodeManagerRunning = nodeManagerRunning;
        this.root = root;
    }

    /** The doctor for this host as an operator runs it. */
    public static NodeDoctor forThisNode(Configuration conf) {
        return new NodeDoctor(conf, BearerCheck.COMMAND, NodeManagerProcess::running, SystemRoot.HOST);
    }

    public DoctorReport examine() {
        List<Check> checks = new ArrayList<>();
        // Before the socket: opening one may load the module on demand.
        TipcModuleCheck.Result module = TipcModuleCheck.examine(root);
        checks.add(module.check());
        checks.add(KernelFixesCheck.of(root, module.available()));
        int ownNode = socket(checks);
        Integer serviceType = serviceType(checks);
        checks.add(serving());
        checks.add(EncryptionCheck.of(conf, ownNode >= 0, KernelLinkCrypto.KALLSYMS));
        if (ownNode < 0) {
            for (String name : Arrays.asList("node-identity", BearerCheck.NAME, UdpBearerCheck.NAME, "links",
                    LinkToleranceCheck.NAME, IslandCheck.NAME, PublishedNames.OWN, PublishedNames.PEERS)) {
                checks.add(Check.skip(name, NEEDS_TIPC));
            }
            return new DoctorReport(checks);
        }
        checks.add(identity(ownNode));
        Check bearers = BearerCheck.run(bearerCommand);
        checks.add(bearers);
        checks.add(UdpBearerCheck.of(bearers, conf, root, CommandRun::of));
        List<String> peers = new ArrayList<>();
        checks.add(links(peers));
        checks.add(LinkToleranceCheck.of(conf, CommandRun::of));
        checks.add(island(peers));
        names(checks, ownNode, serviceType);
        return new DoctorReport(checks);
    }

    /** Adds the native-library and af-tipc checks; returns this node's TIPC address, or -1 without AF_TIPC. */
    private static int socket(List<Check> checks) {
        try (TipcDatagramChannel probe = TipcDatagramChannel.open()) {
            checks.add(Check.ok("native-library", "libhadooptipc loaded from the tipc-jni jar"));
            checks.add(Check.ok("af-tipc", "socket(AF_TIPC) works"));
            return probe.getLocalAddress().node();
        } catch (TipcException e) {
            if (e.errno() == 0) { // the library did not load, so no socket call was made
                checks.add(new Check("native-library", Check.Status.FAIL, e.getMessage(),
                        "put the tipc-jni jar (it carries the linux-x86_64 library) on the class path; on another"
                                + " architecture build the library and pass -Dhadooptipc.native.library=/path/libhadooptipc.so"));
                checks.add(Check.skip("af-tipc", "needs the native library"));
            } else {
                checks.add(Check.ok("native-library", "libhadooptipc loaded from the tipc-jni jar"));
                checks.add(new Check("af-tipc", Check.Status.FAIL, e.getMessage(), socketFix(e.errno())));
            }
        } catch (IOException e) {
            checks.add(Check.ok("native-library", "libhadooptipc loaded from the tipc-jni jar"));
            checks.add(new Check("af-tipc", Check.Status.FAIL, e.toString(), ""));
        }
        return -1;
    }

    static String socketFix(int errno) {
        switch (errno) {
            case TipcException.EAFNOSUPPORT:
                return "load the kernel module: modprobe tipc (the kernel needs CONFIG_TIPC);"
                        + " to load it at boot: echo tipc > /etc/modules-load.d/tipc.conf";
            case 1:
            case 13:
                return "a security policy (seccomp, SELinux, AppArmor or a container profile) forbids AF_TIPC"
                        + " sockets: allow them for the NodeManager and task users";
            default:
                return "see the errno above";
        }
    }

    /** Whether the NodeManager is configured to serve over TIPC at all (encryption: {@link EncryptionCheck}). */
    private Check serving() {
        return conf.getBoolean(TipcShuffleConfig.SERVER_ENABLED, TipcShuffleConfig.DEFAULT_SERVER_ENABLED)
                ? Check.ok("serving", TipcShuffleConfig.SERVER_ENABLED + " = true")
                : new Check("serving", Check.Status.FAIL, "disabled by " + TipcShuffleConfig.SERVER_ENABLED,
                "this NodeManager serves HTTP/TCP only; to use TIPC, set " + TipcShuffleConfig.SERVER_ENABLED + " = true");
    }

    private Integer serviceType(List<Check> checks) {
        try {
            int type = TipcShuffleConfig.serviceType(conf);
            checks.add(Check.ok("service-type", TipcShuffleConfig.SERVICE_TYPE + " = " + type
                    + " (must be the same on every node)"));
            return type;
        } catch (IllegalArgumentException e) {
            checks.add(new Check("service-type", Check.Status.FAIL, e.getMessage(),
                    "set " + TipcShuffleConfig.SERVICE_TYPE + " to one number above 63, the same on every node"));
            return null;
        }
    }

    private static Check identity(int ownNode) {
        if (ownNode == 0) {
            return new Check("node-identity", Check.Status.FAIL, "this node has no TIPC address yet",
                    "tipc node set identity <unique name> (before enabling a bearer; a bearer enabled without one"
                            + " derives it from its MAC)");
        }
        return Check.ok("node-identity", describe(ownNode));
    }

    /** The links check; adds the identities of the nodes this one has links to to {@code identities}. */
    private static Check links(List<String> identities) {
        try {
            List<Integer> peers = Tipc.reachableNodes();
            if (peers.isEmpty()) {
                return new Check("links", Check.Status.FAIL, "no TIPC link up to another node",
                        "enable a bearer on the other nodes too, on the same Ethernet segment, each node with its"
                                + " own identity; `tipc link list` shows the links");
            }
            List<String> names = new ArrayList<>();
            for (int p : peers) {
                names.add(describe(p));
                identities.add(identityOrAddress(p));
            }
            return Check.ok("links", "up to " + peers.size() + " node(s): " + String.join(", ", names));
        } catch (IOException e) {
            return new Check("links", Check.Status.FAIL, "topology service: " + e.getMessage(), "");
        }
    }

    private Check island(List<String> peers) {
        try {
            return IslandCheck.of(TipcIslands.forThisHost(conf), TipcIslands.thisHost(), peers, CommandRun::of);
        } catch (IOException | IllegalArgumentException e) {
            return new Check(IslandCheck.NAME, Check.Status.FAIL, e.getMessage(), "");
        }
    }

    private void names(List<Check> checks, int ownNode, Integer serviceType) {
        if (serviceType == null) {
            checks.add(Check.skip(PublishedNames.OWN, "needs a valid service type"));
            checks.add(Check.skip(PublishedNames.PEERS, "needs a valid service type"));
            return;
        }
        int port = conf.getInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, ShuffleHandler.DEFAULT_SHUFFLE_PORT);
        List<NameTable.Binding> bindings;
        try {
            bindings = NameTable.bindings(serviceType);
        } catch (IOException e) {
            checks.add(new Check(PublishedNames.OWN, Check.Status.FAIL, "name table: " + e.getMessage(), ""));
            checks.add(Check.skip(PublishedNames.PEERS, "the name table could not be read"));
            return;
        }
        if (port == 0) {
            checks.add(Check.skip(PublishedNames.OWN, ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY + " = 0: the NodeManager picks a port at start,"
                    + " so its names cannot be computed here"));
        } else {
            try {
                checks.add(PublishedNames.own(ShuffleServiceName.ofThisHost(port), serviceType, ownNode, bindings,
                        nodeManagerRunning.getAsBoolean(), NodeDoctor::identityOrAddress));
            } catch (IOException e) {
                checks.add(new Check(PublishedNames.OWN, Check.Status.FAIL, "listing this host's addresses: " + e, ""));
            }
        }
        checks.add(PublishedNames.peers(ownNode, bindings, NodeDoctor::identityOrAddress));
    }

    private static String describe(int node) {
        return identityOrAddress(node) + " (" + Integer.toHexString(node) + ")";
    }

    private static String identityOrAddress(int node) {
        try {
            return Tipc.nodeIdentity(node);
        } catch (IOException e) {
            return Integer.toHexString(node);
        }
    }
}
