"""The ``routerlab`` command.

Exit status: 0 success; 2 invalid scenario, bad arguments, or an output directory that would be
overwritten without ``--force``; 130 interrupted (Ctrl-C or SIGTERM); 1 anything else.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import textwrap
from pathlib import Path

from . import _core, display, output
from .bench import KEYS as BENCH_KEYS
from .output import AtomicDir, OutputExists, write_text_atomic
from .runner import (
    ScenarioInvalid,
    check_file,
    estimate_file,
    execute,
    prepare,
    problems_text,
    read_scenario,
    write_files,
)

EXIT_INVALID = 2
EXIT_INTERRUPTED = 130

DESCRIPTION = """\
routerlab — a packet-level laboratory for router-assisted transport.

Simulate networks packet by packet: TCP endpoints, routers with queue disciplines, and the
mechanisms in which routers help TCP. A scenario file (TOML) describes topology, queues,
transport and workload; see docs/scenario.md."""

EPILOG = """\
examples:
  routerlab run examples/dumbbell.toml            simulate, write results/dumbbell/
  routerlab run examples/dumbbell.toml --seed 7 --out /tmp/d7
  routerlab plot results/dumbbell                 draw that run: results/dumbbell/figures/
  routerlab validate examples/*.toml              check scenarios without running them
  routerlab reproduce --list                      the paper reproductions
  routerlab reproduce base-incast --quick         one reproduction, small and fast
  routerlab sweep examples/sweeps/buffers.toml    a parameter sweep, resumable
  routerlab report results/sweeps/buffers         its self-contained HTML report
  routerlab bench --repeat 5                      speed and memory on the benchmark scenarios
  routerlab VERB --help                           options of one verb"""


def _print_problems(path: str, problems: list[str]) -> None:
    print(problems_text(path, problems), file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.scenarios:
        try:
            problems = check_file(Path(path))
        except OSError as e:
            print(f"{path}: {e.strerror}", file=sys.stderr)
            status = EXIT_INVALID
            continue
        if problems:
            _print_problems(path, problems)
            status = EXIT_INVALID
        elif not args.quiet:
            memory, results = estimate_file(Path(path))
            print(f"{path}: ok (about {memory} of memory and {results} of results per run)")
    return status


def cmd_run(args: argparse.Namespace) -> int:
    path = Path(args.scenario)
    try:
        text = read_scenario(path)
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
        return EXIT_INVALID
    out = Path(args.out) if args.out else Path("results") / path.stem
    try:
        out.resolve().parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"routerlab: cannot create the output directory {out}: {e.strerror}", file=sys.stderr)
        return EXIT_INVALID
    try:
        # Checked and built once, before any output exists.
        prepared = prepare(text, seed=args.seed, base_dir=path.resolve().parent, name=str(path))
    except ScenarioInvalid as e:
        _print_problems(str(path), e.problems)
        return EXIT_INVALID
    try:
        # The temporary directory exists from the start: it is deleted if the run is
        # interrupted, and renamed into place only when every file is written.
        # A rerun replaces the previous result in the default directory; a directory named
        # with --out is the user's, replaced only with --force.
        with AtomicDir(out, force=args.force or not args.out) as d:
            result = execute(prepared, progress=args.progress)
            files = write_files(result, d.path, text)
            d.commit()
    except OutputExists as e:
        print(f"routerlab: {e}", file=sys.stderr)
        return EXIT_INVALID
    if not args.quiet:
        print_summary(path, out, result.summary, result.timing, files)
    for link, secs, header_drops in cp_overloads(result.links):
        print(
            f"routerlab: warning: CP on {link}: input exceeded 13.1x the output rate for "
            f"{secs * 1e3:g} ms ({header_drops} headers dropped); the header buffer is sized "
            "for less",
            file=sys.stderr,
        )
    return 0


def cp_overloads(links) -> list[tuple[str, float, int]]:
    """(link, seconds, header drops) of the CP queues whose input exceeded the ratio their
    header buffer is sized for."""
    rows = links.select(["link", "cp_overload_s", "header_drops"]).to_pylist()
    return [
        (r["link"], r["cp_overload_s"], r["header_drops"]) for r in rows if r["cp_overload_s"] > 0
    ]


def print_summary(path: Path, out: Path, s: dict, timing: dict, files: list[str]) -> None:
    wall = timing["wall_seconds"]
    rows = [
        ("scenario", f"{path} (seed {s['seed']})"),
        (
            "simulated",
            f"{s['sim_seconds']:g} s in {wall:.2f} s wall "
            f"({timing['events_per_s'] / 1e6:.1f} M events/s)",
        ),
        *display.run_rows(s),
        ("results", f"{out}/  ({', '.join(files)})"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import reproduction
    from .sweeps import BackendError

    def fail(message: str) -> int:
        print(f"routerlab: {message}", file=sys.stderr)
        return EXIT_INVALID

    try:
        known = reproduction.available()
    except reproduction.ExperimentError as e:
        return fail(str(e))
    if args.list:
        width = max((len(k) for k in known), default=0)
        for exp_id, exp in known.items():
            print(f"{exp_id:<{width}}  {exp['title']}")
        return 0
    if args.experiment is None:
        return fail("which experiment? give an ID, or all (see --list)")
    runnable = {i: e for i, e in known.items() if i != reproduction.MATRIX_ID}
    root = Path(args.out) if args.out else Path("results") / "reproduce"
    if args.experiment == "document":
        return write_document(root, runnable, Path(args.to) if args.to else None, fail)
    if args.to:
        return fail("--to goes with the document command (routerlab reproduce document)")
    if args.experiment == "all":
        targets = [(i, root / i) for i in runnable]
    elif args.experiment in known:
        out = Path(args.out) if args.out else Path("results") / "reproduce" / args.experiment
        targets = [(args.experiment, out)]
    else:
        return fail(f"no experiment {args.experiment!r}; known: {', '.join(known)} (or all)")
    if args.seeds is not None and args.seeds < 2:
        return fail("--seeds must be at least 2 (a confidence interval needs two)")
    if args.jobs is not None and args.jobs < 1:
        return fail("--jobs must be at least 1")
    # A rerun replaces the previous results in the default directories; directories named with
    # --out are the user's, replaced only with --force.
    force = args.force or not args.out
    # Everything that can be refused is refused before the first run.
    try:
        for exp_id, out in targets:
            reproduction.check_scenarios(known[exp_id], args.quick)
            if not force:
                AtomicDir(out).check()
    except (reproduction.ExperimentError, OutputExists) as e:
        return fail(str(e))
    for exp_id, out in targets:
        try:
            verdict = reproduction.reproduce(
                exp_id,
                out,
                quick=args.quick,
                seeds=args.seeds,
                force=force,
                jobs=args.jobs,
                progress=args.progress,
                backend=args.backend,
                scheduler=args.scheduler,
                keep_runs=args.keep_runs,
            )
        except KeyboardInterrupt:
            kept = reproduction.store_of(out)
            print(
                f"routerlab: interrupted; nothing was written to {out}/, the runs done are kept "
                f"in {kept}/ (rerun to resume)",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
        except reproduction.RunFailed as e:
            print(f"routerlab: {e}; nothing was written to {out}/", file=sys.stderr)
            return 1
        except BackendError as e:
            return fail(f"{e}; nothing was written to {out}/")
        if not args.quiet:
            print_verdict(verdict, out)
    if args.experiment == "all":
        return write_document(root, runnable, None, fail, quiet=args.quiet)
    return 0


def write_document(root: Path, runnable: dict, to: Path | None, fail, quiet=False) -> int:
    """The results document from the verdicts under `root` (default ROOT/experiments.md)."""
    from .reproduction.document import DocumentError, document

    to = to or root / "experiments.md"
    try:
        text = document(root, runnable)
    except DocumentError as e:
        return fail(str(e))
    write_text_atomic(to, text)
    if not quiet:
        print(f"results document → {to}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweeps

    if args.jobs is not None and args.jobs < 1:
        print("routerlab: --jobs must be at least 1", file=sys.stderr)
        return EXIT_INVALID
    out = Path(args.out) if args.out else sweeps.default_out(Path(args.sweep).stem)
    try:
        spec = sweeps.load_spec(Path(args.sweep))
        campaign = sweeps.run_campaign(
            spec,
            out,
            backend=args.backend,
            jobs=args.jobs,
            scheduler=args.scheduler,
            retry_failed=args.retry_failed,
            progress=args.progress,
            quiet=args.quiet,
        )
    except KeyboardInterrupt:
        print(
            f"routerlab: interrupted; the runs done are kept in {out}/ (rerun to resume)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except (sweeps.SweepError, sweeps.BackendError) as e:
        print(f"routerlab: {e}", file=sys.stderr)
        return EXIT_INVALID
    failures = campaign.failures()
    for f in failures:
        first = f["error"].splitlines()[0]
        print(
            f"routerlab: run {f['run']} failed ({format_params(f['params'])}, replicate "
            f"{f['replicate']}, seed {f['seed']}): {first}",
            file=sys.stderr,
        )
    if failures:
        print(
            f"routerlab: {len(failures)} runs failed (errors in {out}/manifest.json); "
            "rerun with --retry-failed to try them again",
            file=sys.stderr,
        )
        return 1
    if not args.quiet:
        print(f"{out}/  (manifest.json, tables/runs.parquet, configs.parquet, report.html)")
    return 0


def format_params(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def _write_into(args: argparse.Namespace, write, refused: type[Exception]) -> int:
    """Run `write(DIR)` for a verb that writes files into an existing result directory: a
    directory of the wrong kind exits 2 with its message; the files written are printed."""
    try:
        written = write(Path(args.directory))
    except refused as e:
        print(f"routerlab: {e}", file=sys.stderr)
        return EXIT_INVALID
    if not args.quiet:
        print("\n".join(str(p) for p in (written if isinstance(written, list) else [written])))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import ReportError, write_report

    return _write_into(args, write_report, ReportError)


def cmd_plot(args: argparse.Namespace) -> int:
    from .runplot import RunPlotError, plot_dir

    return _write_into(args, plot_dir, RunPlotError)


#: p values `routerlab model taq` shows when none are given: around the paper's tipping point.
MODEL_TAQ_PS = (0.01, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)


def cmd_model(args: argparse.Namespace) -> int:
    from .model import taq

    ps = args.p or list(MODEL_TAQ_PS)
    try:
        for p in ps:
            taq.check_p(p)
        if args.w_max < taq.MIN_FAST_RETRANSMIT_WINDOW:
            raise taq.ModelError(
                f"--w-max {args.w_max}: the model needs at least {taq.MIN_FAST_RETRANSMIT_WINDOW}"
            )
    except taq.ModelError as e:
        print(f"routerlab model taq: {e}", file=sys.stderr)
        return 2
    names = taq.states(args.w_max)
    print("stationary distribution (one step = one epoch):")
    print(f"{'p':>6} " + " ".join(f"{n:>6}" for n in names) + "  timeouts  idle epochs")
    for p in ps:
        pi = taq.stationary(p, args.w_max)
        s = taq.summary(p, args.w_max)
        print(
            f"{p:>6.3f} "
            + " ".join(f"{x:>6.3f}" for x in pi)
            + f"  {s['timeout_share']:>8.3f}  {s['expected_idle_epochs']:>11.3f}"
        )
    print("timeouts: share of epochs in b0, b* or S1; idle epochs: expected wait in b*, 1/(1 − 2p)")
    if args.out:
        try:
            with AtomicDir(Path(args.out), force=args.force) as d:
                taq.write(d.path, ps, args.w_max)
                d.commit()
        except OutputExists as e:
            print(f"routerlab model taq: {e}", file=sys.stderr)
            return 2
        print(f"written to {args.out}/ (stationary.csv, summary.csv, taq-model.png, .svg)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    try:
        paths = bench.resolve(args.scenario or list(bench.scenarios()))
    except bench.BenchError as e:
        print(f"routerlab: {e}", file=sys.stderr)
        return EXIT_INVALID
    if args.repeat < 1:
        print("routerlab: --repeat must be at least 1", file=sys.stderr)
        return EXIT_INVALID

    def progress(message: str) -> None:
        print(f"bench: {message}", file=sys.stderr, flush=True)

    machine = f"machine: {bench.machine_line()}"
    progress(machine)
    before = bench.probe_caches()
    try:
        results = bench.run(paths, args.repeat, progress)
    except bench.BenchError as e:
        print(f"routerlab: {e}", file=sys.stderr)
        return 1
    probe = bench.probe_line(before, bench.probe_caches())
    if args.json:
        import json

        progress(probe)
        print(json.dumps([{k: r[k] for k in BENCH_KEYS} for r in results], indent=2))
    else:
        print(bench.format_report(results, [machine, probe], judge=args.targets))
    return 0


def print_verdict(verdict: dict, out: Path) -> None:
    quick = " (quick)" if verdict["quick"] else ""
    print(f"{verdict['experiment']}{quick}: {len(verdict['seeds'])} seeds → {out}/")
    if not verdict["claims"]:
        print(f"  no claims to judge: tables in {out}/verdict.md, heat maps in {out}/figures/")
    for c in verdict["claims"]:
        ci = "" if c["ci95"] is None else f" [{c['ci95'][0]:.3g}, {c['ci95'][1]:.3g}]"
        ours = f"{c['ours']:.3g}" if isinstance(c["ours"], float) else str(c["ours"])
        print(f"  {c['verdict']:<7} {c['id']}: ours {ours}{ci}; criterion {c['criterion']}")


def report_interrupt() -> int:
    """Say what an interrupt left: 0 if it landed after every result begun was complete and in
    place (only the report to the terminal was cut short), else 130."""
    done = ", ".join(f"{p}/" for p in output.COMMITTED)
    if output.COMMITTED and not output.ABANDONED:
        print(f"routerlab: interrupted after the result was written: {done}", file=sys.stderr)
        return 0
    lost = ", ".join(f"{p}/" for p in output.ABANDONED) or "no result"
    kept = f"; complete and kept: {done}" if done else ""
    print(f"routerlab: interrupted; {lost} not written{kept}", file=sys.stderr)
    return EXIT_INTERRUPTED


def _raise_interrupt(signum, frame):  # noqa: ARG001
    raise KeyboardInterrupt


def add_progress_flags(parser: argparse.ArgumentParser) -> None:
    """--progress / --no-progress, defaulting to a bar only when stderr is a terminal."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar (default: only on a terminal)",
    )
    group.add_argument("--no-progress", dest="progress", action="store_false")


def _size(text: str) -> str:
    """An argparse type: a size in bytes ("64GB"), kept as written for the environment."""
    b = _core.parse_bytes(text)
    if not b:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in bytes (e.g. 64GB)")
    return text


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """--max-memory / --max-output: the work a scenario may imply (each run, checked before
    anything is built; default half this machine's memory)."""
    parser.add_argument(
        "--max-memory",
        type=_size,
        metavar="SIZE",
        help="refuse a scenario estimated to need more memory than SIZE per run (default: half "
        "this machine's memory; also ROUTERLAB_MAX_MEMORY)",
    )
    parser.add_argument(
        "--max-output",
        type=_size,
        metavar="SIZE",
        help="refuse a scenario estimated to write more results than SIZE per run (default: "
        "half this machine's memory; also ROUTERLAB_MAX_OUTPUT)",
    )


def apply_limits(args: argparse.Namespace) -> None:
    """The limit flags go into the environment, where the core and every worker read them."""
    for flag in ("max_memory", "max_output"):
        value = getattr(args, flag, None)
        var = f"ROUTERLAB_{flag.upper()}"
        if value is not None:
            os.environ[var] = value


def add_backend_flags(parser: argparse.ArgumentParser) -> None:
    """--backend local|dask and --scheduler ADDRESS."""
    parser.add_argument(
        "--backend",
        choices=["local", "dask"],
        default="local",
        help="where runs execute: a local process pool (default) or a Dask cluster",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address (e.g. tcp://host:8786); without it, --backend dask "
        "starts a local cluster with --jobs workers",
    )


def _add_seed_out_force(parser: argparse.ArgumentParser, default_out: str) -> None:
    """--seed N, --out DIR (default ``default_out``) and --force."""
    parser.add_argument("--seed", type=int, metavar="N", help="override the scenario's seed")
    parser.add_argument("--out", metavar="DIR", help=f"result directory (default: {default_out})")
    parser.add_argument("--force", action="store_true", help="replace what an --out DIR holds")


def _scenario_valid(path: Path) -> bool:
    """Whether the scenario file reads and checks; its problems printed if not."""
    try:
        problems = _core.check(read_scenario(path), base_dir=path.resolve().parent)
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
        return False
    if problems:
        _print_problems(str(path), problems)
    return not problems


def cmd_emulate(args: argparse.Namespace) -> int:
    from . import emulation

    if args.cleanup:
        gone = emulation.cleanup()
        print(
            f"routerlab: removed {len(gone)} namespace(s) an emulation left"
            + (": " + " ".join(gone) if gone else "")
        )
        return 0
    if not args.scenario:
        print("routerlab emulate: a SCENARIO, or --cleanup", file=sys.stderr)
        return EXIT_INVALID
    path = Path(args.scenario)
    out = Path(args.out) if args.out else Path("results") / f"{path.stem}-emulated"
    if not _scenario_valid(path):
        return EXIT_INVALID
    try:
        s = emulation.emulate(
            path, out, force=args.force or not args.out, seed=args.seed, progress=args.progress
        )
    except OSError as e:
        print(f"{path}: {e.strerror or e}", file=sys.stderr)
        return EXIT_INVALID
    except (emulation.EmulationError, OutputExists) as e:
        print(f"routerlab: {path}: {e}", file=sys.stderr)
        return EXIT_INVALID
    if not args.quiet:
        e = s["emulation"]
        print(f"{path} emulated → {out}")
        print(
            f"  goodput {s['goodput_bps'] / 1e6:.2f} Mbps, {s['drops']} drops, "
            f"{s['retransmissions']} retransmissions, {s['timeouts']} timeouts"
        )
        for t in e["timing_error"]:
            print(
                f"  timing error to {t['host']}: median {emulation.fmt_seconds(t['median_s'])}, "
                f"p99 {emulation.fmt_seconds(t['p99_s'])} over {t['datagrams']} datagrams"
            )
        if not e["timing_within_bound"]:
            print("  outside the timing bound (summary.json: emulation.timing_within_bound)")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .emulation import EmulationError
    from .emulation.compare import compare, markdown

    path = Path(args.scenario)
    out = Path(args.out) if args.out else Path("results") / f"{path.stem}-compared"
    if not _scenario_valid(path):
        return EXIT_INVALID
    try:
        table = compare(path, out, force=args.force or not args.out, seed=args.seed)
    except (EmulationError, OutputExists) as e:
        print(f"routerlab: {path}: {e}", file=sys.stderr)
        return EXIT_INVALID
    print(markdown(table, path.name), end="")
    print(f"→ {out}/compare.csv, compare.md, compare.png; sim/ and emu/ hold each run")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="routerlab",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"routerlab {_core.version()}")
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    r = sub.add_parser(
        "run",
        help="simulate a scenario and write its results",
        description=textwrap.dedent(
            """\
            Simulate SCENARIO and write its results into DIR (default results/<scenario stem>):
              summary.json   run summary (goodput, drops, Jain index, provenance)
              timing.json    wall-clock time and speed (the only file that differs between
                             two runs of the same scenario and seed)
              flows.parquet, flows.csv    one row per flow
              links.parquet, links.csv    one row per link direction
              scenario.toml, scenario.normalized.json    what was run
            The directory appears only when complete. A rerun replaces the previous result in
            the default directory (atomically); an --out DIR that holds something is refused
            unless --force, which replaces it atomically."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    r.add_argument("--seed", type=int, metavar="N", help="override the scenario's seed")
    r.add_argument("--out", metavar="DIR", help="result directory (default: results/<stem>)")
    r.add_argument(
        "--force", action="store_true", help="replace what an --out DIR holds (default DIR: always)"
    )
    r.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    add_progress_flags(r)
    add_limit_flags(r)
    r.set_defaults(func=cmd_run)

    e = sub.add_parser(
        "emulate",
        help="run a scenario's network on real packets between Linux hosts (root)",
        description=textwrap.dedent(
            """\
            Run SCENARIO's network - its switches, links, queues and mechanisms, the simulator's
            own code - on real packets between Linux hosts: each host a network namespace
            running the kernel's TCP with the scenario's congestion control, the network one
            process moving their frames against the clock. Writes into DIR (default
            results/<scenario stem>-emulated) the simulator's summary.json, flows.* and links.*;
            the summary's "emulation" part has the emulator's own timing error per host (how
            late each datagram arrived against its ideal schedule) and whether it stayed
            within the bound. Needs root (CAP_NET_ADMIN). Mechanisms that need modified
            endpoints (Kick-Ass's and RCP's senders, CP's endpoints, super-packets' sender,
            the DUPACK agent, MPTCP) are refused, as are web and CBR workloads for now
            (bulk and fixed flows, incasts and on-off clients run).
            Everything a run makes is named with its id and removed when it ends;
            --cleanup removes what a run killed outright left."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    e.add_argument("scenario", metavar="SCENARIO", nargs="?", help="scenario file (TOML)")
    _add_seed_out_force(e, "results/<stem>-emulated")
    e.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    e.add_argument(
        "--cleanup", action="store_true", help="remove the namespaces of runs killed outright"
    )
    add_progress_flags(e)
    e.set_defaults(func=cmd_emulate)

    c = sub.add_parser(
        "compare",
        help="simulate and emulate a scenario, and compare the two (root)",
        description=textwrap.dedent(
            """\
            Run SCENARIO in the simulator and in the emulator (routerlab emulate) with the same
            seed, and write into DIR (default results/<scenario stem>-compared): sim/ and emu/
            (each run's results), compare.csv and compare.md (goodput, Jain index, drops,
            retransmissions, timeouts, FCT and transfer time mean and p99: simulated,
            emulated, their ratio) and
            compare.png (the ratios). The emulator's conditions apply: root, and no mechanism
            that needs modified endpoints."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    _add_seed_out_force(c, "results/<stem>-compared")
    c.set_defaults(func=cmd_compare)

    v = sub.add_parser(
        "validate",
        help="check scenario files without running them",
        description="Check each SCENARIO: every problem is printed with its field path. "
        "Exit status 0 if all are valid, 2 otherwise.",
    )
    v.add_argument("scenarios", metavar="SCENARIO", nargs="+")
    v.add_argument("--quiet", "-q", action="store_true", help="print only problems")
    add_limit_flags(v)
    v.set_defaults(func=cmd_validate)

    x = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiment and judge its claims",
        description=textwrap.dedent(
            """\
            Run the experiment ID defined in experiments/ID.toml over its parameter grid,
            each configuration with N replicate seeds (derived from ID and the replicate
            index: a rerun is identical), in parallel on the local cores. Writes into DIR
            (default results/reproduce/ID; for "all", DIR/ID per experiment):
              verdict.json, verdict.md   each claim: the paper's number, ours (mean and 95 %
                                         confidence interval), the criterion, holds/differs
              *.parquet, *.csv           the data tables
              figures/*.png, *.svg       the figures
              scenarios/*.toml           the exact scenarios run; experiment.toml
            "all" runs every experiment and then writes DIR/experiments.md, the results
            document (docs/experiments.md is one, from a full run); "document" writes it
            again from the verdicts already in DIR (to --to FILE if given), running nothing.
            "matrix" runs every mechanism and baseline on the same five workloads (not part
            of "all"; docs/matrix.md): matrix.parquet/.csv holds every cell, a number or
            "n/a" with its reason; verdict.md a table per metric; figures/ a heat map per
            metric, normalized to drop-tail.
            In a quick run, a claim whose confidence interval straddles its criterion is
            "not judged (quick)". Exit status 0 when the experiment ran, whatever the
            verdicts.
            Finished runs wait in DIR.runs/ until DIR is written: an interrupted
            reproduction, run again, simulates only what was left (the same build, scenario
            and seed: anything else runs anew). --keep-runs keeps them after, so that a
            rerun after changing an analysis simulates nothing."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    x.add_argument(
        "experiment", metavar="ID", nargs="?", help="experiment id, all, or document (see --list)"
    )
    x.add_argument("--list", action="store_true", help="list the experiments and exit")
    x.add_argument("--quick", action="store_true", help="the small variant (seconds; 3 seeds)")
    x.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="replicates per configuration (default: the experiment's, 10 unless it says more; "
        "quick 3)",
    )
    x.add_argument("--out", metavar="DIR", help="output directory (default results/reproduce/ID)")
    x.add_argument(
        "--force", action="store_true", help="replace what an --out DIR holds (default DIR: always)"
    )
    x.add_argument(
        "--to",
        metavar="FILE",
        help="document: write the results document here (e.g. docs/experiments.md)",
    )
    x.add_argument("--jobs", "-j", type=int, metavar="J", help="parallel runs (default: all cores)")
    x.add_argument(
        "--keep-runs",
        action="store_true",
        help="keep every run's tables in DIR.runs/ after DIR is written (a rerun reads them)",
    )
    add_backend_flags(x)
    x.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    add_progress_flags(x)
    add_limit_flags(x)
    x.set_defaults(func=cmd_reproduce)

    w = sub.add_parser(
        "sweep",
        help="run a scenario over a parameter grid and replicates, resumably",
        description=textwrap.dedent(
            """\
            Run the sweep described by SWEEP (a TOML file, see docs/sweep.md): a base
            scenario, the parameters varied over it (each combination is a configuration),
            and N replicates of each, with seeds derived from the campaign seed, the
            configuration's normalized scenario and the replicate index. Runs execute on a
            local process pool (default: every core) or a Dask cluster, in batches.
            Writes into DIR (default results/sweeps/<stem>):
              manifest.json              the sweep, its configurations, runs done and failed
              runs/KEY/                  each run's files (as routerlab run writes them)
              tables/runs.parquet        one row per run: parameters and summary
              tables/configs.parquet     one row per configuration: means, 95 % intervals
              tables/flows.parquet, links.parquet   every run's rows together
              figures/*.png, *.svg; report.html (see routerlab report)
            Runs already in DIR are not run again: rerunning an interrupted sweep completes
            only what is missing. A failed run is reported and costs no other; it is retried
            with --retry-failed. Exit status: 0 all runs done; 1 some failed; 2 an invalid
            sweep or scenario (checked before anything runs); 130 interrupted."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    w.add_argument("sweep", metavar="SWEEP", help="sweep file (TOML)")
    w.add_argument(
        "--out", metavar="DIR", help="campaign directory (default results/sweeps/<stem>)"
    )
    w.add_argument("--jobs", "-j", type=int, metavar="N", help="parallel runs (default: all cores)")
    add_backend_flags(w)
    w.add_argument(
        "--retry-failed", action="store_true", help="run again the runs that failed before"
    )
    w.add_argument("--quiet", "-q", action="store_true", help="print only problems")
    add_progress_flags(w)
    add_limit_flags(w)
    w.set_defaults(func=cmd_sweep)

    rp = sub.add_parser(
        "report",
        help="write a self-contained HTML report of a sweep or a reproduction",
        description="Write DIR/report.html for DIR, a sweep's directory (routerlab sweep) or a "
        "reproduction's (routerlab reproduce): figures, tables, verdicts, the exact scenario "
        "files, seeds and versions, in one file that opens in a browser without a server.",
    )
    rp.add_argument("directory", metavar="DIR")
    rp.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    rp.set_defaults(func=cmd_report)

    pl = sub.add_parser(
        "plot",
        help="draw one run's results: goodput, windows, RTTs, queues, completion times",
        description="Draw the run whose results are in DIR (routerlab run) into "
        "DIR/figures/run.png and run.svg: per-flow goodput, congestion windows and smoothed "
        "RTTs over time, queue lengths over time, the CDF of completion times, and the summary. "
        "A panel whose data the run did not record says which [output] setting records it "
        '(timeseries = "10ms", queues = "1ms").',
    )
    pl.add_argument("directory", metavar="DIR")
    pl.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    pl.set_defaults(func=cmd_plot)

    b = sub.add_parser(
        "bench",
        help="measure the simulator's speed and memory on fixed scenarios",
        description=textwrap.dedent(
            """\
            Run fixed benchmark scenarios (dumbbell-1g, dumbbell-10g-1000, fattree-k8; see
            docs/performance.md), each run in its own subprocess, in N interleaved rounds
            (each round runs every scenario once, so that all are measured in the same
            minutes), and report the median run per scenario: simulated seconds, events,
            packet-hops (a packet crossing one link), wall seconds of the simulation loop
            alone, setup seconds (interpreter start and scenario building), events/s,
            packet-hops/s, the subprocess's peak RSS, and the simulator's own peak heap
            (counted by Rust's allocator). Progress goes to stderr. With --targets, also
            the development machine's performance targets and whether each is met here (a
            check for developers: on another machine they say little).
            Beside the figures (on stderr with --json): the machine (CPU, caches as the
            kernel lists them, load average) and the time of one dependent load through 1, 4
            and 8 MiB, taken before and after the rounds: how much the near caches hold and
            how far the next level is, which the 1000-flow scenario's speed depends on (on a
            shared VM they change from minute to minute).
            For comparable figures, run on an otherwise idle machine.
            Any scenario file can be measured the same way: --scenario my.toml (checked
            first, as `routerlab validate` does; reported under its path; its outputs are
            not written, and no target applies to it)."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument(
        "--scenario",
        action="append",
        metavar="NAME|FILE",
        help="only this benchmark scenario, or a scenario file ending in .toml "
        "(repeatable; default: the three benchmark scenarios)",
    )
    b.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="rounds, i.e. runs per scenario (default 3)",
    )
    b.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of records to stdout (keys: " + ", ".join(BENCH_KEYS) + ")",
    )
    b.add_argument(
        "--targets",
        action="store_true",
        help="after the table, judge the development targets (docs/performance.md)",
    )
    b.set_defaults(func=cmd_bench)

    m = sub.add_parser(
        "model",
        help="solve an analytical model (taq: the TAQ paper's Markov model of TCP)",
        description=textwrap.dedent(
            """\
            taq: the TAQ paper's idealized Markov model of TCP in small packet regimes
            (§3.1, the partial model): window states S2 … S<w-max>, the timeout retransmission
            S1, a simple timeout's empty epoch b0 and the aggregated repeated-timeout wait b*,
            for a per-packet loss probability p (0 ≤ p < 0.5). Prints the stationary
            distribution for each p, the share of epochs in timeout states and the expected
            idle time in b*, 1/(1 − 2p). With --out, also writes the tables and a figure."""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument("name", choices=["taq"], help="the model")
    m.add_argument(
        "--p",
        type=float,
        nargs="+",
        metavar="P",
        help="loss probabilities, 0 ≤ p < 0.5 (default: "
        + " ".join(f"{p:g}" for p in MODEL_TAQ_PS)
        + ")",
    )
    m.add_argument("--w-max", type=int, default=6, metavar="N", help="largest window (default 6)")
    m.add_argument("--out", metavar="DIR", help="also write tables and a figure into DIR")
    m.add_argument("--force", action="store_true", help="replace an existing output directory")
    m.set_defaults(func=cmd_model)
    return p


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _raise_interrupt)
    parser = build_parser()
    args = parser.parse_args(argv)
    apply_limits(args)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return report_interrupt()
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
