"""`make run`: grow ID3 on watermelon 2.0 and show the computation that chose the root.

This is the worked example of Zhou 2016, §4.2.1: information gain of each attribute at the root,
纹理 wins with 0.381, and the tree of the textbook's figure.
"""

import time

start = time.perf_counter()

import rootwise  # noqa: E402  (timed: import is part of start-up)
from rootwise import ID3Classifier, datasets  # noqa: E402

X, y = datasets.load_watermelon_2_0(return_X_y=True)
model = ID3Classifier().fit(X, y)

print("Watermelon 2.0 (17 rows), ID3 — candidate attributes at the root:\n")
print(rootwise.format_table(rootwise.explain(X, y, model)))
print("\nThe tree:\n")
print(rootwise.export_text(model))
accuracy = (model.predict(X) == y).mean()
print(f"\nleaves: {model.get_n_leaves()}, depth: {model.get_depth()}, training accuracy: {accuracy:.3f}")
# numba's compiled kernels come from its on-disk cache; the first run after installing rootwise
# (or editing rootwise/_core) compiles them, and takes longer
print(f"\ntook {time.perf_counter() - start:.2f} s (import rootwise, fit, explain, print)")
