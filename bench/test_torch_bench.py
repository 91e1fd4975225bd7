"""Tests of torch_bench.py's pure-Python parts (no torch, no GPU needed):
python3 -m unittest discover -s bench"""
import json
import os
import tempfile
import unittest

import torch_bench as tb


class TestPlan(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(len(tb.SHAPES), 21)
        self.assertIn((4, 33554432), tb.SHAPES)
        self.assertIn((16, 16, 2048, 2048), tb.SHAPES)
        self.assertEqual(len(set(tb.SHAPES)), len(tb.SHAPES))
        self.assertEqual(tb.parse_shapes("128x1024,16x16x2048x2048"), [(128, 1024), (16, 16, 2048, 2048)])

    def test_ops(self):
        self.assertNotIn("causal_softmax", tb.ops_for((8192, 4096)))
        self.assertEqual(tb.ops_for((16, 16, 2048, 2048)),
                         ("softmax", "causal_softmax", "softmax_backward", "log_softmax_backward"))
        n = sum(len(tb.ops_for(s)) for s in tb.SHAPES)
        self.assertEqual(n, 20 * 5 + 4)

    def test_bytes(self):
        s = (2048, 1024)
        n = 2048 * 1024
        self.assertEqual(tb.op_bytes("softmax", s, "float32"), 8 * n)
        self.assertEqual(tb.op_bytes("log_softmax", s, "bfloat16"), 4 * n)
        self.assertEqual(tb.op_bytes("masked_softmax", s, "float16"), 5 * n)
        self.assertEqual(tb.op_bytes("causal_softmax", (1, 1, 32, 32), "float32"), 8 * 1024)
        self.assertEqual(tb.op_bytes("softmax_backward", s, "float32"), 12 * n)
        self.assertEqual(tb.op_bytes("log_softmax_backward", s, "float16"), 6 * n)

    def test_bufs(self):
        l2 = 60_000_000
        for shape in tb.SHAPES:
            for op in tb.ops_for(shape):
                for dt in tb.DTYPES:
                    b = tb.op_bytes(op, shape, dt)
                    k = tb.num_bufs(b, l2)
                    if b >= 3 * l2:
                        self.assertEqual(k, 1)
                    else:
                        self.assertGreater(k * b, 3 * l2)
                    # nothing in the list exceeds the 60 GiB cap
                    self.assertLess(tb.peak_bytes(op, shape, dt, k), 60 * tb.GiB, (op, shape, dt))

    def test_record_and_json(self):
        r = tb.make_record("softmax", "float32", (8192, 4096), 100.0, 268435456, 1, 4000.0, 100)
        self.assertAlmostEqual(r["gbs"], 2684.355, places=2)
        self.assertAlmostEqual(r["pct_copy"], 67.109, places=2)
        self.assertEqual(r["shape"], [8192, 4096])
        doc = {"device": "x", "copy_gbs": 4000.0, "records": [r], "skipped": []}
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "sub", "torch.json")
            tb.write_json(p, doc)
            with open(p) as f:
                self.assertEqual(json.load(f), doc)
        lines = tb.summary_lines(doc)
        self.assertIn("1 records", lines[0])


if __name__ == "__main__":
    unittest.main()
