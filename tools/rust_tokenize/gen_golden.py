import random, subprocess, json
rng = random.Random(20261129)
pools = {
 "ascii": (0x20, 0x7e), "latin1": (0xa0, 0x24f), "greek": (0x370, 0x3ff), "cyrillic": (0x400, 0x4ff),
 "devanagari": (0x900, 0x97f), "cjk": (0x4e00, 0x4e7f), "emoji": (0x1f300, 0x1f64f), "marks": (0x300, 0x36f),
 "enclosed": (0x2460, 0x24ff), "any": (0, 0x10ffff), "new": (0x10d40, 0x10d8f), "hebrew": (0x590,0x5ff),
}
special = [0x3a3, 0x130, 0x49, 0x345, 0x5f, 0x27, 0x2d, 0x20, 0x131, 0x1e9e, 0xdf, 0x2160, 0xbd, 0x660]
cases = []
for i in range(3000):
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
out = subprocess.run(['/tmp/rtok/target/release/rtok'], input=inp, capture_output=True, text=True).stdout.split("\n")
with open('/work/main/tests/data/rust_tokenize.jsonl', 'w', encoding='utf-8') as f:
    for cps, o in zip(cases, out):
        toks = ["".join(chr(int(h, 16)) for h in t.split(",")) for t in o.split(" ") if t]
        f.write(json.dumps({"text": "".join(map(chr, cps)), "tokens": toks}) + "\n")
