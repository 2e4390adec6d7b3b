#!/usr/bin/env python3
"""Records the exact requests TVM v0.18's own Python host sends to build and run a graph
executor on a utvm device, as a vector file that CI replays without TVM
(tests/host/replay_tvm_vectors.py).

Not run by CI (it needs TVM). Requirements: TVM v0.18.0 sources with the runtime built
(`make runtime` with USE_MICRO ON: libtvm_runtime.so), numpy, and a built utvm host tree.

  TVM_HOME=/path/to/tvm python3 tests/tools/record_tvm_graph.py \\
      --device build/host/bin/utvm-posix-server --utvm build/host/bin/utvm \\
      --model ../shared/models/mlperf_tiny_kws_dscnn_int8.tflite \\
      --input ../shared/models/refdata/mlperf_tiny/kws_input0_int8.bin \\
      --reference ../shared/models/refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin \\
      --out tests/vectors/tvm_graph_kws.json

The model is compiled for the device's kernel functions (`utvm compile --generic`); then, in a
tvm.micro.Session over a transport that logs every byte, exactly what a TVM user writes:

  gmod = tvm.contrib.graph_executor.create(graph_json, sess.get_system_lib(), sess.device)
  gmod.load_params(params)
  gmod.set_input(0, input);  gmod.run();  out = gmod.get_output(0).numpy()

and `gmod.module["get_input_info"]()` before and after load_params. The output must equal
TFLM's reference bytes. The vector holds the session's messages both ways (payloads; the wire
bytes follow from them), each RPC packet decoded, and markers naming the steps.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import types

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import utvm_wire as wire  # noqa: E402


def import_tvm(tvm_home):
    os.environ.setdefault("TVM_LIBRARY_PATH", str(pathlib.Path(tvm_home) / "build"))
    os.environ["TVM_USE_RUNTIME_LIB"] = "1"
    sys.path.insert(0, str(pathlib.Path(tvm_home) / "python"))
    import tvm  # noqa: F401
    # tvm.micro's __init__ imports the compiler (relay), absent from a runtime-only build: load
    # the package without it; its session module needs only the runtime.
    micro = types.ModuleType("tvm.micro")
    micro.__path__ = [str(pathlib.Path(tvm_home) / "python/tvm/micro")]
    sys.modules["tvm.micro"] = micro
    # session.py imports .project (the Project API client, which needs the compiler) only for
    # helpers not used here.
    sys.modules["tvm.micro.project"] = types.ModuleType("tvm.micro.project")
    micro.project = sys.modules["tvm.micro.project"]
    import tvm.micro.session
    import tvm.micro.transport
    from tvm.contrib import graph_executor
    return tvm, sys.modules["tvm.micro.session"], sys.modules["tvm.micro.transport"], \
        graph_executor


class Recorder:
    """Everything the host wrote and read, in order, with step markers."""

    def __init__(self):
        self.events = []

    def mark(self, text):
        self.events.append(("marker", text))

    def add(self, direction, data):
        if data:
            self.events.append((direction, bytes(data)))


def make_transport(transport_module, command, recorder):
    class RecordingTransport(transport_module.Transport):
        def timeouts(self):
            return transport_module.TransportTimeouts(
                session_start_retry_timeout_sec=2.0, session_start_timeout_sec=20.0,
                session_established_timeout_sec=120.0)

        def open(self):
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         bufsize=0)
            os.set_blocking(self.proc.stdout.fileno(), False)

        def close(self):
            self.proc.stdin.close()
            self.proc.wait(timeout=10)

        def read(self, n, timeout_sec):
            deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
            while True:
                data = self.proc.stdout.read(n)
                if data:
                    recorder.add("D>H", data)
                    return data
                if deadline is not None and time.monotonic() > deadline:
                    raise transport_module.IoTimeoutError()
                time.sleep(0.0005)

        def write(self, data, timeout_sec):
            recorder.add("H>D", data)
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    return RecordingTransport()


def decode(recorder):
    """The recorded byte streams as session messages with their RPC packets decoded."""
    out = []
    unframers = {"H>D": wire.Unframer(), "D>H": wire.Unframer()}
    names = {wire.MSG_START_INIT: "StartSessionInit", wire.MSG_START_REPLY: "StartSessionReply",
             wire.MSG_TERMINATE: "TerminateSession", wire.MSG_LOG: "Log",
             wire.MSG_NORMAL: "Normal"}
    for kind, data in recorder.events:
        if kind == "marker":
            out.append({"marker": data})
            continue
        for payload in unframers[kind].feed(data):
            sid, msg_type, body = wire.parse_message(payload)
            event = {"dir": kind, "sid": "%04x" % sid, "type": names.get(msg_type, msg_type),
                     "payload_hex": payload.hex()}
            if msg_type == wire.MSG_NORMAL:
                code, fields = wire.parse_rpc(body)
                event["rpc"] = wire.RPC_CODES.get(code, code)
                event["nbytes"] = len(body) - 8
                if "handle" in fields:
                    event["handle"] = "0x%x" % fields["handle"]
                if "values" in fields:
                    event["args"] = wire.describe_values(fields["values"])
                if "tensor" in fields:
                    event["tensor_data"] = "0x%x" % fields["tensor"]["data"]
                    event["copy_bytes"] = fields["nbytes"]
            elif msg_type == wire.MSG_LOG:
                event["text"] = body.decode("utf-8", "replace")
            out.append(event)
    bad = unframers["H>D"].bad + unframers["D>H"].bad
    if bad:
        raise SystemExit("recording holds %d bad packets" % bad)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tvm-home", default=os.environ.get("TVM_HOME"))
    ap.add_argument("--device", required=True, nargs="+", help="device command (stdin/stdout)")
    ap.add_argument("--utvm", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-info-before", action="store_true",
                    help="skip get_input_info before load_params (a model with many parameters "
                         "lists them all then, beyond a TVM host's 2,037-byte reply limit)")
    args = ap.parse_args()
    if not args.tvm_home:
        raise SystemExit("--tvm-home or TVM_HOME: a TVM v0.18.0 tree with build/libtvm_runtime.so")
    tvm, session_module, transport_module, graph_executor = import_tvm(args.tvm_home)
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([args.utvm, "compile", args.model, "--generic", "-o", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        graph_json = pathlib.Path(tmp, "graph.json").read_text()
        params = pathlib.Path(tmp, "params.bin").read_bytes()
    graph = json.loads(graph_json)
    input_node = graph["nodes"][graph["arg_nodes"][0]]
    input_index = 0
    shape = graph["attrs"]["shape"][1][graph["node_row_ptr"][graph["arg_nodes"][0]]]
    data = np.frombuffer(pathlib.Path(args.input).read_bytes(), dtype=np.int8).reshape(shape)
    reference = pathlib.Path(args.reference).read_bytes()

    recorder = Recorder()
    recorder.mark("connect (session handshake)")
    transport = make_transport(transport_module, args.device, recorder)
    with session_module.Session(transport_context_manager=transport) as sess:
        recorder.mark("graph_executor.create(graph_json, sess.get_system_lib(), sess.device): "
                      "the GraphModule constructor")
        gmod = graph_executor.create(graph_json, sess.get_system_lib(), sess.device)
        info_before = None
        if not args.no_info_before:
            recorder.mark("module['get_input_info']() before load_params")
            info_before = json.loads(bytes(gmod.module["get_input_info"]()))
        recorder.mark("load_params(params)")
        gmod.load_params(params)
        recorder.mark("module['get_input_info']() after load_params")
        info_after = json.loads(bytes(gmod.module["get_input_info"]()))
        recorder.mark("set_input(0, input)")
        gmod.set_input(input_index, data)
        recorder.mark("run()")
        gmod.run()
        recorder.mark("get_output(0).numpy()")
        output = gmod.get_output(0).numpy().tobytes()
        recorder.mark("end of the session")
    if output != reference:
        raise SystemExit("output differs from TFLM's reference: %s vs %s" %
                         (output.hex(), reference.hex()))
    if input_node["name"] not in info_after["shape"] or len(info_after["shape"]) != 1:
        raise SystemExit("get_input_info after load_params: %r" % info_after)
    events = decode(recorder)
    doc = {
        "generated_by": "real TVM v0.18.0 host (tvm.micro.Session, "
                        "tvm.contrib.graph_executor.create / GraphModule) talking to %s; "
                        "recorded and decoded by tests/tools/record_tvm_graph.py" %
                        " ".join(pathlib.Path(a).name for a in args.device),
        "comment": "payload_hex is each session message (sid, type, body); wire bytes follow "
                   "from PROTOCOL.md 1. Pointer and handle values are run-specific: a replay "
                   "maps them. The last CopyAck carries the model's output, equal to TFLM's "
                   "reference.",
        "model": pathlib.Path(args.model).name,
        "graph_json_bytes": len(graph_json),
        "params_bytes": len(params),
        "input_info_before_load_params": info_before,
        "input_info_after_load_params": info_after,
        "output_hex": output.hex(),
        "events": events,
    }
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print("%s: %d events, output bit-exact with TFLM (%s)" % (args.out, len(events),
                                                             output.hex()))


if __name__ == "__main__":
    main()
