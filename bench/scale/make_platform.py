#!/usr/bin/env python3
"""Writes a SimGrid platform and hostfile for the scale study.

  make_platform.py NODES RANKS_PER_NODE GBITS OUTDIR [LATENCY_US]

A two-level non-blocking fat tree (SimGrid FAT_TREE cluster): leaf switches
of up to 16 nodes, as many spine switches as a leaf has nodes, every link
GBITS Gbit/s and LATENCY_US/2 (default 1: 0.5 us a link, so LATENCY_US node
to node under one leaf, twice that across the spine). Each node is one host with RANKS_PER_NODE cores; ranks on the same
host talk through the host's loopback link, which models shared memory
(10 GB/s, 0.3 us: a node-local MPI copy, not the network; SimGrid makes
a cluster's loopback a fat pipe, so every flow gets 10 GB/s). Hosts run at
1 Gflop/s and runs pass --cfg=smpi/host-speed:1Gf, so every measured second
of computation (codecs included) costs one simulated second.
Prints the platform and hostfile paths."""
import os
import sys

def main():
    nodes, per_node, gbits, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    latency_us = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
    leaf = min(nodes, 16)
    while nodes % leaf:
        leaf -= 1
    leaves = nodes // leaf
    # levels; down-links per level; up-links per level; parallel links.
    topo = f"2;{leaf},{leaves};1,{leaf};1,1" if leaves > 1 else f"1;{leaf};1;1"
    bw = f"{gbits:g}Gbps"
    name = f"ft{nodes}x{per_node}_{gbits:g}g" + (f"_{latency_us:g}us" if latency_us != 1.0 else "")
    os.makedirs(out, exist_ok=True)
    xml = os.path.join(out, name + ".xml")
    hosts = os.path.join(out, name + ".hosts")
    with open(xml, "w") as f:
        f.write(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="ft" prefix="node-" suffix="" radical="0-{nodes - 1}" speed="1Gf" core="{per_node}"
           bw="{bw}" lat="{latency_us / 2:g}us" loopback_bw="10GBps" loopback_lat="0.3us"
           topology="FAT_TREE" topo_parameters="{topo}" sharing_policy="SPLITDUPLEX"/>
</platform>
""")
    with open(hosts, "w") as f:
        # One line per rank (smpirun would otherwise unroll "host:n" lines
        # into a file it leaves in the working directory).
        for n in range(nodes):
            f.write(f"node-{n}\n" * per_node)
    print(xml, hosts)

if __name__ == "__main__":
    main()
