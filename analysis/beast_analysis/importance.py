"""Parameter importance, as BEAST did it: fit a random forest that predicts a
config's time from its parameter values, and rank the parameters by how much
of the forest's variance reduction their splits account for (impurity-based
importance, which sums to 1).

The target is log(time / best time of the template on that device and
problem), so configs measured on several problems or devices share one model
and a parameter that doubles the time counts the same at any scale. Only ok
configs are used: a failed config has no time. A parameter with a single
value cannot explain anything and is left out. The out-of-bag R^2 says how
much of the variation the parameters explain at all.
"""

import dataclasses
import math

from beast_analysis.plot_style import figure, message_figure, save, wrap
from beast_analysis.plots import ok_rows

# Fewer ok configs than this give no meaningful forest.
MIN_CONFIGS = 10
_TREES = 100


@dataclasses.dataclass
class Importance:
    template: str
    configs: int
    ranking: list  # [(parameter, importance)], most important first
    oob_r2: float
    constant: list


def _encode(values):
    """Numbers stay numbers (a split on their order means something); anything
    else becomes its rank among the distinct values."""
    if all(isinstance(v, (int, float)) for v in values):
        return [float(v) for v in values]
    order = {v: i for i, v in enumerate(sorted({str(v) for v in values}))}
    return [float(order[str(v)]) for v in values]


def fit(frame, template, names, seed=0):
    """Importance of each parameter of template; None with fewer than
    MIN_CONFIGS ok configs or no parameter that varies."""
    ok = ok_rows(frame[frame["template"] == template])
    params = list(ok["params"])
    varying = [n for n in names if len({str(p.get(n)) for p in params}) > 1]
    if len(ok) < MIN_CONFIGS or not varying:
        return None
    import numpy  # here: importing scikit-learn takes seconds, and only a fit needs it
    from sklearn.ensemble import RandomForestRegressor

    features = numpy.column_stack([_encode([p.get(n) for p in params]) for n in varying])
    best = ok.groupby(["device_id", "problem_id"])["median_ms"].transform("min")
    target = numpy.log((ok["median_ms"] / best).to_numpy(dtype=float))
    forest = RandomForestRegressor(
        n_estimators=_TREES, min_samples_leaf=2, oob_score=True, random_state=seed, n_jobs=1
    )
    forest.fit(features, target)
    ranking = sorted(zip(varying, forest.feature_importances_.tolist()), key=lambda item: -item[1])
    return Importance(
        template, len(ok), ranking, float(forest.oob_score_), [n for n in names if n not in varying]
    )


def plot(result, template, path):
    """A bar chart of result (from fit); a sentence when there is none."""
    title = f"{template}: parameter importance"
    if result is None:
        message_figure(
            path,
            title,
            f"Too few ok configs of {template} (fewer than {MIN_CONFIGS}) or no "
            "parameter that varies: no model to fit.",
        )
        return ""
    names = [name for name, _ in result.ranking]
    values = [value for _, value in result.ranking]
    fig, ax = figure(8, 1.2 + 0.35 * len(names), layout="constrained")
    ax.barh(range(len(names)), values, color="tab:green", height=0.6)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("importance (share of the forest's variance reduction)")
    r2 = "n/a" if math.isnan(result.oob_r2) else f"{result.oob_r2:.2f}"
    ax.set_title(
        wrap(
            f"{title} (random forest of {_TREES} trees on {result.configs} ok configs, "
            f"out-of-bag R\u00b2 = {r2})",
            90,
        ),
        fontsize=10,
    )
    for i, value in enumerate(values):
        ax.text(value, i, f" {value:.3f}", va="center", fontsize=7)
    save(fig, path)
    if result.constant:
        return f"Left out, one value among the ok configs: {', '.join(result.constant)}."
    return ""
