"""The replay viewer: one deal record as one self-contained HTML page.

The page carries the record as JSON and draws it with a little inline
script, so it opens offline and from any file manager.  Everything from the
record reaches the page as text (JSON parsed in the browser and set with
``textContent``; the few server-side strings are HTML-escaped), so a policy
name or a note cannot inject markup.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

CSS = """
body{font-family:system-ui,sans-serif;margin:1em auto;max-width:1150px;padding:0 1em;background:#f4f1ea;color:#222}
h1{font-size:1.35em;margin:.2em 0}.sub{color:#555;margin:.2em 0}
.info{display:flex;flex-wrap:wrap;gap:.4em 2em;margin:.6em 0}.info div{min-width:14em}
.table{position:relative;background:#2f6b45;border-radius:10px;height:46em}
.seat{position:absolute;transform:translate(-50%,-50%);background:#3d7d54;border-radius:8px;padding:.4em;
 color:#fff;max-height:13em;overflow:auto;box-sizing:border-box}
.seat h3{font-size:.9em;margin:0 0 .3em 0;font-weight:600}.seat.decl h3::after{content:" (declarers)";opacity:.75}
#center{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);width:44%;background:#2a5e3c;
 border-radius:8px;padding:.4em;color:#fff;display:flex;flex-wrap:wrap;gap:.4em;justify-content:center;
 align-items:center;min-height:6em}
.play{text-align:center}.play .who{font-size:.75em;opacity:.85}.play.win .cards{outline:3px solid gold;
 border-radius:6px}#ctext{width:100%;font-size:.8em;text-align:center}
.cards{display:inline-flex;flex-wrap:wrap;gap:2px;padding:2px}
.card{display:inline-flex;flex-direction:column;align-items:center;justify-content:center;width:2.1em;
 height:2.9em;background:#fff;border:1px solid #999;border-radius:4px;font-weight:700;font-size:.95em;
 line-height:1.05;box-shadow:1px 1px 1px rgba(0,0,0,.25)}
.card .s{font-size:1.1em}.card.red{color:#c8102e}.card.black{color:#111}.card.trump{background:#fff6cf}
.card.joker{font-size:.75em}.card.joker .s{font-size:1.4em}
.panel{background:#fff;border-radius:8px;padding:.5em .8em;margin:.6em 0}
.nav{display:flex;gap:.5em;align-items:center;margin:.6em 0}.nav button{font-size:1.05em;padding:.25em .8em}
#status{font-weight:600}#score{margin:.3em 0}.note{font-style:italic;color:#444}.throw{color:#a33}
.kitty{display:flex;gap:2em;flex-wrap:wrap}
"""

SCRIPT = r"""
const D = JSON.parse(document.getElementById('deal').textContent);
const SYM = {S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663'};
const RANKS = ['2','3','4','5','6','7','8','9','10','J','Q','K','A'];
const SUIT_ORDER = 'SHDC';
const N = D.hands.length;  // seats: every game size (docs/rules.md section 9)
const friends = Array.isArray(D.calls);  // Finding Friends: the landlord's side grows as friends join
const ordinal = k => k + (k === 1 ? 'st' : k === 2 ? 'nd' : k === 3 ? 'rd' : 'th');
const rankOf = c => c.slice(0, -1), suitOf = c => c.slice(-1);
function isTrump(c) {
  if (c === 'BJ' || c === 'RJ') return true;
  if (D.trump.suit === null) return !!D.rules.rank_trumps_in_no_trump && rankOf(c) === D.trump.rank;
  return rankOf(c) === D.trump.rank || suitOf(c) === D.trump.suit;
}
function strength(c) {
  if (c === 'RJ') return 100; if (c === 'BJ') return 99;
  if (rankOf(c) === D.trump.rank) return suitOf(c) === D.trump.suit ? 98 : 97;
  return RANKS.indexOf(rankOf(c));
}
function sortKey(c) {
  return (isTrump(c) ? 0 : 1 + SUIT_ORDER.indexOf(suitOf(c))) * 10000 + (100 - strength(c)) * 10 +
    Math.max(0, SUIT_ORDER.indexOf(suitOf(c)));
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function cardEl(c) {
  const e = el('span', 'card');
  if (c === 'BJ' || c === 'RJ') {
    e.classList.add('joker', c === 'RJ' ? 'red' : 'black');
    e.appendChild(el('span', 's', '\u2605'));
    e.appendChild(el('span', '', c));
  } else {
    const s = suitOf(c);
    e.classList.add(s === 'H' || s === 'D' ? 'red' : 'black');
    e.appendChild(el('span', '', rankOf(c)));
    e.appendChild(el('span', 's', SYM[s] || s));
  }
  if (isTrump(c)) e.classList.add('trump');
  e.title = c;
  return e;
}
function cardsEl(list) {
  const box = el('span', 'cards');
  [...list].sort((a, b) => sortKey(a) - sortKey(b)).forEach(c => box.appendChild(cardEl(c)));
  return box;
}
function fill(id, list) {
  const n = document.getElementById(id);
  n.textContent = '';
  n.appendChild(cardsEl(list));
}
function remove(hand, cards) {
  for (const c of cards) { const i = hand.indexOf(c); if (i >= 0) hand.splice(i, 1); }
}
const levelName = l => RANKS[Math.min(12, l)] + (l > 12 ? '+' : '');
// the hands after each trick, and the opponents' running total
const hands = [D.hands.map(h => [...h])];
hands[0][D.starter] = hands[0][D.starter].concat(D.kitty);
remove(hands[0][D.starter], D.buried);
// the declarers after each trick: a team, or in Finding Friends the landlord and who has joined
const sides = [new Set(friends ? [D.starter] : [...Array(N).keys()].filter(s => s % 2 === D.declaring_team))];
const running = [0];
D.tricks.forEach((t, i) => {
  const h = hands[i].map(x => [...x]);
  t.plays.forEach(p => remove(h[p.seat], p.cards));
  hands.push(h);
  const side = new Set(sides[i]);
  (t.joins || []).forEach(j => { if (j.joined) side.add(j.seat); });
  sides.push(side);
  let r = running[i] + (side.has(t.winner) ? 0 : t.points);
  if (t.failed_throw) r += t.failed_throw.penalty;
  running.push(r);
});
function placeSeats() {  // seat 0 at the bottom, the others around the table in playing order
  const width = N <= 4 ? 34 : N <= 6 ? 27 : 23;
  for (let s = 0; s < N; s++) {
    const box = document.getElementById('seat' + s), a = 2 * Math.PI * s / N;
    box.style.left = (50 + 38 * Math.sin(a)) + '%';
    box.style.top = (50 + 40 * Math.cos(a)) + '%';
    box.style.width = width + '%';
  }
}
let step = 0;
const last = D.tricks.length;
function show(k) {
  step = Math.max(0, Math.min(last, k));
  for (let s = 0; s < N; s++) {
    fill('hand' + s, hands[step][s]);
    document.getElementById('seat' + s).classList.toggle('decl', sides[step].has(s));
  }
  const center = document.getElementById('center');
  center.querySelectorAll('.play').forEach(e => e.remove());
  const ctext = document.getElementById('ctext'), notes = document.getElementById('notes');
  ctext.textContent = ''; notes.textContent = '';
  const status = document.getElementById('status');
  if (step === 0) {
    status.textContent = 'Before the first trick: seat ' + D.starter + ' has buried the kitty and leads';
    ctext.textContent = 'step through the tricks with \u2190 \u2192';
  } else {
    const t = D.tricks[step - 1];
    status.textContent = 'Trick ' + t.trick + ' of ' + last + ': led by seat ' + t.leader + ', won by seat ' +
      t.winner + ' (' + (sides[step].has(t.winner) ? 'declarers' : 'opponents') + '), ' + t.points + ' points';
    t.plays.forEach((p, i) => {
      const box = el('div', 'play' + (p.seat === t.winner ? ' win' : ''));
      center.insertBefore(box, ctext);
      box.appendChild(el('div', 'who', 'seat ' + p.seat + (i === 0 ? ' leads' : '')));
      box.appendChild(cardsEl(p.cards));
      if (p.note) notes.appendChild(el('div', 'note', 'seat ' + p.seat + ': ' + p.note));
    });
    ctext.textContent = t.points + ' pts';
    if (t.failed_throw) {
      const f = t.failed_throw, d = el('div', 'throw');
      d.appendChild(el('span', '', 'Failed throw by seat ' + t.leader + ': '));
      d.appendChild(cardsEl(f.attempted));
      d.appendChild(el('span', '', ' blocked by seat ' + f.blocked_by + '; the forced part was led; penalty ' +
        (f.penalty > 0 ? '+' : '') + f.penalty + ' to the opponents\u2019 total'));
      notes.appendChild(d);
    }
    (t.joins || []).forEach(j => {
      const c = D.calls[j.call];
      notes.appendChild(el('div', 'note', 'seat ' + j.seat + ' plays the ' + ordinal(c.copy) + ' ' + c.card + ': ' +
        (j.joined ? 'joins the landlord (seat ' + D.starter + ')' : 'the call is spent (already on the side)')));
    });
  }
  const r = D.result;
  let score = 'Opponents\u2019 points: ' + running[step];
  if (step === last) {
    score += ' + kitty bonus ' + r.kitty_bonus + ' = ' + r.opp_points + '. ';
    if (friends) {
      const moved = [...Array(N).keys()].map(s => 'seat ' + s + ' ' + levelName(r['level' + s + '_before']) +
        '\u2192' + levelName(r['level' + s + '_after']));
      score += (r.landlord_won ? 'The landlord\u2019s side wins' : 'The opponents win') + ': ' + moved.join(', ') +
        '. Next landlord: seat ' + r.next_starter + '.';
    } else {
      const who = r.gain_team < 0 ? 'Nobody gains a level' :
        'Team ' + r.gain_team + ' (' + D.policies[r.gain_team] + ') +' + r.gain + ' level' + (r.gain === 1 ? '' : 's');
      score += who + ': levels ' + levelName(r.level0_before) + ' / ' + levelName(r.level1_before) + ' \u2192 ' +
        levelName(r.level0_after) + ' / ' + levelName(r.level1_after) + '.';
      if (r.next_starter !== undefined) score += ' Next starter: seat ' + r.next_starter + '.';
    }
  }
  document.getElementById('score').textContent = score;
  document.getElementById('prev').disabled = step === 0;
  document.getElementById('next').disabled = step === last;
}
function setup() {
  const t = D.trump;
  const info = document.getElementById('info');
  const parity = t0 => [...Array(N).keys()].filter(s => s % 2 === t0).join(', ');
  const rows = friends ? [
    ['Players', N + ' with ' + (D.game ? D.game.decks : 2) + ' decks, Finding Friends; even seats play ' +
      D.policies[0] + ', odd seats ' + D.policies[1]],
    ['Levels', D.levels.map((l, s) => 'seat ' + s + ' ' + l).join(', ')],
    ['Landlord\u2019s calls', D.calls.map(c => 'the ' + ordinal(c.copy) + ' ' + c.card).join('; ')],
  ] : [
    ['Team 0 (seats ' + parity(0) + ')', D.policies[0] + (D.declaring_team === 0 ? ', declaring' : '') + ', level ' + D.levels[0]],
    ['Team 1 (seats ' + parity(1) + ')', D.policies[1] + (D.declaring_team === 1 ? ', declaring' : '') + ', level ' + D.levels[1]],
    ['Trump', 'rank ' + t.rank + ', ' + (t.suit ? 'suit ' + SYM[t.suit] + ' ' + t.suit : 'no trump suit') +
      (t.set_by ? ' (set by ' + t.set_by + ')' : '')],
    [friends ? 'Landlord' : 'Starter', 'seat ' + D.starter + (D.redeals ? '; ' + D.redeals + ' redeal(s) before' : '')],
  ];
  rows.forEach(([k, v]) => {
    const d = el('div');
    d.appendChild(el('b', '', k + ': '));
    d.appendChild(el('span', '', v));
    info.appendChild(d);
  });
  const decl = document.getElementById('declarations');
  if (!D.declarations.length && !(D.auction || []).length) decl.textContent = 'No declarations.';
  D.declarations.forEach(d => {
    const line = el('div', '', 'seat ' + d.seat + ' declares ' + (d.count ? d.count + ' \u00d7 ' : 'a ' + d.kind + ' '));
    line.appendChild(cardEl(d.card));
    if (d.drawn !== undefined) line.appendChild(el('span', '', ' after ' + d.drawn + ' cards drawn'));
    decl.appendChild(line);
  });
  (D.auction || []).forEach(a => {
    const line = el('div', '', 'seat ' + a.seat + (a.bid !== undefined ? ' bids ' + a.bid : ' shows '));
    if (a.shows) line.appendChild(cardEl(a.shows));
    decl.appendChild(line);
  });
  fill('kitty', D.kitty);
  fill('buried', D.buried);
  const table = document.getElementById('table');
  for (let s = 0; s < N; s++) {
    const box = el('div', 'seat');
    box.id = 'seat' + s;
    box.appendChild(el('h3', '', 'Seat ' + s + (friends ? '' : ' \u00b7 team ' + (s % 2)) + ' \u00b7 ' +
      D.policies[s % 2] + (s === D.starter ? (friends ? ' \u00b7 landlord' : ' \u00b7 starter') : '')));
    const hand = el('div');
    hand.id = 'hand' + s;
    box.appendChild(hand);
    table.appendChild(box);
  }
  placeSeats();
  document.getElementById('first').onclick = () => show(0);
  document.getElementById('prev').onclick = () => show(step - 1);
  document.getElementById('next').onclick = () => show(step + 1);
  document.getElementById('last').onclick = () => show(last);
  document.addEventListener('keydown', e => {
    if (e.key === 'ArrowRight') show(step + 1);
    else if (e.key === 'ArrowLeft') show(step - 1);
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(last);
  });
  show(0);
}
setup();
"""

BODY = """<h1>{title}</h1>
<p class="sub">{subtitle}</p>
<div class="info" id="info"></div>
<div class="panel"><b>Declarations</b><div id="declarations"></div></div>
<div class="panel kitty"><div><b>Kitty as dealt</b><div id="kitty"></div></div>
<div><b>Buried by the starter</b><div id="buried"></div></div></div>
<div class="nav"><button id="first" title="Home">first</button><button id="prev" title="left arrow">&#x25C0;
 back</button><button id="next" title="right arrow">next &#x25B6;</button><button id="last" title="End">last</button>
<span id="status"></span></div>
<div class="table" id="table"><div id="center"><div id="ctext"></div></div></div>
<div class="panel"><div id="score"></div><div id="notes"></div></div>
"""


def _json_for_script(data) -> str:
    """JSON that cannot end the <script> element it sits in."""
    return (json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def page(rec: dict) -> str:
    """The viewer page of one deal record (a validated record: see record.validate)."""
    title = f"Deal {rec['deal_id']} (seed {rec['seed']})"
    src = rec.get("source") or {}
    sub = f"{rec['policies'][0]} (team 0) against {rec['policies'][1]} (team 1), {rec['mode']} mode"
    if src:
        sub += f"; run {src.get('run', '?')}, matchup {src.get('matchup', '?')}, half {src.get('half', '?')}"
    body = BODY.format(title=html.escape(title), subtitle=html.escape(sub))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>tractor-sim: {html.escape(title)}</title><style>{CSS}</style></head><body>\n{body}"
            f'<script type="application/json" id="deal">{_json_for_script(rec)}</script>\n'
            f"<script>{SCRIPT}</script>\n</body></html>\n")


MAX_POLICIES = 6  # a report links two deals per policy: keep it to a few


def examples(run_dir, max_policies: int = MAX_POLICIES, deals=None) -> list[tuple[str, str]]:
    """Write the viewer pages of each policy's best and worst deal (by its team's level change)
    into run_dir/viewer/, with their records in examples.jsonl; return (label, path relative
    to run_dir) pairs for the report to link. ``deals``: the run's deals table when the caller
    holds it already (the report: a second read of 10,000,000 deals doubled its peak)."""
    import numpy as np
    import pandas as pd

    from tractor_sim.play import record as REC
    from tractor_sim.play import replay as R

    run_dir = Path(run_dir)
    cols = ["matchup", "policy0", "policy1", "half", "deal_id", "gain", "gain_team", "opp_points",
            "level0_after", "level1_after"]
    if deals is None:
        manifest, deals = R.open_run(run_dir, columns=cols)
    else:
        manifest = _manifest(run_dir)
    gain, team = deals["gain"].to_numpy(np.int64), deals["gain_team"].to_numpy()
    change0 = np.where(team == 0, gain, np.where(team == 1, -gain, 0))
    # policies by category codes: comparing 10,000,000 Python strings took most of the report's time
    cat0, cat1 = pd.Categorical(deals["policy0"]), pd.Categorical(deals["policy1"])
    order = [str(cat0.categories[c]) for c in pd.unique(cat0.codes) if c >= 0]
    order += [str(cat1.categories[c]) for c in pd.unique(cat1.codes) if c >= 0]
    where0 = {str(n): i for i, n in enumerate(cat0.categories)}
    where1 = {str(n): i for i, n in enumerate(cat1.categories)}
    chosen = []  # (label, row index), by policy
    for policy in list(dict.fromkeys(order))[:max_policies]:
        in0, in1 = cat0.codes == where0.get(policy, -2), cat1.codes == where1.get(policy, -2)
        change = np.where(in0, change0, -change0).astype(float)
        change[~in0 & ~in1] = np.nan
        for word, i in (("best", int(np.nanargmax(change))), ("worst", int(np.nanargmin(change)))):
            n = int(change[i])
            chosen.append((f"{policy}: {word} deal, {n:+d} level{'' if abs(n) == 1 else 's'}", i))
    rows = list(dict.fromkeys(i for _, i in chosen))
    out_dir = run_dir / "viewer"
    out_dir.mkdir(exist_ok=True)
    records = list(R.export_rows(run_dir, manifest, [deals.iloc[i] for i in rows]))
    REC.write(records, out_dir / "examples.jsonl")
    matchup_no = {m["name"]: n for n, m in enumerate(manifest["experiment"]["matchups"])}
    pages = {}
    for i, rec in zip(rows, records):
        src = rec["source"]
        name = f"deal-{matchup_no[src['matchup']]}-h{src['half']}-{rec['deal_id']}.html"
        (out_dir / name).write_text(page(rec))
        pages[i] = (f" (matchup {src['matchup']}, half {src['half']}, deal {rec['deal_id']})", f"viewer/{name}")
    links = [(label + pages[i][0], pages[i][1]) for label, i in chosen]
    return links


def _manifest(run_dir: Path) -> dict:
    from tractor_sim.play import record as REC

    try:
        return json.loads((run_dir / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        raise REC.RecordError(f"{run_dir}: not a finished run directory ({e})") from None


def report_blocks(run_dir, deals=None) -> list[tuple]:
    """The report's "Example deals" section: links to the pages of ``examples``, or why there are none."""
    head = [("h", 2, "Example deals")]
    try:
        links = examples(run_dir, deals=deals)
    except (ValueError, KeyError, OSError, RuntimeError) as e:  # a report is still useful without them
        why = f"the manifest has no field {e}" if isinstance(e, KeyError) else str(e)
        return head + [("p", f"Skipped: the deals could not be replayed ({why}).")]
    return head + [("p", "Each policy's best and worst deal by its team's level change, replayed from the seed "
                         "(open in a browser; step with the arrow keys). Records: viewer/examples.jsonl."),
                   ("links", links)]


__all__ = ["page", "examples", "report_blocks"]
