#!/usr/bin/python3
"""TVM's Project API flow against utvm's template project (tvm/template_project), without TVM.

Usage: test_project_api.py <utvm binary> <template dir> <shared/models directory> <board> <net>
  net: kws (MLPerf Tiny keyword spotting) or micro_speech

A JSON-RPC client of ours starts microtvm_api_server.py as TVM does (--read-fd/--write-fd)
and runs the flow of tvm.micro.generate_project + build + flash + Session: server_info_query,
generate_project with the network's AOT archive from `utvm compile --mlf`, build, flash,
open_transport, a microTVM session over read_transport/write_transport that runs the model
(`utvm run --executor aot`, whose tcp: transport this script bridges to the Project API
transport) and checks its output byte for byte against TFLM's, close_transport;
read_transport's timeout is honoured. On a QEMU board it opens two such sessions on fresh boots,
then 8 more fresh sessions (`utvm info`) whose first handshake must succeed. With board "posix"
the archive is gzip-compressed (as AutoTVM's loader passes it) and the test also sends bad
requests (unknown method, missing parameter or option, unknown board or option, corrupt
archives, a template that is asked to build, a model that does not compile, I/O on a closed
transport, lines that are not JSON): each must give a JSON-RPC error with a readable text and
the server must keep answering; and it tries the real-board options: flash_command, and a
session over serial_port (a pty whose other side is the POSIX server, booted after the port
opened).
"""

import base64
import gzip
import io
import json
import os
import pathlib
import select
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import orphans  # noqa: E402  (tests/tools: the descendants of a process)

UTVM, TEMPLATE, MODELS, BOARD, NET = sys.argv[1:6]
# Model, input and TFLM's output per network (netduinoplus2's 8 KiB workspace arena is too
# small for KWS's AOT code, micro_speech fits).
NETS = {
    "kws": ("mlperf_tiny_kws_dscnn_int8.tflite", "refdata/mlperf_tiny/kws_input0_int8.bin",
            "refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"),
    "micro_speech": ("micro_speech_int8.tflite",
                     "refdata/micro_speech/yes_1000ms_features_int8.bin",
                     "refdata/micro_speech/yes_1000ms_tflm.out0.bin"),
}
MODEL, MODEL_IN, MODEL_OUT = (os.path.join(MODELS, p) for p in NETS[NET])
TMP = pathlib.Path(tempfile.mkdtemp(prefix="utvm_project_api_"))
SESSION_TIMEOUT_S = 300
ERRORS_SEEN = [0]
FRESH_SESSIONS = 8


class RpcFailure(Exception):
    def __init__(self, method, error):
        Exception.__init__(self, "%s: %r" % (method, error))
        self.code = error["code"]
        self.message = error["message"]
        self.data = error.get("data")


class Client:
    """Starts a Project API server as TVM does and calls its methods."""

    def __init__(self, server_py):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.proc = subprocess.Popen([sys.executable, str(server_py), "--read-fd", str(req_r),
                                      "--write-fd", str(rep_w)], pass_fds=(req_r, rep_w))
        os.close(req_r)
        os.close(rep_w)
        self.out = os.fdopen(req_w, "wb")
        self.inp = os.fdopen(rep_r, "rb")
        self.next_id = 1

    def send_line(self, line):
        """Sends one raw line; returns the parsed reply."""
        self.out.write(line + b"\n")
        self.out.flush()
        reply = self.inp.readline()
        check(reply.endswith(b"\n"), "a reply line to %r" % line[:80])
        return json.loads(reply)

    def call(self, method, **params):
        request_id = self.next_id
        self.next_id += 1
        reply = self.send_line(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                                           "params": params}).encode())
        check(reply.get("jsonrpc") == "2.0" and reply.get("id") == request_id,
              "reply id of %s: %r" % (method, reply))
        if "error" in reply:
            raise RpcFailure(method, reply["error"])
        return reply["result"]

    def close(self):
        self.out.close()
        rc = self.proc.wait(timeout=30)
        self.inp.close()
        check(rc == 0, "the server exits 0 at the end of its input (%d)" % rc)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def expect_error(client, code, text, method, **params):
    """The call fails with the JSON-RPC error code, a message (or detail) holding text, and the
    server still answers afterwards."""
    try:
        client.call(method, **params)
    except RpcFailure as exc:
        full = exc.message + " " + json.dumps(exc.data)
        ERRORS_SEEN[0] += 1
        check(exc.code == code and text in full,
              "%s: want error %d with %r, got %d %r" % (method, code, text, exc.code, full))
        check(client.call("server_info_query", tvm_version="0.18.0")["protocol_version"] == 1,
              "the server still answers after %s's error" % method)
        return full
    raise AssertionError("%s succeeded; want error %d %r" % (method, code, text))


def generate(client, archive, project, **options):
    return client.call("generate_project", model_library_format_path=str(archive),
                       standalone_crt_dir="", project_dir=str(project), options=options)


def make_archive(path, members):
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def case_server_info(client):
    info = client.call("server_info_query", tvm_version="0.18.0")
    check(info["is_template"] is True and info["platform_name"] == "utvm" and
          info["protocol_version"] == 1 and info["model_library_format_path"] is None,
          "template server info: %r" % info)
    options = {o["name"]: o for o in info["project_options"]}
    for name in ("board", "utvm_source_path", "build_type", "extra_files_tar", "verbose"):
        check(name in options and len(options[name]["help"]) > 20, "option %s with help" % name)
        check(set(options[name]) == {"name", "choices", "default", "type", "required",
                                     "optional", "help"}, "TVM's ProjectOption fields")
    check(options["board"]["choices"] == ["mps2-an385", "mps2-an386", "mps3-an547",
                                          "netduinoplus2", "posix"], "every board")
    check(options["board"]["required"] == ["generate_project"], "board required")
    print("ok   server_info_query: template, %d options, boards %s" %
          (len(options), ", ".join(options["board"]["choices"])))


def case_bad_requests(client, archive):
    before = ERRORS_SEEN[0]
    reply = client.send_line(b"this is not json")
    check(reply["error"]["code"] == -32700 and reply["id"] is None, "parse error: %r" % reply)
    reply = client.send_line(b'{"jsonrpc": "2.0", "id": 7, "method": "build"}')
    check(reply["error"]["code"] == -32600 and reply["id"] == 7, "no params: %r" % reply)
    reply = client.send_line(b"[" * 100000)
    check(reply["error"]["code"] == -32700, "deeply nested JSON: %r" % reply)
    reply = client.send_line(b'{"jsonrpc": "2.0", "id": true, "method": "build", "params": {}}')
    check(reply["error"]["code"] == -32600 and reply["id"] is None, "boolean id: %r" % reply)
    expect_error(client, -32601, "frobnicate: no such method", "frobnicate")
    expect_error(client, -32602, "timeout_sec must be null or 0 to", "read_transport", n=8,
                 timeout_sec=-1.0)
    expect_error(client, -32602, "parameter project_dir not given", "generate_project",
                 model_library_format_path=str(archive), standalone_crt_dir="", options={})
    expect_error(client, -32602, "parameter n: want int", "read_transport", n="8",
                 timeout_sec=1.0)
    project = TMP / "bad"
    expect_error(client, -32602, "option 'board' is required", "generate_project",
                 model_library_format_path=str(archive), standalone_crt_dir="",
                 project_dir=str(project), options={})
    expect_error(client, -32602, "unknown board 'esp32'", "generate_project",
                 model_library_format_path=str(archive), standalone_crt_dir="",
                 project_dir=str(project), options={"board": "esp32"})
    expect_error(client, -32602, "unknown option(s) bord", "generate_project",
                 model_library_format_path=str(archive), standalone_crt_dir="",
                 project_dir=str(project), options={"board": "posix", "bord": "x"})
    garbage = TMP / "garbage.tar"
    garbage.write_bytes(b"\x00garbage" * 300)
    truncated = TMP / "truncated.tar"
    truncated.write_bytes(archive.read_bytes()[:3000])
    no_metadata = TMP / "no_metadata.tar"
    make_archive(no_metadata, {"codegen/host/src/default_lib0.c": b"int x;\n"})
    no_sources = TMP / "no_sources.tar"
    make_archive(no_sources, {"metadata.json": b"{}"})
    escaping = TMP / "escaping.tar"
    make_archive(escaping, {"metadata.json": b"{}", "../evil.c": b"int x;\n"})
    bad_json = TMP / "bad_json.tar"
    make_archive(bad_json, {"metadata.json": b"{no", "codegen/host/src/a.c": b"int x;\n"})
    for bad, text in ((garbage, "not a readable tar archive"),
                      (truncated, "not a readable tar archive"),
                      (no_metadata, "has no metadata.json"),
                      (no_sources, "has no codegen/host/src/*.c"),
                      (escaping, "outside the project"),
                      (bad_json, "metadata.json is not valid JSON"),
                      (TMP / "missing.tar", "is not a file")):
        expect_error(client, -32000, text, "generate_project",
                     model_library_format_path=str(bad), standalone_crt_dir="",
                     project_dir=str(project), options={"board": "posix"})
        check(not project.exists(), "no project left behind by %s" % bad.name)
    expect_error(client, -32000, "this is the template project", "build", options={})
    expect_error(client, -32000, "TransportClosedError", "read_transport", n=8, timeout_sec=1.0)
    expect_error(client, -32000, "TransportClosedError", "write_transport", data="VPRom",
                 timeout_sec=1.0)
    nonempty = TMP / "nonempty"
    nonempty.mkdir()
    (nonempty / "keep").write_text("x")
    expect_error(client, -32000, "exists and is not an empty directory", "generate_project",
                 model_library_format_path=str(archive), standalone_crt_dir="",
                 project_dir=str(nonempty), options={"board": "posix"})
    broken = TMP / "broken.tar"
    make_archive(broken, {"metadata.json": b"{}", "codegen/host/src/broken_lib0.c": b"not C\n"})
    generate(client, broken, TMP / "broken", board="posix")
    project = Client(TMP / "broken" / "microtvm_api_server.py")
    text = expect_error(project, -32000, "build: CMake build step failed", "build", options={})
    check("broken_lib0.c" in text, "the build error shows the compiler's message: %r" % text)
    expect_error(project, -32000, "no image at", "open_transport", options={})
    project.close()
    print("ok   bad requests: %d JSON-RPC errors with readable texts, the server kept answering" %
          (ERRORS_SEEN[0] - before + 4))


def bridge(client, *command):
    """Runs `utvm --connect tcp:... --json COMMAND` as the microTVM host of a session over the
    Project API transport: utvm talks to a local socket whose bytes this function carries with
    write_transport and read_transport. Returns utvm's JSON report."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(30)
    port = listener.getsockname()[1]
    proc = subprocess.Popen([UTVM, "--connect", "tcp:127.0.0.1:%d" % port, "--timeout", "120",
                             "--json"] + list(command),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    conn, _ = listener.accept()
    listener.close()
    conn.setblocking(False)
    to_device = from_device = 0
    deadline = time.monotonic() + SESSION_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([conn], [], [], 0.002)
        if ready:
            data = conn.recv(65536)
            if not data:
                break
            client.call("write_transport", data=base64.b85encode(data).decode(),
                        timeout_sec=10.0)
            to_device += len(data)
        try:
            data = base64.b85decode(client.call("read_transport", n=4096,
                                                timeout_sec=0.0)["data"])
            conn.setblocking(True)
            conn.sendall(data)
            conn.setblocking(False)
            from_device += len(data)
        except RpcFailure as exc:
            check(exc.message == "IoTimeoutError", "read_transport during the session: %r" %
                  exc.message)
    conn.close()
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == 0, "utvm %s over the Project API transport: exit %d\n%s\n%s" %
          (command[0], proc.returncode, stdout.decode()[-2000:], stderr.decode()[-2000:]))
    check(to_device > 0 and from_device > 0, "bytes both ways")
    return json.loads(stdout)


def open_transport(client, options):
    t0 = time.monotonic()
    timeouts = client.call("open_transport", options=options)["timeouts"]
    check(set(timeouts) == {"session_start_retry_timeout_sec", "session_start_timeout_sec",
                            "session_established_timeout_sec"}, "TVM's TransportTimeouts")
    return time.monotonic() - t0


def case_flow(template_client, archive):
    project = TMP / ("project-" + BOARD)
    extra = TMP / "extra.tar"
    make_archive(extra, {"docs/NOTE.txt": b"extra file\n", "model.tar": b"not the model"})
    generate(template_client, archive, project, board=BOARD, extra_files_tar=str(extra),
             verbose=False)
    check((project / "microtvm_api_server.py").is_file() and
          (project / "model.tar").read_bytes() == archive.read_bytes() and
          (project / "CMakeLists.txt").is_file() and
          (project / "docs/NOTE.txt").read_bytes() == b"extra file\n",
          "generated project: server, model.tar, CMakeLists.txt, extra files")
    print("ok   generate_project %s" % project)

    client = Client(project / "microtvm_api_server.py")
    info = client.call("server_info_query", tvm_version="0.18.0")
    check(info["is_template"] is False and
          info["model_library_format_path"] == str(project / "model.tar"),
          "generated project's info: %r" % info)
    options = {"board": BOARD, "verbose": False}
    t0 = time.monotonic()
    client.call("build", options=options)
    print("ok   build (%.1f s)" % (time.monotonic() - t0))
    client.call("flash", options=options)
    expect_error(client, -32602, "unknown option(s) flash_cmd", "flash",
                 options={"flash_cmd": "x"})
    for session in range(1 if BOARD == "posix" else 2):
        opened = open_transport(client, options)
        if session == 0:
            t0 = time.monotonic()
            expect_error(client, -32000, "IoTimeoutError", "read_transport", n=16,
                         timeout_sec=0.3)
            waited = time.monotonic() - t0
            check(0.25 <= waited < 5.0, "read_transport waited its timeout (%.2f s)" % waited)
            expect_error(client, -32602, "not base85", "write_transport", data="\x7f~~~",
                         timeout_sec=1.0)
        output = TMP / ("out%d.bin" % session)
        result = bridge(client, "run", MODEL, "--executor", "aot", "--input", MODEL_IN,
                        "--output", str(output))
        got, want = output.read_bytes(), pathlib.Path(MODEL_OUT).read_bytes()
        check(got == want, "%s's output differs from TFLM's: %r vs %r" % (NET, got, want))
        check(result["device"]["path"] == "aot-executor", "through tvm.aot_executor.create")
        client.call("close_transport")
        print("ok   session %d: open_transport %.2f s, %s through the AOT executor over "
              "read/write_transport, bit-exact with TFLM (%d bytes)" % (session + 1, opened, NET,
                                                                          len(got)))
    if BOARD != "posix":
        # Fresh boots: the host's first handshake must succeed (no byte sent too early lost).
        t0 = time.monotonic()
        for _ in range(FRESH_SESSIONS):
            open_transport(client, options)
            info = bridge(client, "info")
            check(info["stats"]["handshake_attempts"] == 1 and
                  "tvmgen_default_run" in info["functions"]["system_lib"],
                  "a fresh session: one handshake, the model's system library: %r" % info)
            client.call("close_transport")
        print("ok   %d more fresh sessions, each opened by the first handshake (%.1f s)" %
              (FRESH_SESSIONS, time.monotonic() - t0))
        check(not [c for c in orphans.descendants(client.proc.pid) if orphans.alive(c)],
              "close_transport leaves no QEMU behind")
    if BOARD == "posix":
        case_real_board(client, project)
    expect_error(client, -32000, "TransportClosedError", "read_transport", n=8, timeout_sec=0.1)
    client.call("close_transport")
    client.close()
    if BOARD != "posix":
        case_server_killed(project, options)


def case_server_killed(project, options):
    """The API server killed with its transport open (TVM crashed): QEMU ends too."""
    client = Client(project / "microtvm_api_server.py")
    open_transport(client, options)
    children = orphans.descendants(client.proc.pid)
    check(children, "QEMU runs below the API server")
    client.proc.kill()
    client.proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(orphans.alive(c) for c in children):
        time.sleep(0.05)
    check(not any(orphans.alive(c) for c in children), "QEMU ended with its API server")
    print("ok   the API server killed with its transport open: QEMU ended too")


def relay(master, server, stop):
    """A board behind a serial port: the POSIX server's pipes on a pty's master side, booted
    0.5 s after the port was opened (its boot Terminate then arrives while open_transport
    waits)."""
    time.sleep(0.5)
    proc = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = proc.stdout.fileno()
    while not stop.is_set():
        ready, _, _ = select.select([master, out], [], [], 0.05)
        if master in ready:
            proc.stdin.write(os.read(master, 4096))
            proc.stdin.flush()
        if out in ready:
            data = os.read(out, 4096)
            if not data:
                break
            os.write(master, data)
    proc.stdin.close()
    proc.wait(timeout=30)


def case_real_board(client, project):
    """flash_command and serial_port, as with a real board: a pty stands for its UART."""
    flashed = TMP / "flashed.bin"
    client.call("flash", options={"flash_command": "cp {elf} %s" % flashed})
    check(flashed.read_bytes() == (project / "build/bin/utvm-project").read_bytes(),
          "flash_command ran with {elf} replaced by the image")
    expect_error(client, -32000, "flash: false failed (exit 1)", "flash",
                 options={"flash_command": "false {elf}"})
    master, slave = os.openpty()
    stop = threading.Event()
    thread = threading.Thread(target=relay, args=(master, str(project / "build/bin/utvm-project"),
                                                  stop))
    thread.start()
    try:
        opened = open_transport(client, {"serial_port": os.ttyname(slave), "serial_baud": 115200})
        check(0.4 < opened < 10.0, "open_transport waited for the boot Terminate (%.2f s)" %
              opened)
        info = bridge(client, "info")
        check(info["stats"]["handshake_attempts"] == 1 and
              "tvmgen_default_run" in info["functions"]["system_lib"], "session over the tty")
        client.call("close_transport")
    finally:
        stop.set()
        thread.join()
        os.close(master)
        os.close(slave)
    expect_error(client, -32000, "cannot open /nonexistent/tty", "open_transport",
                 options={"serial_port": "/nonexistent/tty"})
    expect_error(client, -32602, "unsupported serial_baud 12345", "open_transport",
                 options={"serial_port": "/dev/null", "serial_baud": 12345})
    expect_error(client, -32000, "not a configurable serial port", "open_transport",
                 options={"serial_port": "/dev/null"})
    print("ok   real-board path: flash_command, a session over serial_port (a pty), "
          "open_transport waited %.2f s for the boot" % opened)


def main():
    archive = TMP / (NET + ".tar")
    proc = subprocess.run([UTVM, "compile", MODEL, "--mlf", str(archive), "--executor", "aot"],
                          capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, "utvm compile --mlf: %s" % proc.stderr)
    template = Client(pathlib.Path(TEMPLATE) / "microtvm_api_server.py")
    case_server_info(template)
    if BOARD == "posix":
        case_bad_requests(template, archive)
    if BOARD == "posix":
        # As AutoTVM's module loader passes it: a gzip-compressed archive (model.tar.gz).
        gz = TMP / (NET + ".tar.gz")
        gz.write_bytes(gzip.compress(archive.read_bytes()))
        archive = gz
    case_flow(template, archive)
    template.close()
    shutil.rmtree(TMP)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
