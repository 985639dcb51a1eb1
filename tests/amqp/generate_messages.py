#!/usr/bin/python3
"""Seeded generator of AMQP 1.0 messages for sift's differential and round-trip tests.

Writes a record file (docs/record-format.md: each record is a 4-byte big-endian length, then the
encoded message) of --count messages drawn from --seed, with three independent encoders:

  m  python3-qpid-proton's Message.encode() (Proton's pn_message_encode): header and properties
     always present, ulong section descriptors, every body kind Message can say;
  d  Proton's Data encoder (pn_data_t), section by section: what Message cannot say — footers,
     symbol section descriptors, absent header/properties, several data or amqp-sequence sections,
     header and properties lists with explicit nulls and odd lengths;
  r  a hand-written encoder in this file that picks each encoding at random among the legal ones:
     compact forms (uint0, smalluint, ulong0, smallulong, smallint, smalllong, list0, boolean
     0x41/0x42) and the wide ones Proton never writes for small values (0x56 boolean, uint/ulong/int/
     long in full width, str32/vbin32/sym32/list32/map32/array32 for short contents, list8/map8/array8,
     ulong section descriptors written as 0x80 ulong).

Every AMQP 1.0 type (core part 1, section 1.6) appears in every section that may hold it: nested
lists, maps and arrays (described and not, of every element type), described values with symbol and
ulong descriptors, empty and largest encodings, ulong annotation keys. With --kinds FILE it also writes
one letter per record (m, d or r) so tests know which encoder made each record.

Run with Debian's /usr/bin/python3 (it has python3-qpid-proton).
"""

import argparse
import random
import struct
import sys
import uuid

from proton import (Array, Data, Described, Message, UNDESCRIBED, byte, char, decimal128, decimal32,
                    decimal64, float32, int32, short, symbol, timestamp, ubyte, uint, ulong, ushort)

SCALAR_KINDS = ["null", "bool", "ubyte", "ushort", "uint", "ulong", "byte", "short", "int", "long",
                "float", "double", "decimal32", "decimal64", "decimal128", "char", "timestamp", "uuid",
                "binary", "string", "symbol"]
COMPOUND_KINDS = ["list", "map", "array", "described"]
ARRAY_ELEMENT_TYPES = {
    "bool": Data.BOOL, "ubyte": Data.UBYTE, "ushort": Data.USHORT, "uint": Data.UINT,
    "ulong": Data.ULONG, "byte": Data.BYTE, "short": Data.SHORT, "int": Data.INT, "long": Data.LONG,
    "float": Data.FLOAT, "double": Data.DOUBLE, "decimal32": Data.DECIMAL32,
    "decimal64": Data.DECIMAL64, "decimal128": Data.DECIMAL128, "char": Data.CHAR,
    "timestamp": Data.TIMESTAMP, "uuid": Data.UUID, "binary": Data.BINARY, "string": Data.STRING,
    "symbol": Data.SYMBOL, "list": Data.LIST, "map": Data.MAP,
}


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    # ---- scalars ------------------------------------------------------------------------------
    def pick_int(self, lo, hi):
        r = self.r.random()
        if r < 0.15:
            return lo
        if r < 0.3:
            return hi
        if r < 0.45:
            return max(lo, min(hi, 0))
        if r < 0.7:
            return max(lo, min(hi, self.r.randint(-128, 255)))
        return self.r.randint(lo, hi)

    def text(self, alphabet="abcdefghijklmnopqrstuvwxyz-_.:0123456789", unicode=True, nul=True):
        r = self.r.random()
        if r < 0.08:
            n = 0
        elif r < 0.16:
            n = self.r.randint(256, 700)  # forces str32 / sym32 / vbin32
        else:
            n = self.r.randint(1, 24)
        chars = []
        for _ in range(n):
            if unicode and self.r.random() < 0.1:
                special = self.r.choice(["é", "ß", "中", "😀", "\u0000", "\"", "\\", "\n", "\u2028"])
                chars.append(special if nul or special != "\u0000" else "~")
            else:
                chars.append(self.r.choice(alphabet))
        return "".join(chars)

    def scalar(self, kind):
        r = self.r
        if kind == "null":
            return None
        if kind == "bool":
            return r.random() < 0.5
        if kind == "ubyte":
            return ubyte(self.pick_int(0, 255))
        if kind == "ushort":
            return ushort(self.pick_int(0, 65535))
        if kind == "uint":
            return uint(self.pick_int(0, 2**32 - 1))
        if kind == "ulong":
            return ulong(self.pick_int(0, 2**64 - 1))
        if kind == "byte":
            return byte(self.pick_int(-128, 127))
        if kind == "short":
            return short(self.pick_int(-32768, 32767))
        if kind == "int":
            return int32(self.pick_int(-2**31, 2**31 - 1))
        if kind == "long":
            return self.pick_int(-2**63, 2**63 - 1)
        if kind in ("float", "double"):
            x = r.choice([0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 1e-300,
                          3.4028234663852886e38, r.uniform(-1e6, 1e6), r.uniform(-1, 1)])
            if kind == "float":
                if x == 1e-300:
                    x = 1e-40  # a float32 subnormal
                return float32(struct.unpack(">f", struct.pack(">f", x))[0])
            return x
        if kind == "decimal32":
            return decimal32(r.getrandbits(32))
        if kind == "decimal64":
            return decimal64(r.getrandbits(64))
        if kind == "decimal128":
            return decimal128(bytes(r.getrandbits(8) for _ in range(16)))
        if kind == "char":
            cp = r.choice([0x41, 0, 0xE9, 0x4E2D, 0x1F600, 0x10FFFF, 0xFFFD, r.randint(0x20, 0xD7FF)])
            return char(chr(cp))
        if kind == "timestamp":
            return timestamp(self.pick_int(-2**63, 2**63 - 1))
        if kind == "uuid":
            return uuid.UUID(int=r.getrandbits(128))
        if kind == "binary":
            t = self.text(unicode=False)
            return bytes(r.getrandbits(8) for _ in range(len(t)))
        if kind == "string":
            return self.text()
        if kind == "symbol":
            return symbol(self.text(unicode=False))
        raise ValueError(kind)

    # ---- compounds ----------------------------------------------------------------------------
    def value(self, depth=0, allow_compound=True):
        if allow_compound and depth < 4 and self.r.random() < 0.3:
            return self.compound(self.r.choice(COMPOUND_KINDS), depth)
        return self.scalar(self.r.choice(SCALAR_KINDS))

    def key(self):
        # map keys of every kind, strings most often
        if self.r.random() < 0.5:
            return self.text()
        return self.value(depth=3)

    def descriptor(self):
        if self.r.random() < 0.5:
            return symbol(self.r.choice(["com.example:thing", "x-opt:d", "a" * 300, ""]))
        return ulong(self.r.choice([0, 1, 0x77, 0x0000468C00000004, 2**64 - 1]))

    def compound(self, kind, depth):
        r = self.r
        n = r.choice([0, 1, 2, 3, 5]) if r.random() < 0.95 else r.randint(40, 80)
        if kind == "list":
            return [self.value(depth + 1) for _ in range(n)]
        if kind == "map":
            d = {}
            for _ in range(n):
                k = self.key()
                if isinstance(k, (list, dict, Array)):
                    k = self.text()
                try:
                    hash(k)
                except TypeError:
                    k = self.text()
                if isinstance(k, float) and k != k:
                    k = 0.5  # NaN keys cannot be looked up
                d[k] = self.value(depth + 1)
            return d
        if kind == "array":
            et = r.choice(list(ARRAY_ELEMENT_TYPES))
            desc = self.descriptor() if r.random() < 0.25 else UNDESCRIBED
            if et == "list":
                elems = [[self.scalar(r.choice(SCALAR_KINDS)) for _ in range(r.randint(0, 3))]
                         for _ in range(n)]
            elif et == "map":
                elems = [{self.text(): self.scalar(r.choice(SCALAR_KINDS))
                          for _ in range(r.randint(0, 2))} for _ in range(n)]
            else:
                elems = [self.scalar(et) for _ in range(n)]
            return Array(desc, ARRAY_ELEMENT_TYPES[et], *elems)
        if kind == "described":
            # A described value directly inside a described value is legal AMQP, but Proton 0.37's
            # decoder (the reference) mis-decodes it, so the generator never nests them directly.
            value = self.value(depth + 1)
            while isinstance(value, Described):
                value = self.value(depth + 1)
            return Described(self.descriptor(), value)
        raise ValueError(kind)

    # ---- sections -----------------------------------------------------------------------------
    def annotations(self):
        d = {}
        for _ in range(self.r.choice([0, 1, 2, 4, 6])):
            if self.r.random() < 0.25:
                k = ulong(self.pick_int(0, 2**64 - 1))
            else:
                k = symbol(self.r.choice(["x-opt-", "x-", ""]) + self.text(unicode=False)[:40])
            d[k] = self.value()
        return d

    def app_properties(self):
        # core 3.2.5: string keys, simple (non-compound) values
        return {self.text()[:30]: self.value(allow_compound=False)
                for _ in range(self.r.choice([0, 1, 3, 8]))}

    def header_fields(self):
        r = self.r
        return [r.random() < 0.5 if r.random() < 0.5 else None,
                ubyte(self.pick_int(0, 255)) if r.random() < 0.5 else None,
                uint(self.pick_int(0, 2**32 - 1)) if r.random() < 0.5 else None,
                r.random() < 0.5 if r.random() < 0.5 else None,
                uint(self.pick_int(0, 2**32 - 1)) if r.random() < 0.5 else None]

    def message_id(self):
        kind = self.r.choice(["ulong", "uuid", "binary", "string"])
        return self.scalar(kind)

    def properties_fields(self):
        r = self.r
        maybe = lambda f: f() if r.random() < 0.5 else None
        # pn_message_t keeps text properties as C strings, so a NUL in one is rare: most messages
        # can then also be fully decoded into pn_message_t.
        text = lambda: self.text(nul=r.random() < 0.05)
        return [maybe(self.message_id), maybe(lambda: self.scalar("binary")),
                maybe(text), maybe(text), maybe(text), maybe(self.message_id),
                maybe(lambda: self.scalar("symbol")), maybe(lambda: self.scalar("symbol")),
                maybe(lambda: self.scalar("timestamp")), maybe(lambda: self.scalar("timestamp")),
                maybe(text), maybe(lambda: uint(self.pick_int(0, 2**32 - 1))), maybe(text)]

    def body_sections(self):
        """A list of (code, value) body sections, or [] for no body."""
        r = self.r.random()
        if r < 0.1:
            return []
        if r < 0.4:
            return [(0x75, self.scalar("binary")) for _ in range(self.r.choice([1, 1, 1, 2, 3]))]
        if r < 0.6:
            return [(0x76, self.compound("list", 1)) for _ in range(self.r.choice([1, 1, 2]))]
        return [(0x77, self.value())]


ZERO_WIDTH = (0x40, 0x41, 0x42, 0x43, 0x44, 0x45)

SECTION_SYMBOLS = {
    0x70: "amqp:header:list", 0x71: "amqp:delivery-annotations:map",
    0x72: "amqp:message-annotations:map", 0x73: "amqp:properties:list",
    0x74: "amqp:application-properties:map", 0x75: "amqp:data:binary",
    0x76: "amqp:amqp-sequence:list", 0x77: "amqp:amqp-value:*", 0x78: "amqp:footer:map",
}


def trim(fields):
    fields = list(fields)
    while fields and fields[-1] is None:
        fields.pop()
    return fields


def sections_of(g):
    """A random section layout: list of (code, value), in spec order, each optional."""
    s = []
    r = g.r
    if r.random() < 0.6:
        s.append((0x70, trim(g.header_fields()) if r.random() < 0.7 else g.header_fields()))
    if r.random() < 0.5:
        s.append((0x71, g.annotations()))
    if r.random() < 0.6:
        s.append((0x72, g.annotations()))
    if r.random() < 0.7:
        p = g.properties_fields()
        s.append((0x73, trim(p) if r.random() < 0.7 else p))
    if r.random() < 0.7:
        s.append((0x74, g.app_properties()))
    s.extend(g.body_sections())
    if r.random() < 0.5:
        s.append((0x78, g.annotations()))
    if not s:
        s.append((0x77, g.value()))
    return s


# ---- encoder m: python3-qpid-proton's Message ---------------------------------------------------

def encode_message(g):
    r = g.r
    m = Message()
    h = g.header_fields()
    if h[0] is not None:
        m.durable = h[0]
    if h[1] is not None:
        m.priority = int(h[1])
    if h[2] is not None:
        m.ttl = int(h[2]) / 1000.0
    if h[3] is not None:
        m.first_acquirer = h[3]
    if h[4] is not None:
        m.delivery_count = int(h[4])
    p = g.properties_fields()
    if p[0] is not None:
        m.id = p[0]
    if p[1] is not None:
        m.user_id = p[1]
    if p[2] is not None:
        m.address = p[2].replace("\u0000", "")
    if p[3] is not None:
        m.subject = p[3].replace("\u0000", "")
    if p[4] is not None:
        m.reply_to = p[4].replace("\u0000", "")
    if p[5] is not None:
        m.correlation_id = p[5]
    if p[6] is not None:
        m.content_type = symbol(p[6].replace("\u0000", ""))
    if p[7] is not None:
        m.content_encoding = symbol(p[7].replace("\u0000", ""))
    if p[8] is not None:
        m.expiry_time = (int(p[8]) % 2**48) / 1000.0
    if p[9] is not None:
        m.creation_time = (int(p[9]) % 2**48) / 1000.0
    if p[10] is not None:
        m.group_id = p[10].replace("\u0000", "")
    if p[11] is not None:
        m.group_sequence = int(p[11]) % 2**31
    if p[12] is not None:
        m.reply_to_group_id = p[12].replace("\u0000", "")
    if r.random() < 0.5:
        m.instructions = g.annotations()
    if r.random() < 0.6:
        m.annotations = g.annotations()
    if r.random() < 0.7:
        m.properties = g.app_properties()
    body = g.body_sections()
    if body:
        code, value = body[0]
        if code == 0x75:
            m.inferred = True
            m.body = value
        elif code == 0x76:
            m.inferred = True
            m.body = value
        else:
            m.body = value
    return m.encode()


# ---- encoder d: Proton's Data, section by section ------------------------------------------------

def encode_data(g):
    out = b""
    for code, value in sections_of(g):
        descriptor = symbol(SECTION_SYMBOLS[code]) if g.r.random() < 0.3 else ulong(code)
        d = Data()
        d.put_object(Described(descriptor, value))
        out += d.encode()
    return out


# ---- encoder r: hand-written, random legal encodings ---------------------------------------------

class Raw:
    def __init__(self, r):
        self.r = r

    def wide(self):
        return self.r.random() < 0.35

    def sized(self, code8, code32, payload, count=None):
        """A variable-width or compound encoding: 8-bit size form when it fits (unless widened)."""
        if count is None:
            if len(payload) <= 255 and not self.wide():
                return bytes([code8, len(payload)]) + payload
            return bytes([code32]) + struct.pack(">I", len(payload)) + payload
        if len(payload) + 1 <= 255 and count <= 255 and not self.wide():
            return bytes([code8, len(payload) + 1, count]) + payload
        return bytes([code32]) + struct.pack(">II", len(payload) + 4, count) + payload

    def body(self, v):
        """(constructor bytes, payload bytes) of v, so arrays can share one constructor."""
        r = self.r
        if v is None:
            return b"\x40", b""
        if isinstance(v, bool):
            if self.wide():
                return b"\x56", b"\x01" if v else b"\x00"
            return (b"\x41" if v else b"\x42"), b""
        if isinstance(v, ubyte):
            return b"\x50", struct.pack(">B", v)
        if isinstance(v, ushort):
            return b"\x60", struct.pack(">H", v)
        if isinstance(v, uint):
            if v == 0 and not self.wide():
                return b"\x43", b""
            if v < 256 and not self.wide():
                return b"\x52", struct.pack(">B", v)
            return b"\x70", struct.pack(">I", v)
        if isinstance(v, ulong):
            if v == 0 and not self.wide():
                return b"\x44", b""
            if v < 256 and not self.wide():
                return b"\x53", struct.pack(">B", v)
            return b"\x80", struct.pack(">Q", v)
        if isinstance(v, byte):
            return b"\x51", struct.pack(">b", v)
        if isinstance(v, short):
            return b"\x61", struct.pack(">h", v)
        if isinstance(v, int32):
            if -128 <= v <= 127 and not self.wide():
                return b"\x54", struct.pack(">b", v)
            return b"\x71", struct.pack(">i", v)
        if isinstance(v, decimal32):
            return b"\x74", struct.pack(">I", v)
        if isinstance(v, decimal64):
            return b"\x84", struct.pack(">Q", v)
        if isinstance(v, timestamp):
            return b"\x83", struct.pack(">q", v)
        if isinstance(v, int):
            if -128 <= v <= 127 and not self.wide():
                return b"\x55", struct.pack(">b", v)
            return b"\x81", struct.pack(">q", v)
        if isinstance(v, float32):
            return b"\x72", struct.pack(">f", v)
        if isinstance(v, float):
            return b"\x82", struct.pack(">d", v)
        if isinstance(v, decimal128):
            return b"\x94", bytes(v)
        if isinstance(v, uuid.UUID):
            return b"\x98", v.bytes
        if isinstance(v, char):
            return b"\x73", struct.pack(">I", ord(v))
        if isinstance(v, symbol):
            e = self.sized(0xa3, 0xb3, v.encode("ascii"))
            return e[:1], e[1:]
        if isinstance(v, str):
            e = self.sized(0xa1, 0xb1, v.encode("utf-8"))
            return e[:1], e[1:]
        if isinstance(v, bytes):
            e = self.sized(0xa0, 0xb0, v)
            return e[:1], e[1:]
        if isinstance(v, Described):
            return b"\x00" + self.encode(v.descriptor), self.encode(v.value)
        if isinstance(v, list):
            if not v and not self.wide():
                return b"\x45", b""
            e = self.sized(0xc0, 0xd0, b"".join(self.encode(x) for x in v), len(v))
            return e[:1], e[1:]
        if isinstance(v, dict):
            items = b"".join(self.encode(k) + self.encode(x) for k, x in v.items())
            e = self.sized(0xc1, 0xd1, items, 2 * len(v))
            return e[:1], e[1:]
        if isinstance(v, Array):
            return self.array(v)
        raise TypeError(type(v))

    def array(self, a):
        elems = list(a.elements)
        if elems:
            parts = [self.body(x) for x in elems]
            ctors = {c for c, _ in parts}
            if len(ctors) > 1 or parts[0][0][0] in ZERO_WIDTH:
                # one constructor for all elements, with a payload per element: the wide form
                parts = [self.wide_body(x) for x in elems]
            ctor = parts[0][0]
            payload = b"".join(p for _, p in parts)
        else:
            ctor = self.empty_ctor(a.type)
            payload = b""
        if a.descriptor is not UNDESCRIBED:
            ctor = b"\x00" + self.encode(a.descriptor) + ctor
        e = self.sized(0xe0, 0xf0, ctor + payload, len(elems))
        return e[:1], e[1:]

    def wide_body(self, v):
        """(constructor, payload) of v in the widest encoding of its type."""
        if isinstance(v, bool):
            return b"\x56", b"\x01" if v else b"\x00"
        if isinstance(v, uint):
            return b"\x70", struct.pack(">I", v)
        if isinstance(v, ulong):
            return b"\x80", struct.pack(">Q", v)
        if isinstance(v, int32):
            return b"\x71", struct.pack(">i", v)
        if isinstance(v, (ubyte, ushort, byte, short, timestamp, decimal32, decimal64)):
            return self.body(v)
        if isinstance(v, int):
            return b"\x81", struct.pack(">q", v)
        if isinstance(v, symbol):
            raw = v.encode("ascii")
            return b"\xb3", struct.pack(">I", len(raw)) + raw
        if isinstance(v, str) and not isinstance(v, char):
            raw = v.encode("utf-8")
            return b"\xb1", struct.pack(">I", len(raw)) + raw
        if isinstance(v, bytes) and not isinstance(v, decimal128):
            return b"\xb0", struct.pack(">I", len(v)) + v
        if isinstance(v, list):
            items = b"".join(self.encode(x) for x in v)
            return b"\xd0", struct.pack(">II", 4 + len(items), len(v)) + items
        if isinstance(v, dict):
            items = b"".join(self.encode(k) + self.encode(x) for k, x in v.items())
            return b"\xd1", struct.pack(">II", 4 + len(items), 2 * len(v)) + items
        return self.body(v)

    def empty_ctor(self, t):
        return {Data.BOOL: b"\x56", Data.UBYTE: b"\x50", Data.USHORT: b"\x60", Data.UINT: b"\x70",
                Data.ULONG: b"\x80", Data.BYTE: b"\x51", Data.SHORT: b"\x61", Data.INT: b"\x71",
                Data.LONG: b"\x81", Data.FLOAT: b"\x72", Data.DOUBLE: b"\x82",
                Data.DECIMAL32: b"\x74", Data.DECIMAL64: b"\x84", Data.DECIMAL128: b"\x94",
                Data.CHAR: b"\x73", Data.TIMESTAMP: b"\x83", Data.UUID: b"\x98",
                Data.BINARY: b"\xa0", Data.STRING: b"\xa1", Data.SYMBOL: b"\xa3",
                Data.LIST: b"\xc0", Data.MAP: b"\xc1"}[t]

    def encode(self, v):
        c, p = self.body(v)
        return c + p


def encode_raw(g):
    raw = Raw(g.r)
    out = b""
    for code, value in sections_of(g):
        x = g.r.random()
        if x < 0.2:
            desc = raw.encode(symbol(SECTION_SYMBOLS[code]))
        elif x < 0.35:
            desc = b"\x80" + struct.pack(">Q", code)
        else:
            desc = b"\x53" + bytes([code])
        if code == 0x75:
            value = bytes(value)
        out += b"\x00" + desc + raw.encode(value)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True, help="record file to write")
    ap.add_argument("--kinds", help="also write one letter per record: m, d or r")
    args = ap.parse_args()
    g = Gen(args.seed)
    kinds = []
    with open(args.out, "wb") as f:
        for i in range(args.count):
            x = g.r.random()
            if x < 0.5:
                kind, data = "m", encode_message(g)
            elif x < 0.75:
                kind, data = "d", encode_data(g)
            else:
                kind, data = "r", encode_raw(g)
            f.write(len(data).to_bytes(4, "big") + data)
            kinds.append(kind)
    if args.kinds:
        with open(args.kinds, "w") as f:
            f.write("".join(kinds) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
