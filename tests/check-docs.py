#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The user's surface agrees with the code (issue 31): what the code's tables name, the man
pages, the bash completion, the unit and debian/control name too.

  - every uledsctl command and long option: in uledsctl(1) and in the bash completion;
  - every backend of backends/registry.c: in uledsd(8), uledsd.conf(5), uledsd-dbus(7), the
    completion's --backend list, the unit's Description= and debian/control;
  - every key of an LED section (api/uledsd-conf.h): in uledsd.conf(5);
  - every io.uledsd1 error name (api/uledsd-bus.h): in the ERRORS section of uledsd-dbus(7);
  - every D-Bus method, property and signal of daemon/bus*.c: in uledsd-dbus(7);
  - uledsctl --help says who may change state as the daemon decides it (root, the group
    uledsd or polkit), never "Needs root." alone.

usage: check-docs.py SOURCE_DIR     prints one line per problem; exit 1 when there is any.
"""
import os
import re
import sys


def read(root, path):
    with open(os.path.join(root, path)) as f:
        return f.read()


def section(text, title):
    """The text of a scdoc section "# TITLE" up to the next one."""
    m = re.search(r"^# " + re.escape(title) + r"\n(.*?)(?=^# |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


def main(root):
    problems = []
    ctl = read(root, "ctl/uledsctl.c")
    completion = read(root, "ctl/uledsctl.bash-completion")
    man_ctl = read(root, "man/uledsctl.1.scd")
    man_d = read(root, "man/uledsd.8.scd")
    man_conf = read(root, "man/uledsd.conf.5.scd")
    man_bus = read(root, "man/uledsd-dbus.7.scd")

    commands = re.findall(r'^    \{"([a-z]+)", \d+, (?:\d+|ANY), ', ctl, re.M)
    if len(commands) < 5:
        problems.append(f"ctl/uledsctl.c: found only {commands} in commands[]: the check is broken")
    comp_cmds = re.search(r'local commands="([^"]*)"', completion)
    comp_cmds = comp_cmds.group(1).split() if comp_cmds else []
    for c in commands:
        if not re.search(r"^\*" + c + r"\*", section(man_ctl, "COMMANDS"), re.M):
            problems.append(f"uledsctl(1): COMMANDS lacks the command '{c}'")
        if c not in comp_cmds:
            problems.append(f"bash completion: the command '{c}' is not completed")

    options = re.findall(r'^    \{"([a-z-]+)", (?:no|required)_argument', ctl, re.M)
    comp_opts = re.search(r'local opts="([^"]*)"', completion)
    comp_opts = comp_opts.group(1).split() if comp_opts else []
    for o in options:
        if "--" + o not in man_ctl.replace("\\-", "-"):
            problems.append(f"uledsctl(1): the option --{o} is not described")
        if "--" + o not in comp_opts:
            problems.append(f"bash completion: the option --{o} is not completed")

    registry = read(root, "backends/registry.c")
    backends = re.findall(r"&backend_([a-z]+),", registry)
    comp_backends = re.search(r'--backend\) COMPREPLY=\(\$\(compgen -W "([^"]*)"', completion)
    comp_backends = comp_backends.group(1).split() if comp_backends else []
    unit = read(root, "units/uledsd.service.in")
    description = re.search(r"^Description=(.*)$", unit, re.M)
    description = description.group(1) if description else ""
    control = read(root, "debian/control")
    for b in backends:
        for name, text in (("uledsd(8)", man_d), ("uledsd.conf(5)", man_conf),
                           ("uledsd-dbus(7)", man_bus)):
            if not re.search(r"\b" + b + r"\b", text):
                problems.append(f"{name}: the {b} backend is not mentioned")
        if b not in comp_backends:
            problems.append(f"bash completion: --backend does not offer '{b}'")
        spelt = {"dbus": r"D-Bus|dbus", "gpio": r"GPIO|gpio", "pwm": r"PWM|pwm"}.get(b, b)
        if not re.search(r"\b(" + spelt + r")\b", description):
            problems.append(f"units/uledsd.service.in: Description= does not name the {b} backend")
        if not re.search(r"\b" + b + r"\b", control, re.I):
            problems.append(f"debian/control: the {b} backend is not named")

    keys = re.findall(r"^\tX\(([a-z_]+)\)", read(root, "api/uledsd-conf.h"), re.M)
    for k in keys:
        if not re.search(r"^\*" + k + r"\*", man_conf, re.M):
            problems.append(f"uledsd.conf(5): the key '{k}' is not described")

    errors = re.findall(r'"(io\.uledsd1\.Error\.[A-Za-z]+)"', read(root, "api/uledsd-bus.h"))
    bus_errors = section(man_bus, "ERRORS")
    for e in errors:
        if "*" + e + "*" not in bus_errors:
            problems.append(f"uledsd-dbus(7): ERRORS lacks {e}")

    bus_src = "".join(read(root, os.path.join("daemon", f))
                      for f in sorted(os.listdir(os.path.join(root, "daemon")))
                      if f.startswith("bus") and f.endswith(".c"))
    members = set(re.findall(r'SD_BUS_(?:METHOD_WITH_ARGS|PROPERTY|SIGNAL_WITH_ARGS|SIGNAL)\("([A-Za-z]+)"',
                             bus_src))
    if len(members) < 10:
        problems.append(f"daemon/bus*.c: found only {sorted(members)}: the check is broken")
    for name in sorted(members):
        if not re.search(r"\b" + name + r"\b", man_bus):
            problems.append(f"uledsd-dbus(7): {name} is not described")

    # uledsd-panel's options (GOptionEntry) in uledsd-panel(1).
    panel_opts = re.findall(r'^\s*\{"([a-z-]+)", (?:\'[a-z]\'|0), 0, G_OPTION_ARG',
                            read(root, "panel/main.c"), re.M)
    if len(panel_opts) < 5:
        problems.append(f"panel/main.c: found only {panel_opts} in options[]: the check is broken")
    man_panel = read(root, "man/uledsd-panel.1.scd").replace("\\-", "-")
    for o in panel_opts:
        if "*--" + o + "*" not in man_panel:
            problems.append(f"uledsd-panel(1): the option --{o} is not described")

    # zsh and fish complete the same commands, options, backends and show's properties.
    zsh = read(root, "ctl/_uledsctl")
    fish = read(root, "ctl/uledsctl.fish")
    properties = re.findall(r'SD_BUS_PROPERTY\("([A-Za-z]+)"', bus_src)
    for c in commands:
        if not re.search(r"^\t\t'" + c + ":", zsh, re.M):
            problems.append(f"zsh completion: the command '{c}' is not completed")
        if not re.search(r"-a " + c + r" -d ", fish):
            problems.append(f"fish completion: the command '{c}' is not completed")
    for o in options:
        if not re.search(r"--" + o + r"\b", zsh):
            problems.append(f"zsh completion: the option --{o} is not completed")
        if not re.search(r"-l " + o + r"\b", fish):
            problems.append(f"fish completion: the option --{o} is not completed")
    for name, text in (("bash", completion), ("zsh", zsh), ("fish", fish)):
        if " ".join(sorted(backends)) not in text:
            problems.append(f"{name} completion: --backend does not offer "
                            f"'{' '.join(sorted(backends))}'")
        for prop in properties:
            if not re.search(r"[ (\"]" + prop + r"[ )\"]", text):
                problems.append(f"{name} completion: -p does not offer the property {prop}")

    for m in re.finditer(r"Needs root[^\"]*\"(?:\s*\"[^\"]*\")?", ctl):
        if "group" not in m.group(0):
            problems.append(f"ctl/uledsctl.c: '--help' says '{m.group(0)[:40]}...': "
                            "the daemon also allows the group uledsd and polkit")

    for p in problems:
        print(p)
    print(f"check-docs: {len(commands)} commands, {len(options)} options, {len(backends)} backends, "
          f"{len(keys)} keys, {len(errors)} errors, {len(members)} D-Bus members, "
          f"{len(panel_opts)} panel options; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
