"""Process helpers for the CLI tests: the descendants of a process, read from /proc, and
whether a process still runs (a zombie counts as gone)."""

import os


def _ppids():
    """Maps each visible pid to its parent pid."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # The command may contain spaces and parentheses: fields follow the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), fields[0])
    return table


def descendants(pid):
    """Every live process below pid (children, grandchildren, ...)."""
    table = _ppids()
    found = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, _state) in table.items():
            if ppid == parent and child not in found:
                found.append(child)
                frontier.append(child)
    return found


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"
