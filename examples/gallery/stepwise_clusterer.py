"""
Step by step with ``Clusterer``
===============================

A :class:`smartigan.Clusterer` can be driven one sweep at a time: ``start``
draws the starts, each ``step`` runs one sweep (or Lloyd iteration) of the
running candidates, and stepping to the end gives exactly what ``fit``
gives. Useful for progress bars, for stopping on a time limit of your own,
or to watch the objective fall.
"""

# %%
import matplotlib.pyplot as plt

import smartigan

X, _ = smartigan.datasets.load_iris()

objectives = {}
for method in ("lloyd", "hartigan", "smartigan"):
    model = smartigan.Clusterer(10, method=method, n_init=1, refine=False, seed=3).start(X)
    trace = [model.objective_]
    while model.step():
        trace.append(model.objective_)
    objectives[method] = trace
    print(f"{method:9s} {len(trace) - 1:3d} steps, objective {trace[-1]:.3f}")

# The stepped model ends where a one-call fit ends.
fitted = smartigan.Clusterer(10, method="smartigan", n_init=1, refine=False, seed=3).fit(X)
print("same as fit:", fitted.objective_ == objectives["smartigan"][-1])

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for method, trace in objectives.items():
    ax.plot(range(len(trace)), trace, marker=".", label=method)
ax.set_xlabel("step (sweep or Lloyd iteration)")
ax.set_ylabel("objective")
ax.set_title("Iris, k = 10, one restart from the same start")
ax.legend()
