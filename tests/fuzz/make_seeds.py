#!/usr/bin/env python3
"""Writes the seed corpus of the utvm fuzz targets from the protocol vectors.

usage: make_seeds.py <vectors dir> <output dir>

Every seed follows tests/fuzz/fuzz_input.h: a chunking byte, a parameter byte, then the
stream. Two kinds of seeds are written:
  * one file per distinct wire_hex / input_hex value found anywhere in vectors/*.json
    (parameter 0x80: a 2048-byte payload limit for fuzz_unframer, nonce 0x80 for
    fuzz_session);
  * one file per recorded host conversation (e2e_session.json sections, each after the
    handshake section, and host_scenarios.json scenarios): a 0xfe and then every
    host->device frame in order, with the parameter set to the device nonce of the
    recording so fuzz_session reaches the same session id and exercises Normal traffic.
    Conversations longer than MAX_SEED_BYTES are left out to keep libFuzzer's max_len small.
File names are content hashes, so rerunning the script is idempotent.
"""
import hashlib
import json
import pathlib
import sys

HEX_KEYS = ("wire_hex", "input_hex")
PARAM_DEFAULT = 0x80
CHUNKINGS = (0x00, 0x01, 0x07, 0x40)
MAX_SEED_BYTES = 4096
MSG_START_SESSION_REPLY = 0x01


def hex_values(node):
    """Yields every wire_hex / input_hex string in a parsed JSON document, in order."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in HEX_KEYS and isinstance(value, str):
                    yield value
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(reversed(item))


def device_nonce(events):
    """Responder nonce of the first StartSessionReply in events, or None."""
    for event in events:
        payload = bytes.fromhex(event.get("payload_hex", ""))
        if event.get("dir") == "D>H" and len(payload) >= 3 and payload[2] == MSG_START_SESSION_REPLY:
            return payload[1]
    return None


def host_stream(events):
    return b"".join(bytes.fromhex(e["wire_hex"]) for e in events
                    if e.get("dir") == "H>D" and "wire_hex" in e)


def sections(events):
    """Splits an event list at its markers: [(marker, [events])]."""
    result = []
    for event in events:
        if "marker" in event:
            result.append((event["marker"], []))
        elif result:
            result[-1][1].append(event)
    return result


def conversations(vectors_dir):
    """Yields (parameter, stream) for each recorded host conversation."""
    e2e_path = vectors_dir / "e2e_session.json"
    if e2e_path.exists():
        parts = sections(json.loads(e2e_path.read_text())["events"])
        if parts:
            handshake_events = parts[0][1]
            nonce = device_nonce(handshake_events)
            prefix = host_stream(handshake_events)
            for _, events in parts[1:]:
                body = host_stream(events)
                if nonce is not None and body:
                    yield nonce, b"\xfe" + prefix + body
    scenarios_path = vectors_dir / "host_scenarios.json"
    if scenarios_path.exists():
        for scenario in json.loads(scenarios_path.read_text())["scenarios"]:
            nonce = device_nonce(scenario["events"])
            stream = host_stream(scenario["events"])
            if nonce is not None and stream:
                yield nonce, b"\xfe" + stream


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    vectors_dir = pathlib.Path(argv[1])
    out_dir = pathlib.Path(argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    json_files = sorted(vectors_dir.glob("*.json"))
    if not json_files:
        sys.stderr.write(f"make_seeds.py: no *.json in {vectors_dir}\n")
        return 1

    streams = {}
    for path in json_files:
        for value in hex_values(json.loads(path.read_text())):
            streams.setdefault(bytes.fromhex(value), PARAM_DEFAULT)
    for param, stream in conversations(vectors_dir):
        streams.setdefault(stream, param)
    seeds = {}
    for index, (stream, param) in enumerate(streams.items()):
        if len(stream) <= MAX_SEED_BYTES:
            seed = bytes((CHUNKINGS[index % len(CHUNKINGS)], param)) + stream
            seeds[hashlib.sha1(seed).hexdigest()] = seed

    for name, seed in seeds.items():
        target = out_dir / name
        if not target.exists():
            target.write_bytes(seed)
    print(f"make_seeds.py: {len(seeds)} seeds in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
