"""Writes the numpy files of `mlc data import`'s tests (tests/tools/data_cli_test.cc,
tests/runtime/data_import_test.cc) with numpy itself, and what they hold:

    tests/data/npy/arrays.npz             numpy.savez (stored members)
    tests/data/npy/arrays_deflated.npz    numpy.savez_compressed (deflated members)
    tests/data/npy/fortran.npy            a Fortran-ordered int32 [2, 3]
    tests/data/npy/big_endian.npy         '>f4' (refused)
    tests/data/npy/expected.json          per array: mlc's dtype, shape, values in C order

Values are multiples of 1/8 (and a NaN-free, exactly representable set), so
that the JSON numbers are the arrays' values exactly. Run with Debian's
python3-numpy: /usr/bin/python3 tests/oracle/npy_files.py
"""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "data", "npy")

arrays = {
    "f32": np.arange(-6, 6, dtype="<f4").reshape(3, 4) / 8,
    "f64": np.array([[1e-300, -2.5], [0.125, 3e300]], dtype="<f8"),
    "f16": np.array([0.5, -1.75, 65504.0], dtype="<f2"),
    "i32": np.array([-2147483648, 0, 2147483647], dtype="<i4"),
    "i64": np.array([[-(2**62), 1], [2, 2**62]], dtype="<i8"),
    "u8": np.array([[0, 255], [7, 128]], dtype="|u1"),
    "i8": np.array([-128, 127], dtype="|i1"),
    "u16": np.array([65535, 1], dtype="<u2"),
    "flags": np.array([True, False, True], dtype="|b1"),
    "fortran_f32": np.asfortranarray(np.arange(24, dtype="<f4").reshape(2, 3, 4) / 8),
    "scalar": np.array(1.5, dtype="<f4"),
    "empty": np.zeros((0, 3), dtype="<f4"),
}
mlc_dtype = {"f32": "f32", "f64": "f64", "f16": "f16", "i32": "i32", "i64": "i64", "u8": "i64", "i8": "i64",
             "u16": "i64", "flags": "bool", "fortran_f32": "f32", "scalar": "f32", "empty": "f32"}

np.savez(os.path.join(OUT, "arrays.npz"), **arrays)
np.savez_compressed(os.path.join(OUT, "arrays_deflated.npz"), **arrays)
np.save(os.path.join(OUT, "fortran.npy"), np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3)))
np.save(os.path.join(OUT, "big_endian.npy"), np.arange(3, dtype=">f4"))

expected = {}
for name, a in arrays.items():
    values = np.ascontiguousarray(a).reshape(-1)
    values = [bool(v) if a.dtype == np.bool_ else (int(v) if a.dtype.kind in "iu" else float(v)) for v in values]
    expected[name] = {"dtype": mlc_dtype[name], "shape": list(a.shape), "values": values}
with open(os.path.join(OUT, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")
