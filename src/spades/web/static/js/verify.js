// Verify a deal: the inputs come from the URL fragment (the table's "Verify this deal" link fills it),
//   #rules=<preset or JSON>&dealer=N&commitment=<hex>&seed=<hex>&clients=<JSON list>&seat=N&mine=AS,TD,...
//   &myseed=<the client seed this player's page sent for the hand>
// POST /api/verify/hand has the server's own dealing code deal again from the revealed seed; then this
// page checks the commitment and derives the deal once more itself, with the browser's own SHA-256 and
// HMAC (js/deal.js), so a server that lied about its deal would be caught here too. Everything is shown
// with textContent and attributes, never as markup.

import { cardSVG, sortHand } from "./cards.js";
import { api, el, replaceChildren } from "./common.js";
import { canDerive, commitmentOf, dealHands, derivePermutation } from "./deal.js";

const $ = (id) => document.getElementById(id);

function notice(node, kind, text) {
  node.className = kind ? `notice verdict ${kind}` : "notice verdict";
  node.textContent = text;
}

/** The rules as given: a preset name, or a JSON object of a preset and overrides. */
function parseRules(text) {
  if (!text) return "standard";
  if (text.trim().startsWith("{")) return JSON.parse(text);
  return text;
}

/** Client seeds: a JSON list of strings, or (typed by hand) comma-separated. */
function parseClients(text) {
  if (!text) return [];
  if (text.trim().startsWith("[")) return JSON.parse(text);
  return text.split(",");
}

/** A card's text as the engine writes it: upper case, "T" for ten, no second-pack mark. */
function norm(code) {
  return code.trim().toUpperCase().replace(/^10/, "T").replace("*", "");
}

/** The inputs of the fragment, or an error text naming what is wrong. */
function readFragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  const missing = ["dealer", "commitment", "seed"].filter((k) => !p.get(k));
  if (missing.length === 3) return { empty: true };
  if (missing.length) return { error: `The link is missing: ${missing.join(", ")}.` };
  let rules;
  let clients;
  try {
    rules = parseRules(p.get("rules"));
  } catch {
    return { error: "The rules in the link cannot be read." };
  }
  try {
    clients = parseClients(p.get("clients"));
  } catch {
    return { error: "The client seeds in the link cannot be read." };
  }
  const dealer = Number(p.get("dealer"));
  const seatText = p.get("seat");
  const seat = seatText === null || seatText === "" ? null : Number(seatText);
  const mineText = p.get("mine");
  const mine = mineText ? mineText.split(",").map(norm).filter(Boolean) : null;
  const myseed = p.get("myseed");
  return { rules, dealer, commitment: p.get("commitment").trim(), seed: p.get("seed").trim(), clients, seat,
    mine, myseed: myseed === null ? null : myseed };
}

/** Cards in `a` that are not in `b`, counting copies (the six-handed game has two of each). */
function without(a, b) {
  const left = new Map();
  for (const c of b) left.set(c, (left.get(c) || 0) + 1);
  const out = [];
  for (const c of a) {
    if (left.get(c)) left.set(c, left.get(c) - 1);
    else out.push(c);
  }
  return out;
}

/** Same cards, counting copies? */
function sameCards(a, b) {
  return a.length === b.length && without(a, b).length === 0;
}

/** The browser's own check: the commitment and the deal, derived here, against the server's answer.
 * `stale()` says a newer deal is being checked (the fragment changed meanwhile): this one then writes
 * nothing. */
async function checkHere(input, answer, stale) {
  const node = $("browser-verdict");
  if (!canDerive()) {
    node.hidden = false;
    notice(node, "warn", "This browser cannot hash here (Web Crypto needs an https page), so only the server's "
      + "check is shown. `spades verify` on your own computer checks a downloaded record independently.");
    return;
  }
  let mine;
  try {
    mine = await commitmentOf(input.seed);
  } catch (e) {
    if (stale()) return;
    node.hidden = false;
    notice(node, "bad", `Your browser cannot check this seed: ${e.message}.`);
    return;
  }
  if (stale()) return;
  node.hidden = false;
  const matches = mine === input.commitment.toLowerCase();
  if (matches !== answer.ok) {
    notice(node, "bad", `Your browser disagrees with the server: the seed ${matches ? "does" : "does NOT"} hash to `
      + "the commitment here.");
    return;
  }
  if (!matches) {
    notice(node, "bad", "Your browser agrees: the seed does NOT hash to the commitment.");
    return;
  }
  const { players, hand_size: handSize } = answer.layout;
  const perm = await derivePermutation(input.seed, input.clients, answer.deck.length);
  if (stale()) return;
  const got = dealHands(answer.deck, perm, players, handSize, input.dealer, answer.dealer_discard);
  const same = players === 2
    ? got.order.join(" ") === (answer.stock || []).join(" ")
    : got.hands.every((cards, seat) => sameCards(cards, answer.deal[seat])) && sameCards(got.out, answer.out);
  if (same) {
    notice(node, "ok", "Checked in your browser too: it hashed the seed to the commitment and dealt the same "
      + "cards from the seeds itself.");
  } else {
    notice(node, "bad", "Your browser deals these seeds DIFFERENTLY from the server's answer: do not trust this "
      + "deal.");
  }
}

function seatLabel(seat, input) {
  const bits = [];
  if (seat === input.dealer) bits.push("dealer");
  if (seat === input.seat) bits.push("you");
  return `Seat ${seat + 1}${bits.length ? ` (${bits.join(", ")})` : ""}`;
}

function fan(codes, topTrumps, odd = new Set()) {
  return el("div", { class: "card-fan small" }, sortHand(codes, topTrumps).map((code) => {
    const card = cardSVG(code);
    if (odd.has(code)) card.classList.add("differs");
    return card;
  }));
}

/** Compare the viewer's dealt cards with the seat's derived ones. */
function compareMine(input, answer) {
  const node = $("mine-verdict");
  node.hidden = input.mine === null;
  if (input.mine === null) return new Set();
  const players = answer.layout.players;
  if (players === 2) {
    notice(node, "warn", "In the two-handed game the hands come from the draw, so the stock is checked instead "
      + "of your cards.");
    return new Set();
  }
  if (input.seat === null || !Number.isInteger(input.seat) || input.seat < 0 || input.seat >= players) {
    notice(node, "warn", "The link does not say which seat is yours, so your cards cannot be compared.");
    return new Set();
  }
  if (!answer.ok) {
    notice(node, "bad", "Your cards cannot be checked: the seed does not match the commitment.");
    return new Set();
  }
  const derived = answer.deal[input.seat].map(norm);
  const extra = without(input.mine, derived);
  const lacking = without(derived, input.mine);
  if (!extra.length && !lacking.length) {
    notice(node, "ok", `Your ${derived.length} cards match the seeds.`);
    return new Set();
  }
  const parts = ["Your cards do NOT match the seeds."];
  if (extra.length) parts.push(`You were dealt ${extra.join(", ")}, which the seeds do not give you.`);
  if (lacking.length) parts.push(`The seeds give you ${lacking.join(", ")}, which you were not dealt.`);
  notice(node, "bad", parts.join(" "));
  return new Set(lacking);
}

/** Say whether the seed this player's page sent is the one the deal used at their seat. */
function compareSeed(input) {
  const node = $("seed-mine-verdict");
  node.hidden = input.myseed === null;
  if (input.myseed === null) return;
  if (input.seat === null || !Number.isInteger(input.seat)) {
    notice(node, "warn", "The link does not say which seat is yours, so your seed cannot be found.");
    return;
  }
  const used = input.clients[input.seat];
  if (used === input.myseed) {
    notice(node, "ok", `Your seed ${input.myseed} is the client seed of your seat. Your page sent it only `
      + "after the server had published its commitment, so the server could not choose its seed to suit it.");
  } else {
    notice(node, "bad", `Your page sent the seed ${input.myseed}, but the deal used `
      + `${JSON.stringify(used === undefined ? null : used)} for your seat.`);
  }
}

/** Who gave each client seed, in seat order. */
function seedRows(input) {
  return input.clients.map((c, seat) => {
    const who = c === "(bot)" ? "a computer player's seat" : c === "(none)" ? "no seed sent in time" : "";
    const mark = seat === input.seat ? " (you)" : "";
    return [el("dt", {}, `Seat ${seat + 1}${mark}`), el("dd", { "data-seat-seed": seat }, who ? `${c}: ${who}` : c)];
  });
}

function showInputs(input) {
  const rows = [
    ["Rules", typeof input.rules === "string" ? input.rules : JSON.stringify(input.rules)],
    ["Dealer", `Seat ${input.dealer + 1}`],
    ["Commitment", input.commitment],
    ["Seed", input.seed],
    ["Client seeds", JSON.stringify(input.clients)],
  ];
  if (input.mine !== null) rows.push(["Your cards as dealt", input.mine.join(" ")]);
  replaceChildren($("verify-inputs"), rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  replaceChildren($("verify-client-seeds"), seedRows(input));
}

function show(input, answer) {
  $("verify-result").hidden = false;
  notice($("seed-verdict"), answer.ok ? "ok" : "bad", answer.ok
    ? "The seed matches the commitment published before the deal. These are the cards it deals."
    : `The seed does NOT match the commitment: ${answer.reason}.`);
  const odd = compareMine(input, answer);
  compareSeed(input);
  const top = answer.layout.top_trumps || [];
  const seats = answer.ok && answer.layout.players !== 2 ? answer.deal.map((cards, seat) => el("section", {
    class: `verify-seat${seat === input.seat ? " mine" : ""}`, "data-seat": seat },
  el("h3", {}, seatLabel(seat, input)), fan(cards, top, seat === input.seat ? odd : new Set()))) : [];
  replaceChildren($("verify-seats"), seats);
  const extra = [];
  if (answer.ok && answer.out.length) {
    extra.push(el("section", { class: "verify-seat" }, el("h3", {}, "Left out of play"), fan(answer.out, top)));
  }
  if (answer.ok && answer.stock) {
    extra.push(el("section", { class: "verify-seat" }, el("h3", {}, "The stock, top card first"),
      el("div", { class: "card-fan small" }, answer.stock.map((c) => cardSVG(c)))));
  }
  replaceChildren($("verify-extra"), extra);
  showInputs(input);
}

/** Which call of `run` is the newest: only it shows what it found (a check takes a while, and the
 * fragment may change meanwhile). */
let latest = 0;

async function run() {
  const call = ++latest;
  const stale = () => call !== latest;
  const status = $("verify-status");
  const input = readFragment();
  delete document.documentElement.dataset.ready;
  $("verify-result").hidden = true;
  $("browser-verdict").hidden = true;
  $("browser-verdict").textContent = "";
  if (input.empty) {
    notice(status, "", "Open this page from the \u201cVerify this deal\u201d link shown after each hand at a table.");
    status.className = "notice";
  } else if (input.error) {
    status.className = "notice bad";
    status.textContent = input.error;
  } else {
    status.className = "notice";
    status.textContent = "Dealing again from the seed…";
    try {
      const answer = await api("/api/verify/hand", { rules: input.rules, dealer: input.dealer,
        commitment: input.commitment, seed: input.seed, client_seeds: input.clients });
      if (stale()) return;
      status.textContent = "";
      show(input, answer);
      await checkHere(input, answer, stale);
    } catch (e) {
      if (stale()) return;
      status.className = "notice bad";
      status.textContent = `This deal cannot be checked: ${e.message}`;
    }
  }
  if (!stale()) document.documentElement.dataset.ready = "verify";
}

// The fragment holds the deal, so links within the page scroll instead of replacing it.
for (const link of document.querySelectorAll('a[href^="#"]')) {
  link.addEventListener("click", (e) => {
    const target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    target.scrollIntoView({ behavior: "smooth", block: "start" });
  });
}
window.addEventListener("hashchange", run);
run();
