// The Python the study runs: a "state" cell, the bench's 200-cell long log, and the check.

/** Top-level defs, a class, a 10k dict, stdlib modules with state, random seeded, a /tmp file, an open handle. */
export const STATE_CELL = `
import json, re, random, collections
random.seed(1234)
random.random()  # advance the generator once
def f7(x):
    return x * 7
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm2(self):
        return self.x * self.x + self.y * self.y
big = {f"k{i}": i * i for i in range(10000)}
pat = re.compile(r"[a-z]+[0-9]+")
json._cs_marker = 41          # module state set by the user
counter = collections.Counter("abracadabra")
with open("/tmp/scratch.txt", "w") as fh:
    fh.write("scratch v1")
keep = open("/tmp/keep.txt", "w")   # a handle left open across cells
keep.write("first;")
`;

/** bench/code-mode-state.ts longLog, cell i. */
export function longCell(i: number): string {
  return `def f${i}(x):\n    return x * ${i}\nlast = f${i}(2)`;
}

/** One JSON answer about the state, the same live and after a restore. */
export const CHECK = `
import json as _j, os as _os
def _tmp():
    try:
        return open("/tmp/scratch.txt").read()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
def _keep():
    try:
        keep.write("second;"); keep.flush()
        return "ok"
    except Exception as e:
        return f"{type(e).__name__}: {e}"
_j.dumps({
  "f7": f7(3), "point": Point(3, 4).norm2(), "big": [len(big), big["k9999"]],
  "json": json.dumps({"a": [1, 2]}), "json_marker": getattr(json, "_cs_marker", None),
  "re": bool(pat.match("abc123")), "counter": counter.most_common(2),
  "random": [random.random() for _ in range(3)], "hash": hash("stable?"),
  "tmp_file": _tmp(), "open_handle": _keep(),
})
`;

export const LONG_CHECK = `__import__("json").dumps({"last": last, "f199": f199(2), "f0": f0(5), "n_defs": len([k for k in globals() if k.startswith("f") and k[1:].isdigit()])})`;

export const BIG_CHECK = `__import__("json").dumps({"blob": [len(blob), sum(blob[:4096]), sum(blob[-4096:])], "nums": [len(nums), nums[-1]]})`;
