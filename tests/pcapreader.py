"""A minimal pure-Python pcap reader, for tests: nanosecond or microsecond pcap, raw IPv4."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field


@dataclass
class Record:
    t: float
    orig_len: int
    data: bytes
    ip: dict = field(default_factory=dict)
    tcp: dict | None = None


def checksum(data: bytes, initial: int = 0) -> int:
    if len(data) % 2:
        data += b"\0"
    s = initial + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def read(path) -> tuple[dict, list[Record]]:
    raw = open(path, "rb").read()
    magic = struct.unpack("<I", raw[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    nano = magic == 0xA1B23C4D
    major, minor, _, _, snaplen, linktype = struct.unpack("<HHiIII", raw[4:24])
    header = {
        "version": (major, minor),
        "snaplen": snaplen,
        "linktype": linktype,
        "nanosecond": nano,
    }
    records, off = [], 24
    while off < len(raw):
        sec, frac, incl, orig = struct.unpack("<IIII", raw[off : off + 16])
        data = raw[off + 16 : off + 16 + incl]
        off += 16 + incl
        rec = Record(t=sec + frac / (1e9 if nano else 1e6), orig_len=orig, data=data)
        ihl = (data[0] & 0x0F) * 4
        flags_off = struct.unpack("!H", data[6:8])[0]
        rec.ip = {
            "version": data[0] >> 4,
            "tos": data[1],
            "total_len": struct.unpack("!H", data[2:4])[0],
            "id": struct.unpack("!H", data[4:6])[0],
            "df": bool(flags_off & 0x4000),
            "mf": bool(flags_off & 0x2000),
            "frag_offset": flags_off & 0x1FFF,
            "ttl": data[8],
            "proto": data[9],
            "src": ".".join(map(str, data[12:16])),
            "dst": ".".join(map(str, data[16:20])),
            "header_ok": checksum(data[:ihl]) == 0,
        }
        if rec.ip["proto"] == 6 and rec.ip["frag_offset"] == 0 and len(data) >= ihl + 20:
            t = data[ihl:]
            doff = (t[12] >> 4) * 4
            opts, options, i = t[20:doff], {}, 0
            while i < len(opts):
                kind = opts[i]
                if kind == 0:
                    break
                if kind == 1:
                    i += 1
                    continue
                ln = opts[i + 1]
                body = opts[i + 2 : i + ln]
                if kind == 2:
                    options["mss"] = struct.unpack("!H", body)[0]
                elif kind == 4:
                    options["sack_permitted"] = True
                elif kind == 8:
                    options["timestamps"] = struct.unpack("!II", body)
                elif kind == 5:
                    options["sack"] = [
                        struct.unpack("!II", body[j : j + 8]) for j in range(0, len(body), 8)
                    ]
                i += ln
            rec.tcp = {
                "sport": struct.unpack("!H", t[0:2])[0],
                "dport": struct.unpack("!H", t[2:4])[0],
                "seq": struct.unpack("!I", t[4:8])[0],
                "ack": struct.unpack("!I", t[8:12])[0],
                "header_len": doff,
                "flags": t[13],
                "window": struct.unpack("!H", t[14:16])[0],
                "options": options,
                "payload_len": rec.ip["total_len"] - ihl - doff,
            }
        records.append(rec)
    return header, records
