"""TVM microTVM wire format in Python, for recording and replaying request vectors.

Framing (PROTOCOL.md 1: CRC-16/CCITT-FALSE over the escaped bytes, 0xFF escapes), session
messages (2: [sid u16][type u8][body]) and RPC packets (3: [u64 nbytes][i32 code][contents],
packed argument sequences). Written from the protocol document; used by
tests/tools/record_tvm_graph.py (with TVM's own host) and tests/host/replay_tvm_vectors.py (CI).
"""

import struct

MSG_START_INIT, MSG_START_REPLY, MSG_TERMINATE, MSG_LOG, MSG_NORMAL = 0x00, 0x01, 0x02, 0x03, 0x10

RPC_CODES = {0: "kNone", 1: "kShutdown", 2: "kInitServer", 3: "kCallFunc", 4: "kReturn",
             5: "kException", 6: "kCopyFromRemote", 7: "kCopyToRemote", 8: "kCopyAck",
             9: "kGetGlobalFunc", 10: "kFreeHandle", 11: "kDevSetDevice", 12: "kDevGetAttr",
             13: "kDevAllocData", 14: "kDevFreeData", 15: "kDevStreamSync",
             16: "kCopyAmongRemote", 17: "kDevAllocDataWithScope", 18: "kDevCreateStream",
             19: "kDevFreeStream", 20: "kDevSetStream", 21: "kDevGetCurrentStream"}

TC_INT, TC_UINT, TC_FLOAT, TC_HANDLE, TC_NULL, TC_DTYPE, TC_DEVICE, TC_DLTENSOR = range(8)
TC_OBJECT, TC_MODULE, TC_FUNC, TC_STR, TC_BYTES, TC_NDARRAY = 8, 9, 10, 11, 12, 13
TC_NAMES = {0: "Int", 1: "UInt", 2: "Float", 3: "OpaqueHandle", 4: "Null", 5: "DataType",
            6: "Device", 7: "DLTensor", 8: "Object", 9: "Module", 10: "PackedFunc", 11: "Str",
            12: "Bytes", 13: "NDArray", 15: "Bool"}
HANDLE_CODES = (TC_HANDLE, TC_MODULE, TC_FUNC)


def crc16(data, crc=0xFFFF):
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def _escape(data):
    return bytes(data).replace(b"\xff", b"\xff\xff")


def frame(payload):
    """One packet: ff fd, escaped length and payload, escaped CRC (low byte first)."""
    body = b"\xff\xfd" + _escape(struct.pack("<I", len(payload))) + _escape(payload)
    return body + _escape(struct.pack("<H", crc16(body)))


class Unframer:
    """Streaming decoder: feed() bytes, get the payloads of packets whose CRC is good.
    Bytes outside packets are skipped; a packet cut short by a new start is dropped."""

    def __init__(self, max_payload=1 << 24):
        self.max_payload = max_payload
        self.bad = 0
        self._reset()

    def _reset(self):
        self.state = "idle"   # idle, escape_idle, field
        self.wire = bytearray()
        self.raw = bytearray()
        self.pending_ff = False
        self.length = None

    def feed(self, data):
        out = []
        for b in data:
            if self.state == "idle":
                if b == 0xFF:
                    self.state = "escape_idle"
                continue
            if self.state == "escape_idle":
                if b == 0xFD:
                    self.state = "field"
                    self.wire = bytearray(b"\xff\xfd")
                    self.raw = bytearray()
                    self.pending_ff = False
                    self.length = None
                else:
                    self.state = "idle"
                continue
            # inside a packet
            if self.pending_ff:
                self.pending_ff = False
                if b == 0xFD:   # a new packet starts: the current one is dropped
                    self.bad += 1
                    self.wire = bytearray(b"\xff\xfd")
                    self.raw = bytearray()
                    self.length = None
                    continue
                if b == 0xFE:
                    self._take_wire(b"\xff\xfe")
                    continue
                if b != 0xFF:
                    self.bad += 1
                    self._reset()
                    continue
                done = self._take(0xFF, b"\xff\xff")
            elif b == 0xFF:
                self.pending_ff = True
                continue
            else:
                done = self._take(b, bytes([b]))
            if done is not None:
                if done is not False:
                    out.append(done)
                self._reset()
        return out

    def _take_wire(self, wire):
        if self.length is None or len(self.raw) < 4 + self.length:
            self.wire += wire

    def _take(self, byte, wire):
        """Adds one unescaped byte; returns the payload, False (bad packet) or None."""
        in_crc = self.length is not None and len(self.raw) >= 4 + self.length
        if not in_crc:
            self.wire += wire
        self.raw.append(byte)
        if self.length is None and len(self.raw) == 4:
            self.length = struct.unpack("<I", self.raw[:4])[0]
            if self.length > self.max_payload:
                self.bad += 1
                return False
        if self.length is not None and len(self.raw) == 4 + self.length + 2:
            crc = struct.unpack("<H", self.raw[-2:])[0]
            if crc != crc16(self.wire):
                self.bad += 1
                return False
            return bytes(self.raw[4:4 + self.length])
        return None


def message(sid, msg_type, body=b""):
    return struct.pack("<HB", sid, msg_type) + bytes(body)


def parse_message(payload):
    sid, msg_type = struct.unpack("<HB", payload[:3])
    return sid, msg_type, payload[3:]


# ------------------------------------------------------------------------- RPC packets

class Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated RPC packet at byte %d" % self.pos)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def i32(self):
        return struct.unpack("<i", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]


def read_tensor(r):
    """A DLTensor header: returns (offset of its data field in r.data, dict)."""
    at = r.pos
    data = r.u64()
    device = struct.unpack("<ii", r.take(8))
    ndim = r.i32()
    dtype = struct.unpack("<BBH", r.take(4))
    if ndim < 0 or ndim > 32:
        raise ValueError("bad ndim %d" % ndim)
    shape = list(struct.unpack("<%dq" % ndim, r.take(8 * ndim)))
    offset = r.u64()
    return at, {"data": data, "device": device, "dtype": dtype, "shape": shape,
                "byte_offset": offset}


def read_seq(r):
    """A packed sequence: list of (tc, value, field_offset); value is an int, bytes or a tensor
    dict. field_offset is where the 8-byte handle/pointer lies (None if none)."""
    num = r.i32()
    if num < 0 or num > 1024:
        raise ValueError("bad argument count %d" % num)
    codes = [r.i32() for _ in range(num)]
    values = []
    for tc in codes:
        if tc == TC_DLTENSOR:
            at, t = read_tensor(r)
            values.append((tc, t, at))
        elif tc in (TC_STR, TC_BYTES):
            n = r.u64()
            values.append((tc, bytes(r.take(n)), None))
        elif tc == TC_NULL:
            values.append((tc, None, None))
        else:
            at = r.pos
            values.append((tc, r.u64(), at if tc in HANDLE_CODES else None))
    return values


def parse_rpc(packet):
    """Decodes one RPC packet (u64 nbytes included): (code, fields) where fields holds
    'values' (packed sequence), 'handle' (CallFunc), 'tensor' and 'nbytes' (copies) and
    'payload' (CopyToRemote, CopyAck), each handle or pointer with its byte offset."""
    r = Reader(packet)
    nbytes = r.u64()
    if nbytes != len(packet) - 8:
        raise ValueError("packet_nbytes %d for %d bytes" % (nbytes, len(packet) - 8))
    code = r.i32()
    f = {}
    if code == 3:
        f["handle_at"] = r.pos
        f["handle"] = r.u64()
        f["values"] = read_seq(r)
    elif code == 2:
        r.take(8 + 5)
        f["values"] = read_seq(r)
    elif code in (6, 7):
        f["tensor_at"], f["tensor"] = read_tensor(r)
        f["nbytes"] = r.u64()
        if code == 7:
            f["payload"] = bytes(r.take(f["nbytes"]))
    elif code == 8:
        f["payload"] = bytes(packet[r.pos:])
        r.pos = len(packet)
    elif code in (4, 5) or 9 <= code <= 21:
        f["values"] = read_seq(r)
    if r.pos != len(packet):
        raise ValueError("%d bytes after the RPC contents" % (len(packet) - r.pos))
    return code, f


def pointer_fields(code, fields):
    """(offset, value) of every handle or pointer in a decoded packet."""
    out = []
    if "handle_at" in fields:
        out.append((fields["handle_at"], fields["handle"]))
    if "tensor_at" in fields:
        out.append((fields["tensor_at"], fields["tensor"]["data"]))
    for tc, v, at in fields.get("values", []):
        if at is None:
            continue
        out.append((at, v["data"] if tc == TC_DLTENSOR else v))
    return out


def describe_values(values):
    """The vector file's JSON form of a packed sequence."""
    out = []
    for tc, v, _ in values:
        name = TC_NAMES.get(tc, str(tc))
        if tc == TC_DLTENSOR:
            out.append([name, {"data": "0x%x" % v["data"], "shape": v["shape"],
                               "dtype": list(v["dtype"]), "byte_offset": v["byte_offset"]}])
        elif tc in (TC_STR, TC_BYTES):
            text = v.decode("utf-8", "replace") if tc == TC_STR and len(v) <= 200 else None
            out.append([name, text if text is not None else "%d bytes" % len(v)])
        elif tc in HANDLE_CODES:
            out.append([name, "0x%x" % v])
        else:
            out.append([name, v])
    return out
