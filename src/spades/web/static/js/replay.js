// Replays: a finished game trick by trick with every hand shown. The record comes from the server
// (?table=<id>, for the game's players) or from a file; POST /api/replay has the engine replay it, so
// the tricks, winners and scores shown are the engine's.

import { cardSVG, sortHand } from "./cards.js";
import { api, el, replaceChildren, signed } from "./common.js";
import { renderReview, setupReview, startReview } from "./review.js";

const $ = (id) => document.getElementById(id);
let game = null; // the answer of /api/replay
let handIndex = 0;
let step = 0; // 0: start of play; t: after trick t
let tableId = null; // the online game shown, if it came from the server

function notice(kind, text) {
  const node = $("replay-status");
  node.className = kind ? `notice ${kind}` : "notice";
  node.textContent = text;
}

function name(seat) {
  return game.players[seat] || `Seat ${seat + 1}`;
}

function sideName(seats) {
  return seats.map(name).join(" & ");
}

async function load(record) {
  const answer = await api("/api/replay", record);
  if (!answer.ok) {
    notice("bad", `This record does not replay: ${answer.error}`);
    return;
  }
  game = answer;
  handIndex = 0;
  step = 0;
  const blob = new Blob([JSON.stringify(record, null, 2)], { type: "application/json" });
  const link = $("record-download");
  link.href = URL.createObjectURL(blob);
  link.download = "spades-record.json";
  link.hidden = false;
  notice("", "");
  $("replay").hidden = false;
  render();
  setupReview({ record, tableId, players: game.players, onChange: render,
    goTo: (hand, at) => { handIndex = hand; step = at; render(); } });
}

function render() {
  const sides = game.layout.sides;
  $("replay-title").textContent = sides.map(sideName).join(" vs ");
  $("replay-totals").textContent = `${game.over ? "Final score" : "Score so far"}: `
    + sides.map((s, k) => `${sideName(s)} ${game.totals[k]}`).join(", ")
    + (game.winner !== null && game.winner !== undefined ? `. ${sideName(sides[game.winner])} won.` : ".");
  replaceChildren($("hand-tabs"), game.hands.map((_, i) => el("button", {
    type: "button", "aria-current": i === handIndex ? "true" : undefined, class: i === handIndex ? "primary" : "",
    onclick: () => {
      handIndex = i;
      step = 0;
      render();
    },
  }, `Hand ${i + 1}`)));
  const hand = game.hands[handIndex];
  const total = hand.tricks.length;
  step = Math.max(0, Math.min(step, total));
  $("step-label").textContent = step === 0 ? "Start of play" : `Trick ${step} of ${total}`;
  $("step-first").disabled = $("step-prev").disabled = step === 0;
  $("step-next").disabled = $("step-last").disabled = step === total;
  // The trick just played, and who took it.
  const trick = step > 0 ? hand.tricks[step - 1] : null;
  replaceChildren($("replay-trick"), trick
    ? [el("p", { class: "replay-caption" }, `${name(trick.leader)} led; ${name(trick.winner)} took the trick.`),
      trick.cards.map(([seat, code]) => el("figure", { class: "mini-card" + (seat === trick.winner ? " won" : ""),
        "data-seat": seat },
        cardSVG(code), el("figcaption", {}, name(seat))))]
    : el("p", { class: "replay-caption" }, `${name(hand.dealer)} dealt. `
      + (hand.passes.length ? hand.passes.map((p) => `${name(p.from)} passed ${p.cards.join(" ")} to ${name(p.to)}`)
        .join("; ") + "." : "")));
  // Every seat's cards still to play, its bid and its tricks so far.
  const taken = Array(game.layout.players).fill(0);
  const left = hand.in_play.map((cards) => [...cards]);
  for (let t = 0; t < step; t++) {
    for (const [seat, code] of hand.tricks[t].cards) {
      left[seat].splice(left[seat].indexOf(code), 1); // one copy (six-handed games hold two of a card)
    }
    taken[hand.tricks[t].winner] += 1;
  }
  replaceChildren($("replay-seats"), left.map((cards, seat) => {
    const bid = hand.bids[seat];
    return el("div", { class: "replay-seat", "data-seat": seat },
      el("h3", {}, name(seat), el("span", { class: "hint" },
        ` · bid ${bid === null ? "–" : bid} · took ${taken[seat]}${seat === hand.dealer ? " · dealer" : ""}`)),
      el("div", { class: "card-fan small" }, sortHand(cards, game.layout.top_trumps).map((code) => cardSVG(code))));
  }));
  // The hand's score, line by line.
  replaceChildren($("replay-score"), el("h3", {}, `Hand ${handIndex + 1} scored`), hand.finished
    ? el("ul", {}, hand.sides.map((side, k) => el("li", {}, el("strong", {}, sideName(sides[k])),
      ` ${signed(side.points)} (total ${side.total}, ${side.bags} bag${side.bags === 1 ? "" : "s"})`,
      el("ul", {}, side.lines.map(([text, pts]) => el("li", {},
        `${text.replace(/seat (\d+)/g, (m, s) => name(Number(s)))}: ${signed(pts)}`))))))
    : el("p", {}, hand.misdeal ? "A misdeal: dealt again." : "This hand was not finished."));
  renderReview(handIndex, step);
  document.documentElement.dataset.ready = "replay";
}

function go(delta, absolute = null) {
  if (!game) return;
  step = absolute === null ? step + delta : absolute;
  render();
}

function init() {
  $("step-first").addEventListener("click", () => go(0, 0));
  $("step-prev").addEventListener("click", () => go(-1));
  $("step-next").addEventListener("click", () => go(1));
  $("step-last").addEventListener("click", () => go(0, 99));
  document.addEventListener("keydown", (e) => {
    if (!game || e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight") go(1);
    else if (e.key === "ArrowLeft") go(-1);
  });
  $("review-start").addEventListener("click", startReview);
  $("record-file").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    tableId = null;
    file.text().then((text) => load(JSON.parse(text))).catch((err) => notice("bad", `Not a record: ${err.message}`));
    e.target.value = "";
  });
  const params = new URLSearchParams(location.search);
  tableId = params.get("table");
  if (tableId) {
    notice("", "Loading the game…");
    api(`/api/tables/${encodeURIComponent(tableId)}/record`).then(load)
      .then(() => { if (params.get("review") === "1") startReview(); })
      .catch((err) => notice("bad", `The record could not be loaded: ${err.message}`));
  } else {
    document.documentElement.dataset.ready = "replay";
  }
}

init();
