#!/usr/bin/python3
"""Checks a bleak_subscriber.py log: every value is a 12-byte Wake envelope (version 1) and, within an
epoch, the sequence never goes back. The same Wake may arrive twice (a receiver drops the repeat, see
docs/wake-protocol.md); that is counted, not failed. Exit 0 when it holds; prints the first violation
otherwise. Usage: sequences.py FILE"""
import struct
import sys

last = {}
count = 0
repeats = 0
for line in open(sys.argv[1]):
    fields = line.split()
    if len(fields) != 3 or not fields[1].isdigit():
        continue
    value = bytes.fromhex(fields[2])
    if len(value) != 12 or value[0] != 1:
        sys.exit("not a Wake envelope: %s" % line.strip())
    epoch, sequence = struct.unpack("<HQ", value[2:])
    if epoch in last and sequence < last[epoch]:
        sys.exit("sequence %d after %d in epoch %d" % (sequence, last[epoch], epoch))
    if epoch in last and sequence == last[epoch]:
        repeats += 1
    last[epoch] = sequence
    count += 1
distinct = count - repeats
if distinct < 2:
    sys.exit("only %d distinct Wakes" % distinct)
print("%d envelopes (%d repeated), sequences growing in each epoch" % (count, repeats))
