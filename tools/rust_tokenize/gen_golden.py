from __future__ import annotations

import json
import random
import subprocess

rng = random.Random(20261129)
pools = {
    "ascii": (0x20, 0x7E),
    "latin1": (0xA0, 0x24F),
    "greek": (0x370, 0x3FF),
    "cyrillic": (0x400, 0x4FF),
    "devanagari": (0x900, 0x97F),
    "cjk": (0x4E00, 0x4E7F),
    "emoji": (0x1F300, 0x1F64F),
    "marks": (0x300, 0x36F),
    "enclosed": (0x2460, 0x24FF),
    "any": (0, 0x10FFFF),
    "new": (0x10D40, 0x10D8F),
    "hebrew": (0x590, 0x5FF),
}
special = [
    0x3A3,
    0x130,
    0x49,
    0x345,
    0x5F,
    0x27,
    0x2D,
    0x20,
    0x131,
    0x1E9E,
    0xDF,
    0x2160,
    0xBD,
    0x660,
]
cases = []
for _ in range(3000):
    names = rng.sample(list(pools), k=rng.randint(1, 3))
    cps = []
    for _ in range(rng.randint(0, 16)):
        if rng.random() < 0.15:
            cp = rng.choice(special)
        else:
            lo, hi = pools[rng.choice(names)]
            cp = rng.randint(lo, hi)
        if 0xD800 <= cp < 0xE000:
            cp = 0x20
        cps.append(cp)
    cases.append(cps)
inp = "\n".join(" ".join(f"{c:x}" for c in cps) for cps in cases) + "\n"
out = subprocess.run(
    ["/tmp/rtok/target/release/rtok"], input=inp, capture_output=True, text=True
).stdout.split("\n")
with open("/work/main/tests/data/rust_tokenize.jsonl", "w", encoding="utf-8") as f:
    for cps, o in zip(cases, out, strict=False):
        toks = ["".join(chr(int(h, 16)) for h in t.split(",")) for t in o.split(" ") if t]
        f.write(json.dumps({"text": "".join(map(chr, cps)), "tokens": toks}) + "\n")
