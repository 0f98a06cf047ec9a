# How tests/data/confseq_dkelly.csv was made (run once; confseq does not build here: its C++ part needs Boost).
# Needs the confseq sources unpacked at /tmp/cs/src (git archive of the commit named in the csv).
import sys, numpy as np
np.float_ = np.float64  # confseq predates numpy 2
sys.path[:0] = ["/tmp/cs/stub", "/tmp/cs/src"]
import matplotlib; matplotlib.use("Agg")
from confseq.betting import dKelly_cs
rng = np.random.default_rng(45)
rows = []
for seq, p in enumerate([0.1, 0.5, 0.85]):
    x = (rng.random(60) < p).astype(float)
    for delta in (0.05, 0.2):
        l, u = dKelly_cs(x, D=10, alpha=delta, breaks=20000, running_intersection=False, theta=0.5)
        k = np.cumsum(x).astype(int)
        for t in (1, 2, 5, 10, 20, 40, 60):
            rows.append((seq, delta, t, k[t-1], l[t-1], u[t-1]))
print("sequence,delta,n,k,lower,upper")
for r in rows:
    print(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.6f},{r[5]:.6f}")
