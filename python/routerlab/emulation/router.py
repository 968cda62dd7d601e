"""The emulator's network process, run inside the router's namespace:
``python -m routerlab.emulation.router IN.pickle OUT.pickle``. At ``t0`` (``CLOCK_MONOTONIC``
seconds, the origin the hosts' plans count from too; its sockets are bound before) it starts
running the scenario's network on the hosts' frames, for the run's length
(``_core.emulate_network``)."""

from __future__ import annotations

import pickle
import sys

from .. import _core


def main(in_path: str, out_path: str) -> None:
    with open(in_path, "rb") as f:
        a = pickle.load(f)
    report = _core.emulate_network(
        a["text"],
        a["attachments"],
        a["duration_s"],
        start=a["t0"],
        seed=a["seed"],
        base_dir=a["base_dir"],
    )
    with open(out_path, "wb") as f:
        pickle.dump(report, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
