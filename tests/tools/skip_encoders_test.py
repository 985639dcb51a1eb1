#!/usr/bin/python3
"""Chunk skipping over messages from other encoders, through the `sift` command.

generate_messages.py writes messages with three encoders (python3-qpid-proton's Message, Proton's
pn_data_t section by section, and a hand-written one that picks every legal encoding: wide integers,
str32 for short texts, list32 headers, symbol section descriptors, absent headers, explicit nulls).
`sift append` loads them in chunks of a few messages (with summaries), and random SQL and JMS
selectors over the header and properties fields (defaults, every type, the JMS names' derived values)
must replay the same offsets with skipping on (one thread and several) as with `--no-skip`, while
most of them do skip chunks.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
Environment: SIFT_CLI (the sift binary), SIFT_SOURCE_DIR (the source tree), SIFT_SANITIZED=1 in the
sanitizer build (fewer selectors).
"""

import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

SIFT = os.environ.get("SIFT_CLI", "")
SOURCE = os.environ.get("SIFT_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

FIELDS = ["h.durable", "h.priority", "h.ttl", "h.first_acquirer", "h.delivery_count", "p.message_id", "p.user_id",
          "p.to", "p.subject", "p.reply_to", "p.correlation_id", "p.content_type", "p.content_encoding",
          "p.absolute_expiry_time", "p.creation_time", "p.group_id", "p.group_sequence", "p.reply_to_group_id"]
JMS_NAMES = ["JMSMessageID", "JMSCorrelationID", "JMSPriority", "JMSTimestamp", "JMSExpiration", "JMSDeliveryMode",
             "JMSType", "JMSDestination", "JMSReplyTo", "JMSRedelivered", "JMSXDeliveryCount", "JMSXGroupID",
             "JMSXGroupSeq", "JMSXUserID"]
LITERALS = ["0", "1", "4", "9", "255", "-1", "1.5", "4294967295", "18446744073709551615", "-9223372036854775808",
            "''", "'a'", "'m'", "'z'", "'ID:'", "'PERSISTENT'", "TRUE", "FALSE", "0x00", "0x6162", "1e300"]
SKIPPED = re.compile(r"chunks skipped by summary (\d+)")
# Under AddressSanitizer each `sift` process runs several times slower: the release pass compares 120
# selectors, the sanitizer pass the first 40 of the same sequence (memory errors, not coverage, are
# what it adds).
SELECTORS = 40 if os.environ.get("SIFT_SANITIZED", "0") == "1" else 120


def selector(r, jms):
    def atom():
        field = r.choice(JMS_NAMES) if jms and r.random() < 0.5 else r.choice(FIELDS)
        kind = r.randrange(7)
        if kind == 0:
            return field + r.choice([" IS NULL", " IS NOT NULL"])
        if kind == 1:
            return f"{field} IN ({r.choice(LITERALS)}, {r.choice(LITERALS)})"
        if kind == 2:
            return f"{field} BETWEEN {r.choice(LITERALS)} AND {r.choice(LITERALS)}"
        if kind == 3:
            return f"{field} LIKE '{r.choice(['a', 'ID', '', '_', 'm'])}%'"
        return f"{field} {r.choice(['=', '<>', '<', '<=', '>', '>='])} {r.choice(LITERALS)}"

    text = atom()
    for _ in range(r.randrange(3)):
        text = ("NOT (" if r.random() < 0.25 else "(") + text + ")" + r.choice([" AND ", " OR "]) + atom()
    return text


class SkipOverOtherEncoders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="sift_skip_encoders_")
        cls.store = os.path.join(cls.dir.name, "store")
        records = os.path.join(cls.dir.name, "messages.rec")
        subprocess.run([sys.executable, os.path.join(SOURCE, "tests/amqp/generate_messages.py"), "--seed",
                        "13", "--count", "4000", "--out", records], check=True)
        loaded = subprocess.run([SIFT, "append", "--store", cls.store, "--stream", "g", "--max-chunk-messages", "5",
                                 records], capture_output=True, text=True)
        assert loaded.returncode == 0, loaded.stderr
        assert loaded.stdout.strip() == "0..3999", loaded.stdout

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def replay(self, flag, text, *extra):
        return subprocess.run([SIFT, "replay", "--store", self.store, "--stream", "g", flag, text] + list(extra),
                              capture_output=True, text=True)

    def test_skipping_never_changes_a_replay(self):
        r = random.Random(7)
        compared = skipping = 0
        for _ in range(SELECTORS):
            jms = r.random() < 0.3
            flag = "--jms" if jms else "--sql"
            text = selector(r, jms)
            read_all = self.replay(flag, text, "--no-skip", "--threads", "1")
            if read_all.returncode == 2:
                continue  # refused (LIKE over a number, an ordering of booleans): nothing to compare
            self.assertIn(read_all.returncode, (0, 1), read_all.stderr)
            for threads in ("1", "2"):
                skipped = self.replay(flag, text, "--threads", threads, "--stats")
                self.assertEqual((skipped.returncode, skipped.stdout), (read_all.returncode, read_all.stdout),
                                 f"{flag} {text} --threads {threads}")
                self.assertIn("sift: stats:", skipped.stderr)
                found = SKIPPED.search(skipped.stderr)  # the line says nothing of skips when there were none
                skipping += threads == "1" and found is not None and int(found.group(1)) > 0
            compared += 1
        self.assertGreater(compared, SELECTORS * 2 // 3)
        self.assertGreater(skipping, compared // 2)  # not vacuous: most selectors rule chunks out


if __name__ == "__main__":
    unittest.main()
