"""Which kind of routerlab file a TOML document is — a scenario, a sweep or an experiment —
told from its top-level keys, so that a file given to the wrong command is named for what it is
and the right command suggested, instead of its keys being reported unknown one by one."""

from __future__ import annotations

import tomllib

#: Top-level keys that only one kind of file has, checked in this order (an experiment also
#: has a `grid`, a sweep's base scenario a `topology`).
SIGNS = (
    ("experiment", ("claim", "analysis")),
    ("sweep", ("sweep", "axes")),
    ("scenario", ("topology", "workload")),
)


def kind_of(doc: dict) -> tuple[str, str] | None:
    """(kind, the key that tells it), or None for a document none of the signs fit."""
    for kind, keys in SIGNS:
        for key in keys:
            if key in doc:
                return kind, key
    return None


def misfiled(document: str | dict, expected: str, path: str = "FILE") -> str | None:
    """A one-line problem if `document` (TOML text or parsed, from `path`) is another kind of
    file than `expected`, saying what it is and which command takes it; None otherwise, and
    for text that is not TOML (the parser reports that)."""
    if isinstance(document, str):
        try:
            document = tomllib.loads(document)
        except tomllib.TOMLDecodeError:
            return None
    found = kind_of(document)
    if found is None or found[0] == expected:
        return None
    kind, key = found
    command = {
        "scenario": f"routerlab run {path}",
        "sweep": f"routerlab sweep {path}",
        "experiment": f"routerlab reproduce {document.get('id', 'ID')}",
    }[kind]
    article = "an" if kind == "experiment" else "a"
    return (
        f"this is {article} {kind} file (it has `{key}`), not a {expected}: run it with `{command}`"
    )
