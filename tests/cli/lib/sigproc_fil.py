# SPDX-License-Identifier: MIT
"""For the cli tests' Python checks (PYTHONPATH=tests/cli/lib): a SIGPROC header read field by
field, and a filterbank written again with its band in rising frequency order. Not a test."""
import struct

_INTS = {"nchans", "nbits", "data_type", "nifs", "telescope_id", "machine_id", "nbeams", "ibeam", "barycentric"}


def header(path):
    """(fields, data bytes) of the SIGPROC file at `path`."""
    d = open(path, "rb").read()
    end = d.index(b"HEADER_END") + 10
    h, i = {}, d.index(b"HEADER_START") + 12
    while i < end - 10:
        n = struct.unpack("<i", d[i:i + 4])[0]
        k = d[i + 4:i + 4 + n].decode()
        i += 4 + n
        if k in ("source_name", "rawdatafile"):
            m = struct.unpack("<i", d[i:i + 4])[0]
            h[k] = d[i + 4:i + 4 + m].decode()
            i += 4 + m
        elif k in _INTS:
            h[k] = struct.unpack("<i", d[i:i + 4])[0]
            i += 4
        else:
            h[k] = struct.unpack("<d", d[i:i + 8])[0]
            i += 8
    return h, d[end:]


def write_rising_copy(src, dst):
    """The 8-bit filterbank `src` with its channels in the other order: fch1 the far end, foff
    negated, every spectrum reversed (the same band and data, the other way round)."""
    d = open(src, "rb").read()
    i = d.index(b"HEADER_END") + 10
    h, x = bytearray(d[:i]), d[i:]
    fields, _ = header(src)
    n, fch1, foff = fields["nchans"], fields["fch1"], fields["foff"]
    assert fields["nbits"] == 8, "8-bit data only"

    def at(k):
        return h.index(k) + len(k)

    h[at(b"fch1"):at(b"fch1") + 8] = struct.pack("<d", fch1 + (n - 1) * foff)
    h[at(b"foff"):at(b"foff") + 8] = struct.pack("<d", -foff)
    open(dst, "wb").write(bytes(h) + b"".join(x[s * n:(s + 1) * n][::-1] for s in range(len(x) // n)))
