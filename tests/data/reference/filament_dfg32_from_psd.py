#!/usr/bin/env python3
"""Converts the DFG table Filament's cmgen writes as a 32-bit float PSD into filament_dfg32.json.

    cmgen --size=32 -c 32 --ibl-dfg=filament_dfg32.psd --ibl-dfg-multiscatter
    python3 filament_dfg32_from_psd.py filament_dfg32.psd > filament_dfg32.json

The PSD holds planar, big-endian float32 channels (R, G, B) without compression; every value is
copied as the float32 it is (printed with 9 significant digits, which round-trips float32).
"""
import json
import struct
import sys


def read_float_psd(path):
    data = open(path, "rb").read()
    if data[:4] != b"8BPS":
        sys.exit(f"{path}: not a PSD file")
    channels, height, width, depth, mode = struct.unpack(">HIIHH", data[12:26])
    offset = 26
    for _ in range(3):  # colour mode data, image resources, layer and mask information
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        offset += 4 + length
    (compression,) = struct.unpack(">H", data[offset:offset + 2])
    offset += 2
    if depth != 32 or mode != 3 or compression != 0:
        sys.exit(f"{path}: expected an uncompressed 32-bit RGB PSD (depth {depth}, mode {mode}, compression {compression})")
    n = width * height
    if offset + 4 * n * channels != len(data):
        sys.exit(f"{path}: unexpected size")
    planes = [struct.unpack(f">{n}f", data[offset + 4 * n * c: offset + 4 * n * (c + 1)]) for c in range(channels)]
    return width, height, planes


def main():
    width, height, planes = read_float_psd(sys.argv[1])
    if len(planes) != 3 or any(v != 0.0 for v in planes[2]):
        sys.exit(f"{sys.argv[1]}: expected channels R, G and an all-zero B")
    rows = [[[float(f"{planes[c][y * width + x]:.9g}") for c in range(2)] for x in range(width)] for y in range(height)]
    out = {
        "source": "Filament cmgen 1.9.25 (Debian libfilament-tools 1.9.25+dfsg2-10): "
                  "cmgen --size=32 -c 32 --ibl-dfg=filament_dfg32.psd --ibl-dfg-multiscatter",
        "width": width,
        "height": height,
        "layout": "values[y][x] = [psd channel R, psd channel G] as in the file, y = 0 the file's first (top) row",
        "channels": "R = B (the Fc term, 'bias'), G = A + B (albedo with F = 1); the file's B channel is 0",
        "mapping": "N.V = (x + 0.5) / width; perceptual roughness = min(1, (height - y + 0.5) / height), "
                   "alpha = roughness^2 (Filament CubemapIBL::DFG)",
        "values": rows,
    }
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
