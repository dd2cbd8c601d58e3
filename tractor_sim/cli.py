"""The ``tractor-sim`` command line (Click)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import click

from tractor_sim.rules import CHOICES, DESCRIPTIONS, PRESETS, Rules, RulesError


def _fail(msg: str, code: int = 2):
    click.echo(f"error: {msg}", err=True)
    sys.exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tractor-sim")
def main():
    """Monte Carlo strategy simulator for Tractor (Shengji).

    \b
    Examples:
      tractor-sim run experiments/quickstart.toml
      tractor-sim compare basic random --deals 20000 --sprt 0,0.05
      tractor-sim tune experiments/tune.toml
      tractor-sim judge trick.json --explain
      tractor-sim replay --seed 42 --deal 7 --a basic --b random --html deal.html
      tractor-sim export runs/quickstart --deals 0-9 --out deals.jsonl
      tractor-sim strategies
      tractor-sim rules
    """


# --------------------------------------------------------------------------- judge
@main.command()
@click.argument("file", type=click.File("r"), required=False)
@click.option("--explain", is_flag=True, help="Add a sentence per play: why legal or not, why the winner wins.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False),
              help="Judge a trick of a deal record file (JSON Lines) instead of FILE.")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --record: which record of the file (0-based).")
@click.option("--trick", "trick_no", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --record: which trick (1-based).")
def judge(file, explain, record_file, index, trick_no):
    """Judge one trick given as JSON (FILE, or - for stdin), or a trick of a deal record.

    \b
    Input: {"trump": {"rank": "2", "suit": "H"}, "rules": {...}, "leader": 0,
            "declarers": [0, 2], "hands": [4 card lists, optional],
            "plays": [card lists in playing order]}
    Examples:
      echo '{"trump": {"rank": "2", "suit": "H"},
             "plays": [["AS"], ["3S"], ["BJ"], ["KS"]]}' | tractor-sim judge - --explain
      tractor-sim judge --record deals.jsonl --index 3 --trick 5 --explain
    """
    from tractor_sim import referee

    if record_file:
        data = _record_trick(record_file, index, trick_no)
    elif file is None:
        _fail("give a trick file (FILE, or - for stdin) or --record FILE")
    else:
        try:
            data = json.load(file)
        except json.JSONDecodeError as e:
            _fail(f"input is not valid JSON: {e}")
    if not isinstance(data, dict):
        _fail("input: expected a JSON object")
    known = {"trump", "rules", "leader", "declarers", "hands", "plays"}
    for key in data:
        if key not in known:
            _fail(f"unknown field {key!r}; expected some of {', '.join(sorted(known))}")
    for key in ("trump", "plays"):
        if key not in data:
            _fail(f"missing field {key!r}")
    try:
        out = referee.trick(data["plays"], data["trump"], hands=data.get("hands"), leader=data.get("leader", 0),
                            declarers=data.get("declarers", [0, 2]), rules=data.get("rules"), explain=explain)
    except (referee.RefereeError, RulesError) as e:
        _fail(str(e))
    click.echo(json.dumps(out, indent=2))


def _record_trick(path, index, trick_no) -> dict:
    from tractor_sim import record as REC

    try:
        return REC.trick_input(REC.load(path, index), trick_no)
    except REC.RecordError as e:
        _fail(str(e))


# --------------------------------------------------------------------------- rules
@main.command("rules")
@click.option("--explain", "option", metavar="OPTION", help="Print the rule book's passage about one option.")
def rules_cmd(option):
    """List the rule presets and every option with its default and choices.

    \b
    The full rule book: docs/rules.md. Examples:
      tractor-sim rules
      tractor-sim rules --explain kitty_multiplier
    """
    if option:
        from tractor_sim import rulebook

        try:
            click.echo(rulebook.passage(option))
        except RulesError as e:
            _fail(str(e))
        return
    default = Rules()
    click.echo("Presets: " + ", ".join(f"{k}" + (" (default)" if k == "standard" else "") for k in PRESETS))
    for name, rules in PRESETS.items():
        diff = {k: v for k, v in rules.to_dict().items() if v != default.to_dict()[k]}
        if diff:
            click.echo(f"  {name}: " + ", ".join(f"{k} = {v!r}" for k, v in diff.items()))
    click.echo("\nOptions (default, then choices):")
    for k, v in default.to_dict().items():
        choices = CHOICES.get(k)
        kind = " | ".join(choices) if choices else ("true | false" if isinstance(v, bool) else "whole number")
        click.echo(f"  {k} = {json.dumps(v)}   [{kind}]\n      {DESCRIPTIONS.get(k, '')}")
    click.echo("\nMore about one option, with examples: tractor-sim rules --explain OPTION")


# --------------------------------------------------------------------------- strategies
@main.command()
@click.option("--module", "modules", multiple=True, help="A strategy module (file or name) to load too.")
def strategies(modules):
    """List every registered strategy and policy with its parameters."""
    from tractor_sim import strategy as S

    _load_strategies(modules)
    click.echo("Strategies:")
    for row in S.list_strategies():
        decision, name, params, desc = row
        ptxt = ", ".join(f"{k}={v:g}" for k, v in params.items()) if params else ""
        click.echo(f"  {decision:8s} {name:16s} {ptxt:28s} {desc}")
    click.echo("Policies:")
    for _, name, table, desc in S.list_policies():
        parts = ", ".join(f"{k}={v}" for k, v in table.items())
        click.echo(f"  {name:16s} {parts}\n  {'':16s} {desc}")


def _load_strategies(modules):
    from tractor_sim import strategy as S

    S.load_builtins()
    S.load_entry_points()
    for m in modules:
        try:
            S.load_module(m)
        except Exception as e:  # noqa: BLE001 - say which module failed
            _fail(f"cannot load strategy module {m!r}: {e}")


# --------------------------------------------------------------------------- run
@main.command()
@click.argument("experiment_file", type=click.Path(dir_okay=False))
@click.option("--deals", type=click.IntRange(min=1), help="Deals per matchup and half (fixed mode).")
@click.option("--matches", type=click.IntRange(min=1), help="Matches per matchup and half (match mode).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Root seed (overrides the file).")
@click.option("--out", type=click.Path(file_okay=False), help="Run directory (default runs/NAME).")
@click.option("--chunk-size", type=click.IntRange(min=1), help="Deals or matches per kernel call.")
@click.option("--workers", type=click.IntRange(min=1),
              help="Worker processes: local, a process pool (default: every core; runs under 50k deals "
                   "stay in this process); dask, the size of a local cluster started for the run.")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: this machine; dask: a Dask cluster (pip install 'tractor-sim[dask]'; docs/cluster.md).")
@click.option("--scheduler", help="Dask scheduler address (tcp://HOST:PORT) for --backend dask.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run(experiment_file, deals, matches, seed, out, chunk_size, workers, backend, scheduler, quiet):
    """Run an experiment file and write its run directory and report.

    \b
    Example:
      tractor-sim run experiments/quickstart.toml --deals 2000 --out runs/qs
    Interrupted runs resume: run the same command again.
    """
    from tractor_sim import experiment as X

    try:
        exp = X.load(experiment_file)
        if deals and matches:
            _fail("give --deals or --matches, not both")
        if deals:
            if exp.mode != "fixed":
                _fail(f"{experiment_file}: mode is {exp.mode!r}: use --matches")
            exp.count = deals
        if matches:
            if exp.mode != "match":
                _fail(f"{experiment_file}: mode is {exp.mode!r}: use --deals")
            exp.count = matches
        if seed is not None:
            exp.seed = seed
        if chunk_size:
            exp.chunk_size = chunk_size
        X.check_policies(exp)
    except X.ExperimentError as e:
        _fail(str(e))
    out_dir = Path(out or Path("runs") / exp.name)
    command = "tractor-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    _run_experiment(exp, out_dir, command, workers, backend, scheduler, quiet)


def _run_experiment(exp, out_dir, command, workers, backend, scheduler, quiet):
    from tractor_sim import engine
    from tractor_sim.backends import make_executor
    from tractor_sim.report import build_report
    from tractor_sim.store import RunStore, StoreError

    expd = exp.to_dict()
    expd.pop("source", None)
    store = RunStore(out_dir, expd, command)
    try:
        manifest = store.open()
    except StoreError as e:
        _fail(str(e))
    specs = engine.plan_chunks(
        [{"name": m["name"], "a": m["a"], "b": m["b"]} for m in exp.matchups], mode=exp.mode, n=exp.count,
        seed=exp.seed, rules=exp.rules, duplicate=exp.duplicate, chunk_size=exp.chunk_size, levels=exp.levels,
        declaring_team=exp.declaring_team, modules=exp.strategy_modules)
    index = {m["name"]: i for i, m in enumerate(exp.matchups)}
    todo = [s for s in specs if not store.done(s, index)]
    skipped = len(specs) - len(todo)
    if skipped and not quiet:
        click.echo(f"resuming: {skipped} of {len(specs)} chunks already done")
    t0 = time.perf_counter()
    try:
        with make_executor(backend, workers, scheduler, specs=todo) as executor, \
                _progress(quiet, len(specs), skipped) as bar:
            manifest["backend"] = executor.describe() if executor else "local: in this process"
            for result in engine.iter_results(todo, executor):
                store.write(result, index)
                bar(len(result.deals))
    except engine.SimulationError as e:
        _fail(f"{e}\n(the chunks finished before this one are kept in {out_dir}; fix and run again to resume)", 1)
    except KeyboardInterrupt:
        _fail(f"interrupted; finished chunks are kept in {out_dir}: run the same command again to resume", 130)
    except RuntimeError as e:
        _fail(str(e), 1)
    try:
        n_deals = store.finalize(manifest, time.perf_counter() - t0, expected=specs)
    except StoreError as e:
        _fail(str(e), 1)
    if not n_deals:
        _fail(f"{out_dir}: no deals recorded", 1)
    md, html = build_report(out_dir)
    _print_summary(out_dir / "summary.csv")
    click.echo(f"report: {html}")


class _progress:
    """A rich progress bar over chunks (deals/s and ETA); silent when not a terminal."""

    def __init__(self, quiet, total, done):
        self.quiet = quiet or not sys.stderr.isatty()
        self.total, self.done = total, done

    def __enter__(self):
        if self.quiet:
            return lambda n: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("chunks"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), transient=False)
        self.p.start()
        self.task = self.p.add_task("run", total=self.total, completed=self.done, rate="")
        self.t0, self.deals = time.perf_counter(), 0

        def advance(n):
            self.deals += n
            rate = self.deals / max(1e-9, time.perf_counter() - self.t0)
            self.p.update(self.task, advance=1, rate=f"{rate:,.0f} deals/s")

        return advance

    def __exit__(self, *exc):
        if not self.quiet:
            self.p.stop()
        return False


def _print_summary(summary_csv: Path):
    """The per-policy table of the report, from its summary.csv."""
    import pandas as pd

    if not summary_csv.exists():
        return
    summary = pd.read_csv(summary_csv)
    want = ["matchup", "policy", "deals", "level_change", "level_change_low", "level_change_high", "hold_rate",
            "win_rate", "win_low", "win_high"]
    click.echo(summary[[c for c in want if c in summary.columns]].to_string(
        index=False, float_format=lambda x: f"{x:.3f}"))


# --------------------------------------------------------------------------- report
@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
def report(run_dir):
    """(Re)build the report of a run directory from its stored results."""
    from tractor_sim.report import build_report

    for need in ("manifest.json", "deals.parquet"):
        if not (Path(run_dir) / need).exists():
            _fail(f"{run_dir}: no {need}: not a finished run directory")
    try:
        md, html = build_report(run_dir)
    except ValueError as e:  # bad rules in the manifest, a missing column, no deals
        _fail(str(e))
    click.echo(f"report: {md}\nreport: {html}")


# --------------------------------------------------------------------------- replay
@main.command()
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="The run's root seed.")
@click.option("--deal", "deal_id", type=click.IntRange(min=0),
              help="Deal id (fixed mode), or match_id*1000 + deal in match (match mode).")
@click.option("--a", "policy_a", default="basic", show_default=True, help="Policy of team 0 (seats 0, 2).")
@click.option("--b", "policy_b", default="basic", show_default=True, help="Policy of team 1 (seats 1, 3).")
@click.option("--mode", type=click.Choice(["fixed", "match"]), default="fixed", show_default=True)
@click.option("--levels", default="2,2", show_default=True, help="Fixed mode: team levels, e.g. 2,2.")
@click.option("--declaring-team", type=click.IntRange(0, 1), default=0, show_default=True)
@click.option("--rules", "rules_json", default="{}", help='Rule options as JSON, e.g. \'{"preset": "standard"}\'.')
@click.option("--module", "modules", multiple=True, help="A strategy module to load.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: the deal record (docs/records.md).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False),
              help="Read the deal from a deal record file (JSON Lines) instead of playing it.")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --record: which record of the file (0-based).")
@click.option("--verify", is_flag=True, help="With --record: play the deal again and check every event matches.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False),
              help="Also write a self-contained page that steps through the deal in a browser.")
def replay(seed, deal_id, policy_a, policy_b, mode, levels, declaring_team, rules_json, modules, fmt, record_file,
           index, verify, html_out):
    """Print one deal trick by trick: hands, declarations, kitty, plays, result.

    \b
    Examples:
      tractor-sim replay --seed 42 --deal 7 --a basic --b random
      tractor-sim replay --seed 42 --deal 7 --html deal.html
      tractor-sim replay --record deals.jsonl --index 3 --verify --html deal3.html
    """
    from tractor_sim import record as REC
    from tractor_sim import replay as R
    from tractor_sim.cards import CardError, parse_rank

    _load_strategies(modules)
    try:
        if record_file:
            data = REC.load(record_file, index)
            if verify:
                _load_strategies(data.get("strategy_modules", ()))
                diff = REC.differences(data, REC.replay_again(data))
                if diff:
                    _fail(f"{record_file}, record {index}: playing the deal again differs in " + ", ".join(diff), 1)
        else:
            if seed is None or deal_id is None:
                _fail("give --seed and --deal, or --record FILE")
            lv = tuple(parse_rank(x) for x in levels.split(","))
            if len(lv) != 2:
                raise CardError("expected two levels")
            rules = json.loads(rules_json)
            data = R.replay(seed=seed, deal_id=deal_id, policies=(policy_a, policy_b), mode=mode, levels=lv,
                            declaring_team=declaring_team, rules=rules, modules=modules)
    except (CardError, json.JSONDecodeError, RulesError, ValueError) as e:
        _fail(str(e))
    click.echo(json.dumps(data, indent=2) if fmt == "json" else R.as_text(data))
    if verify:
        click.echo("verified: playing the deal again gives the same events and result", err=True)
    if html_out:
        from tractor_sim import viewer

        try:
            Path(html_out).write_text(viewer.page(data))
        except OSError as e:
            _fail(f"--html: cannot write {html_out}: {e.strerror or e}")
        click.echo(f"viewer: {html_out}", err=True)


# --------------------------------------------------------------------------- export
@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--deals", "deal_spec", required=True,
              help="Deal ids and ranges, e.g. 0-9,42 (match mode: match_id*1000 + deal in match).")
@click.option("--out", default="-", show_default=True, help="The JSON Lines file to write (- for stdout).")
@click.option("--matchup", "matchups", multiple=True, help="Only this matchup (repeatable; default all).")
@click.option("--half", type=click.IntRange(0, 1), help="Only this half of duplicate deals (default both).")
def export(run_dir, deal_spec, out, matchups, half):
    """Write deals of a run as deal records (JSON Lines), replaying them by seed.

    \b
    One record per deal, matchup and half; the format is in docs/records.md.
    Examples:
      tractor-sim export runs/quickstart --deals 0-9,42 --out deals.jsonl
      tractor-sim export runs/quickstart --deals 7 --matchup basic-vs-random --half 1
    """
    from tractor_sim import record as REC

    try:
        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        _fail(f"{run_dir}: not a finished run directory: cannot read its manifest.json ({e})")
    _load_strategies(manifest.get("experiment", {}).get("strategy_modules", ()))
    try:
        records = list(REC.export(run_dir, REC.parse_ids(deal_spec), matchups=matchups or None,
                                  halves=None if half is None else (half,)))
    except (ValueError, KeyError) as e:
        _fail(str(e))
    if not records:
        _fail(f"{run_dir}: no deals matched")
    try:
        n = REC.write(records, sys.stdout if out == "-" else out)
    except OSError as e:
        _fail(f"--out: cannot write {out}: {e.strerror or e}")
    click.echo(f"wrote {n} deal records to {out}", err=True)


# --------------------------------------------------------------------------- compare
@main.command()
@click.argument("policy_a")
@click.argument("policy_b")
@click.option("--decision", type=click.Choice(["declare", "discard", "lead", "follow", "bid"]),
              help="Compare only this decision: A and B are strategy names, the rest is the basic policy.")
@click.option("--deals", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Deal pairs at most.")
@click.option("--sprt", help="LOW,HIGH in levels per deal: stop when a sequential test decides.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True)
@click.option("--chunk-size", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--module", "modules", multiple=True, help="A strategy module to load.")
def compare(policy_a, policy_b, decision, deals, sprt, seed, chunk_size, modules):
    """Is A better than B? Duplicate deals at level 2, A and B swapped between halves.

    \b
    Examples:
      tractor-sim compare expert basic --deals 20000
      tractor-sim compare lowest void --decision discard --sprt 0,0.05
    """
    from tractor_sim import compare as CMP

    _load_strategies(modules)
    bounds = None
    if sprt:
        try:
            low, high = (float(x) for x in sprt.split(","))
        except ValueError:
            _fail(f"--sprt: expected LOW,HIGH such as 0,0.05, got {sprt!r}")
        if not low < high:
            _fail("--sprt: LOW must be below HIGH")
        bounds = (low, high)
    try:
        result = CMP.compare(policy_a, policy_b, decision=decision, max_deals=deals, sprt=bounds, seed=seed,
                             chunk_size=chunk_size, modules=modules)
    except ValueError as e:
        _fail(str(e))
    click.echo(CMP.as_text(result))


# --------------------------------------------------------------------------- tune
@main.command()
@click.argument("tune_file", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), help="Run directory (default runs/NAME).")
@click.option("--quiet", is_flag=True, help="No line per iteration.")
def tune(tune_file, out, quiet):
    """SPSA on strategy parameters, then tuned vs start under the sequential test.

    \b
    Example:
      tractor-sim tune experiments/tune.toml --out runs/tune
    The file format is in docs/statistics.md.
    """
    from tractor_sim import tune as T

    try:
        cfg = T.load(tune_file)
        _load_strategies(cfg["modules"])
        show = None if quiet else (lambda k, theta: click.echo(f"iteration {k + 1}: " + ", ".join(
            f"{n} = {v:.3f}" for n, v in zip(cfg["params"], theta))))
        trajectory = T.spsa(cfg, show)
        tuned = {n: float(trajectory.iloc[-1][n]) for n in cfg["params"]}
        result = T.verify(cfg, tuned)
    except ValueError as e:  # TuneError, a bad policy or parameter (StrategyError), a bad count
        _fail(str(e))
    out_dir = Path(out or Path("runs") / cfg["name"])
    command = "tractor-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    click.echo(f"report: {T.write(cfg, trajectory, result, out_dir, command)}")


if __name__ == "__main__":
    main()
