// "Review my game" on the replay page: the server reviews one seat's decisions in the background
// (spades.server.review: a finished online game for the seat the player played, an uploaded record for
// any seat). While it waits the page shows the place in the queue, then the decisions done; the review
// then marks each flagged decision on the timeline (hand tabs, tricks, bids) with the better card or bid
// beside the one played, and the summary at the top.

import { cardSVG } from "./cards.js";
import { api, el, replaceChildren } from "./common.js";

const $ = (id) => document.getElementById(id);
const LABELS = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };

let ctx = null; // {record, tableId, players, goTo(hand, step)}
let review = null; // the review's JSON once done
let polling = null;

function status(kind, text) {
  const node = $("review-status");
  node.className = kind ? `notice ${kind}` : "notice";
  node.textContent = text;
}

function name(seat) {
  return (ctx && ctx.players[seat]) || `Seat ${seat + 1}`;
}

function what(action) {
  if ("play" in action) return action.play;
  if ("bid" in action) return typeof action.bid === "number" ? `bid ${action.bid}` : action.bid;
  if ("look" in action) return "look at the cards";
  if ("pass" in action) return `pass ${action.pass.join(" ")}`;
  if ("discard" in action) return `discard ${action.discard.join(" ")}`;
  if ("draw" in action) return action.draw === "keep" ? "keep the top card" : "let the top card go";
  if ("misdeal" in action) return "call a misdeal";
  if ("accept" in action) return "let partner's total stand";
  return JSON.stringify(action);
}

function flagged(hand) {
  if (!review) return [];
  return review.decisions.filter((d) => d.label !== "fine" && (hand === undefined || d.hand === hand));
}

// Called by the replay page when a record is loaded.
export function setupReview(context) {
  ctx = context;
  review = null;
  if (polling) clearTimeout(polling);
  const panel = $("review-panel");
  panel.hidden = false;
  const seat = $("review-seat");
  replaceChildren(seat, ctx.players.map((p, s) => el("option", { value: String(s) }, `${p} (seat ${s + 1})`)));
  // An online game is reviewed for the seat its player played: the server knows which.
  $("review-seat-row").hidden = Boolean(ctx.tableId);
  replaceChildren($("review-summary"));
  status("", "");
  $("review-progress").hidden = true;
  $("review-start").disabled = false;
  $("review-start").textContent = "Review my game";
  if (ctx.tableId) {
    api(`/api/tables/${encodeURIComponent(ctx.tableId)}/review`).then(show).catch(() => {});
  }
}

export function startReview() {
  if (!ctx) return;
  $("review-start").disabled = true;
  status("", "Asking the server to review the game…");
  const request = ctx.tableId
    ? api(`/api/tables/${encodeURIComponent(ctx.tableId)}/review`, {})
    : api("/api/reviews", { record: ctx.record, seat: Number($("review-seat").value) });
  request.then(show).catch((err) => {
    $("review-start").disabled = false;
    status("bad", `The review could not start: ${err.message}`);
  });
}

function poll(answer) {
  const path = ctx.tableId
    ? `/api/tables/${encodeURIComponent(ctx.tableId)}/review`
    : `/api/reviews/${encodeURIComponent(answer.id)}`;
  polling = setTimeout(() => api(path).then(show).catch((err) => status("bad", `Lost the review: ${err.message}`)),
    700);
}

function show(answer) {
  const bar = $("review-progress");
  if (answer.state === "none") return;
  if (answer.state === "queued") {
    bar.hidden = true;
    status("", `Waiting for the reviewer: number ${answer.position} in the queue.`);
    $("review-start").disabled = true;
    poll(answer);
    return;
  }
  if (answer.state === "running") {
    bar.hidden = false;
    bar.max = Math.max(1, answer.total);
    bar.value = answer.done;
    status("", `Reviewing ${name(answer.seat)}'s decisions: ${answer.done} of ${answer.total || "…"}.`);
    $("review-start").disabled = true;
    poll(answer);
    return;
  }
  bar.hidden = true;
  if (answer.state === "failed") {
    $("review-start").disabled = false;
    status("bad", answer.error || "The review failed.");
    return;
  }
  review = answer.review;
  $("review-start").disabled = true;
  $("review-start").textContent = "Reviewed";
  status("ok", "");
  renderSummary();
  if (ctx.onChange) ctx.onChange();
}

function renderSummary() {
  const s = review.summary;
  const plural = { blunder: "blunders", mistake: "mistakes", inaccuracy: "inaccuracies" };
  const counts = ["blunder", "mistake", "inaccuracy"].map((k) => `${s.by_label[k]} `
    + (s.by_label[k] === 1 ? LABELS[k].toLowerCase() : plural[k]));
  replaceChildren($("review-summary"),
    el("p", { class: "review-headline", "data-testid": "review-summary" },
      el("strong", {}, `${name(review.seat)}: `),
      `${s.decisions} decisions reviewed: ${counts.join(", ")}. `,
      `Points lost in the bidding ${s.points_lost.bidding}, in the play ${s.points_lost.play}.`),
    el("p", { class: "hint" }, "Marked on the hands below: the card or bid played, and the expert's beside it. "
      + "A decision is flagged only when it lost clearly more than the estimate's error."));
}

function markItem(d) {
  const where = d.trick !== undefined ? `Trick ${d.trick + 1}` : "Bidding";
  const jump = () => ctx.goTo(d.hand, d.trick !== undefined ? d.trick + 1 : 0);
  return el("li", { class: `review-mark ${d.label}`, "data-label": d.label, "data-hand": d.hand,
    "data-trick": d.trick },
    el("button", { type: "button", class: "link", onclick: jump }, where),
    el("span", { class: `review-label ${d.label}` }, LABELS[d.label]),
    el("span", { class: "review-pair" },
      "played ", el("strong", {}, what(d.played)), " · better ", el("strong", {}, what(d.best))),
    el("span", { class: "hint" }, ` −${d.loss.toFixed(1)} points (± ${d.expected.stderr.toFixed(1)}). ${d.reason}`));
}

// Called by the replay page whenever it redraws: the tab badges, the hand's marks, the trick's mark.
export function renderReview(handIndex, step) {
  const list = $("review-marks");
  if (!review) {
    replaceChildren(list);
    return;
  }
  document.querySelectorAll("#hand-tabs button").forEach((tab, i) => {
    const n = flagged(i).length;
    if (n && !tab.querySelector(".review-badge")) {
      tab.append(el("span", { class: "review-badge", "aria-label": `${n} flagged` }, String(n)));
    }
  });
  const marks = flagged(handIndex);
  replaceChildren(list, marks.length
    ? [el("h3", {}, `Review of ${name(review.seat)} · hand ${handIndex + 1}`), el("ol", {}, marks.map(markItem))]
    : el("p", { class: "hint" }, `Review of ${name(review.seat)}: nothing flagged in this hand.`));
  // The trick shown: the reviewed seat's card marked, the better card beside it.
  const here = marks.find((d) => d.trick !== undefined && d.trick + 1 === step);
  if (here) {
    const fig = document.querySelector(`#replay-trick figure[data-seat="${review.seat}"]`);
    if (fig && !fig.classList.contains("flagged")) {
      fig.classList.add("flagged", here.label);
      fig.after(el("figure", { class: `mini-card better`, "data-testid": "better-card" },
        cardSVG(here.best.play), el("figcaption", {}, `${LABELS[here.label]}: better`)));
    }
  }
  if (step === 0) {
    for (const d of marks.filter((m) => m.trick === undefined)) {
      const seat = document.querySelector(`.replay-seat[data-seat="${d.played.seat}"] h3`);
      if (seat && !seat.querySelector(".review-bid")) {
        seat.append(el("span", { class: `review-bid ${d.label}` },
          ` ${LABELS[d.label]}: ${what(d.played)}, better ${what(d.best)}`));
      }
    }
  }
}
