#!/usr/bin/env python3
"""Replays a vector file recorded from TVM's own Python host (tests/tools/record_tvm_graph.py)
against a utvm device, and checks every reply against the recorded one.

  replay_tvm_vectors.py VECTOR.json DEVICE-COMMAND...
  e.g. replay_tvm_vectors.py tests/vectors/tvm_graph_kws.json build/host/bin/utvm-posix-server
       replay_tvm_vectors.py tests/vectors/tvm_graph_ic.json scripts/qemu-run.sh mps2-an386

The host's messages are sent in order, byte for byte as TVM sent them, except the session id
(the device picks its nonce) and the handles and pointers that the device issued in earlier
replies (mapped from the recorded values to this device's). Each reply must have the recorded
RPC code, the recorded number and type codes of values, and the recorded values except handles
and pointers (ints, strings, bytes such as get_input_info's JSON); a CopyAck must carry the
recorded bytes: the model's output, equal to TFLM's reference. Exit 0 when all match.
"""

import json
import os
import pathlib
import select
import struct
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
import utvm_wire as wire  # noqa: E402

REPLY_TIMEOUT_S = 120.0
BOOT_TIMEOUT_S = 30.0


class Device:
    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     bufsize=0)
        self.unframer = wire.Unframer()
        self.pending = []
        self.logs = []

    def send(self, payload):
        self.proc.stdin.write(wire.frame(payload))
        self.proc.stdin.flush()

    def message(self, timeout):
        """The next session message other than a Log: (sid, type, body)."""
        deadline = time.monotonic() + timeout
        while True:
            while self.pending:
                sid, msg_type, body = wire.parse_message(self.pending.pop(0))
                if msg_type == wire.MSG_LOG:
                    self.logs.append(body.decode("utf-8", "replace"))
                    continue
                return sid, msg_type, body
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit("FAIL: no message from the device within %.0f s (logs: %r)" %
                                 (timeout, self.logs[-3:]))
            ready, _, _ = select.select([self.proc.stdout], [], [], min(left, 0.5))
            if ready:
                data = os.read(self.proc.stdout.fileno(), 65536)
                if not data:
                    raise SystemExit("FAIL: the device closed its output (exit %r)" %
                                     self.proc.poll())
                self.pending.extend(self.unframer.feed(data))

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Mapping:
    """Recorded handle/pointer values -> this device's."""

    def __init__(self):
        self.to = {}

    def learn(self, recorded, actual):
        # A value the recording reused (a freed and reallocated handle): the newest counts.
        self.to[recorded] = actual

    def patch(self, packet):
        code, fields = wire.parse_rpc(packet)
        out = bytearray(packet)
        for at, value in wire.pointer_fields(code, fields):
            if value in self.to:
                out[at:at + 8] = struct.pack("<Q", self.to[value])
        return bytes(out)


def compare_reply(step, recorded, actual, mapping):
    rcode, rf = wire.parse_rpc(recorded)
    acode, af = wire.parse_rpc(actual)
    if acode != rcode:
        text = ""
        if acode == 5:
            text = ": " + af["values"][0][1].decode("utf-8", "replace")
        raise SystemExit("FAIL %s: reply %s, recorded %s%s" % (
            step, wire.RPC_CODES.get(acode), wire.RPC_CODES.get(rcode), text))
    if rcode == 8:
        if af["payload"] != rf["payload"]:
            raise SystemExit("FAIL %s: CopyAck bytes %s, recorded %s" % (
                step, af["payload"].hex(), rf["payload"].hex()))
        return
    rv, av = rf.get("values", []), af.get("values", [])
    if [v[0] for v in rv] != [v[0] for v in av]:
        raise SystemExit("FAIL %s: type codes %r, recorded %r" % (
            step, [v[0] for v in av], [v[0] for v in rv]))
    for (tc, r, _), (_, a, _) in zip(rv, av):
        if tc in wire.HANDLE_CODES:
            mapping.learn(r, a)
        elif tc == wire.TC_DLTENSOR:
            mapping.learn(r["data"], a["data"])
            if (r["shape"], r["dtype"], r["byte_offset"]) != (a["shape"], a["dtype"],
                                                              a["byte_offset"]):
                raise SystemExit("FAIL %s: tensor %r, recorded %r" % (step, a, r))
        elif r != a:
            raise SystemExit("FAIL %s: value %r, recorded %r" % (step, a, r))


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    doc = json.loads(pathlib.Path(sys.argv[1]).read_text())
    events = doc["events"]
    device = Device(sys.argv[2:])
    t0 = time.monotonic()
    # The device announces itself with a TerminateSession at boot.
    sid, msg_type, _ = device.message(BOOT_TIMEOUT_S)
    if msg_type != wire.MSG_TERMINATE:
        raise SystemExit("FAIL: the device's first message is type %d, not TerminateSession" %
                         msg_type)
    mapping = Mapping()
    marker = "start"
    session = None
    host_requests = 0
    k = 0
    while k < len(events):
        e = events[k]
        k += 1
        if "marker" in e:
            marker = e["marker"]
            continue
        if e["dir"] != "H>D":
            continue
        payload = bytes.fromhex(e["payload_hex"])
        rsid, msg_type, body = wire.parse_message(payload)
        if msg_type == wire.MSG_TERMINATE:
            device.send(payload)
            continue
        if msg_type == wire.MSG_START_INIT:
            device.send(payload)
            while True:
                sid, reply_type, _ = device.message(BOOT_TIMEOUT_S)
                if reply_type == wire.MSG_START_REPLY:
                    break
            if (sid & 0xFF) != (rsid & 0xFF):
                raise SystemExit("FAIL: StartSessionReply for nonce %02x, sent %02x" %
                                 (sid & 0xFF, rsid & 0xFF))
            session = sid
            continue
        if msg_type != wire.MSG_NORMAL or session is None:
            raise SystemExit("FAIL: unexpected recorded message %r" % e)
        # The recorded reply is the next D>H Normal message.
        j = k
        while j < len(events) and not ("dir" in events[j] and events[j]["dir"] == "D>H" and
                                        events[j]["type"] == "Normal"):
            j += 1
        if j == len(events):
            raise SystemExit("FAIL: no recorded reply after %s" % e.get("rpc"))
        recorded_reply = wire.parse_message(bytes.fromhex(events[j]["payload_hex"]))[2]
        step = "%s / %s #%d" % (marker, e.get("rpc"), host_requests)
        device.send(wire.message(session, wire.MSG_NORMAL, mapping.patch(body)))
        reply_sid, reply_type, reply = device.message(REPLY_TIMEOUT_S)
        if reply_type != wire.MSG_NORMAL or reply_sid != session:
            raise SystemExit("FAIL %s: message type %d sid %04x instead of a reply" %
                             (step, reply_type, reply_sid))
        compare_reply(step, recorded_reply, reply, mapping)
        host_requests += 1
        k = j + 1
    device.close()
    if device.unframer.bad:
        raise SystemExit("FAIL: %d bad packets from the device" % device.unframer.bad)
    print("ok   %s: %d requests of TVM's GraphModule replayed on %s, every reply as recorded, "
          "output %s bit-exact with TFLM (%.1f s)" % (
              pathlib.Path(sys.argv[1]).name, host_requests, " ".join(sys.argv[2:]),
              doc["output_hex"], time.monotonic() - t0))


if __name__ == "__main__":
    main()
