"""The testbed's network: hosts as Linux network namespaces on one bridge, NICs shaped with htb.

    host i: namespace PREFIX-hI, interface eth0 (10.77.0.I+1/24)
      |  veth pair
    switch: namespace PREFIX-sw, port pI on bridge br0

A host's upload is shaped on its eth0 (egress), its download on the switch's port pI
(egress toward the host), each by an htb class at the line rate with 24 bytes of overhead
per packet: htb counts a frame with its Ethernet header (1514 bytes at most), the wire
adds the frame check 4, preamble 8 and inter-frame gap 12. Hosts send one frame per
packet (no GSO), so every frame, data or ACK, is charged its time on the wire. With netem
present, a one-way delay sits under the htb class. Every device and qdisc lives in the
namespaces created here, so traffic never leaves them and deleting them removes all
(remove(): also of a half-built testbed; run.sh deletes leftovers of its prefix on exit).
"""
import subprocess

WIRE_OVERHEAD = 24  # bytes a wire adds to a frame as htb counts it: check 4, preamble 8, gap 12


def sh(*argv, check=True):
    """Runs a command; raises RuntimeError with its stderr when it fails and check is set."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError("{} failed: {}".format(" ".join(argv), done.stderr.strip()))
    return done


def netem_available(prefix):
    """Whether this kernel has the netem qdisc: tried on a veth in a scratch namespace."""
    ns = prefix + "-probe"
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
        return sh("tc", "-n", ns, "qdisc", "add", "dev", "v0", "root", "netem", "delay", "1ms",
                  check=False).returncode == 0
    finally:
        sh("ip", "netns", "del", ns, check=False)


class Testbed:
    """`hosts` namespaces on one bridge. Use as a context manager: removed on exit."""

    def __init__(self, prefix, hosts):
        self.prefix = prefix
        self.hosts = hosts
        self.switch = prefix + "-sw"
        self.created = []
        self.htb = set()  # (namespace, device) with the htb root

    def host_ns(self, i):
        return "{}-h{}".format(self.prefix, i)

    @staticmethod
    def address(i):
        return "10.77.0.{}".format(i + 1)

    def __enter__(self):
        try:
            self.create()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc):
        self.remove()

    def add_ns(self, ns):
        sh("ip", "netns", "add", ns)
        self.created.append(ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")

    def create(self):
        self.add_ns(self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        for i in range(self.hosts):
            ns = self.host_ns(i)
            self.add_ns(ns)
            sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "p{}".format(i),
               "netns", self.switch)
            sh("ip", "-n", ns, "addr", "add", self.address(i) + "/24", "dev", "eth0")
            # One frame per packet: htb charges a packet after sending it, so a 64 kB GSO
            # packet, the last of a message, would cross the NIC unpaid (up to 5 ms at 100 Mbit/s).
            sh("ip", "-n", ns, "link", "set", "eth0", "gso_max_segs", "1")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", self.switch, "link", "set", "p{}".format(i), "master", "br0")
            sh("ip", "-n", self.switch, "link", "set", "p{}".format(i), "up")

    def remove(self):
        """Deletes every namespace created (their veths, bridge and qdiscs go with them)."""
        while self.created:
            sh("ip", "netns", "del", self.created.pop(), check=False)
        self.htb.clear()

    def shape(self, i, up_bps, down_bps, delay_s=0.0):
        """Host i's NIC: upload up_bps, download down_bps (line rates, bits/s), and a one-way
        latency delay_s in each direction (netem), as pssim's NIC latency: a route from
        host i to host j waits the latencies of both NICs."""
        self._shape(self.host_ns(i), "eth0", up_bps, delay_s)
        self._shape(self.switch, "p{}".format(i), down_bps, delay_s)

    def unshape(self, i):
        """Host i's NIC at the speed of the machine (no qdisc)."""
        for ns, dev in ((self.host_ns(i), "eth0"), (self.switch, "p{}".format(i))):
            sh("tc", "-n", ns, "qdisc", "del", "dev", dev, "root", check=False)
            self.htb.discard((ns, dev))

    def _shape(self, ns, dev, line_bps, delay_s):
        rate = "{}bit".format(int(round(line_bps)))
        # A real wire has no burst; htb's bucket lets `burst` bytes, and the packet that
        # empties it (htb charges after sending), leave at once after idle: a message ends
        # about three frames early. Two frames of burst: small, and the checks (testbed.py)
        # show whether the rate is kept.
        burst = "3028b"
        if (ns, dev) not in self.htb:  # htb's root cannot be changed, only its class
            sh("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
            self.htb.add((ns, dev))
        sh("tc", "-n", ns, "class", "replace", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate,
           "ceil", rate, "overhead", str(WIRE_OVERHEAD), "burst", burst, "cburst", burst, "quantum", "65536")
        if delay_s > 0:
            sh("tc", "-n", ns, "qdisc", "replace", "dev", dev, "parent", "1:1", "handle", "10:", "netem", "delay",
               "{}us".format(round(delay_s * 1e6)), "limit", "100000")
        else:  # htb's default leaf: a FIFO of txqueuelen (1000) packets
            sh("tc", "-n", ns, "qdisc", "del", "dev", dev, "parent", "1:1", "handle", "10:", check=False)

    def command(self, i, argv):
        """argv run inside host i's namespace."""
        return ["ip", "netns", "exec", self.host_ns(i)] + list(argv)
