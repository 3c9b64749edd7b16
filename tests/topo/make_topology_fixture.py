#!/usr/bin/env python3
"""Builds two-socket-ib.xml: a synthetic two-package machine (hwloc's own export) with an
InfiniBand HCA and a GPU attached to the second package, for the topology unit tests.
Run once; the result is committed."""
import re
import subprocess

xml = subprocess.run(["lstopo-no-graphics", "-i", "pack:2 [numa] l3:1 core:2 pu:2", "--of", "xml", "-"],
                     check=True, capture_output=True, text=True).stdout
io = """
      <object type="Bridge" gp_index="900" bridge_type="0-1" depth="0" bridge_pci="0000:[3b-3c]">
        <object type="PCIDev" gp_index="901" pci_busid="0000:3b:00.0" pci_type="0207 [15b3:101b] [15b3:0007] 00" pci_link_speed="0.000000">
          <object type="OSDev" gp_index="902" name="mlx5_0" osdev_type="3"/>
        </object>
        <object type="PCIDev" gp_index="903" pci_busid="0000:3c:00.0" pci_type="0302 [10de:2330] [10de:16c1] a1" pci_link_speed="0.000000">
          <object type="OSDev" gp_index="904" name="card1" osdev_type="1"/>
        </object>
      </object>"""
packages = [m.start() for m in re.finditer(r'<object type="Package"', xml)]
# Close of the second package: the next line at its indentation level.
start = packages[1]
indent = xml.rfind("\n", 0, start) + 1
close = xml.index("\n" + " " * (start - indent) + "</object>", start)
xml = xml[:close] + io + xml[close:]
open("two-socket-ib.xml", "w").write(xml)
