"""Verdicts: each claim of an experiment judged by its operational criterion on our estimate.

A claim names a *quantity* the experiment's analysis computes (one value per seed, or a pooled
sample for percentiles), the paper's statement and number, and a criterion written before
running — a Python expression over ``mean``, ``ci_lo``, ``ci_hi`` (and ``n``), e.g.
``"ci_hi <= 0.3"``. The verdict is ``holds`` when the criterion is true and ``differs``
otherwise. A claim whose quantity the analysis did not produce is an error: no claim can be
silently omitted.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .stats import Estimate

CLAIM_KEYS = {"id", "statement", "source", "paper", "quantity", "criterion", "why"}


class ClaimError(Exception):
    """A claim is malformed or its quantity is missing."""


def judge(criterion: str, est: Estimate) -> bool:
    """Evaluate a criterion on an estimate. Missing interval bounds fall back to the mean."""
    env = {
        "mean": est.mean,
        "ci_lo": est.mean if est.ci_lo is None else est.ci_lo,
        "ci_hi": est.mean if est.ci_hi is None else est.ci_hi,
        "n": est.n,
        "abs": abs,
        "min": min,
        "max": max,
    }
    try:
        value = eval(criterion, {"__builtins__": {}}, env)  # noqa: S307 - our own experiment files
    except Exception as e:  # noqa: BLE001
        raise ClaimError(f"criterion {criterion!r} cannot be evaluated: {e}") from None
    if isinstance(est.mean, float) and math.isnan(est.mean):
        return False
    return bool(value)


def check_claims(experiment: dict) -> None:
    """Every claim has its keys, a unique id and a criterion that parses."""
    claims = experiment.get("claim", [])
    if not claims:
        raise ClaimError(f"experiment {experiment['id']} has no claims")
    seen = set()
    for c in claims:
        missing = CLAIM_KEYS - {"why"} - set(c)
        if missing:
            raise ClaimError(f"claim {c.get('id', '?')} lacks {sorted(missing)}")
        unknown = set(c) - CLAIM_KEYS
        if unknown:
            raise ClaimError(f"claim {c['id']} has unknown keys {sorted(unknown)}")
        if c["id"] in seen:
            raise ClaimError(f"claim id {c['id']} is used twice")
        seen.add(c["id"])
        try:
            compile(c["criterion"], c["id"], "eval")
        except SyntaxError as e:
            raise ClaimError(
                f"claim {c['id']}: criterion {c['criterion']!r} does not parse: {e.msg}"
            ) from None


def build_verdict(experiment: dict, estimates: dict[str, Estimate], meta: dict) -> dict:
    """The verdict document: every claim of `experiment`, judged on `estimates`."""
    check_claims(experiment)
    claims = []
    for c in experiment["claim"]:
        if c["quantity"] not in estimates:
            raise ClaimError(
                f"claim {c['id']}: the analysis produced no quantity {c['quantity']!r}"
            )
        est = estimates[c["quantity"]]
        claims.append(
            {
                "id": c["id"],
                "statement": c["statement"],
                "source": c["source"],
                "paper": c["paper"],
                "ours": est.mean,
                "ci95": None if est.ci_lo is None else [est.ci_lo, est.ci_hi],
                "n": est.n,
                "criterion": c["criterion"],
                "why": c.get("why", ""),
                "verdict": "holds" if judge(c["criterion"], est) else "differs",
            }
        )
    return {"experiment": experiment["id"], **meta, "claims": claims}


def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def write_verdict(directory: Path, verdict: dict, notes: str = "") -> None:
    """verdict.json (machine) and verdict.md (people)."""
    (directory / "verdict.json").write_text(json.dumps(verdict, indent=2, sort_keys=True) + "\n")
    lines = [
        f"# Verdict: {verdict['experiment']}" + (" (quick)" if verdict.get("quick") else ""),
        "",
        f"routerlab {verdict['routerlab_version']}, commit {verdict['git_commit']}, "
        f"{len(verdict['seeds'])} seeds.",
        "",
        "| claim | paper | ours (95 % CI) | criterion | verdict |",
        "|---|---|---|---|---|",
    ]
    for c in verdict["claims"]:
        ci = "" if c["ci95"] is None else f" [{_fmt(c['ci95'][0])}, {_fmt(c['ci95'][1])}]"
        lines.append(
            f"| **{c['id']}**: {c['statement']} ({c['source']}) | {c['paper']} | "
            f"{_fmt(c['ours'])}{ci} | `{c['criterion']}` | **{c['verdict']}** |"
        )
    lines.append("")
    for c in verdict["claims"]:
        if c["why"]:
            lines.append(f"- *{c['id']}* — criterion: {c['why']}")
    if notes:
        lines += ["", notes.strip()]
    (directory / "verdict.md").write_text("\n".join(lines) + "\n")
