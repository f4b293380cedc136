"""OpenImageIO's BC6H decoder against ours (ctest: bc6h_oiio_read).

Reads the DDS files bake_bc6h_files wrote into DIR with OpenImageIO (its DDS reader decodes BC6H_UF16
to half floats) and compares every texel of every level, bit for bit, with the floats our decoder
(src/core/outputs/bc6h.h) made of the same blocks (the .f32 files beside them).
"""
import sys

import numpy as np
import OpenImageIO as oiio


def compare(path, expected_files):
    inp = oiio.ImageInput.open(path)
    if inp is None:
        return [f"{path}: OpenImageIO cannot open it: {oiio.geterror()}"]
    problems = []
    try:
        for level, expected_path in enumerate(expected_files):
            if not inp.seek_subimage(0, level):
                problems.append(f"{path}: no level {level}")
                break
            spec = inp.spec()
            if spec.get_string_attribute("compression") != "BC6HU":
                problems.append(f"{path}: compression {spec.get_string_attribute('compression')!r}, not BC6HU")
            got = inp.read_image(oiio.FLOAT)
            want = np.fromfile(expected_path, dtype=np.float32)
            if got is None or got.size != want.size:
                problems.append(f"{path} level {level}: {spec.width}x{spec.height}x{spec.nchannels}, "
                                f"not {want.size} values")
                continue
            got = np.ascontiguousarray(got, dtype=np.float32).reshape(-1)
            differ = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
            if differ.size:
                i = differ[0]
                problems.append(f"{path} level {level}: {differ.size} of {want.size} values differ "
                                f"(first: value {i}, OpenImageIO {got[i]!r}, ours {want[i]!r})")
            else:
                print(f"{path} level {level}: {spec.width}x{spec.height}, {want.size} values equal")
    finally:
        inp.close()
    return problems


def main():
    folder = sys.argv[1]
    levels = 0
    while True:
        try:
            open(f"{folder}/encoded_{levels}.f32", "rb").close()
        except OSError:
            break
        levels += 1
    problems = compare(f"{folder}/encoded.dds", [f"{folder}/encoded_{i}.f32" for i in range(levels)])
    problems += compare(f"{folder}/random.dds", [f"{folder}/random.f32"])
    if levels < 2:
        problems.append(f"{folder}: only {levels} levels of encoded.dds to compare")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
