#!/usr/bin/env node
// A reference bot for tractor-sim's bot protocol (docs/bots.md, version 1) in JavaScript: the same
// bot as bot.py (the two give identical games). One JSON object per line on stdin, one answer per
// line on stdout.
"use strict";
const readline = require("readline");

const POINTS = { "5": 5, "10": 10, K: 10 };
const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

const rank = (c) => (c === "BJ" || c === "RJ" ? c : c.slice(0, -1));
const points = (cards) => cards.reduce((s, c) => s + (POINTS[rank(c)] || 0), 0);
const strength = (cards) =>
  cards.reduce((s, c) => s + (c === "RJ" ? 20 : c === "BJ" ? 19 : RANK_ORDER.indexOf(rank(c))), 0);

// Python's max/min keep the first of equal keys: so do these
function best(list, key, better) {
  let pick = list[0], k = key(pick);
  for (const a of list.slice(1)) {
    const ka = key(a);
    if (better(ka, k)) { pick = a; k = ka; }
  }
  return pick;
}
const cmp = (x, y) => (x[0] !== y[0] ? x[0] - y[0] : x[1] - y[1]);

function choose(msg) {
  const legal = msg.legal, view = msg.view;
  if (msg.decision === "declare") {
    const shown = legal.filter((a) => a && a.length);
    return shown.length ? shown[0] : null;
  }
  if (msg.decision === "lead") {
    const suitOf = {};
    for (const [s, cards] of Object.entries(view.hand_by_suit)) for (const c of cards) suitOf[c] = s;
    const singles = legal.filter((a) => a.length === 1 && suitOf[a[0]] !== "T");
    return singles.length ? best(singles, (a) => strength(a), (x, y) => x > y) : legal[0];
  }
  if (msg.decision === "follow") {
    const partner = view.trick.length > 0 && view.winning % 2 === msg.seat % 2;
    if (partner) return best(legal, (a) => [points(a), -strength(a)], (x, y) => cmp(x, y) > 0);
    return best(legal, (a) => [points(a), strength(a)], (x, y) => cmp(x, y) < 0);
  }
  return legal[0];
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  let reply;
  if (msg.type === "hello") reply = { type: "hello", version: 1, name: "reference bot (JavaScript)" };
  else if (msg.type === "decide") reply = { type: "answer", id: msg.id, answer: choose(msg) };
  else { rl.close(); return; }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
