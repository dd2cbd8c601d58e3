"""The ``tractor-sim`` command line (Click).

One error path: the commands raise, ``_Cli.invoke`` turns every expected
failure into ``error: ...`` on stderr and exit 2 (bad input: a file, field,
option, strategy or directory to change) or 1 (a failure at run time: a
strategy that broke a rule, a busy or damaged run directory, a backend, the
disk), 130 for Ctrl-C; anything else is an internal error, still one line.
``--debug`` (or TRACTOR_SIM_DEBUG=1) shows the traceback instead.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from tractor_sim.rules.options import CHOICES, DESCRIPTIONS, PRESETS, WHOLE, Rules, RulesError
from tractor_sim.rules import files


class Failure(Exception):
    """An expected failure the command found itself: its message and exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def _fail(msg: str, code: int = 2):
    raise Failure(msg, code)


def exit_code(e: BaseException) -> int | None:
    """2 for bad input, 1 for a runtime failure, 130 for Ctrl-C; None: not expected (a bug)."""
    from tractor_sim.runs.backends import BackendError
    from tractor_sim.runs.engine import SimulationError
    from tractor_sim.runs.store import StoreError, StoreRefused

    if isinstance(e, Failure):
        return e.code
    if isinstance(e, KeyboardInterrupt):
        return 130
    if isinstance(e, StoreRefused):
        return 2
    if isinstance(e, (StoreError, SimulationError, BackendError, OSError, MemoryError)):
        return 1
    if isinstance(e, (ValueError, RecursionError)):  # every input error class is a ValueError
        return 2
    return None


def message(e: BaseException) -> str:
    if isinstance(e, KeyboardInterrupt):
        return "interrupted (finished chunks are kept: run the same command again to resume)"
    if isinstance(e, OSError) and e.strerror:
        where = f"{e.filename}: " if e.filename else ""
        return f"{where}{e.strerror}"
    if isinstance(e, MemoryError):
        return f"out of memory ({e}); lower chunk_size or count" if str(e) else "out of memory; lower chunk_size"
    if isinstance(e, RecursionError):
        return "the input is nested too deeply"
    return str(e) or type(e).__name__


class _Cli(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.exceptions.UsageError as e:  # an option or argument of a command: one line, as ours
            click.echo(f"error: {e.format_message()} (tractor-sim {ctx.invoked_subcommand or ''} --help shows "
                       "the options)".replace("  ", " "), err=True)
            ctx.exit(e.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BaseException as e:  # noqa: BLE001 - the one place errors become messages
            if ctx.params.get("debug") or isinstance(e, (SystemExit, GeneratorExit)):
                raise
            code = exit_code(e)
            text = message(e) if code is not None else (
                f"internal error: {type(e).__name__}: {e} (please report it; --debug shows the traceback)")
            click.echo(f"error: {text}", err=True)
            ctx.exit(1 if code is None else code)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tractor-sim")
@click.option("--debug", is_flag=True, envvar="TRACTOR_SIM_DEBUG", help="Show the traceback of an error.")
def main(debug):
    """Monte Carlo strategy simulator for Tractor (Shengji).

    \b
    Examples:
      tractor-sim run experiments/quickstart.toml
      tractor-sim compare basic random --deals 20000 --sprt 0,0.05
      tractor-sim tune experiments/tune.toml
      tractor-sim judge trick.json --explain
      tractor-sim replay --seed 42 --deal 7 --a basic --b random --html deal.html
      tractor-sim compare oracle:expert:16 expert --deals 200 --chunk-size 20
      tractor-sim analyze expert --deals 20 --worlds 16 --out runs/analyze-expert
      tractor-sim export runs/quickstart --deals 0-9 --out deals.jsonl
      tractor-sim strategies
      tractor-sim rules
    """


# --------------------------------------------------------------------------- judge
@main.command()
@click.argument("file", type=click.File("rb"), required=False)
@click.option("--explain", is_flag=True, help="Add a sentence per play: why legal or not, why the winner wins.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False),
              help="Judge a trick of a deal record file (JSON Lines) instead of FILE.")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --record: which record of the file (0-based).")
@click.option("--trick", "trick_no", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --record: which trick (1-based).")
@click.option("--no-check", is_flag=True,
              help="With --record: do not check the record's plays against the rules first (forensics).")
def judge(file, explain, record_file, index, trick_no, no_check):
    """Judge one trick given as JSON (FILE, or - for stdin), or a trick of a deal record.

    \b
    Input: {"trump": {"rank": "2", "suit": "H"}, "rules": {...}, "leader": 0,
            "declarers": [0, 2], "hands": [4 card lists, optional],
            "plays": [card lists in playing order]}
    Other game sizes (docs/rules.md section 9): "players": 6, "decks": 3,
    "teams": "tractor" or "friends" (then "declarers" are the landlord's
    side so far, e.g. [2]); hands and plays follow the size.
    Examples:
      echo '{"trump": {"rank": "2", "suit": "H"},
             "plays": [["AS"], ["3S"], ["BJ"], ["KS"]]}' | tractor-sim judge - --explain
      tractor-sim judge --record deals.jsonl --index 3 --trick 5 --explain
    """
    from tractor_sim.play import referee

    if record_file:
        data = _record_trick(record_file, index, trick_no, not no_check)
    elif file is None:
        _fail("give a trick file (FILE, or - for stdin) or --record FILE")
    else:
        name = getattr(file, "name", "<stdin>")
        name = "stdin" if name in ("<stdin>", "-") else name
        try:  # what the JSON holds is the referee's to check (referee.TRICK)
            data = files.parse_json(files.decode(file.read(), name, "trick"), name, "trick", kind=None)
        except ValueError as e:
            _fail(str(e))
    try:
        out = referee.trick(**referee.check_json(data), explain=explain)
    except referee.RefereeError as e:  # the message names the field; say which input it is in
        _fail(f"{record_file + f', record {index}, trick {trick_no}' if record_file else name}: {e}")
    click.echo(json.dumps(out, indent=2))


def _record_trick(path, index, trick_no, check=True) -> dict:
    from tractor_sim.play import record as REC

    try:
        return REC.trick_input(REC.load(path, index, check=check), trick_no)
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
        from tractor_sim.rules import rulebook

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
        kind = " | ".join(choices) if choices else ("true | false" if isinstance(v, bool)
                                                    else f"whole number {WHOLE[k].bounds}")
        click.echo(f"  {k} = {json.dumps(v)}   [{kind}]\n      {DESCRIPTIONS.get(k, '')}")
    click.echo("\nMore about one option, with examples: tractor-sim rules --explain OPTION")
    from tractor_sim.rules.sizes import TABLES, GameSize

    click.echo("\nGame sizes (docs/rules.md section 9; an experiment's [game] table: players, decks, teams, or "
               "table = NAME):")
    for name, table in TABLES.items():
        size = GameSize.of(table)
        click.echo(f"  {name}: {size.players} players, {size.decks} decks, {size.teams} teams; kitty {size.kitty}, "
                   f"hands of {size.hand}")


# --------------------------------------------------------------------------- strategies
@main.command()
@click.option("--module", "modules", multiple=True, help="A strategy module (file or name) to load too.")
def strategies(modules):
    """List every registered strategy and policy with its parameters."""
    from tractor_sim.play import registry as S

    _load_strategies(modules)
    click.echo("Strategies:")
    for row in S.list_strategies():
        decision, name, params, desc = row
        click.echo(f"  {decision:8s} {name:16s} {desc}")
        info = S.get_strategy(decision, name)
        for k, v in params.items():  # each parameter: its default and the range it is refused outside
            click.echo(f"  {'':8s} {'':16s}   {k} = {v:g}   ({info.range_text(k)})")
    click.echo("Policies:")
    for _, name, table, desc in S.list_policies():
        parts = ", ".join(f"{k}={v}" for k, v in table.items())
        click.echo(f"  {name:16s} {parts}\n  {'':16s} {desc}")
    from tractor_sim.play.players import list_players

    click.echo("Python policies and process bots (docs/bots.md):")
    for info in list_players():
        ptxt = ", ".join(f"{k}={v:g}" for k, v in info.params.items())
        click.echo(f"  {info.name:16s} {info.kind:8s} {ptxt:20s} {info.description or info.describe()}")
    click.echo('  {policy = "process", command = [...], timeout = 5}  a bot named inline')
    click.echo("Search policies (docs/search.md):\n"
               "  search:BASE:WORLDS[:ROLLOUTS]  rolls out each candidate play in worlds sampled from the seat's "
               "knowledge (default search = search:expert:32)\n"
               "  oracle:BASE:WORLDS[:ROLLOUTS]  the same in the true deal: it sees every hand (cheating, an upper "
               "bound)\n"
               "  or a table {policy = \"search\", ...} of these fields:")
    from tractor_sim.play.search import SETTINGS

    for field in SETTINGS.fields:  # as declared, so the list is what is checked
        click.echo(f"    {field.name} ({field.bounds}): {field.meaning}")


def _load_strategies(modules):
    from tractor_sim.play import registry as S

    S.load_builtins()
    S.load_entry_points()
    for m in modules:
        try:
            S.load_module(m)
        except Exception as e:  # noqa: BLE001 - say which module failed
            _fail(f"--module: cannot load strategy module {m!r}: {type(e).__name__}: {e}")


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
@click.option("--repair", is_flag=True, help="Rerun stored parts that fail their checksum (and rewrite a damaged "
                                             "manifest) instead of refusing.")
@click.option("--chunk-timeout", type=click.FloatRange(min=0, min_open=True),
              help="Seconds without a finished chunk before the run stops (default 600 with a plug-in "
                   "strategy, whose chunks run in worker processes; else no limit).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run(experiment_file, deals, matches, seed, out, chunk_size, workers, backend, scheduler, repair, chunk_timeout,
        quiet):
    """Run an experiment file and write its run directory and report.

    \b
    Example:
      tractor-sim run experiments/quickstart.toml --deals 2000 --out runs/qs
    Interrupted runs resume: run the same command again.  A directory in use
    by another run, or holding another experiment, is refused.
    """
    from tractor_sim.runs import experiment as X
    from tractor_sim.runs.runner import run_experiment

    if scheduler and backend != "dask":
        _fail("--scheduler goes with --backend dask")
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
    except X.ExperimentError as e:
        _fail(str(e))
    command = _command_line()
    done = run_experiment(exp, out, command=command, workers=workers, backend=backend, scheduler=scheduler,
                          repair=repair, chunk_timeout=chunk_timeout,
                          progress=lambda total, skipped: _progress(quiet, total, skipped),
                          log=None if quiet else click.echo, compiling=lambda text: _compiling(quiet, text))
    _print_summary(done.dir / "summary.csv")
    md, html = done.report
    headline = _headline(md)
    if headline:
        click.echo(headline)
    click.echo(f"report: {html}\nreport: {md}")


@contextmanager
def _compiling(quiet, text):
    """What a cold start is doing: a spinner with ``text`` on a terminal, else ``text`` as a line
    on stderr (nothing under --quiet); then how long it took."""
    if quiet:
        yield
        return
    t0 = time.perf_counter()
    if sys.stderr.isatty():
        from rich.console import Console

        with Console(stderr=True).status(text):
            yield
    else:
        click.echo(text, err=True)
        yield
    click.echo(f"compiled in {time.perf_counter() - t0:.0f} s", err=True)


def _headline(report_md) -> str:
    """The headline of a report.md: its first paragraph after the title (the bold sentence the report
    opens with), without the bold marks."""
    try:
        lines = Path(report_md).read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    para = []
    for line in lines[1:]:
        if line.startswith("#") or (not line.strip() and para):
            break
        if line.strip():
            para.append(line.strip())
    return " ".join(para).strip("*").strip()


class _progress:
    """A rich progress bar over chunks (deals/s and ETA); silent when not a terminal.  ``warmup``:
    the first chunk compiles, so the rate counts from its end (the play's speed, not the compile's)."""

    def __init__(self, quiet, total, done, warmup=False):
        self.quiet = quiet or not sys.stderr.isatty()
        self.total, self.done, self.warmup = total, done, warmup

    def __enter__(self):
        if self.quiet:
            return lambda n, decisions=0: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("chunks"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), transient=False)
        self.p.start()
        self.task = self.p.add_task("run", total=self.total, completed=self.done, rate="")
        self.t0, self.deals = time.perf_counter(), 0

        self.decisions = 0

        def advance(n, decisions=0):
            if self.warmup:  # the compiling chunk: the clock starts at its end
                self.warmup, self.t0 = False, time.perf_counter()
                self.p.update(self.task, advance=1, rate="compiled")
                return
            self.deals += n
            self.decisions += decisions
            elapsed = max(1e-9, time.perf_counter() - self.t0)
            rate = f"{self.deals / elapsed:,.1f} deals/s"
            if self.decisions:  # a search plays: its decisions are the work
                rate += f", {self.decisions / elapsed:,.0f} decisions/s"
            self.p.update(self.task, advance=1, rate=rate)

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
def _game_options(command):
    """--players, --decks and --teams: a game size of docs/rules.md section 9 (read by _game_option)."""
    for option in reversed([
            click.option("--players", type=int, default=4, show_default=True,
                         help="Players (a game of docs/rules.md section 9)."),
            click.option("--decks", type=int, help="Decks (default players // 2, at least 2)."),
            click.option("--teams", type=click.Choice(["tractor", "friends"]), default="tractor", show_default=True,
                         help="Team mode: tractor (alternate seats) or friends (Finding Friends, any number of "
                              "players).")]):
        command = option(command)
    return command


@main.command()
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="The run's root seed.")
@click.option("--deal", "deal_id", type=click.IntRange(0, 2**50),
              help="Deal id (fixed mode), or match_id*1000 + deal in match (match mode).")
@click.option("--a", "policy_a", default="basic", show_default=True, help="Policy of team 0 (seats 0, 2).")
@click.option("--b", "policy_b", default="basic", show_default=True, help="Policy of team 1 (seats 1, 3).")
@click.option("--mode", type=click.Choice(["fixed", "match"]), default="fixed", show_default=True)
@click.option("--levels", default="2,2", show_default=True, help="Fixed mode: team levels, e.g. 2,2.")
@click.option("--declaring-team", type=click.IntRange(0, 1), default=0, show_default=True)
@click.option("--rules", "rules_json", default="{}", help='Rule options as JSON, e.g. \'{"preset": "standard"}\'.')
@click.option("--module", "modules", multiple=True, help="A strategy module to load.")
@_game_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: the deal record (docs/records.md).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False),
              help="Read the deal from a deal record file (JSON Lines) instead of playing it.")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --record: which record of the file (0-based).")
@click.option("--verify", is_flag=True, help="With --record: play the deal again and check every event matches.")
@click.option("--no-check", is_flag=True,
              help="With --record: show the record without checking its plays against the rules (forensics: a "
                   "record with an impossible play is shown, not refused).")
@click.option("--html", "html_out", type=click.Path(dir_okay=False),
              help="Also write a self-contained page that steps through the deal in a browser.")
def replay(seed, deal_id, policy_a, policy_b, mode, levels, declaring_team, rules_json, modules, players, decks, teams,
           fmt, record_file, index, verify, html_out, no_check):
    """Print one deal trick by trick: hands, declarations, kitty, plays, result.

    \b
    Examples:
      tractor-sim replay --seed 42 --deal 7 --a basic --b random
      tractor-sim replay --seed 42 --deal 7 --html deal.html
      tractor-sim replay --record deals.jsonl --index 3 --verify --html deal3.html
    """
    from tractor_sim.play import record as REC
    from tractor_sim.play import replay as R
    from tractor_sim.play.sandbox import interruptible

    _load_strategies(modules)
    if record_file:
        try:
            data = REC.load(record_file, index, check=not no_check)
        except ValueError as e:
            _fail(str(e) + (" (--no-check shows it anyway)" if isinstance(e, REC.ImpossibleDeal) else ""))
        if verify:
            _load_strategies(data.get("strategy_modules", ()))
            diff = REC.differences(data, R.replay_again(data))
            if diff:
                _fail(f"{record_file}, record {index}: playing the deal again differs in " + ", ".join(diff), 1)
    else:
        if seed is None or deal_id is None:
            _fail("give --seed and --deal, or --record FILE")
        lv, rules = _levels_and_rules(levels, rules_json)
        policies = tuple(_policy_option(p, o) for p, o in ((policy_a, "--a"), (policy_b, "--b")))
        game = _game_option(players, decks, teams)
        with interruptible():
            data = R.replay(seed=seed, deal_id=deal_id, policies=policies, mode=mode, levels=lv,
                            declaring_team=declaring_team, rules=rules, modules=modules, game=game)
    click.echo(json.dumps(data, indent=2) if fmt == "json" else R.as_text(data))
    if verify:
        click.echo("verified: playing the deal again gives the same events and result", err=True)
    if html_out:
        from tractor_sim.report import viewer

        try:
            Path(html_out).write_text(viewer.page(data))
        except OSError as e:
            _fail(f"--html: cannot write {html_out}: {e.strerror or e}")
        click.echo(f"viewer: {html_out}", err=True)


def _command_line() -> str:
    """This command as typed (for a manifest or a report to say how it was made)."""
    return "tractor-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _dir_name(name: str) -> str:
    """A default directory under runs/ for a name (tractor_sim.runs.experiment.dir_name: one safe component)."""
    from tractor_sim.runs.experiment import dir_name

    return dir_name(str(name))


def _game_option(players, decks, teams="tractor"):
    """--players/--decks/--teams as a checked game size (tractor_sim.rules.sizes), or a one-line error."""
    from tractor_sim.rules.sizes import GameSize, GameSizeError

    try:
        game = GameSize.of({"players": players, "teams": teams, **({} if decks is None else {"decks": decks})},
                           "--players/--decks/--teams")
    except GameSizeError as e:
        _fail(str(e))
    return game


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
    from tractor_sim.play import record as REC
    from tractor_sim.play import replay as R

    try:
        manifest = files.read_json(Path(run_dir) / "manifest.json", "run manifest")
    except ValueError as e:
        _fail(f"{e} (not a finished run directory)")
    _load_strategies(manifest.get("experiment", {}).get("strategy_modules", ()))
    try:
        records = list(R.export(run_dir, REC.parse_ids(deal_spec), matchups=matchups or None,
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


def _rules_option(rules_json: str) -> dict:
    """``--rules JSON`` as a rules dict, or a one-line error naming the option."""
    try:
        rules = json.loads(rules_json)
    except json.JSONDecodeError as e:
        _fail(f"--rules: not valid JSON ({e}); e.g. '{{\"preset\": \"standard\"}}'")
    if not isinstance(rules, dict):
        _fail("--rules: expected a JSON object of rule options, e.g. '{\"preset\": \"standard\"}'")
    return rules


def _levels_and_rules(levels: str, rules_json: str):
    """``--levels A,B`` and ``--rules JSON`` as (two level indices, a rules dict), or a message naming the option."""
    from tractor_sim.rules.cards import CardError, parse_rank

    try:
        lv = tuple(parse_rank(x) for x in levels.split(","))
        if len(lv) != 2:
            raise CardError("expected two levels")
    except CardError as e:
        _fail(f"--levels: {e}")
    return lv, _rules_option(rules_json)


def _policy_option(text: str, option: str):
    """A policy name, or a JSON table (as the "replay with:" hint of an error writes an ad-hoc policy)."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        _fail(f"{option}: not a policy name nor a valid JSON table ({e})")


# --------------------------------------------------------------------------- compare
@main.command()
@click.argument("policy_a")
@click.argument("policy_b")
@click.option("--decision", type=click.Choice(["declare", "discard", "lead", "follow", "bid", "call"]),
              help="Compare only this decision: A and B are strategy names, the rest is the basic policy.")
@click.option("--deals", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Deal pairs at most.")
@click.option("--sprt", help="LOW,HIGH in levels per deal: stop when a sequential test decides.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True)
@click.option("--chunk-size", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--module", "modules", multiple=True, help="A strategy module to load.")
@click.option("--context", "contexts", multiple=True,
              help="Play A vs B in this context too (repeatable; a policy name or JSON table): it plays every "
                   "decision A's and B's tables do not name, on the same deals; with --decision or A and B "
                   "as JSON tables without 'policy'.")
@click.option("--rules", "rules_json", default="{}", help='Rule options as JSON, e.g. \'{"declaring": "auction"}\'.')
@_game_options
def compare(policy_a, policy_b, decision, deals, sprt, seed, chunk_size, modules, contexts, rules_json, players,
            decks, teams):
    """Is A better than B? Duplicate deals at level 2, A and B swapped between halves.

    \b
    Examples:
      tractor-sim compare expert basic --deals 20000
      tractor-sim compare lowest void --decision discard --sprt 0,0.05
      tractor-sim compare keep_points void --decision discard --context basic --context expert
      tractor-sim compare expert basic --players 6 --decks 3 --deals 2000
      tractor-sim compare expert basic --players 5 --teams friends --deals 2000
    """
    from tractor_sim.runs import compare as CMP
    from tractor_sim.play.sandbox import interruptible

    _load_strategies(modules)
    rules, game = _rules_option(rules_json), _game_option(players, decks, teams)
    bounds = None
    if sprt:
        try:
            low, high = (float(x) for x in sprt.split(","))
        except ValueError:
            _fail(f"--sprt: expected LOW,HIGH such as 0,0.05, got {sprt!r}")
        if not low < high:
            _fail("--sprt: LOW must be below HIGH")
        bounds = (low, high)
    if contexts:
        if bounds:
            _fail("--sprt and --context: the sequential test looks at one comparison; give one of them")
        specs = [{decision: x, "name": f"{x} ({decision})"} if decision else _policy_option(x, arg)
                 for x, arg in ((policy_a, "POLICY_A"), (policy_b, "POLICY_B"))]
        with interruptible():
            result = CMP.in_contexts(*specs, [_policy_option(c, "--context") for c in contexts], max_pairs=deals,
                                     seed=seed, chunk_size=chunk_size, modules=modules, rules=rules, game=game)
        click.echo(CMP.contexts_text(result))
        return
    with interruptible():
        result = CMP.compare(policy_a, policy_b, decision=decision, max_deals=deals, sprt=bounds, seed=seed,
                             chunk_size=chunk_size, modules=modules, rules=rules, game=game)
    click.echo(CMP.as_text(result))


# --------------------------------------------------------------------------- analyze
@main.command()
@click.argument("policy")
@click.option("--deals", default="20", show_default=True, help="Deals to play (the policy at every seat).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True)
@click.option("--worlds", default="16", show_default=True, help="Worlds per decision.")
@click.option("--rollouts", default="1", show_default=True, help="Rollouts per world and candidate.")
@click.option("--max-candidates", default="32", show_default=True, help="Candidate plays per decision, at most.")
@click.option("--source", type=click.Choice(["sampled", "true"]),
              help="Worlds sampled from the seat's knowledge (default when the sampler is built in), or the true "
                   "deal only.")
@click.option("--levels", default="2,2", show_default=True, help="Team levels, e.g. 2,2.")
@click.option("--declaring-team", type=click.IntRange(0, 1), default=0, show_default=True)
@click.option("--rules", "rules_json", default="{}", help='Rule options as JSON, e.g. \'{"declaring": "auction"}\'.')
@click.option("--module", "modules", multiple=True, help="A strategy module to load.")
@click.option("--worst", default="10", show_default=True, help="Worst decisions listed with their replay command.")
@click.option("--out", type=click.Path(file_okay=False), help="Report directory (default runs/analyze-POLICY).")
@click.option("--rollout-policy", help="For a Python policy or bot: the compiled policy the search rolls out after "
                                      "its decisions (default expert).")
@_game_options
@click.option("--quiet", is_flag=True, help="No progress bar.")
def analyze(policy, deals, seed, worlds, rollouts, max_candidates, source, levels, declaring_team, rules_json,
            modules, worst, out, rollout_policy, players, decks, teams, quiet):
    """Where does POLICY lose its levels? The search values each of its decisions.

    \b
    POLICY plays every seat; at each declaration, bid, burial, call, lead and
    follow the search rolls out the policy's play and every other candidate (the
    same worlds for all) and selects the best mean; the play and the selection are valued again
    on independent worlds: regret = selection - play there (unbiased), in
    levels and points, by decision type and trick, beside the in-sample
    regret (upper-biased), with the worst decisions and their replays.
    A Python policy or bot plays too: the rollouts after its decisions are
    played by --rollout-policy (compiled; default expert).
    Examples:
      tractor-sim analyze expert --deals 20 --worlds 16 --out runs/analyze-expert
      tractor-sim analyze python_example --module strategies/python_example.py --deals 4
      tractor-sim analyze expert --deals 20 --worlds 8 --rules '{"declaring": "auction"}'
      tractor-sim analyze expert --deals 10 --worlds 8 --players 5 --teams friends
    """
    from tractor_sim.runs import analyze as A
    from tractor_sim.play.sandbox import interruptible

    _load_strategies(modules)
    counts = {}
    for key, text in (("deals", deals), ("worlds", worlds), ("rollouts", rollouts),
                      ("max_candidates", max_candidates), ("worst", worst)):
        option = "--" + key.replace("_", "-")
        try:  # each read by its declaration (analyze.NUMBERS), named by its option
            counts[option] = A.NUMBERS[key].within(name=option).parse(text, "option ")
        except ValueError as e:
            _fail(str(e))
    lv, rules = _levels_and_rules(levels, rules_json)
    game = _game_option(players, decks, teams)
    pol = _policy_option(policy, "POLICY")
    name = pol if isinstance(pol, str) else pol.get("name") or pol.get("policy") or "custom"
    from tractor_sim.runs import firstrun

    rolled = None if rollout_policy is None else _policy_option(rollout_policy, "--rollout-policy")
    try:
        A.rollout_policy_of(pol, rolled)  # before the search compiles
    except ValueError as e:
        _fail(str(e))
    cold = firstrun.search_pending()
    if cold and not quiet:
        click.echo(cold, err=True)
    with _progress(quiet, -(-max(1, counts["--deals"]) // A.CHUNK), 0, warmup=bool(cold)) as advance, interruptible():
        result = A.run(pol, deals=counts["--deals"], seed=seed, rules=rules, worlds=counts["--worlds"],
                       rollouts=counts["--rollouts"], max_candidates=counts["--max-candidates"], source=source,
                       levels=lv, declaring_team=declaring_team, modules=modules, progress=advance,
                       rollout_policy=rolled, game=None if game.standard else game)
    md, html_path, _ = A.write_report(result, Path(out or Path("runs") / _dir_name(f"analyze-{name}")), counts["--worst"])
    click.echo(A.as_text(result))
    click.echo(f"report: {md}\nreport: {html_path}")


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
    from tractor_sim.runs import tune as tuning

    try:
        cfg = tuning.load(tune_file)
        _load_strategies(cfg["modules"])
        show = None if quiet else (lambda k, theta: click.echo(f"iteration {k + 1}: " + ", ".join(
            f"{n} = {v:.3f}" for n, v in zip(cfg["params"], theta))))
        trajectory = tuning.spsa(cfg, show)
        tuned = {n: float(trajectory.iloc[-1][n]) for n in cfg["params"]}
        result = tuning.verify(cfg, tuned)
    except ValueError as e:  # TuneError, a bad policy or parameter (StrategyError), a bad count
        _fail(str(e))
    out_dir = Path(out or Path("runs") / _dir_name(cfg["name"]))
    command = _command_line()
    click.echo(f"report: {tuning.write(cfg, trajectory, result, out_dir, command)}")


# --------------------------------------------------------------------------- train
@main.command()
@click.argument("train_file", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), help="Run directory (default runs/NAME); it resumes.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def train(train_file, out, quiet):
    """Fit the learned player's weights to the search's values (docs/learned.md).

    \b
    Example:
      tractor-sim train experiments/train.toml --out runs/train
    Stopped (Ctrl-C), the same command resumes at the round it stopped in;
    the model is DIR/model.json, played as {policy = "learned", model = "DIR/model.json"}.
    """
    from tractor_sim.play.sandbox import interruptible
    from tractor_sim.runs import train as training

    try:
        cfg = training.load(train_file)
    except ValueError as e:
        _fail(str(e))
    out_dir = Path(out or Path("runs") / _dir_name(cfg.name))
    command = _command_line()
    chunks = cfg.rounds * -(-cfg.deals // cfg.chunk)
    try:
        with _progress(quiet, chunks, 0) as advance, interruptible():
            model = training.run(cfg, out_dir, command, advance=lambda n: advance(n), say=click.echo if not quiet else
                          (lambda text: None))
    except ValueError as e:
        _fail(str(e))
    click.echo(f"model: {model}")
    click.echo(f"report: {out_dir / 'report.md'}")


def command_line():
    """The ``tractor-sim`` console script: ``main``, then an end without the interpreter's teardown.

    The teardown frees every module's objects one by one (numba's compiled code, matplotlib's,
    pandas'): 0.3 s of a 3.5 s warm quick start, after everything is written.  So the first exit
    function registered (atexit runs the last registered first) flushes stdout and stderr and calls
    ``os._exit`` with the command's status: the threads are joined and the other exit functions run
    before it, as in a normal end, and every file and worker is closed by the commands themselves.
    """
    import atexit
    import os

    status = 1  # an exception that escaped (--debug): the interpreter printed it

    def end():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe (| head): nothing more to say
                pass
        os._exit(status)

    atexit.register(end)
    try:
        main()
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
        raise
    except KeyboardInterrupt:
        status = 130
        raise


if __name__ == "__main__":
    command_line()
