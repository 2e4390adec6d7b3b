#!/usr/bin/env python3
"""Converts a JSON vector file of shared/vectors/ into a C header for the unit tests.

Usage: vectors_to_c.py <kind> <input.json> <output.h>

<kind> selects a schema in SCHEMAS: the JSON key of the vector list and, per field, its C
name and conversion. The header defines one struct type per schema level, one static array
<kind>_<list key> with a count macro, and a lookup by name. Adding a vector file means
adding a schema entry; the generator itself does not change.

Conversions:
  Text  JSON string          -> const char *<name>
  Hex   JSON hex string      -> const uint8_t *<name>; size_t <name>_len
                                (every byte array carries one extra 0x00 byte after its
                                contents, so that empty arrays are legal C)
  U32   JSON integer or a "0x..." string -> uint32_t <name>
  Bool  JSON true/false      -> bool <name>
  List  JSON list of objects -> const <struct>_t *<name>; size_t <name>_count
                                (NULL when empty)
JSON keys not named in the schema (notes, comments) are ignored; a missing key is an error
unless the field was given a default (Field(..., default=...): the value used instead).
"""

import json
import os
import sys


NO_DEFAULT = object()


class Field:
    def __init__(self, key, name=None, default=NO_DEFAULT):
        self.key = key
        self.name = name if name is not None else key
        self.default = default


class Text(Field):
    def members(self):
        return ["const char *%s;" % self.name]


class Hex(Field):
    def __init__(self, key, name=None, default=NO_DEFAULT):
        if name is None and key.endswith("_hex"):
            name = key[:-len("_hex")]
        super().__init__(key, name, default)

    def members(self):
        return ["const uint8_t *%s;" % self.name, "size_t %s_len;" % self.name]


class U32(Field):
    def members(self):
        return ["uint32_t %s;" % self.name]


class Bool(Field):
    def members(self):
        return ["bool %s;" % self.name]


class List(Field):
    def __init__(self, key, struct, fields, name=None):
        super().__init__(key, name)
        self.struct = struct
        self.fields = fields

    def members(self):
        return ["const %s_t *%s;" % (self.struct, self.name), "size_t %s_count;" % self.name]


class Schema:
    def __init__(self, list_key, struct, fields):
        self.list_key = list_key
        self.struct = struct
        self.fields = fields


SCHEMAS = {
    "framing": Schema("vectors", "framing_vector", [
        Text("name"), Hex("payload_hex"), Hex("wire_hex"),
    ]),
    "unframer": Schema("cases", "unframer_case", [
        Text("name"),
        Hex("input_hex"),
        List("write_calls", "unframer_write_call", [U32("offset"), U32("error"), U32("consumed")]),
        List("packets", "unframer_packet", [Bool("crc_valid"), Hex("bytes_streamed_hex")]),
        Hex("partial_streamed_hex"),
    ]),
    "session": Schema("vectors", "session_vector", [
        Text("name"), Hex("payload_hex"), Hex("wire_hex"),
    ]),
    "rpc": Schema("vectors", "rpc_vector", [
        Text("name"), Text("direction"), Hex("rpc_packet_hex"), Hex("payload_hex"),
        Hex("wire_hex"),
    ]),
    # Events are either step markers ({"marker"}: name set, dir empty) or messages (name
    # empty; dir "H>D" or "D>H", payload = session header + body).
    "e2e_session": Schema("events", "e2e_event", [
        Text("marker", "name", default=""), Text("dir", default=""),
        Text("type", default=""), Hex("payload_hex", default=""),
    ]),
}


class VectorError(Exception):
    pass


def c_string(text):
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F and ch != "?":
            out.append(ch)
        elif code < 0x80:
            out.append("\\%03o" % code)
        else:
            out.extend("\\%03o" % b for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def parse_u32(value, where):
    if isinstance(value, bool):
        raise VectorError("%s: expected an integer, got a boolean" % where)
    if isinstance(value, str):
        try:
            value = int(value, 0)
        except ValueError:
            raise VectorError("%s: %r is not an integer" % (where, value)) from None
    if not isinstance(value, int) or not 0 <= value <= 0xFFFFFFFF:
        raise VectorError("%s: %r is not a u32" % (where, value))
    return value


def parse_hex(value, where):
    if not isinstance(value, str):
        raise VectorError("%s: expected a hex string" % where)
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise VectorError("%s: invalid hex string" % where) from None


class Generator:
    def __init__(self):
        self.definitions = []  # arrays that initialisers refer to, in dependency order

    def byte_array(self, symbol, data):
        items = ["0x%02x" % b for b in data] + ["0x00"]
        lines = ["static const uint8_t %s[%d] = {" % (symbol, len(items))]
        for i in range(0, len(items), 16):
            lines.append("  " + ", ".join(items[i:i + 16]) + ",")
        lines.append("};")
        self.definitions.append("\n".join(lines))

    def struct_initialiser(self, fields, obj, symbol, where):
        """Returns the C initialiser of one object; emits the arrays it points to."""
        if not isinstance(obj, dict):
            raise VectorError("%s: expected an object" % where)
        values = []
        for field in fields:
            if field.key in obj:
                value = obj[field.key]
            elif field.default is not NO_DEFAULT:
                value = field.default
            else:
                raise VectorError("%s: missing key %r" % (where, field.key))
            at = "%s.%s" % (where, field.key)
            if isinstance(field, Text):
                if not isinstance(value, str):
                    raise VectorError("%s: expected a string" % at)
                values.append(c_string(value))
            elif isinstance(field, Hex):
                data = parse_hex(value, at)
                array = "%s_%s" % (symbol, field.name)
                self.byte_array(array, data)
                values.extend([array, "%du" % len(data)])
            elif isinstance(field, U32):
                values.append("0x%xu" % parse_u32(value, at))
            elif isinstance(field, Bool):
                if not isinstance(value, bool):
                    raise VectorError("%s: expected true or false" % at)
                values.append("true" if value else "false")
            elif isinstance(field, List):
                array = "%s_%s" % (symbol, field.name)
                count = self.struct_array(field.struct, field.fields, value, array, at)
                values.extend([array if count > 0 else "NULL", "%du" % count])
            else:
                raise AssertionError(field)
        return "{" + ", ".join(values) + "}"

    def struct_array(self, struct, fields, items, symbol, where):
        """Emits symbol[] holding items; returns the number of items (0: nothing emitted)."""
        if not isinstance(items, list):
            raise VectorError("%s: expected a list" % where)
        initialisers = [
            self.struct_initialiser(fields, item, "%s_%d" % (symbol, i), "%s[%d]" % (where, i))
            for i, item in enumerate(items)
        ]
        if initialisers:
            self.definitions.append("static const %s_t %s[%d] = {\n  %s,\n};" % (
                struct, symbol, len(initialisers), ",\n  ".join(initialisers)))
        return len(initialisers)


def struct_types(struct, fields, emitted):
    """Returns the typedefs for struct and its nested list types, innermost first."""
    out = []
    for field in fields:
        if isinstance(field, List) and field.struct not in emitted:
            out.extend(struct_types(field.struct, field.fields, emitted))
    members = "".join("\n  %s" % m for field in fields for m in field.members())
    out.append("typedef struct {%s\n} %s_t;" % (members, struct))
    emitted.add(struct)
    return out


def generate(kind, document, source_name):
    schema = SCHEMAS[kind]
    if not isinstance(document, dict) or schema.list_key not in document:
        raise VectorError("%s: no %r list" % (source_name, schema.list_key))
    array = "%s_%s" % (kind, schema.list_key)
    count_macro = "%s_COUNT" % array.upper()
    guard = "UTVM_TEST_%s_VECTORS_H" % kind.upper()

    gen = Generator()
    count = gen.struct_array(schema.struct, schema.fields, document[schema.list_key], array,
                             source_name)
    if count == 0:
        raise VectorError("%s: the %r list is empty" % (source_name, schema.list_key))
    if not any(isinstance(f, Text) and f.name == "name" for f in schema.fields):
        raise AssertionError("schema %s has no name field" % kind)

    parts = [
        "/* Generated by tests/tools/vectors_to_c.py from %s; do not edit. */" % source_name,
        "#ifndef %s\n#define %s" % (guard, guard),
        "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>",
    ]
    parts.extend(struct_types(schema.struct, schema.fields, set()))
    parts.extend(gen.definitions)
    parts.append("#define %s %du" % (count_macro, count))
    parts.append(
        "/* Returns the vector called name, or NULL. */\n"
        "static inline const %(t)s_t *%(a)s_find(const char *name) {\n"
        "  for (size_t i = 0u; i < %(c)s; i++) {\n"
        "    if (strcmp(%(a)s[i].name, name) == 0) {\n"
        "      return &%(a)s[i];\n"
        "    }\n"
        "  }\n"
        "  return NULL;\n"
        "}" % {"t": schema.struct, "a": array, "c": count_macro})
    parts.append("#endif /* %s */" % guard)
    return "\n\n".join(parts) + "\n"


def main(argv):
    if len(argv) != 4 or argv[1] not in SCHEMAS:
        sys.stderr.write("usage: %s {%s} <input.json> <output.h>\n" % (
            os.path.basename(argv[0]), "|".join(sorted(SCHEMAS))))
        return 2
    kind, source, output = argv[1:]
    try:
        with open(source, encoding="utf-8") as f:
            document = json.load(f)
        text = generate(kind, document, os.path.basename(source))
    except (OSError, ValueError, VectorError) as e:
        sys.stderr.write("vectors_to_c.py: %s\n" % e)
        return 1
    tmp = output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
