"""`routerlab report DIR`: one self-contained HTML page for a sweep or a reproduction.

The page holds everything needed to read and rerun the results without the directory: the
figures (PNG, embedded as data URIs), the tables, the verdicts of a reproduction, the exact
scenario files, the seeds and the versions. It has no scripts and loads nothing, so it opens
from a file, a mail attachment or an artifact store alike.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from .output import write_text_atomic
from .quantities import described, number, quantity
from .reproduction.verdict import ours_text, paper_text

#: Rows of a table shown before the rest is left to the Parquet file.
MAX_ROWS = 200
#: Configuration scenarios shown in full before the rest is left to DIR/scenarios.
MAX_SCENARIOS = 50

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; vertical-align: top; }
th { background: #f4f4f4; } td { white-space: nowrap; } td.text, th.text { text-align: left; }
figure { display: inline-block; margin: .5em; } figure img { max-width: 100%; }
figcaption { font-size: 12px; color: #555; text-align: center; }
pre { background: #f7f7f7; padding: .6em; overflow-x: auto; font-size: 12px; }
.holds { color: #17612a; font-weight: bold; } .differs { color: #a4281f; font-weight: bold; }
.wrap { overflow-x: auto; } pre.notes { white-space: pre-wrap; } details { margin: .4em 0; }
table.verdicts { width: 100%; table-layout: fixed; }
table.verdicts td { white-space: normal; overflow-wrap: anywhere; }
table.verdicts col.claim { width: 34%; } table.verdicts col.paper { width: 20%; }
table.verdicts col.ours { width: 16%; } table.verdicts col.criterion { width: 18%; }
table.verdicts col.verdict { width: 12%; }
.not-judged { color: #7a5a00; font-weight: bold; } .notes code { font-size: 12px; }
"""


class ReportError(Exception):
    """A directory that is neither a sweep's nor a reproduction's."""


def _e(text) -> str:
    return html.escape(str(text))


def _table(df: pd.DataFrame, rows: int = MAX_ROWS) -> str:
    """`df` as HTML: result columns named in words with their units, numbers without exponents."""
    more = ""
    if len(df) > rows:
        more = f"<p>First {rows} of {len(df)} rows.</p>"
        df = df.head(rows)
    df = _in_units(df)
    body = df.to_html(index=False, border=0, na_rep="", formatters=_formatters(df))
    return f'<div class="wrap">{body}</div>{more}'


def _in_units(df: pd.DataFrame) -> pd.DataFrame:
    """Numeric result columns scaled to their units and titled `name (unit)`."""
    out = {}
    for col in df.columns:
        values = df[col]
        if pd.api.types.is_numeric_dtype(values) and described(col):
            q = quantity(col)
            out[q.title()] = values * q.scale if q.scale != 1 else values  # whole stay whole
        else:
            out[col] = values
    return pd.DataFrame(out)


def _formatters(df: pd.DataFrame) -> dict:
    """Fractional numbers without exponents; whole ones (seeds, counts) as they are."""
    return {c: number for c in df.columns if pd.api.types.is_float_dtype(df[c])}


def _figures(directory: Path) -> str:
    pngs = sorted((directory / "figures").glob("*.png"))
    if not pngs:
        return "<p>No figures.</p>"
    parts = []
    for p in pngs:
        data = base64.b64encode(p.read_bytes()).decode()
        parts.append(
            f'<figure><img src="data:image/png;base64,{data}" alt="{_e(p.stem)}">'
            f"<figcaption>{_e(p.name)} (SVG beside it in figures/)</figcaption></figure>"
        )
    return "\n".join(parts)


def _file(title: str, path: Path, open_: bool = False) -> str:
    if not path.is_file():
        return ""
    attr = " open" if open_ else ""
    return (
        f"<details{attr}><summary>{_e(title)}</summary><pre>{_e(path.read_text())}</pre></details>"
    )


def _scenarios(directory: Path) -> str:
    files = sorted((directory / "scenarios").glob("*.toml"))
    parts = [_file(f"scenarios/{p.name}", p) for p in files[:MAX_SCENARIOS]]
    if len(files) > MAX_SCENARIOS:
        parts.append(f"<p>… and {len(files) - MAX_SCENARIOS} more in scenarios/.</p>")
    return "\n".join(parts)


def _page(title: str, sections: list[tuple[str, str]]) -> str:
    body = "\n".join(f"<h2>{_e(h)}</h2>\n{content}" for h, content in sections if content)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style></head>\n"
        f"<body><h1>{_e(title)}</h1>\n{body}\n</body></html>\n"
    )


def _provenance(items: dict) -> str:
    rows = "".join(
        f'<tr><th class="text">{_e(k)}</th><td class="text">{_e(v)}</td></tr>'
        for k, v in items.items()
    )
    return f"<table>{rows}</table>"


def _estimates(stats: pd.DataFrame) -> pd.DataFrame:
    """`NAME`, `NAME_ci95_lo`, `NAME_ci95_hi` columns as one column of "mean [lo, hi]"."""
    out = {}
    for col in stats.columns:
        if col.endswith(("_ci95_lo", "_ci95_hi")):
            continue
        lo, hi = f"{col}_ci95_lo", f"{col}_ci95_hi"
        if lo not in stats.columns:
            out[col] = stats[col]
            continue
        q = quantity(col)
        out[q.title()] = [
            number(m * q.scale)
            if pd.isna(a) or a == b
            else f"{number(m * q.scale)} [{number(a * q.scale)}, {number(b * q.scale)}]"
            for m, a, b in zip(stats[col], stats[lo], stats[hi], strict=True)
        ]
    return pd.DataFrame(out)


def campaign_page(directory: Path) -> str:
    from .sweeps import Campaign

    c = Campaign(directory)
    m = c.manifest
    sweep = m["sweep"]
    stats = c.stats()
    runs = c.table()
    failures = c.failures()
    axes = ", ".join(f"{a['name']} ({len(a['values'])} values)" for a in sweep["axes"]) or "none"
    overview = _provenance(
        {
            "description": sweep.get("description") or "—",
            "axes": axes,
            "constants": json.dumps(sweep["constants"], sort_keys=True) or "{}",
            "configurations": len(m["configs"]),
            "replicates": sweep["seeds"],
            "runs done": f"{len(m['runs'])} of {m['total_runs']}",
            "runs failed": len(failures),
            "campaign seed": sweep["campaign_seed"],
            "seeds": "per run in the runs table: sha256(campaign seed / scenario hash / "
            "replicate), first 63 bits",
            "routerlab": f"{m['routerlab_version']} (git {m['git_commit']})",
            "python": m["python"],
        }
    )
    fail_html = ""
    if failures:
        fail_df = pd.DataFrame(
            [
                {
                    "run": f["run"],
                    "config": f["config"],
                    "replicate": f["replicate"],
                    "seed": f["seed"],
                    "params": json.dumps(f["params"], sort_keys=True),
                    "error": f["error"],
                }
                for f in failures
            ]
        )
        fail_html = _table(fail_df)
    files = "\n".join(
        [
            _file("sweep.toml (as given)", directory / "sweep.toml", open_=True),
            _file("base.toml (the base scenario)", directory / "base.toml"),
            _scenarios(directory),
        ]
    )
    return _page(
        f"Sweep {c.name}",
        [
            ("Overview", overview),
            ("Figures", _figures(directory)),
            (
                "Configurations (mean [95 % confidence interval] over replicates)",
                _table(_estimates(stats)),
            ),
            ("Failed runs", fail_html),
            ("Every run", f"<details><summary>{len(runs)} runs</summary>{_table(runs)}</details>"),
            ("Scenario files", files),
        ],
    )


def _verdicts(verdict: dict) -> str:
    """The claims as a table that wraps its text to the page's width (no horizontal scroll)."""
    rows = []
    for c in verdict["claims"]:
        css = "not-judged" if c["verdict"].startswith("not judged") else c["verdict"]
        rows.append(
            f'<tr><td class="text"><b>{_e(c["id"])}</b>: {_e(c["statement"])}</td>'
            f'<td class="text">{_e(paper_text(c))}</td><td class="text">{_e(ours_text(c))}</td>'
            f'<td class="text"><code>{_e(c["criterion"])}</code></td>'
            f'<td class="text {_e(css)}">{_e(c["verdict"])}</td></tr>'
        )
    cols = "".join(f'<col class="{k}">' for k in ("claim", "paper", "ours", "criterion", "verdict"))
    head = (
        '<tr><th class="text">claim</th><th class="text">paper</th><th>ours (95 % CI)</th>'
        '<th class="text">criterion</th><th class="text">verdict</th></tr>'
    )
    return f'<table class="verdicts">{cols}{head}{"".join(rows)}</table>'


def _markdown(text: str) -> str:
    """Markdown (the verdict's notes) as HTML; raw HTML in it is escaped, not passed on."""
    import markdown

    md = markdown.Markdown(extensions=["tables"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md.convert(text)


def _verdict_notes(verdict: dict, directory: Path) -> str:
    """What follows the table: each criterion's reasoning and tolerance, the explanations of
    differing claims, and the analysis's notes, rendered."""
    from .reproduction.verdict import claim_notes

    text = "\n".join(claim_notes(verdict))
    notes = verdict.get("notes")
    if notes is None:  # written before verdict.json carried the notes: take verdict.md's
        md = directory / "verdict.md"
        lines = md.read_text().splitlines() if md.is_file() else []
        last = max((i for i, line in enumerate(lines) if line.startswith("|")), default=-1)
        rest = [line for line in lines[last + 1 :] if not line.startswith("- *")]
        notes = "\n".join(rest).strip()
    if notes:
        text += "\n\n" + notes
    return f'<div class="notes">{_markdown(text)}</div>' if text.strip() else ""


def reproduction_page(directory: Path) -> str:
    verdict = json.loads((directory / "verdict.json").read_text())
    notes = _verdict_notes(verdict, directory)
    tables = "\n".join(
        f"<h3>{_e(p.stem)}</h3>{_table(pq.read_table(p).to_pandas())}"
        for p in sorted(directory.glob("*.parquet"))
    )
    overview = _provenance(
        {
            "experiment": verdict["experiment"],
            "quick": verdict["quick"],
            "seeds": ", ".join(str(s) for s in verdict["seeds"]),
            "routerlab": f"{verdict['routerlab_version']} (git {verdict['git_commit']})",
        }
    )
    files = "\n".join(
        [_file("experiment.toml", directory / "experiment.toml"), _scenarios(directory)]
    )
    # The mechanism matrix makes no paper's claims: its notes are the matrix itself.
    judged = ("Verdicts", _verdicts(verdict) + notes) if verdict["claims"] else ("Matrix", notes)
    return _page(
        f"Reproduction {verdict['experiment']}",
        [
            ("Overview", overview),
            judged,
            ("Figures", _figures(directory)),
            ("Tables", tables),
            ("Scenario files", files),
        ],
    )


def write_report(directory) -> Path:
    """Write DIR/report.html (atomically) for a sweep's or a reproduction's directory."""
    directory = Path(directory)
    if (directory / "manifest.json").is_file():
        page = campaign_page(directory)
    elif (directory / "verdict.json").is_file():
        page = reproduction_page(directory)
    else:
        raise ReportError(
            f"{directory}: neither a sweep's directory (manifest.json) nor a reproduction's "
            "(verdict.json)"
        )
    out = directory / "report.html"
    write_text_atomic(out, page)
    return out
