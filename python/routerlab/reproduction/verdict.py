"""Verdicts: each claim of an experiment judged by its operational criterion on our estimate.

A claim names a *quantity* the experiment's analysis computes (one value per seed, or a pooled
sample for percentiles), the paper's statement and number, and a criterion written before
running — a Python expression over ``mean``, ``ci_lo``, ``ci_hi`` (and ``n``), e.g.
``"ci_hi <= 0.3"``. The verdict is ``holds`` when the criterion is true and ``differs``
otherwise; in a quick run, a claim whose interval straddles its criterion (true at one end of
the interval, false at the other) is ``not judged (quick)``: three seeds cannot resolve it; so
is, in every quick run, a claim with ``judge_quick = false``, whose effect is too small for the
quick run's size to judge (an interval that happens not to straddle would judge noise). A
claim whose quantity the analysis did not produce is an error: no claim can be silently
omitted.

Every claim states its ``tolerance``: how far from the paper's number the criterion lets ours
be, and why (a band where the paper gives a number); and its ``unit``: what the quantity is
measured in (e.g. "of the line rate", "× C/N", "s"). ``paper_value`` gives the paper's number
in that unit (a number, or ``[lo, hi]`` for a range) where the paper states one, so that the
verdict prints the paper's number and ours side by side. Optional keys: ``explanation`` (why ours
differs from the paper, when it does) and ``shown_by`` (the arm of this experiment — a grid
value, a variant, a grid key, or another claim — that demonstrates the explanation). A
differing claim's explanation without ``shown_by`` is reported as unverified.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..experiments.stats import Estimate

CLAIM_KEYS = {
    "id",
    "statement",
    "source",
    "paper",
    "quantity",
    "criterion",
    "why",
    "tolerance",
    "unit",
    "paper_value",
    "explanation",
    "shown_by",
    "judge_quick",
}
#: Keys a claim may leave out.
OPTIONAL_CLAIM_KEYS = {"why", "paper_value", "explanation", "shown_by", "judge_quick"}

HOLDS, DIFFERS, NOT_JUDGED = "holds", "differs", "not judged (quick)"


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


def resolved(criterion: str, est: Estimate) -> bool:
    """Does the interval resolve the criterion: is it true (or false) wherever in the interval
    the quantity lies? Judged at each end, as if the estimate were exactly there."""
    if est.ci_lo is None or est.ci_hi is None:
        return True
    ends = [Estimate(x, x, x, est.n) for x in (est.ci_lo, est.ci_hi)]
    return judge(criterion, ends[0]) == judge(criterion, ends[1])


def verdict_of(criterion: str, est: Estimate, quick: bool, judge_quick: bool = True) -> str:
    """holds, differs, or (quick runs only) not judged when the interval straddles or the
    claim is not to be judged quick."""
    if quick and (not judge_quick or not resolved(criterion, est)):
        return NOT_JUDGED
    return HOLDS if judge(criterion, est) else DIFFERS


def explanation_status(claim: dict) -> str | None:
    """For a differing claim: "shown" (an arm demonstrates the explanation), "unverified"
    (explained, no arm shows it) or "unexplained"; None for any other verdict."""
    if claim["verdict"] != DIFFERS:
        return None
    if not claim.get("explanation"):
        return "unexplained"
    return "shown" if claim.get("shown_by") else "unverified"


def arms(experiment: dict) -> set[str]:
    """What a claim's `shown_by` may name: a grid value, a variant, a grid key, or a claim."""
    names = {c["id"] for c in experiment.get("claim", []) if "id" in c}
    grids = [experiment.get("grid", {}), experiment.get("quick", {}).get("grid", {})]
    for g in grids:
        names |= set(g)
        for v in g.values():
            names |= {str(x) for x in (v if isinstance(v, list) else [v])}
    for key, table in experiment.get("variants", {}).items():
        names |= {key, *table}
    return names


def check_claims(experiment: dict) -> None:
    """Every claim has its keys, a unique id, a criterion that parses, and names an arm of
    the experiment in `shown_by` (if it names one)."""
    claims = experiment.get("claim", [])
    if not claims:
        raise ClaimError(f"experiment {experiment['id']} has no claims")
    known_arms = arms(experiment)
    seen = set()
    for c in claims:
        shown_by = c.get("shown_by")
        if shown_by is not None and str(shown_by) not in known_arms:
            raise ClaimError(
                f"claim {c.get('id', '?')}: shown_by {shown_by!r} is no arm of this experiment "
                "(a grid value, a variant or a claim id)"
            )
        if shown_by is not None and not c.get("explanation"):
            raise ClaimError(f"claim {c.get('id', '?')}: shown_by without an explanation")
        missing = CLAIM_KEYS - OPTIONAL_CLAIM_KEYS - set(c)
        if missing:
            raise ClaimError(f"claim {c.get('id', '?')} lacks {sorted(missing)}")
        unknown = set(c) - CLAIM_KEYS
        if unknown:
            raise ClaimError(f"claim {c['id']} has unknown keys {sorted(unknown)}")
        if c["id"] in seen:
            raise ClaimError(f"claim id {c['id']} is used twice")
        seen.add(c["id"])
        if not isinstance(c.get("judge_quick", True), bool):
            raise ClaimError(f"claim {c['id']}: judge_quick must be true or false")
        if "paper_value" in c and not _is_paper_value(c["paper_value"]):
            raise ClaimError(
                f"claim {c['id']}: paper_value {c['paper_value']!r} is neither a number nor "
                "[lo, hi] with lo <= hi"
            )
        try:
            compile(c["criterion"], c["id"], "eval")
        except SyntaxError as e:
            raise ClaimError(
                f"claim {c['id']}: criterion {c['criterion']!r} does not parse: {e.msg}"
            ) from None


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _is_paper_value(v) -> bool:
    if _is_number(v):
        return True
    return isinstance(v, list) and len(v) == 2 and all(map(_is_number, v)) and v[0] <= v[1]


def build_verdict(experiment: dict, estimates: dict[str, Estimate], meta: dict) -> dict:
    """The verdict document: every claim of `experiment`, judged on `estimates` (none for the
    mechanism matrix, which makes no paper's claims)."""
    if "claim" in experiment:
        check_claims(experiment)
    claims = []
    for c in experiment.get("claim", []):
        if c["quantity"] not in estimates:
            raise ClaimError(
                f"claim {c['id']}: the analysis produced no quantity {c['quantity']!r}"
            )
        est = estimates[c["quantity"]]
        claim = {
            "id": c["id"],
            "statement": c["statement"],
            "source": c["source"],
            "paper": c["paper"],
            "paper_value": c.get("paper_value"),
            "unit": c["unit"],
            "ours": est.mean,
            "ci95": None if est.ci_lo is None else [est.ci_lo, est.ci_hi],
            "n": est.n,
            "criterion": c["criterion"],
            "why": c.get("why", ""),
            "tolerance": c.get("tolerance"),
            "verdict": verdict_of(
                c["criterion"], est, bool(meta.get("quick")), c.get("judge_quick", True)
            ),
            "explanation": c.get("explanation"),
            "shown_by": c.get("shown_by"),
        }
        claim["explanation_status"] = explanation_status(claim)
        claims.append(claim)
    return {"experiment": experiment["id"], **meta, "claims": claims}


def fmt(x) -> str:
    """A number as the verdicts print it (4 significant digits)."""
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def explanation_line(claim: dict) -> str:
    """A differing claim's explanation, with what shows it."""
    status = claim["explanation_status"]
    if status == "unexplained":
        return "not yet explained."
    if status == "unverified":
        return f"{claim['explanation']} (unverified: no arm of the experiment shows it yet)"
    return f"{claim['explanation']} (shown by: `{claim['shown_by']}`)"


def paper_text(claim: dict) -> str:
    """The paper's statement, and its number in the claim's unit where it gives one."""
    value = claim.get("paper_value")
    if value is None:
        return claim["paper"]
    number = f"{fmt(value[0])}–{fmt(value[1])}" if isinstance(value, list) else fmt(value)
    return f"{claim['paper']} — {_with_unit(number, claim.get('unit'))}"


def ours_text(claim: dict) -> str:
    """Our estimate with its 95 % interval, in the claim's unit."""
    ci = "" if claim["ci95"] is None else f" [{fmt(claim['ci95'][0])}, {fmt(claim['ci95'][1])}]"
    return _with_unit(f"{fmt(claim['ours'])}{ci}", claim.get("unit"))


def _with_unit(number: str, unit: str | None) -> str:
    return number if not unit else f"{number} {unit}"


def claims_table(verdict: dict) -> list[str]:
    """The claims as a Markdown table: paper, ours with its interval (both in the claim's
    unit), criterion, verdict."""
    lines = [
        "| claim | paper | ours (95 % CI) | criterion | verdict |",
        "|---|---|---|---|---|",
    ]
    for c in verdict["claims"]:
        lines.append(
            f"| **{c['id']}**: {_cell(c['statement'])} ({_cell(c['source'])}) | "
            f"{_cell(paper_text(c))} | {_cell(ours_text(c))} | `{_cell(c['criterion'])}` | "
            f"**{c['verdict']}** |"
        )
    return lines


def claim_notes(verdict: dict) -> list[str]:
    """What follows the table, as Markdown lines: each criterion's reasoning and tolerance,
    then why each differing claim differs and what shows it."""
    lines = []
    for c in verdict["claims"]:
        if c.get("why"):
            lines.append(f"- *{c['id']}* — criterion: {c['why']}")
        if c.get("tolerance"):
            lines.append(f"- *{c['id']}* — tolerance: {c['tolerance']}")
    explained = [c for c in verdict["claims"] if c.get("explanation_status")]
    if explained:
        lines += ["", "Why ours differs:", ""]
        lines += [f"- *{c['id']}* — {explanation_line(c)}" for c in explained]
    return lines


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_verdict(directory: Path, verdict: dict, notes: str = "") -> None:
    """verdict.json (machine) and verdict.md (people)."""
    (directory / "verdict.json").write_text(json.dumps(verdict, indent=2, sort_keys=True) + "\n")
    lines = [
        f"# Verdict: {verdict['experiment']}" + (" (quick)" if verdict.get("quick") else ""),
        "",
        f"routerlab {verdict['routerlab_version']}, commit {verdict['git_commit']}, "
        f"{len(verdict['seeds'])} seeds.",
        "",
        *(claims_table(verdict) + [""] if verdict["claims"] else []),
        *claim_notes(verdict),
    ]
    if notes:
        lines += ["", notes.strip()]
    (directory / "verdict.md").write_text("\n".join(lines) + "\n")
