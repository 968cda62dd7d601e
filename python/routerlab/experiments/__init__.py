"""The experiments: one file per experiment in ``toml/`` (what to run and which claims to check)
and one analysis module per kind of experiment here (``analyze(exp, runs, quick)``: the runs
into tables, quantities and figures), with the helpers they share (``stats``, ``plots``,
``models``). The machinery that runs them and judges the claims is `routerlab.reproduction`.
"""
