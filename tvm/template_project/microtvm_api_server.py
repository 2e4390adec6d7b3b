#!/usr/bin/env python3
"""utvm's microTVM Project API server (TVM v0.18, Project API protocol version 1).

TVM starts this file as a subprocess (`python3 microtvm_api_server.py --read-fd R --write-fd W`)
and sends JSON-RPC 2.0 requests, one JSON object per line, on fd R; each reply is one line on
fd W. In the template directory (no model.tar beside this file) it generates projects; in a
generated project it builds, flashes and opens the transport of that project's firmware:

  server_info_query(tvm_version)           platform "utvm", is_template, the project options
  generate_project(model_library_format_path, standalone_crt_dir, project_dir, options)
                                           copies this server, the archive (model.tar) and writes
                                           a CMake project that links it into utvm's firmware
  build(options)                           CMake: arm-none-eabi-gcc for a Cortex-M board, the
                                           host compiler for the POSIX server
  flash(options)                           nothing for QEMU and POSIX; runs flash_command if given
  open_transport(options)                  starts QEMU (or the POSIX server, or opens the tty of
                                           serial_port) and returns once the device's boot
                                           Terminate arrived; replies {"timeouts": {...}}
  read_transport(n, timeout_sec)           1..n bytes (base85 "data"), IoTimeoutError if none
                                           arrived within timeout_sec (None: wait for ever)
  write_transport(data, timeout_sec)       all bytes or IoTimeoutError
  close_transport()                        stops QEMU / the server, closes the tty

Errors are JSON-RPC errors: -32700 (a line that is not JSON), -32600 (not a request), -32601
(unknown method), -32602 (a missing, extra or mistyped parameter, or a bad option value) and
-32000 (the request failed: the message is a readable text, or the name of TVM's ServerError
subclass, "IoTimeoutError" or "TransportClosedError", with the text in data["detail"]). The
server answers every line until its input ends. Python standard library only (no TVM import).
"""

import argparse
import base64
import errno
import fcntl
import json
import os
import pathlib
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import termios
import time
import zlib

PROTOCOL_VERSION = 1
PLATFORM_NAME = "utvm"
SERVER_PATH = pathlib.Path(__file__).resolve()
API_SERVER_DIR = SERVER_PATH.parent
MODEL_RELPATH = "model.tar"
SETTINGS_RELPATH = "utvm_project.json"
BUILD_RELPATH = "build"
IS_TEMPLATE = not (API_SERVER_DIR / MODEL_RELPATH).exists()

# Boards and their CPU flags (as CMakePresets.json); a Cortex-M board's name is also its QEMU
# machine; "posix" is the RPC server as a host process.
BOARDS = {
    "mps2-an385": "-mcpu=cortex-m3 -mfloat-abi=soft",
    "mps2-an386": "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16",
    "mps3-an547": "-mcpu=cortex-m55 -mfloat-abi=hard",
    "netduinoplus2": "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16",
    "posix": None,
}
BUILD_TYPES = ["MinSizeRel", "Release", "RelWithDebInfo", "Debug"]
SERIAL_BAUDS = {9600: termios.B9600, 19200: termios.B19200, 38400: termios.B38400,
                57600: termios.B57600, 115200: termios.B115200, 230400: termios.B230400,
                460800: termios.B460800, 921600: termios.B921600}

# The device's boot Terminate (PROTOCOL.md 2.4): packet start, length 3, session id 0, type 2
# (terminate), CRC. Every utvm port sends it once its server runs.
BOOT_TERMINATE = bytes([0xFF, 0xFD, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x66, 0x77])
BOOT_TIMEOUT_S = 20.0
BOOT_BYTES_MAX = 64 * 1024  # bytes before the boot Terminate (boot log) kept while waiting
CLOSE_TIMEOUT_S = 5.0
TIMEOUT_MAX_S = 24 * 3600  # longest timeout_sec accepted (select() refuses huge values)
READ_CHUNK_MAX = 64 * 1024
OUTPUT_TAIL_CHARS = 4000

# TVM's TransportTimeouts per kind of device (seconds; see TVM's project_api/server.py).
TIMEOUTS = {
    "posix": {"session_start_retry_timeout_sec": 2.0, "session_start_timeout_sec": 10.0,
              "session_established_timeout_sec": 60.0},
    "qemu": {"session_start_retry_timeout_sec": 2.0, "session_start_timeout_sec": 20.0,
             "session_established_timeout_sec": 300.0},
    "serial": {"session_start_retry_timeout_sec": 2.0, "session_start_timeout_sec": 20.0,
               "session_established_timeout_sec": 300.0},
}

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000


def default_utvm_source():
    """The utvm tree this template belongs to (tvm/template_project/ inside it), if any."""
    root = API_SERVER_DIR.parent.parent
    return str(root) if (root / "include" / "utvm" / "crt.h").is_file() else None


def option(name, kind, help_text, required=None, optional=None, default=None, choices=None):
    return {"name": name, "choices": choices, "default": default, "type": kind,
            "required": required, "optional": optional, "help": help_text}


PROJECT_OPTIONS = [
    option("board", "str", "Board to build for: a QEMU machine (mps2-an385: Cortex-M3, "
           "mps2-an386: Cortex-M4F, mps3-an547: Cortex-M55, netduinoplus2: STM32F405) or "
           "posix (the RPC server as a host process on pipes).",
           required=["generate_project"], choices=list(BOARDS)),
    option("utvm_source_path", "str", "Path of the utvm source tree whose runtime and port the "
           "project builds (default: the tree this template belongs to).",
           optional=["generate_project"], default=default_utvm_source()),
    option("build_type", "str", "CMAKE_BUILD_TYPE of the project (default MinSizeRel).",
           optional=["generate_project"], default="MinSizeRel", choices=BUILD_TYPES),
    option("extra_files_tar", "str", "A tar archive unpacked into the generated project "
           "directory (e.g. more sources; paths inside must be relative).",
           optional=["generate_project"]),
    option("verbose", "bool", "Print CMake's and the compiler's output on stderr.",
           optional=["generate_project", "build"], default=False),
    option("jobs", "int", "Parallel compile jobs of the build (default 2).",
           optional=["build"], default=2),
    option("project_type", "str", "Kind of project; utvm generates host-driven projects only "
           "(accepted for AutoTVM and TVM's test helpers).",
           optional=["generate_project"], default="host_driven", choices=["host_driven"]),
    option("serial_port", "str", "A real board: the serial tty of its console UART (e.g. "
           "/dev/ttyACM0); open_transport then uses it instead of starting QEMU.",
           optional=["open_transport"]),
    option("serial_baud", "int", "Baud rate of serial_port (default 115200).",
           optional=["open_transport"], default=115200),
    option("flash_command", "str", "A real board: command that programs the image; {elf} "
           "becomes the ELF's path (e.g. 'openocd -f board.cfg -c \"program {elf} reset "
           "exit\"'). Without it flash does nothing (QEMU and POSIX load the image at "
           "open_transport).", optional=["flash"]),
    option("serial_number", "str", "Set by AutoTVM's module loader from a tracker's device key; "
           "utvm boards do not use it.", optional=["open_transport"]),
]
OPTION_TYPES = {"str": str, "int": int, "bool": bool}


class RpcError(Exception):
    """A JSON-RPC error reply: code, message and optional data."""

    def __init__(self, code, message, data=None):
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.data = data


def server_error(kind, detail):
    """One of TVM's ServerError subclasses (IoTimeoutError, TransportClosedError)."""
    return RpcError(SERVER_ERROR, kind, {"detail": detail})


def failure(text):
    return RpcError(SERVER_ERROR, text)


def check_options(method, options):
    """Checks option names, types and choices; returns a dict with every option (defaults)."""
    known = {o["name"]: o for o in PROJECT_OPTIONS}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise RpcError(INVALID_PARAMS, "%s: unknown option(s) %s (known: %s)" %
                       (method, ", ".join(unknown), ", ".join(known)))
    merged = {}
    for name, decl in known.items():
        value = options.get(name)
        if value is None:
            value = decl["default"]
        if value is None:
            if decl["required"] and method in decl["required"]:
                raise RpcError(INVALID_PARAMS, "%s: option '%s' is required (%s)" %
                               (method, name, decl["help"]))
        else:
            kind = OPTION_TYPES[decl["type"]]
            if type(value) is not kind:  # pylint: disable=unidiomatic-typecheck
                raise RpcError(INVALID_PARAMS, "%s: option '%s' must be a %s, not %r" %
                               (method, name, decl["type"], value))
            if decl["choices"] is not None and value not in decl["choices"]:
                raise RpcError(INVALID_PARAMS, "%s: unknown %s '%s' (choose one of: %s)" %
                               (method, name, value, ", ".join(decl["choices"])))
        merged[name] = value
    return merged


def tail(text):
    return text[-OUTPUT_TAIL_CHARS:]


def safe_members(archive, tar, what):
    """The members of an archive, refusing absolute paths, '..' and links out of the tree."""
    members = tar.getmembers()
    for m in members:
        parts = pathlib.PurePosixPath(m.name).parts
        if m.name.startswith("/") or ".." in parts:
            raise failure("%s %s: member '%s' would be written outside the project" %
                          (what, archive, m.name))
        if m.issym() or m.islnk() or m.isdev():
            raise failure("%s %s: member '%s' is a link or device (not allowed)" %
                          (what, archive, m.name))
    return members


def check_mlf(archive):
    """Checks that the archive is a readable Model Library Format tar (metadata.json, C
    sources); raises a readable error otherwise."""
    path = pathlib.Path(archive)
    if not path.is_file():
        raise failure("generate_project: model_library_format_path %s is not a file" % archive)
    try:
        with tarfile.open(str(path), mode="r:*") as tar:
            members = safe_members(archive, tar, "Model Library Format archive")
            files = {pathlib.PurePosixPath(m.name).as_posix(): m for m in members if m.isfile()}
            if "metadata.json" not in files:
                raise failure("generate_project: %s has no metadata.json (not a Model Library "
                              "Format archive)" % archive)
            json.loads(tar.extractfile(files["metadata.json"]).read().decode("utf-8"))
            names = list(files)
            if not any(re.match(r"^codegen/host/src/[^/]+\.c$", n) for n in names):
                raise failure("generate_project: %s has no codegen/host/src/*.c (export the "
                              "model for the \"c\" target)" % archive)
            for m in members:
                if m.isfile():
                    tar.extractfile(m).read()  # every member must be complete
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise failure("generate_project: %s is not a readable tar archive (%s)" %
                      (archive, exc)) from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise failure("generate_project: %s: metadata.json is not valid JSON (%s)" %
                      (archive, exc)) from exc


def cmake_text(board, utvm, build_type):
    """The generated project's CMakeLists.txt."""
    head = ("# Generated by utvm's microtvm_api_server.py: utvm's firmware for %s with the Model\n"
            "# Library Format archive model.tar as its system library (utvm_add_mlf).\n"
            "cmake_minimum_required(VERSION 3.20)\n"
            "project(utvm_project LANGUAGES C)\n"
            "if(NOT CMAKE_BUILD_TYPE)\n  set(CMAKE_BUILD_TYPE %s)\nendif()\n"
            "set(UTVM_SOURCE_DIR \"%s\" CACHE PATH \"utvm source tree\")\n"
            "# As a subproject utvm builds its libraries only (no tests, tools or images).\n"
            % (board, build_type, utvm))
    if board == "posix":
        return head + (
            "add_subdirectory(${UTVM_SOURCE_DIR} utvm EXCLUDE_FROM_ALL)\n"
            "set(port ${UTVM_SOURCE_DIR}/ports/posix)\n"
            "add_executable(utvm-project ${port}/main.c ${port}/platform_posix.c)\n"
            "target_compile_definitions(utvm-project PRIVATE\n"
            "                           POSIX_REBOOT_STATUS=${UTVM_POSIX_REBOOT_STATUS})\n"
            "set_target_properties(utvm-project PROPERTIES\n"
            "                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)\n"
            "target_include_directories(utvm-project PRIVATE ${UTVM_SOURCE_DIR}/tests/syslib)\n"
            "target_link_libraries(utvm-project PRIVATE utvm_minrpc utvm_graph utvm_aot "
            "utvm_kfuncs)\n"
            "utvm_add_mlf(utvm-project ${CMAKE_CURRENT_SOURCE_DIR}/model.tar)\n")
    return head + (
        "set(UTVM_BOARD %s CACHE STRING \"\" FORCE)\n"
        "add_subdirectory(${UTVM_SOURCE_DIR} utvm EXCLUDE_FROM_ALL)\n"
        "# The board's port (start-up, linker script, UART, timer) and its image function.\n"
        "utvm_cortex_m_image(utvm-project ${UTVM_SOURCE_DIR}/ports/cortex-m/main.c)\n"
        "target_include_directories(utvm-project PRIVATE ${UTVM_SOURCE_DIR}/tests/syslib)\n"
        "target_link_libraries(utvm-project PRIVATE utvm_minrpc utvm_graph utvm_aot "
        "utvm_kfuncs)\n"
        "utvm_add_mlf(utvm-project ${CMAKE_CURRENT_SOURCE_DIR}/model.tar)\n" % board)


def set_nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class Transport:
    """An open device link: a child process on pipes (QEMU, the POSIX server) or a tty."""

    def __init__(self, read_fd, write_fd, proc=None, log=None):
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.proc = proc
        self.log = log
        self.pending = b""
        set_nonblocking(read_fd)
        set_nonblocking(write_fd)

    def child_output(self):
        if self.log is None:
            return ""
        self.log.seek(0)
        return tail(self.log.read().decode("utf-8", "replace"))

    def read_some(self, n, timeout_sec):
        """1..n bytes; None when timeout_sec passed first; b"" at end of input."""
        if self.pending:
            data, self.pending = self.pending[:n], self.pending[n:]
            return data
        deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.read_fd], [], [], wait)
            if ready:
                try:
                    return os.read(self.read_fd, min(n, READ_CHUNK_MAX))
                except BlockingIOError:
                    continue
                except OSError as exc:
                    if exc.errno == errno.EIO:  # a tty whose device went away
                        return b""
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def write_all(self, data, timeout_sec):
        """Writes every byte; False when timeout_sec passed first."""
        deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
        view = memoryview(data)
        while view:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            _, ready, _ = select.select([], [self.write_fd], [], wait)
            if ready:
                try:
                    view = view[os.write(self.write_fd, view):]
                except BlockingIOError:
                    pass
            elif deadline is not None and time.monotonic() >= deadline:
                return False
        return True

    def wait_boot(self, timeout_sec):
        """Reads until the boot Terminate; keeps what follows it. True if it arrived."""
        seen = b""
        deadline = time.monotonic() + timeout_sec
        while True:
            left = deadline - time.monotonic()
            if left <= 0.0:
                return False
            data = self.read_some(READ_CHUNK_MAX, left)
            if data is None:
                return False
            if not data:
                raise EOFError()
            seen += data
            at = seen.find(BOOT_TERMINATE)
            if at >= 0:
                self.pending = seen[at + len(BOOT_TERMINATE):]
                return True
            seen = seen[-BOOT_BYTES_MAX:]

    def close(self):
        """Closes the link; a child sees the end of its input and has CLOSE_TIMEOUT_S to end."""
        if self.proc is None:
            os.close(self.read_fd)
        else:
            for pipe in (self.proc.stdin, self.proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: QEMU too
                self.proc.wait()
        if self.log is not None:
            self.log.close()


class Handler:
    """The Project API methods."""

    def __init__(self):
        self.transport = None
        self.settings = None
        path = API_SERVER_DIR / SETTINGS_RELPATH
        if not IS_TEMPLATE and path.is_file():
            with open(path, encoding="utf-8") as f:
                self.settings = json.load(f)

    # ------------------------------------------------------------------ project
    def server_info_query(self, tvm_version):
        del tvm_version  # every TVM speaking protocol version 1 is served
        mlf = None if IS_TEMPLATE else str(API_SERVER_DIR / MODEL_RELPATH)
        return {"platform_name": PLATFORM_NAME, "is_template": IS_TEMPLATE,
                "model_library_format_path": mlf, "project_options": PROJECT_OPTIONS,
                "protocol_version": PROTOCOL_VERSION}

    def generate_project(self, model_library_format_path, standalone_crt_dir, project_dir,
                         options):
        del standalone_crt_dir  # utvm brings its own runtime
        opts = check_options("generate_project", options)
        utvm = opts["utvm_source_path"]
        if utvm is None or not (pathlib.Path(utvm) / "include" / "utvm" / "crt.h").is_file():
            raise RpcError(INVALID_PARAMS, "generate_project: option 'utvm_source_path' must "
                           "name a utvm source tree (got %r)" % utvm)
        utvm = str(pathlib.Path(utvm).resolve())
        check_mlf(model_library_format_path)
        extra = opts["extra_files_tar"]
        if extra is not None:
            try:
                with tarfile.open(extra, mode="r:*") as tar:
                    safe_members(extra, tar, "extra_files_tar")
            except (tarfile.TarError, EOFError, OSError) as exc:
                raise failure("generate_project: extra_files_tar %s is not a readable tar "
                              "archive (%s)" % (extra, exc)) from exc
        project = pathlib.Path(project_dir).resolve()
        if project.exists() and (not project.is_dir() or any(project.iterdir())):
            raise failure("generate_project: project_dir %s exists and is not an empty "
                          "directory" % project)
        project.mkdir(parents=True, exist_ok=True)
        if extra is not None:  # first: the project's own files below replace any namesakes
            with tarfile.open(extra, mode="r:*") as tar:
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(str(project), filter="data")
                else:
                    tar.extractall(str(project))
        shutil.copy2(SERVER_PATH, project / SERVER_PATH.name)
        shutil.copy2(model_library_format_path, project / MODEL_RELPATH)
        settings = {"board": opts["board"], "utvm_source_path": utvm,
                    "build_type": opts["build_type"]}
        with open(project / SETTINGS_RELPATH, "w", encoding="utf-8") as f:
            json.dump(settings, f, indent=2)
            f.write("\n")
        with open(project / "CMakeLists.txt", "w", encoding="utf-8") as f:
            f.write(cmake_text(opts["board"], utvm, opts["build_type"]))
        if opts["verbose"]:
            sys.stderr.write("utvm: generated %s for %s\n" % (project, opts["board"]))
        return None

    def generated(self, method):
        if IS_TEMPLATE:
            raise failure("%s: this is the template project (no model.tar); call "
                          "generate_project and use the generated project" % method)
        if self.settings is None:
            raise failure("%s: %s has no %s (not made by generate_project)" %
                          (method, API_SERVER_DIR, SETTINGS_RELPATH))
        return self.settings

    def image(self):
        board = self.settings["board"]
        name = "utvm-project" if board == "posix" else "utvm-project.elf"
        return API_SERVER_DIR / BUILD_RELPATH / "bin" / name

    def build(self, options):
        opts = check_options("build", options)
        settings = self.generated("build")
        board = settings["board"]
        build_dir = API_SERVER_DIR / BUILD_RELPATH
        configure = ["cmake", "-S", str(API_SERVER_DIR), "-B", str(build_dir),
                     "-G", "Unix Makefiles", "-DCMAKE_BUILD_TYPE=" + settings["build_type"]]
        if BOARDS[board] is not None:
            configure += ["-DCMAKE_TOOLCHAIN_FILE=%s/cmake/arm-none-eabi.cmake" %
                          settings["utvm_source_path"], "-DUTVM_CPU_FLAGS=" + BOARDS[board]]
        if opts["jobs"] < 1:
            raise RpcError(INVALID_PARAMS, "build: option 'jobs' must be at least 1")
        for step, command in (("configure", configure),
                              ("build", ["cmake", "--build", str(build_dir), "-j",
                                         str(opts["jobs"])])):
            try:
                proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, check=False)
            except OSError as exc:
                raise failure("build: cannot run cmake: %s" % exc) from exc
            output = proc.stdout.decode("utf-8", "replace")
            if opts["verbose"]:
                sys.stderr.write(output)
            if proc.returncode != 0:
                raise failure("build: CMake %s step failed (exit %d):\n%s" %
                              (step, proc.returncode, tail(output)))
        if not self.image().is_file():
            raise failure("build: the build did not produce %s" % self.image())
        return None

    def flash(self, options):
        opts = check_options("flash", options)
        self.generated("flash")
        if not self.image().is_file():
            raise failure("flash: no image at %s (call build first)" % self.image())
        if opts["flash_command"] is None:
            return None
        command = [w.replace("{elf}", str(self.image())) for w in shlex.split(opts["flash_command"])]
        try:
            proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, check=False)
        except OSError as exc:
            raise failure("flash: cannot run %s: %s" % (command[0], exc)) from exc
        if proc.returncode != 0:
            raise failure("flash: %s failed (exit %d):\n%s" % (
                command[0], proc.returncode, tail(proc.stdout.decode("utf-8", "replace"))))
        return None

    # ---------------------------------------------------------------- transport
    def open_transport(self, options):
        opts = check_options("open_transport", options)
        settings = self.generated("open_transport")
        self.close_transport()
        if opts["serial_port"] is not None:
            transport = self.open_serial(opts["serial_port"], opts["serial_baud"])
            # A board that booted before the port opened has announced itself already: after
            # BOOT_TIMEOUT_S without a boot Terminate the transport is used as it is.
            try:
                transport.wait_boot(BOOT_TIMEOUT_S)
            except EOFError as exc:
                transport.close()
                raise failure("open_transport: %s closed while waiting for the board" %
                              opts["serial_port"]) from exc
            self.transport = transport
            return {"timeouts": TIMEOUTS["serial"]}
        if not self.image().is_file():
            raise failure("open_transport: no image at %s (call build first)" % self.image())
        board = settings["board"]
        if board == "posix":
            command, kind = [str(self.image())], "posix"
        else:
            runner = pathlib.Path(settings["utvm_source_path"]) / "scripts" / "qemu-run.sh"
            command, kind = ["bash", str(runner), board, str(self.image())], "qemu"
        log = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=log, start_new_session=True)
        except OSError as exc:
            log.close()
            raise failure("open_transport: cannot start %s: %s" % (command[0], exc)) from exc
        transport = Transport(proc.stdout.fileno(), proc.stdin.fileno(), proc=proc, log=log)
        try:
            booted = transport.wait_boot(BOOT_TIMEOUT_S)
        except EOFError:
            booted = None
        if not booted:
            transport.close()
            why = ("ended" if booted is None else
                   "sent no boot Terminate within %.0f s" % BOOT_TIMEOUT_S)
            raise failure("open_transport: the %s device %s; its output:\n%s" %
                          (board, why, transport.child_output()))
        self.transport = transport
        return {"timeouts": TIMEOUTS[kind]}

    @staticmethod
    def open_serial(port, baud):
        if baud not in SERIAL_BAUDS:
            raise RpcError(INVALID_PARAMS, "open_transport: unsupported serial_baud %d (one of "
                           "%s)" % (baud, ", ".join(str(b) for b in SERIAL_BAUDS)))
        try:
            fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as exc:
            raise failure("open_transport: cannot open %s: %s" % (port, exc.strerror)) from exc
        try:
            attrs = termios.tcgetattr(fd)
            attrs[0] = 0                                   # iflag: no translation
            attrs[1] = 0                                   # oflag: raw output
            attrs[2] = termios.CS8 | termios.CREAD | termios.CLOCAL
            attrs[3] = 0                                   # lflag: no echo, not canonical
            attrs[4] = attrs[5] = SERIAL_BAUDS[baud]
            attrs[6][termios.VMIN] = 0
            attrs[6][termios.VTIME] = 0
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
            termios.tcflush(fd, termios.TCIOFLUSH)
        except termios.error as exc:
            os.close(fd)
            raise failure("open_transport: %s is not a configurable serial port (%s)" %
                          (port, exc)) from exc
        return Transport(fd, fd)

    def open_link(self, method):
        if self.transport is None:
            raise server_error("TransportClosedError", "%s: the transport is not open (call "
                               "open_transport)" % method)
        return self.transport

    def closed_by_device(self, method):
        output = self.transport.child_output()
        self.close_transport()
        return server_error("TransportClosedError", "%s: the device closed the link%s" %
                            (method, (": " + output) if output else ""))

    def read_transport(self, n, timeout_sec):
        check_timeout("read_transport", timeout_sec)
        if n < 1:
            raise RpcError(INVALID_PARAMS, "read_transport: n must be at least 1, not %d" % n)
        link = self.open_link("read_transport")
        data = link.read_some(n, timeout_sec)
        if data is None:
            raise server_error("IoTimeoutError", "read_transport: no data within %s s" %
                               timeout_sec)
        if not data:
            raise self.closed_by_device("read_transport")
        return {"data": base64.b85encode(data).decode("ascii")}

    def write_transport(self, data, timeout_sec):
        check_timeout("write_transport", timeout_sec)
        try:
            raw = base64.b85decode(data.encode("ascii"))
        except (ValueError, UnicodeEncodeError) as exc:
            raise RpcError(INVALID_PARAMS, "write_transport: data is not base85 (%s)" %
                           exc) from exc
        link = self.open_link("write_transport")
        try:
            done = link.write_all(raw, timeout_sec)
        except OSError as exc:
            raise self.closed_by_device("write_transport") from exc
        if not done:
            raise server_error("IoTimeoutError", "write_transport: %d bytes not written within "
                               "%s s" % (len(raw), timeout_sec))
        return None

    def close_transport(self):
        if self.transport is not None:
            self.transport.close()
            self.transport = None
        return None


def check_timeout(method, timeout_sec):
    if timeout_sec is not None and not 0 <= timeout_sec <= TIMEOUT_MAX_S:
        raise RpcError(INVALID_PARAMS, "%s: timeout_sec must be null or 0 to %d s, not %r" %
                       (method, TIMEOUT_MAX_S, timeout_sec))


NUMBER = (int, float)
OPTIONAL_NUMBER = (int, float, type(None))
# Method -> (parameter, accepted types) in TVM's order.
METHODS = {
    "server_info_query": (("tvm_version", (str,)),),
    "generate_project": (("model_library_format_path", (str,)), ("standalone_crt_dir", (str,)),
                         ("project_dir", (str,)), ("options", (dict,))),
    "build": (("options", (dict,)),),
    "flash": (("options", (dict,)),),
    "open_transport": (("options", (dict,)),),
    "close_transport": (),
    "read_transport": (("n", (int,)), ("timeout_sec", OPTIONAL_NUMBER)),
    "write_transport": (("data", (str,)), ("timeout_sec", OPTIONAL_NUMBER)),
}


def valid_id(request_id):
    return request_id is None or isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool))


def dispatch(handler, request):
    """Validates one request and calls its method; returns the result or raises RpcError."""
    if not isinstance(request, dict):
        raise RpcError(INVALID_REQUEST, "request: want an object, got %r" % (request,))
    if request.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "request: jsonrpc must be \"2.0\", got %r" %
                       (request.get("jsonrpc"),))
    if not valid_id(request.get("id")):
        raise RpcError(INVALID_REQUEST, "request: id must be a string, an integer or null, got "
                       "%r" % (request.get("id"),))
    method = request.get("method")
    if not isinstance(method, str):
        raise RpcError(INVALID_REQUEST, "request: method must be a string, got %r" % (method,))
    params = request.get("params")
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, "request: params must be an object, got %r" % (params,))
    if method not in METHODS:
        raise RpcError(METHOD_NOT_FOUND, "%s: no such method (methods: %s)" %
                       (method, ", ".join(METHODS)))
    args = {}
    for name, types in METHODS[method]:
        if name not in params:
            raise RpcError(INVALID_PARAMS, "method %s: parameter %s not given" % (method, name))
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, types):
            raise RpcError(INVALID_PARAMS, "method %s: parameter %s: want %s, got %r" %
                           (method, name, "/".join(t.__name__ for t in types), value))
        args[name] = value
    extra = sorted(set(params) - set(args))
    if extra:
        raise RpcError(INVALID_PARAMS, "%s: extra parameters: %s" % (method, ", ".join(extra)))
    return getattr(handler, method)(**args)


def serve(handler, read_file, write_file):
    """Answers one request per line until the input ends."""
    for line in read_file:
        request_id = None
        method = None
        try:
            try:
                request = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise RpcError(PARSE_ERROR, "request is not JSON: %s" % exc) from exc
            if isinstance(request, dict):
                method = request.get("method")
                if valid_id(request.get("id")):
                    request_id = request["id"]
            reply = {"jsonrpc": "2.0", "id": request_id, "result": dispatch(handler, request)}
        except RpcError as exc:
            error = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            reply = {"jsonrpc": "2.0", "id": request_id, "error": error}
        except Exception as exc:  # pylint: disable=broad-except
            reply = {"jsonrpc": "2.0", "id": request_id,
                     "error": {"code": SERVER_ERROR, "message": "%s: %s: %s" % (
                         method if isinstance(method, str) else "request",
                         type(exc).__name__, exc)}}
        try:
            write_file.write((json.dumps(reply) + "\n").encode("utf-8"))
            write_file.flush()
        except OSError:
            break  # the client went away
    handler.close_transport()


def main():
    parser = argparse.ArgumentParser(description="utvm's microTVM Project API server")
    parser.add_argument("--read-fd", type=int, required=True,
                        help="file descriptor to read JSON-RPC requests from")
    parser.add_argument("--write-fd", type=int, required=True,
                        help="file descriptor to write JSON-RPC replies to")
    parser.add_argument("--debug", action="store_true", help="accepted for TVM; no effect")
    args = parser.parse_args()
    with os.fdopen(args.read_fd, "rb") as read_file, os.fdopen(args.write_fd, "wb") as out:
        serve(Handler(), read_file, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
