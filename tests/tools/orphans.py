"""Process helpers for the CLI tests: the descendants of a process, read from /proc, whether a
process still runs (a zombie counts as gone), and a check that a signal to the CLI leaves none
of its children behind."""

import os
import subprocess
import time


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


def interrupt_leaves_no_child(argv, signum, expect_rc, settle=1.5):
    """Starts argv (a utvm command line), waits settle seconds once its transport's children
    run, sends signum, and raises AssertionError unless it exits with expect_rc and none of
    those children survives. Returns its stderr."""
    env = dict(os.environ)
    env.pop("UTVM_CONNECT", None)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    children = []
    start = time.time()
    while time.time() < start + 20:
        children = descendants(proc.pid)
        if children and time.time() > start + settle:
            break
        time.sleep(0.05)
    if not children:
        proc.kill()
        raise AssertionError("utvm started no transport process")
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=30)
    if proc.returncode != expect_rc:
        raise AssertionError("exit code %d after signal %d, got %d (stderr %r)" %
                             (expect_rc, signum, proc.returncode, err))
    deadline = time.time() + 5
    while time.time() < deadline and any(alive(c) for c in children):
        time.sleep(0.05)
    survivors = [c for c in children if alive(c)]
    if survivors:
        raise AssertionError("children survived signal %d: %r" % (signum, survivors))
    return err
