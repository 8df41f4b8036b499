#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# introspection-diff.py FILE.xml LIVE.xml: the members of FILE's interface (an installed
# api/io.uledsd1.*.xml) against the same interface in LIVE (busctl introspect --xml-interface
# of a running uledsd): methods with their arguments, signals, properties with type, access and
# EmitsChangedSignal (absent is "true", as D-Bus says). Prints each difference; exit 1 if any.
import sys
import xml.etree.ElementTree as ET


def members(path, name=None):
    root = ET.parse(path).getroot()
    ifaces = [i for i in root.iter("interface") if name is None or i.get("name") == name]
    if len(ifaces) != 1:
        sys.exit(f"{path}: {len(ifaces)} interfaces named {name or '(any)'}")
    iface = ifaces[0]
    out = set()
    for m in iface:
        args = tuple((a.get("name"), a.get("type"), a.get("direction", "in" if m.tag == "method" else "out"))
                     for a in m.findall("arg"))
        if m.tag in ("method", "signal"):
            out.add((m.tag, m.get("name"), args))
        elif m.tag == "property":
            emits = "true"
            for a in m.findall("annotation"):
                if a.get("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal":
                    emits = a.get("value")
            out.add(("property", m.get("name"), m.get("type"), m.get("access"), emits))
    return iface.get("name"), out


name, shipped = members(sys.argv[1])
_, live = members(sys.argv[2], name)
for m in sorted(shipped - live, key=str):
    print(f"{sys.argv[1]} has, uledsd does not: {m}")
for m in sorted(live - shipped, key=str):
    print(f"uledsd has, {sys.argv[1]} does not: {m}")
print(f"{name}: {len(shipped)} members in the file, {len(live)} live")
sys.exit(1 if shipped != live else 0)
