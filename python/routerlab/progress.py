"""Progress bars: on stderr when it is a terminal, as a widget in a Jupyter notebook (where
stderr is not a terminal, but a person is watching), never in a pipe unless asked."""

from __future__ import annotations

import sys


def in_notebook() -> bool:
    """Running inside a Jupyter kernel."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def wanted(progress: bool | None) -> bool:
    """Whether to show a bar: as asked, else when someone is watching."""
    return (sys.stderr.isatty() or in_notebook()) if progress is None else progress


def bar(**kw):
    """A tqdm bar on stderr, or tqdm's notebook widget inside Jupyter when ipywidgets is
    installed (without it, the text bar, which a notebook shows as it updates)."""
    if in_notebook() and _has_widgets():
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm(file=sys.stderr, **kw)


def _has_widgets() -> bool:
    from importlib.util import find_spec

    return find_spec("ipywidgets") is not None
