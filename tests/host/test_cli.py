#!/usr/bin/python3
"""End-to-end tests of the utvm CLI against utvm-posix-server.

Usage: test_cli.py <utvm binary> <utvm-posix-server binary>
Runs every case, prints one line per case and exits non-zero if any failed.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import orphans  # noqa: E402

UTVM = sys.argv[1]
SERVER = sys.argv[2]
CONNECT = "exec:" + SERVER


def run(*args, connect=CONNECT, timeout=60, env_connect=None):
    env = dict(os.environ)
    env.pop("UTVM_CONNECT", None)
    if env_connect is not None:
        env["UTVM_CONNECT"] = env_connect
    cmd = [UTVM]
    if connect is not None:
        cmd += ["--connect", connect]
    cmd += list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout,
                                                            proc.stderr)
        raise AssertionError(what + detail)


def run_json(*args, expect_rc=0, **kw):
    p = run("--json", *args, **kw)
    check(p.returncode == expect_rc, "exit code %d expected" % expect_rc, p)
    try:
        return json.loads(p.stdout)
    except ValueError:
        check(False, "stdout is not JSON", p)
    return None


def case_help():
    p = run("--help", connect=None)
    check(p.returncode == 0 and "usage: utvm" in p.stdout, "--help prints usage", p)
    p = run(connect=None)
    check(p.returncode == 2, "no command is a usage error", p)
    p = run("frobnicate")
    check(p.returncode == 2 and "unknown command" in p.stderr, "unknown command", p)
    p = run("call", "--bogus", "x")
    check(p.returncode == 2 and "unknown option" in p.stderr, "unknown option", p)
    p = run("info", connect=None)
    check(p.returncode == 2 and "UTVM_CONNECT" in p.stderr, "missing --connect explained", p)
    p = run("call", "test_echo", "q:1")
    check(p.returncode == 2 and "unknown argument type" in p.stderr, "bad typed argument", p)
    d = run_json("call", "test_echo", "i:zz", expect_rc=2)
    check(d["ok"] is False and d["exit_code"] == 2, "usage error as JSON")


def case_info():
    p = run("info")
    check(p.returncode == 0 and "session id" in p.stdout and "CRC errors" in p.stdout,
          "info text", p)
    d = run_json("info")
    check(d["ok"] and d["crt_max_packet_size"] == 2037, "info reports GetCRTMaxPacketSize")
    check(d["globals"]["runtime.SystemLib"] is True, "info lists runtime.SystemLib")
    check(d["stats"]["crc_errors"] == 0 and d["stats"]["packets_ok"] > 0, "info stats")
    check(d["rpc_protocol"] == "0.8.0" and d["protocol_accepted"] is True,
          "info reports the RPC protocol the device accepted")
    attrs = d["attributes"]
    check(attrs["exist"] == 1 and 0 < attrs["available_memory"] <= attrs["total_memory"],
          "info reports the device's memory attributes")
    p = run("info", connect=None, env_connect=CONNECT)
    check(p.returncode == 0, "UTVM_CONNECT is honoured", p)


def case_call_scalars():
    for arg, kind, value in [("i:-7", "int", -7), ("f:2.5", "float", 2.5), ("b:1", "bool", True),
                             ("s:hi there", "str", "hi there"), ("x:00ff10", "bytes", "00ff10"),
                             ("n:", "null", None)]:
        d = run_json("call", "test_echo", arg)
        check(d["return"] == {"type": kind, "value": value},
              "echo %s -> %r" % (arg, d["return"]))
    p = run("call", "test_echo", "i:42")
    check(p.returncode == 0 and p.stdout.strip() == "return: int 42", "text output", p)


def case_call_tensors():
    d = run_json("call", "test_add_f32", "t:float32:[1,2,3]", "t:float32:[10,20,30]",
                 "t:float32:#3")
    check(d["tensors"][2]["data"] == [11, 22, 33], "add result %r" % d["tensors"])
    check(d["tensors"][2]["shape"] == [3] and d["tensors"][2]["dtype"] == "float32", "shape")
    with tempfile.TemporaryDirectory() as tmp:
        a = np.arange(5000, dtype=np.float32)
        b = np.full(5000, 0.5, dtype=np.float32)
        np.save(os.path.join(tmp, "a.npy"), a)
        np.save(os.path.join(tmp, "b.npy"), b)
        d = run_json("call", "test_add_f32", "npy:" + os.path.join(tmp, "a.npy"),
                     "npy:" + os.path.join(tmp, "b.npy"), "t:float32:#5000")
        check(np.allclose(np.array(d["tensors"][2]["data"]), a + b), "npy add result")
        np.save(os.path.join(tmp, "bad.npy"), np.array([1j]))
        p = run("call", "test_echo", "npy:" + os.path.join(tmp, "bad.npy"))
        check(p.returncode == 2 and "unsupported dtype" in p.stderr, "bad npy rejected", p)


def case_errors():
    p = run("call", "no_such_function")
    check(p.returncode == 4 and "no_such_function" in p.stderr, "missing function -> 4", p)
    d = run_json("call", "test_add_f32", "i:1", expect_rc=4)
    check("test_add_f32" in d["error"] and d["kind"] == "device exception",
          "exception text in JSON: %r" % d)
    p = run("call", "test_abort")
    check(p.returncode == 5 and "abort" in p.stderr, "device reset -> 5 with cause", p)
    d = run_json("call", "test_abort", expect_rc=5)
    check("abort" in d["error"], "reset cause in JSON")
    t0 = time.monotonic()
    p = run("--start-timeout", "1", "--retry", "0.3", "info", connect="exec:cat > /dev/null")
    check(p.returncode == 3 and "handshake" in p.stderr, "silent peer -> 3", p)
    check(time.monotonic() - t0 < 5, "silent peer fails within bounds")
    # The call is repeated under its sequence number (10 repeats of 0.15 s) and not answered;
    # the bound leaves out starting the tool and the server (slower under an emulator: a
    # session's info, timed before).
    t0 = time.monotonic()
    run("info")
    start_s = time.monotonic() - t0
    t0 = time.monotonic()
    p = run("--timeout", "0.15", "call", "test_busy_wait_us", "i:2500000")
    check(p.returncode == 3 and "CallFunc: no intact reply in 11 attempts" in p.stderr and
          "it ran at most once" in p.stderr, "call timeout -> 3", p)
    check(time.monotonic() - t0 - start_s < 2.4, "call timeout within 11 waits")
    p = run("info", connect="tcp:127.0.0.1:1")
    check(p.returncode == 3, "refused tcp -> 3", p)
    p = run("info", connect="nonsense")
    check(p.returncode == 2, "bad transport -> 2", p)


def case_time():
    d = run_json("time", "test_echo", "i:1", "--number", "20", "--repeat", "4")
    check(len(d["results_s"]) == 4, "4 measurements")
    check(d["min_s"] <= d["median_s"] <= d["max_s"] and d["stddev_s"] >= 0, "statistics")
    p = run("time", "test_echo", "i:1")
    check(p.returncode == 0 and "median" in p.stdout and "stddev" in p.stdout, "time text", p)
    p = run("time", "runtime.SystemLib")
    check(p.returncode == 4 and "system library" in p.stderr, "globals cannot be timed", p)


def case_bench():
    d = run_json("bench", "--max-size", "65536", timeout=120)
    check(d["latency_us"]["mean"] > 0, "latency measured")
    sizes = [t["bytes"] for t in d["transfers"]]
    check(sizes == [1024, 4096, 16384, 65536], "transfer sizes %r" % sizes)
    check(all(t["upload_MBps"] > 0 and t["download_MBps"] > 0 for t in d["transfers"]),
          "throughput measured")
    p = run("bench", "--max-size", "4096")
    check(p.returncode == 0 and "upload MB/s" in p.stdout, "bench table", p)


def case_logs():
    # A Log frame "hi" (vectors/session.json) ahead of the server, then the server itself,
    # killed after 2 s: the log is printed and end of stream ends the command.
    log_hi = "\\377\\375\\005\\000\\000\\000\\000\\000\\003hi\\032\\217"
    script = "printf '%s'; exec timeout 2 %s" % (log_hi, SERVER)
    p = run("--json", "logs", connect="exec:" + script, timeout=20)
    check(p.returncode == 0, "logs ends at end of stream", p)
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    check({"log": "hi"} in lines, "log printed as JSON: %r" % lines)
    p = run("logs", connect="exec:" + script, timeout=20)
    check(p.returncode == 0 and "device: hi" in p.stderr, "log printed as text", p)
    proc = subprocess.Popen([UTVM, "--connect", CONNECT, "logs"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    proc.send_signal(2)
    out, err = proc.communicate(timeout=10)
    check(proc.returncode == 0, "logs ends cleanly on SIGINT: rc=%d %s" % (proc.returncode, err))


def case_tcp():
    """tcp: transport through a one-connection bridge to a server process."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def bridge():
        conn, _ = listener.accept()
        srv = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

        def pump_out():
            while True:
                data = os.read(srv.stdout.fileno(), 4096)
                if not data:
                    break
                try:
                    conn.sendall(data)
                except OSError:
                    break

        t = threading.Thread(target=pump_out, daemon=True)
        t.start()
        while True:
            data = conn.recv(4096)
            if not data:
                break
            srv.stdin.write(data)
            srv.stdin.flush()
        srv.stdin.close()
        srv.wait(timeout=5)
        conn.close()

    th = threading.Thread(target=bridge, daemon=True)
    th.start()
    d = run_json("call", "test_echo", "i:99", connect="tcp:127.0.0.1:%d" % port)
    check(d["return"]["value"] == 99, "echo over tcp")
    th.join(timeout=10)
    listener.close()


def case_explain():
    # The ids are a stable contract (include/utvm/error_texts.h): these numbers must keep
    # their meaning in every later version.
    p = run("explain", "#103: #130 0x00000001", connect=None)
    check(p.returncode == 0 and p.stdout == "CallFunc: bad handle 0x00000001\n",
          "explain expands RPC tokens", p)
    p = run("explain", "#000", connect=None)
    check(p.returncode == 0 and p.stdout == "utvm_crt: runtime not initialised\n",
          "explain expands a C runtime token", p)
    out = run_json("explain", "#023#0340x00000002", connect=None)
    check(out == {"ok": True, "text": "RPCTimeEvaluator: platform hook error 0x00000002"},
          "explain --json: %r" % (out,))
    p = run("explain", "no tokens #9999 here", connect=None)
    check(p.returncode == 0 and p.stdout == "no tokens #9999 here\n",
          "explain copies text without known tokens", p)
    p = run("explain", connect=None)
    check(p.returncode == 2, "explain without a text is a usage error", p)


def case_literal_ranges():
    """A literal that does not fit its dtype is a usage error naming the element, checked
    before any device starts (the transport here would fail to connect)."""
    for literal, why in [("t:int8:[1,300]", "element 1: 300 is outside int8"),
                         ("t:int8:[1.5]", "element 0: 1.5 is not an integer"),
                         ("t:uint8:[-1]", "element 0: -1 is outside uint8"),
                         ("t:int16:[[1,2],[3,40000]]", "element 3: 40000 is outside int16"),
                         ("t:float32:[1e39]", "outside float32"),
                         ("t:int8:#2x3x4x5x6x7x8x9x1x1x1x1x1x1x1x1x1", "at most 16")]:
        p = run("call", "test_echo", literal, connect="exec:false")
        check(p.returncode == 2 and why in p.stderr, "%s refused: %s" % (literal, why), p)
    d = run_json("call", "test_add_f32", "t:float32:[1,2]", "t:float32:[3,4]",
                 "t:float32:#2")
    check(d["tensors"][2]["data"] == [4.0, 6.0], "fitting literals still work")
    p = run("call", "test_echo", "t:int8:[-128,127]", "t:uint8:[0,255]", connect="exec:false")
    check(p.returncode == 3, "extreme values in range pass the check (then the link fails)", p)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.npy")
        np.save(path, np.arange(4, dtype=np.int16))
        p = run("call", "test_echo", "npy:int8:" + path, connect="exec:false")
        check(p.returncode == 2 and "holds int16, not int8" in p.stderr, "npy dtype mismatch", p)
        p = run("call", "test_echo", "npy:" + os.path.join(tmp, "missing.npy"),
                connect="exec:false")
        check(p.returncode == 2 and "missing.npy" in p.stderr,
              "a missing file is a usage error before the device starts", p)
        d = run_json("call", "test_add_f32", "npy:float32:" + _f32(tmp, "a", [1, 2]),
                     "npy:" + _f32(tmp, "b", [3, 4]), "t:float32:#2")
        check(d["tensors"][2]["data"] == [4.0, 6.0], "npy:DTYPE:PATH with the right dtype")


def case_bin_tensors():
    """bin:DTYPE:[SHAPE]:PATH: a raw file as a tensor argument, its size checked against
    DTYPE x SHAPE before the device starts."""
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "a.bin")
        b = os.path.join(tmp, "b.bin")
        np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32).tofile(a)
        np.full(6, 0.5, dtype=np.float32).tofile(b)
        d = run_json("call", "test_add_f32", "bin:float32:[6]:" + a, "bin:float32:[ 6 ]:" + b,
                     "t:float32:#6")
        check(d["tensors"][0]["shape"] == [6] and d["tensors"][0]["dtype"] == "float32" and
              d["tensors"][2]["data"] == [1.5, 2.5, 3.5, 4.5, 5.5, 6.5],
              "bin: tensors added: %r" % d["tensors"])
        kws = os.path.join(tmp, "input.bin")
        with open(kws, "wb") as f:
            f.write(bytes(490))
        os.mkdir(os.path.join(tmp, "dir"))
        for arg, why in [("bin:int8:[1,49,10,2]:" + kws, "holds 490 bytes; int8 x [1,49,10,2] "
                          "needs 980"),
                         ("bin:int16:[1,49,10,1]:" + kws, "needs 980"),
                         ("bin:int8:[1,49,10,1]:" + os.path.join(tmp, "missing.bin"),
                          "cannot open"),
                         ("bin:int8:[4]:" + os.path.join(tmp, "dir"), "not a regular file"),
                         ("bin:int9:[490]:" + kws, "unknown dtype 'int9'"),
                         ("bin:int8:[1,,490]:" + kws, "bad shape '[1,,490]'"),
                         ("bin:int8:[1,490,]:" + kws, "bad shape"),
                         ("bin:int8:[-490]:" + kws, "bad shape"),
                         ("bin:int8:[99999999999]:" + kws, "bad shape"),
                         ("bin:int8:[65536,65536]:" + kws, "bad shape"),
                         ("bin:int8:[" + ",".join(["1"] * 17) + "]:" + kws, "bad shape"),
                         ("bin:int8:490:" + kws, "expected bin:DTYPE:[SHAPE]:PATH"),
                         ("bin:int8:[490]", "expected bin:DTYPE:[SHAPE]:PATH"),
                         ("bin:int8:[490]:", "expected bin:DTYPE:[SHAPE]:PATH")]:
            p = run("call", "test_echo", arg, connect="exec:false")
            check(p.returncode == 2 and why in p.stderr, "%s refused: %s" % (arg, why), p)
        p = run("call", "test_echo", "bin:int8:[1,49,10,1]:" + kws, connect="exec:false")
        check(p.returncode == 3, "a file of the right size passes the check (then the link "
              "fails)", p)
    p = run("call", "--help", connect=None)
    check("bin:DTYPE:[SHAPE]:PATH" in p.stdout, "call --help names bin:", p)


def case_help_lists_transports():
    p = run("--help", connect=None)
    text = " ".join(p.stdout.split())
    check(p.returncode == 0 and "qemu:BOARD[:ELF] | fault:OPTIONS/T" in text and
          "fault:OPTIONS/T wraps transport T" in text, "--help lists fault: with the transports",
          p)
    check("bin:DTYPE:[SHAPE]:PATH" in text, "--help lists bin: arguments", p)


def _f32(tmp, name, values):
    path = os.path.join(tmp, name + ".npy")
    np.save(path, np.array(values, dtype=np.float32))
    return path


def case_command_help():
    for command, phrase in [("call", "usage: utvm [--connect T] [--json] call FUNC"),
                            ("time", "1 ns = 1 instruction"), ("info", "utvm.crt.FunctionName"),
                            ("bench", "--max-size"), ("logs", "Ctrl-C"), ("explain", "#<id>")]:
        p = run(command, "--help", connect=None)
        check(p.returncode == 0 and phrase in p.stdout and "commands:" not in p.stdout,
              "%s --help prints that command's help" % command, p)
    p = run("--help", connect=None)
    check("130 interrupted" in p.stdout and "-icount" in p.stdout, "--help documents signals", p)


def case_info_lists_functions():
    d = run_json("info")
    check(d["functions"]["system_lib"][:5] == ["test_add_f32", "test_echo", "test_busy_wait_us",
                                               "test_abort", "test_sum_ints"] and
          d["functions"]["system_lib"][5] == "utvm_k_conv2d_s8" and
          d["functions"]["system_lib"][21] == "utvm_k_reshape" and
          all(f.startswith("utvm_k_") for f in d["functions"]["system_lib"][5:-2]) and
          d["functions"]["system_lib"][-2:] == ["tvmgen_default_run",
                                                "tvmgen_default_get_c_metadata"],
          "info lists the system library: %r" % (d.get("functions"),))
    check("tvm.contrib.random.random_fill" in d["functions"]["globals"], "info lists globals")
    p = run("info")
    count = len(d["functions"]["system_lib"])
    check("system library functions (%d):" % count in p.stdout and
          "  test_busy_wait_us" in p.stdout,
          "info text lists functions", p)


def case_arena_full_in_decimal():
    p = run("call", "test_echo", "t:int8:#300032", connect=CONNECT + " --arena 262144")
    check(p.returncode == 4 and "need 300,032 bytes (0x" in p.stderr and
          "largest free " in p.stderr, "arena-full error in decimal and hex", p)


def case_interrupt_exec():
    import signal
    for signum, rc in [(signal.SIGINT, 130), (signal.SIGTERM, 143)]:
        orphans.interrupt_leaves_no_child(
            [UTVM, "--connect", CONNECT, "call", "test_busy_wait_us", "i:5000000"], signum, rc)
    # A shell command with a child of its own: the whole process group goes.
    orphans.interrupt_leaves_no_child(
        [UTVM, "--connect", "exec:sh -c '%s; true'" % SERVER, "time", "test_busy_wait_us",
         "i:2000000", "--repeat", "5"], signal.SIGINT, 130)


CASES = [case_help, case_explain, case_info, case_call_scalars, case_call_tensors, case_errors, case_time,
         case_bench, case_logs, case_tcp, case_literal_ranges, case_command_help,
         case_info_lists_functions, case_arena_full_in_decimal, case_interrupt_exec,
         case_bin_tensors, case_help_lists_transports]


def main():
    failed = 0
    for case in CASES:
        try:
            case()
            print("PASS", case.__name__)
        except Exception as e:  # report every failure, not just the first
            failed += 1
            print("FAIL", case.__name__, e)
    print("%d of %d cases failed" % (failed, len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
