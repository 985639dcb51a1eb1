#!/usr/bin/python3
"""Writes a record file of messages encoded by python3-qpid-proton (not `sift gen`), for `sift bench`.

Usage: /usr/bin/python3 generate_proton_records.py --count N [--seed S] -o FILE

Each message is a proton.Message as an application would send it: header (durable, priority), the
properties a broker client sets (message-id, to, subject, content-type, creation-time, group-id),
application properties of several AMQP types (string, long, double, boolean, symbol, timestamp) and
a JSON text body; Proton's Message.encode() makes the bytes. The record file framing is
docs/record-format.md: a 4-byte big-endian length, then the message. Deterministic for a seed.
"""

import argparse
import json
import random
import struct
import sys

from proton import Message, symbol, timestamp

REGIONS = ["eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-northeast"]
SUBJECTS = ["order", "refund", "shipment", "invoice", "cancel"]
TIERS = ["bronze", "silver", "gold", "platinum"]


def message(r, i):
    region = r.choice(REGIONS)
    subject = r.choice(SUBJECTS)
    amount = r.randrange(1, 1000)
    m = Message()
    m.durable = r.random() < 0.8
    m.priority = r.randrange(10)
    m.id = "msg-%08d" % i
    m.address = "orders/" + region
    m.subject = subject
    m.content_type = symbol("application/json")
    m.creation_time = 1_700_000_000 + i / 1000.0
    m.group_id = "grp-%03d" % r.randrange(500)
    m.properties = {
        "region": region,
        "amount": amount,
        "weight": round(r.uniform(0.1, 25.0), 3),
        "express": r.random() < 0.1,
        "tier": symbol(r.choice(TIERS)),
        "sku": "%s%04d" % (r.choice("ABCDEFGH"), r.randrange(10000)),
        "customer": "c-%06d" % r.randrange(200000),
        "placed": timestamp(1_700_000_000_000 + i),
    }
    m.body = json.dumps({"order": i, "lines": [{"sku": "x%d" % k, "qty": r.randrange(1, 9)} for k in range(3)],
                         "note": "n" * r.randrange(20, 120)})
    return m.encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    r = random.Random(args.seed)
    with open(args.output, "wb") as out:
        for i in range(args.count):
            body = message(r, i)
            out.write(struct.pack(">I", len(body)))
            out.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
