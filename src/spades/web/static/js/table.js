// The table: one WebSocket to the server (docs/protocol.md), the hand, bidding, exchanges, the trick,
// the score pad, chat and the end of hands and games. Every choice offered comes from the view's
// `legal` list (the engine's legal actions); nothing here decides what is allowed. Chat and names are
// shown with textContent only.

import { api, el, loadJSON, redrawChildren, replaceChildren, rulesCatalogue, rulesLine, saveJSON, signed } from "./common.js";
import { cardBack, cardName, cardSVG, sortHand } from "./cards.js";
import { applyEvent, eventOf } from "./events.js";
import { SeedKeeper } from "./seeds.js";

const PROTOCOL_VERSION = 2;
const RELOADED = "spades-reloaded-for-version"; // sessionStorage: this tab reloaded once for a new protocol
const TRICK_HOLD_MS = 1400;
const PLAY_MS = 280; // a card travelling from its seat to the middle
const GATHER_MS = 340; // a finished trick sliding to the seat that took it
const $ = (id) => document.getElementById(id);

const params = new URLSearchParams(location.search);
const tableId = params.get("id") || "";
const invite = params.get("invite");

let ws = null;
let lastSeq = null;
let you = { seat: null, player: null, name: null };
let table = null; // the table's public description
let state = null; // the per-viewer state
let chat = [];
let retryDelay = 500;
let stopped = false; // the server refused us for good: no reconnecting
let selected = new Set(); // cards chosen for a pass or a discard
let held = null; // a finished trick kept on show: {cards, winner, until}
let heldTimer = null;
let turnInfo = { seat: null, left: null, at: 0 };
let gameClock = { left: null, at: 0 };  // a timed game's clock (rules option time_limit_minutes)
let gameClockTimer = null;
let clientCounter = 0;
let hint = null; // the computer's suggestion for the current turn: {seq, action, text}
let hintAsked = null; // the client id of the hint asked for and not answered yet
const bidsByHand = new Map(); // hand number -> the bids seen in that hand (for the summary)
let prevView = null;
let seenResults = null;
let summaryFor = null;
let layout = null; // {players, sides, ...} of the table's rules, from POST /api/rules/check
let topTrumps = [];
// For the "Verify this deal" link, per hand index (from 0, as in `deal` and `reveal` events): who dealt,
// the viewer's cards as first seen before any exchange, and the revealed seed.
const dealers = new Map();
const dealtCards = new Map(); // hand index -> {seat, cards}
const reveals = new Map(); // hand index -> the reveal event
let seeds = null; // the player's client seeds for fair dealing (seeds.js), made in init()
let lifted = null; // a card tapped once (it lifts; a second tap plays it)
let pointerKind = "mouse"; // how the last card was pressed: "touch" and "pen" lift first, unless one-tap
let focusAfterAct = false; // the player acted from the table: the focus goes to the next sensible control
let wasMyTurn = false;
let keyboardUser = false; // the last input was a key (not a pointer): the focus follows the game
let unread = 0; // chat lines come while the drawer is shut (narrow screens)
const SETTINGS_KEY = "spades.table.settings"; // {muted, oneTap}, kept on the device
let settings = { muted: false, oneTap: false, ...loadJSON(SETTINGS_KEY, {}) };

// ------------------------------------------------------------------ connection

function setConn(kind, text) {
  const node = $("conn-status");
  node.className = kind ? `notice ${kind}` : "notice";
  node.textContent = text;
}

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(tableId)}`;
}

function connect() {
  if (stopped) return;
  ws = new WebSocket(wsUrl());
  ws.addEventListener("open", () => {
    retryDelay = 500;
    // seeds: this page sends a client seed after each commitment, so deals wait (briefly) for it.
    ws.send(JSON.stringify({ type: "hello", v: PROTOCOL_VERSION, last_seq: lastSeq, invite, seeds: true }));
    if (seeds) seeds.reconnected();
  });
  ws.addEventListener("message", (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    onMessage(msg);
  });
  ws.addEventListener("close", () => {
    ws = null;
    if (stopped) return;
    setConn("warn", "Connection lost. Reconnecting…");
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 8000);
  });
}

function send(msg) {
  if (!ws || ws.readyState !== WebSocket.OPEN) {
    showActionError("Not connected: wait a moment and try again.");
    return false;
  }
  ws.send(JSON.stringify(msg));
  return true;
}

function clientId() {
  clientCounter += 1;
  return `${Date.now().toString(36)}-${clientCounter}-${Math.random().toString(36).slice(2, 7)}`;
}

let catchingUp = false; // between a welcome and the state that brings us up to date
let pending = null; // the last action sent and not yet acknowledged: {msg, resent}

function act(action) {
  clearActionError();
  hint = null; // the player has acted: the suggestion is spent
  lifted = null;
  focusAfterAct = true;
  const msg = { type: "action", id: clientId(), seq: lastSeq, action };
  if (send(msg)) pending = { msg, resent: false };
}

/** After a reconnect: an action that got no ack may not have been stored, so it goes again with the
 * same id (the server applies an id once, and answers a repeat with the first ack). */
function resendPending() {
  if (!pending || pending.resent) return;
  pending.resent = true;
  send(pending.msg);
}

function onMessage(msg) {
  // An event is the one message without a `type`: it has `ev`, its number (docs/protocol.md, Events).
  switch (msg.ev === undefined ? msg.type : "event") {
    case "welcome":
      sessionStorage.removeItem(RELOADED);
      catchingUp = true;
      hintAsked = null; // a hint asked on a dropped socket is not coming
      you = msg.you || you;
      table = msg.table;
      setConn("", "");
      break;
    case "snapshot":
      needState = false;
      applied = null;
      table = msg.table;
      chat = msg.chat || [];
      lastSeq = msg.seq;
      setState(msg.state, true);
      break;
    case "state":
      lastSeq = msg.seq;
      needState = false;
      applied = null;
      setState(msg.state, true);
      break;
    case "event":
      onEvent(msg);
      break;
    case "table":
      table = msg.table;
      break;
    case "error":
      onError(msg);
      break;
    case "ack":
      if (pending && pending.msg.id === msg.id) pending = null;
      break;
    case "hint":
      showHint(msg);
      break;
    default:
      break; // pong: nothing to show
  }
  if (catchingUp && msg.state) {
    catchingUp = false; // caught up after (re)connecting
    resendPending();
  }
  render();
}

let needState = false; // an event was missed: changes wait until the whole state asked for comes
let applied = null; // the state with the events of a batch so far applied (the batch's last brings its change)

function onEvent(msg) {
  if (lastSeq !== null && msg.ev !== lastSeq + 1 && !msg.state) {
    // A gap (docs/protocol.md, "Changes"): a change applies only to the state just before it.
    if (!needState) send({ type: "state" });
    needState = true;
    applied = null;
  }
  lastSeq = msg.ev;
  const ev = eventOf(msg);
  if (ev.kind === "chat") {
    chat.push({ seq: msg.ev, name: ev.name, player: ev.player, text: ev.text });
    chat = chat.slice(-100);
    if (document.body.classList.contains("panels-open") === false && ev.player !== you.player) unread += 1;
  } else if (ev.kind === "action" && ev.action && "play" in ev.action && prevView) {
    announce(`${seatName(ev.action.seat)} played the ${cardName(ev.action.play)}.`);
    // Follow the trick card by card, so the last card of a trick stays on show for a moment.
    const current = [...(prevView.current || []), [ev.action.seat, ev.action.play]];
    prevView = { ...prevView, current };
    if (current.length === prevView.hand_sizes.length) holdTrick(current, null);
  } else if (ev.kind === "deal") {
    dealers.set(ev.hand, ev.dealer);
    if (seeds) seeds.dealt(ev, you.seat);
  } else if (ev.kind === "reveal") {
    reveals.set(ev.hand, ev);
    if (summaryFor === ev.hand) addVerifyLink(ev.hand);
  }
  if (msg.table) table = msg.table;
  if (msg.state) {
    needState = false;
    applied = null;
    setState(msg.state, false);
  } else if (!needState) {
    const base = applied || state;
    if (base) {
      // The events of a batch apply in turn; the last one brings the change, and is shown.
      const next = applyEvent(base, msg);
      applied = msg.change ? null : next;
      if (msg.change) setState(next, false);
    } else if (msg.change) {
      send({ type: "state" }); // nothing to apply it to (should not happen)
      needState = true;
    }
  }
}

function onError(msg) {
  if (msg.code === "version" && !sessionStorage.getItem(RELOADED)) {
    // The server speaks another protocol version: this page is older (or newer) than the server's.
    // Reload once to fetch the server's own page; if that does not help, say so and stop.
    sessionStorage.setItem(RELOADED, "1");
    stopped = true;
    location.reload();
    return;
  }
  if (msg.code === "no_table" || msg.code === "forbidden" || msg.code === "version") {
    stopped = true;
    setConn("bad", msg.reason);
    return;
  }
  if (msg.code === "bad_last_seq") return; // a snapshot follows
  if (hintAsked && msg.id === hintAsked) {
    hintAsked = null;
    if (msg.code === "not_your_turn") return; // the turn passed while asking: nothing to show
  }
  if (typeof msg.id === "string" && msg.id.startsWith("seed-")) {
    if (seeds) seeds.refused(msg);
    return;
  }
  if (pending && msg.id === pending.msg.id) {
    const wasResent = pending.resent;
    pending = null;
    if (wasResent && (msg.code === "stale" || msg.code === "illegal")) return; // the game moved on meanwhile
  }
  showActionError(msg.reason);
}

// ------------------------------------------------------------------ state

function setState(next, fresh) {
  const view = next && next.view;
  if (view && state && state.view && next.hand === state.hand && view.tricks.length > state.view.tricks.length) {
    const t = view.tricks[view.tricks.length - 1];
    holdTrick(t.cards, t.winner);
    if (!fresh) trickTaken(t.winner);
  } else if (held && held.winner === null && view && state && next.hand === state.hand) {
    const t = view.tricks[view.tricks.length - 1];
    if (t) held.winner = t.winner;
    if (t && !fresh) trickTaken(t.winner);
  }
  if (fresh && held) clearHeld();
  if (view) {
    bidsByHand.set(next.hand, view.bids);
    noteDeal(next.hand - 1, view);
    if (!state || state.hand !== next.hand) selected = new Set();
  }
  if (held && held.winner === null && state && state.view && next.results.length > state.results.length) {
    // The hand's last trick: its winner is whoever's trick count went up.
    const before = state.view.tricks_taken;
    const after = next.results[next.results.length - 1].tricks;
    const w = after.findIndex((t, i) => t > before[i]);
    held.winner = w >= 0 ? w : null;
    if (held.winner !== null) trickTaken(held.winner);
  }
  state = next;
  prevView = view ? { ...view } : null;
  turnInfo = { seat: next.turn ? next.turn.seat : null, left: next.turn ? next.turn.seconds_left : null,
    at: performance.now() };
  gameClock = { left: next.game_seconds_left ?? null, at: performance.now() };
  if (seenResults === null) seenResults = next.results.length;
  if (next.results.length > seenResults) {
    seenResults = next.results.length;
    showSummary(next.results.length - 1);
  }
}

/** Keep who dealt hand `index` and, the first time the viewer's own cards show before anything changed
 * them (no exchange or discard involving the viewer, no card played), the cards they were dealt. */
function noteDeal(index, view) {
  if (!dealers.has(index)) dealers.set(index, view.dealer);
  if (dealtCards.has(index) || view.seat === null || view.seat === undefined || !view.hand) return;
  const seat = view.seat;
  const untouched = ["bid", "exchange", "play", "discard"].includes(view.phase) && view.discard_count === 0
    && !view.passes.some((p) => p.from === seat || p.to === seat) && view.tricks.length === 0
    && !view.current.some(([s]) => s === seat);
  if (untouched) dealtCards.set(index, { seat, cards: [...view.hand] });
}

/** The verify page's address for hand `index`, its inputs in the fragment; null before the seed is
 * revealed. */
function verifyHref(index) {
  const reveal = reveals.get(index);
  const dealer = dealers.get(index);
  if (!reveal || dealer === undefined || !table) return null;
  const p = new URLSearchParams();
  p.set("rules", typeof table.rules === "string" ? table.rules : JSON.stringify(table.rules || "standard"));
  p.set("dealer", String(dealer));
  p.set("commitment", reveal.commitment);
  p.set("seed", reveal.seed);
  p.set("clients", JSON.stringify(reveal.client_seeds || []));
  const myseed = seeds ? seeds.seedOf(index) : undefined;
  if (myseed !== undefined) p.set("myseed", myseed);
  const dealt = dealtCards.get(index);
  if (dealt && n() !== 2) {
    p.set("seat", String(dealt.seat));
    p.set("mine", dealt.cards.join(","));
  } else if (you.seat !== null && you.seat !== undefined) {
    p.set("seat", String(you.seat));
  }
  return `/verify.html#${p.toString()}`;
}

/** Add the "Verify this deal" link to the summary of hand `index` (once its seed is revealed). */
function addVerifyLink(index) {
  const body = $("summary-body");
  const href = verifyHref(index);
  if (!href || body.querySelector(".verify-link")) return;
  body.appendChild(el("p", { class: "verify-link" }, el("a", { href, target: "_blank", rel: "noopener",
    "data-testid": "verify-link" }, "Verify this deal"), el("span", { class: "hint" },
    " (the revealed seed deals these cards again)")));
}

function holdTrick(cards, winner) {
  held = { cards, winner };
  clearTimeout(heldTimer);
  heldTimer = setTimeout(() => {
    gatherTrick(() => {
      clearHeld();
      render();
    });
  }, TRICK_HOLD_MS);
}

// ------------------------------------------------------------------ motion
// Short animations of transform and opacity only (nothing moves the layout), and none at all when the
// player asks for reduced motion.

function motionOK() {
  return !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** Where a seat's cards come from and go to: its box on the felt (or, for our own card, where it lay in
 * the hand when it was clicked). */
function seatCentre(seat, code) {
  if (playedFrom && playedFrom.code === code && seat === you.seat) return playedFrom.at;
  const box = document.querySelector(`#seats .seat-box[data-seat="${seat}"]`);
  return box ? centre(box.getBoundingClientRect()) : null;
}

let playedFrom = null; // {code, at}: the card we just played, and where it was in the hand

function flyIn(node, seat, code) {
  const from = seatCentre(seat, code);
  if (!from || typeof node.animate !== "function") return;
  const to = centre(node.getBoundingClientRect());
  const dx = (from.x - to.x).toFixed(1);
  const dy = (from.y - to.y).toFixed(1);
  node.animate([
    { transform: `translate(-50%, -50%) translate(${dx}px, ${dy}px) scale(0.6)`, opacity: 0.3 },
    { transform: "translate(-50%, -50%)", opacity: 1 },
  ], { duration: PLAY_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" });
}

/** Slide the finished trick to the seat that took it, then `done` (at once without motion). */
function gatherTrick(done) {
  const view = state && state.view;
  // Only the finished trick itself: once the next one has begun, renderTrick has sent it away already.
  const nodes = view && view.current.length ? [] : [...$("trick").querySelectorAll(".trick-card:not([data-leaving])")];
  gatherNodes(nodes, held ? held.winner : null, () => {
    nodes.forEach((node) => node.remove());
    done();
  });
}

function gatherNodes(nodes, winner, done) {
  const to = winner === null || winner === undefined ? null : seatCentre(winner, null);
  if (!motionOK() || !to || !nodes.length || typeof nodes[0].animate !== "function") {
    done();
    return;
  }
  let left = nodes.length;
  for (const node of nodes) {
    node.dataset.leaving = "1";
    const from = centre(node.getBoundingClientRect());
    const dx = (to.x - from.x).toFixed(1);
    const dy = (to.y - from.y).toFixed(1);
    const anim = node.animate([
      { transform: "translate(-50%, -50%)", opacity: 1 },
      { transform: `translate(-50%, -50%) translate(${dx}px, ${dy}px) scale(0.45)`, opacity: 0 },
    ], { duration: GATHER_MS, easing: "cubic-bezier(0.4, 0, 0.8, 0.6)", fill: "forwards" });
    const finish = () => {
      left -= 1;
      if (left === 0) done();
    };
    anim.addEventListener("finish", finish);
    anim.addEventListener("cancel", finish);
  }
}

function clearHeld() {
  held = null;
  clearTimeout(heldTimer);
}

// ------------------------------------------------------------------ cues
// What a player hears, feels and reads when something happens to them: short tones made here with
// WebAudio (no sound files), a buzz where the phone allows it, "Your turn" in the tab's title while the
// tab is hidden, and a polite announcement of each card played and each trick's winner for a screen
// reader. The mute button silences tones and buzzes and is remembered on the device.

let audio = null;

// Browsers refuse sound and vibration until the person has touched the page (and log a warning for
// each try); until then a cue is only logged, and the outline and the title carry it.
function touched() {
  return !navigator.userActivation || navigator.userActivation.hasBeenActive;
}

function tone(notes) {
  if (settings.muted) return;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  if (!touched()) {
    cueLog.push(notes.length === 2 ? "turn" : "trick");
    return;
  }
  try {
    audio = audio || new Ctx();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    let at = audio.currentTime + 0.01;
    for (const [freq, ms] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.18, at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + ms / 1000 + 0.02);
      at += ms / 1000;
    }
    cueLog.push(notes.length === 2 ? "turn" : "trick");
  } catch {
    // No sound on this device: the outline and the title still say it.
  }
}

const cueLog = []; // the cues given (played, or due before the page was touched), for tests ("turn", "trick")

function buzz(ms) {
  if (!settings.muted && typeof navigator.vibrate === "function" && touched()) {
    try {
      navigator.vibrate(ms);
    } catch { /* not allowed here */ }
  }
}

function announce(text) {
  const log = $("announce");
  log.append(el("p", {}, text));
  while (log.childElementCount > 6) log.firstElementChild.remove();
}

/** A trick was taken: say who took it, and a rising tone when it was the player's side. */
function trickTaken(winner) {
  if (winner === null || winner === undefined || (held && held.announced)) return;
  if (held) held.announced = true;
  announce(`${seatName(winner)} took the trick.`);
  if (you.seat !== null && you.seat !== undefined && mySide().includes(winner)) tone([[660, 90], [880, 90], [1175, 140]]);
}

/** The seats of the player's side (just the player's seat when there is no partner). */
function mySide() {
  return sides().find((g) => g.includes(you.seat)) || [you.seat];
}

/** Called after each redraw: a cue when the turn comes to the player, and the tab's title. */
function turnCues() {
  const mine = legal().length > 0 && !(state && state.over);
  if (mine && !wasMyTurn) {
    tone([[523, 110], [784, 160]]);
    buzz(120);
  }
  wasMyTurn = mine;
  document.title = mine && document.hidden ? "Your turn · Table · Spades" : "Table · Spades";
}

/** A loudspeaker drawn inline (an emoji may be missing from the device's fonts), struck through when muted. */
function speaker(muted) {
  const make = (tag, attrs) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const icon = make("svg", { viewBox: "0 0 20 20", "aria-hidden": "true" });
  icon.append(make("path", { d: "M3 7.5h3.5L11 4v12l-4.5-3.5H3z", fill: "currentColor" }));
  icon.append(make("path", muted ? { d: "M13.5 7.5l5 5M18.5 7.5l-5 5", stroke: "currentColor", "stroke-width": "1.8",
    "stroke-linecap": "round", fill: "none" } : { d: "M13.5 7a4 4 0 0 1 0 6M15.8 4.8a7 7 0 0 1 0 10.4",
    stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round", fill: "none" }));
  return icon;
}

function saveSettings() {
  saveJSON(SETTINGS_KEY, settings);
}

function renderSettings() {
  const mute = $("mute");
  mute.setAttribute("aria-pressed", String(settings.muted));
  replaceChildren($("mute-icon"), speaker(settings.muted));
  mute.title = settings.muted ? "Sounds are off: press to turn them on" : "Sounds are on: press to mute";
  $("one-tap").checked = settings.oneTap;
}

// ------------------------------------------------------------------ helpers

function n() {
  return table ? table.seats.length : 4;
}

function viewer() {
  return you.seat === null || you.seat === undefined ? 0 : you.seat;
}

function seatName(seat) {
  const s = table && table.seats[seat];
  if (!s) return `Seat ${seat + 1}`;
  if (s.kind === "empty") return `Seat ${seat + 1} (empty)`;
  return s.name || `Seat ${seat + 1}`;
}

/** The table's sides (seat lists), from the engine's layout of its rules. */
function sides() {
  if (layout) return layout.sides;
  return Array.from({ length: n() }, (_, i) => [i]);
}

/** Ask the server what the table's rules imply (sides, top trumps) once. */
async function loadLayout(spec) {
  const preset = typeof spec === "string" ? spec : (spec && spec.preset) || "standard";
  const overrides = typeof spec === "object" && spec ? Object.fromEntries(
    Object.entries(spec).filter(([k]) => k !== "preset")) : {};
  try {
    const answer = await api("/api/rules/check", { preset, overrides });
    if (answer.ok) {
      layout = answer.layout;
      topTrumps = answer.options.top_trumps || [];
      replaceChildren($("table-rules"), rulesLine(preset, overrides, layout.target));
      render();
      // The house rules in the rule book's plain words (the line above used this device's copy, if any).
      rulesCatalogue().then(({ data }) => replaceChildren($("table-rules"),
        rulesLine(preset, overrides, layout.target, data))).catch(() => {});
    }
  } catch {
    // Without it every seat is shown as its own side until the next try.
    layoutAsked = false;
  }
}
let layoutAsked = false;

function sideLabel(seats) {
  return seats.map(seatName).join(" & ");
}

/** Where a seat sits on screen: 0 = bottom (you), going clockwise (to your left first). */
function place(seat) {
  const rel = (seat - viewer() + n()) % n();
  const angle = Math.PI / 2 + (rel * 2 * Math.PI) / n();
  return { rel, x: Math.cos(angle), y: Math.sin(angle) };
}

function legal() {
  return state && state.view ? state.view.legal : [];
}

function formatSeconds(s) {
  const v = Math.max(0, Math.ceil(s));
  return `${Math.floor(v / 60)}:${String(v % 60).padStart(2, "0")}`;
}

/** A timed game's clock in the felt's corner, where a player looks while playing (on a phone the score
 * pad is below the fold): the time left, from the server's last figure (`gameClock`, the one source of
 * truth) less the time since it came, or that the hand in play is the last. Not a live region: a screen
 * reader reads it when asked, not every second. */
function renderGameClock() {
  const node = $("game-clock");
  clearTimeout(gameClockTimer);
  if (gameClock.left === null || !state || state.over) {
    node.hidden = true;
    return;
  }
  const exact = gameClock.left - (performance.now() - gameClock.at) / 1000;
  const left = Math.max(0, Math.ceil(exact));
  // The next redraw when the shown second changes (not a free-running interval, which would lag it).
  if (left > 0) gameClockTimer = setTimeout(renderGameClock, Math.max(20, (exact - (left - 1)) * 1000 + 5));
  node.hidden = false;
  if (node.dataset.left === String(left)) return;
  node.dataset.left = String(left);
  node.classList.toggle("up", left === 0);
  node.title = left > 0 ? "Game clock: the hand in play when it runs out is the last."
    : "Time is up: the game ends after this hand, unless the lead is tied.";
  replaceChildren(node, stopwatch(), left > 0
    ? [el("span", { class: "visually-hidden" }, "Game clock: "), `${formatSeconds(left)} left`]
    : ["Time is up: last hand",
      el("span", { class: "visually-hidden" }, " (the game ends after this hand, unless the lead is tied)")]);
}

/** A small stopwatch drawn inline (an emoji may be missing from the device's fonts). */
function stopwatch() {
  const make = (tag, attrs) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const line = { fill: "none", stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round" };
  const icon = make("svg", { viewBox: "0 0 16 16", "aria-hidden": "true", class: "stopwatch" });
  icon.append(make("circle", { cx: "8", cy: "9.5", r: "5.5", ...line }),
    make("path", { d: "M6 1.5h4M8 1.5v2.5M8 9.5V6.5M12.2 4.6l1.2-1.2", ...line }));
  return icon;
}

function secondsLeft() {
  if (turnInfo.left === null || turnInfo.left === undefined) return null;
  return turnInfo.left - (performance.now() - turnInfo.at) / 1000;
}

// ------------------------------------------------------------------ drawing

/** Our seat follows the table's seat list (we may sit down or stand up after connecting). */
function updateMySeat() {
  if (!you.player) return;
  const mine = table.seats.find((s) => s.player === you.player);
  you.seat = mine ? mine.seat : null;
}

/** Redraw a part of the page without losing the keyboard focus: the element with the same data-key
 * gets it back, or the section itself when that element is gone. */
function keepFocus(container, draw) {
  const active = document.activeElement;
  const inside = active && active !== document.body && container.contains(active);
  const key = inside && active.dataset ? active.dataset.key : null;
  const index = inside && active.dataset ? Number(active.dataset.index) : NaN;
  draw();
  if (!inside || container.contains(document.activeElement)) return;
  // Never scroll: the page must not move under a finger or a pointer.
  const again = key ? container.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
  const buttons = [...container.querySelectorAll("button:not([disabled]):not(#hint-button)")];
  // After the player's own action the section holds the focus, and moveFocus picks the next control
  // once the server has answered (a neighbouring card may not be playable in the next trick).
  const near = Number.isNaN(index) || focusAfterAct ? null : buttons[Math.min(index, buttons.length - 1)];
  const park = container.hasAttribute("tabindex") ? container : null;
  const target = again || near || (focusAfterAct ? park : null) || buttons[0] || park;
  if (target) target.focus({ preventScroll: true });
}

/** After the player acts (or when the focus was lost with a panel that closed), the focus goes to the
 * next sensible control, never to the page's body: a bid, a card to play or choose, or the hand. */
function moveFocus() {
  const active = document.activeElement;
  const lost = !active || active === document.body || !document.contains(active) || active.disabled === true;
  const parked = active === $("my-hand") || active === $("actions"); // resting on a section, not a control
  if (!lost && !parked) {
    focusAfterAct = false; // the player is on a control (or went to the chat): leave them there
    return;
  }
  if (!lost && !focusAfterAct && !legal().length) return;
  if (state && state.over) return; // the game-over panel takes the focus itself
  const acts = legal();
  let target = null;
  // A finger or a mouse is not moved to a control (a card would look lifted); the keyboard is.
  if (!keyboardUser) {
    /* the section below */
  } else if (acts.some((a) => "bid" in a || "look" in a || "accept" in a || "misdeal" in a || "draw" in a)) {
    target = $("action-buttons").querySelector("button.hinted:not([disabled])")
      || $("action-buttons").querySelector("button:not([disabled])");
  } else if (acts.length) {
    target = $("hand-cards").querySelector("button.hand-card[aria-disabled=false]");
  }
  if (!target) target = $("my-hand").hidden ? $("actions") : $("my-hand");
  focusAfterAct = false;
  if (target !== active) target.focus({ preventScroll: true });
}

function render() {
  if (!table) return;
  updateMySeat();
  if (seeds) seeds.update(state ? state.seeding : null, you.seat);
  if (!layoutAsked) {
    layoutAsked = true;
    loadLayout(table.rules);
  }
  renderSeats();
  renderTrick();
  renderScoreBar();
  keepFocus($("seating"), renderSeating);
  keepFocus($("actions"), renderActions);
  renderHint();
  keepFocus($("my-hand"), renderHand);
  renderPad();
  renderGameClock();
  renderChat();
  renderOver();
  followRematch();
  takeWantedSeat();
  renderSummaryState();
  moveFocus();
  turnCues();
  document.documentElement.dataset.ready = "table";
  document.documentElement.dataset.seq = String(lastSeq);
}

/** The engine's report on each side this hand (``view.sides``): contract, tricks toward it, still
 * needed, status and nils. Empty before the server sends it. */
function handSides() {
  const view = state && state.view;
  return view && Array.isArray(view.sides) ? view.sides : [];
}

/** The engine's word on a nil bidder this hand, or null. */
function nilOf(seat) {
  for (const side of handSides()) {
    const nil = (side.nils || []).find((x) => x.seat === seat);
    if (nil) return nil;
  }
  return null;
}

const NIL_WORDS = { alive: "no trick yet", made: "made", broken: "broken" };

function renderSeats() {
  const view = state && state.view;
  $("felt").dataset.n = String(n());
  replaceChildren($("seats"), table.seats.map((s, i) => {
    const p = place(i);
    const bid = view && view.bids[i];
    const took = view ? view.tricks_taken[i] : 0;
    const toAct = view && view.to_act === i && !state.over;
    const left = toAct && turnInfo.seat === i ? secondsLeft() : null;
    const chips = [];
    const doing = { bid: "to bid", exchange: "to pass", discard: "to discard", draw: "to draw" }[view && view.phase];
    if (toAct) chips.push(el("span", { class: "chip turn" }, doing || "to play"));
    if (view && view.dealer === i) chips.push(el("span", { class: "chip dealer" }, "dealer"));
    if (s.kind === "bot") chips.push(el("span", { class: "chip" }, "computer"));
    if (s.away) chips.push(el("span", { class: "chip" }, "away: computer plays"));
    if (s.waiting) chips.push(el("span", { class: "chip wrap" }, `${s.waiting.name} sits from the next hand`));
    // The seats at the top and bottom hug their edge, those at the sides theirs, so every box stays
    // whole inside the felt at any size.
    let style = `left:${50 + p.x * 40}%;top:${50 + p.y * 40}%`;
    const sideY = `calc(var(--side-y, 50%) + ${(p.y * 36).toFixed(2)}%)`;
    if (p.x < -0.6) style = `left:0.3rem;top:${sideY};transform:translate(0,-50%)`;
    else if (p.x > 0.6) style = `right:0.3rem;top:${sideY};transform:translate(0,-50%)`;
    else if (p.y > 0.6) style = `left:${50 + p.x * 40}%;bottom:0.3rem;transform:translate(-50%,0)`;
    else if (p.y < -0.6) style = `left:${50 + p.x * 40}%;top:0.3rem;transform:translate(-50%,0)`;
    const nil = nilOf(i);
    return el("div", {
      class: `seat-box${toAct ? " to-act" : ""}${i === you.seat ? " me" : ""}`,
      style,
      role: "group",
      "data-seat": i,
      "aria-label": `${seatName(i)}${i === you.seat ? " (you)" : ""}`,
    },
    el("span", { class: "seat-name" }, seatName(i)),
    el("span", { class: "seat-meta" }, chips),
    // Two unbreakable parts, so a long line ("bid blind nil · took 0") wraps between them in a narrow box.
    el("span", { class: "seat-bid", "data-testid": `seat-${i}-bid` },
      view && !view.bidless ? [el("span", {}, `bid ${bid === null ? "–" : bid}`), " · ", el("span", {}, `took ${took}`)]
        : el("span", {}, `took ${took}`)),
    nil ? el("span", { class: `seat-nil status-${nil.status}`, "data-testid": `seat-${i}-nil` },
      `${nil.bid}: ${NIL_WORDS[nil.status] || nil.status}`) : null,
    left !== null ? el("span", { class: "seat-timer" }, formatSeconds(left)) : null);
  }));
}

/** The words for a side's contract this hand, all from the engine's report. */
function contractWords(report) {
  if (!report) return null;
  const parts = [];
  // A side whose every player bid nil has no contract to speak of (the engine's is 0, made by itself):
  // only its nils are shown.
  const nils = report.nils || [];
  const allNil = nils.length > 0 && Array.isArray(report.seats) && nils.length === report.seats.length;
  if (report.status === "bidding") parts.push(el("span", {}, "bidding…"));
  else if (report.contract !== null && report.contract !== undefined && !allNil) {
    parts.push(el("span", {}, `bid ${report.contract} · took ${report.tricks}`));
    if (report.status === "open") {
      parts.push(" · ", el("span", { class: "status" }, report.needed > 0 ? `needs ${report.needed}` : "reached"));
    }
    else parts.push(" · ", el("span", { class: `status status-${report.status}` }, report.status));
  } else if (!(report.nils || []).length) {
    parts.push(el("span", {}, `took ${report.tricks}`));
  }
  for (const nil of report.nils || []) {
    if (parts.length) parts.push(" · ");
    parts.push(el("span", { class: `status status-${nil.status}` },
      `${seatName(nil.seat)} ${nil.bid} ${NIL_WORDS[nil.status] || nil.status}${nil.status === "broken" ? ` (${nil.tricks})` : ""}`));
  }
  return parts;
}

/** The score bar: per side, the names, the total, the bags and this hand's contract. */
function renderScoreBar() {
  const groups = sides();
  const reports = handSides();
  replaceChildren($("score-sides"), groups.map((seats, k) => {
    const total = state ? state.totals[k] : 0;
    const bags = state ? state.bags[k] : 0;
    const report = reports.find((r) => sameSeats(r.seats, seats)) || reports[k];
    const mine = you.seat !== null && you.seat !== undefined && seats.includes(you.seat);
    const winner = state && state.over && state.winner === k;
    return el("div", { class: `side-score${mine ? " mine" : ""}${winner ? " winner" : ""}`, "data-side": k },
      el("div", { class: "side-top" },
        el("span", { class: "side-names" }, sideLabel(seats), mine && groups.length > 1 ? el("span", { class: "visually-hidden" }, " (your side)") : null),
        el("span", { class: "side-total", "data-testid": `pad-total-${k}` }, String(total))),
      el("span", { class: "side-line" }, `${bags} bag${bags === 1 ? "" : "s"}`),
      el("span", { class: "side-line", "data-testid": `pad-hand-${k}` }, contractWords(report) || ""));
  }));
}

function sameSeats(a, b) {
  return Array.isArray(a) && a.length === b.length && a.every((x) => b.includes(x));
}

function renderTrick() {
  const view = state && state.view;
  // A finished trick stays on show for a moment, unless the next one has begun.
  const showHeld = held && !(view && view.current.length);
  const cards = showHeld ? held.cards : (view ? view.current : []);
  // The cards already on show stay the same elements (so a card still travelling is not cut short);
  // a card new to the middle travels there from its seat.
  const box = $("trick");
  const wanted = new Set(cards.map(([seat, code]) => `${seat}:${code}`));
  const going = [];
  for (const node of [...box.children]) {
    if (node.dataset.leaving || wanted.has(node.dataset.key)) continue;
    if (held && !showHeld && held.cards.some(([seat, code]) => node.dataset.key === `${seat}:${code}`)) going.push(node);
    else node.remove();
  }
  // The next trick has begun before the last one was gathered: it slides away as the new card comes in.
  if (going.length) gatherNodes(going, held.winner, () => going.forEach((node) => node.remove()));
  const shown = new Map([...box.children].filter((node) => !node.dataset.leaving)
    .map((node) => [node.dataset.key, node]));
  const winnerSeat = showHeld && held.winner !== null && held.winner !== undefined ? held.winner : null;
  // The card winning the trick in progress, as the engine reads it (`trick_winner`).
  const leading = !showHeld && view && view.trick_winner !== null && view.trick_winner !== undefined ? view.trick_winner : null;
  for (const [seat, code] of cards) {
    const key = `${seat}:${code}`;
    let node = shown.get(key);
    const fresh = !node;
    if (fresh) {
      const p = place(seat);
      node = el("div", { class: "trick-card", "data-seat": seat, "data-key": key,
        style: `left:calc(50% + ${p.x.toFixed(3)} * var(--trick-rx));top:calc(50% + ${p.y.toFixed(3)} * var(--trick-ry))` },
      cardSVG(code));
      box.appendChild(node);
    }
    node.firstChild.setAttribute("aria-label", `${seatName(seat)}: ${cardName(code)}`
      + `${leading === seat && cards.length > 1 ? ", winning so far" : ""}`);
    node.classList.toggle("won", winnerSeat === seat);
    node.classList.toggle("leading", leading === seat && cards.length > 1);
    if (fresh && motionOK()) flyIn(node, seat, code);
  }
  if (playedFrom && cards.some(([seat, code]) => seat === you.seat && code === playedFrom.code)) playedFrom = null;
  let note = "";
  if (held && held.winner !== null && held.winner !== undefined) note = `${seatName(held.winner)} took the trick.`;
  else if (view && view.phase === "play" && view.current.length === 0 && view.to_act !== null
    && view.to_act !== you.seat) {
    note = `${seatName(view.to_act)} to lead.`;
  }
  // Why a game that reached its target goes on: the engine's words (the state's `goes_on`).
  const tie = state && !state.over && state.goes_on ? String(state.goes_on) : "";
  $("tie-note").hidden = !tie;
  $("tie-note").textContent = tie;
  const noteNode = $("trick-note");
  replaceChildren(noteNode, note);
  const last = view && view.tricks.length ? view.tricks[view.tricks.length - 1] : null;
  $("show-last-trick").disabled = !last;
  if (!last) $("last-trick").hidden = true;
  else if (!$("last-trick").hidden) drawLastTrick(last);
}

function drawLastTrick(trick) {
  replaceChildren($("last-trick"),
    el("p", {}, `${seatName(trick.winner)} took it.`),
    el("div", { class: "card-fan" }, trick.cards.map(([seat, code]) =>
      el("figure", { class: "mini-card" }, cardSVG(code), el("figcaption", {}, seatName(seat))))));
}

function renderSeating() {
  const seating = table.status === "seating";
  $("seating").hidden = !seating;
  if (!seating) return;
  const mine = you.seat !== null && you.seat !== undefined;
  replaceChildren($("seat-buttons"), table.seats.map((s, i) => (s.kind === "empty" && !mine && you.player
    ? el("button", { type: "button", "data-key": `sit:${i}`,
      onclick: () => send({ type: "sit", seat: i, id: clientId() }) },
      `Sit in seat ${i + 1}`)
    : el("span", { class: "seat-chip" }, `${i + 1}: ${seatName(i)}`))));
  $("stand-up").hidden = !mine;
  $("fill-seats").disabled = !table.seats.some((s) => s.kind === "empty");
  if (table.public === false && invite) {
    $("invite-box").hidden = false;
    $("invite-link").value = location.href;
  } else if (table.public) {
    $("invite-box").hidden = false;
    $("invite-link").value = `${location.origin}/table.html?id=${encodeURIComponent(table.id)}`;
  }
}

function actionLabel(a) {
  if ("bid" in a) return String(a.bid);
  if ("look" in a) return "Look at my cards";
  if ("accept" in a) return "Let partner's total stand";
  if ("misdeal" in a) return "Call a misdeal";
  if ("draw" in a) return a.draw === "keep" ? "Keep it" : "Discard it, take the next";
  return JSON.stringify(a);
}

// ------------------------------------------------------------------ hints

/** Hints are for a seated player's own turn, never at a rated table (the server refuses them there). */
function hintsAllowed() {
  return Boolean(table && !table.rated && table.status === "playing" && state && !state.over
    && you.seat !== null && you.seat !== undefined);
}

function myTurn() {
  return hintsAllowed() && legal().length > 0;
}

function askHint() {
  if (!myTurn() || hintAsked) return;
  hintAsked = clientId();
  if (!send({ type: "hint", id: hintAsked })) hintAsked = null;
  renderHint(); // the button waits for the answer
}

function cardList(codes) {
  const names = codes.map((c) => `the ${cardName(c)}`);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The server's "hint" answer: the suggested action (in the shape of an action) and its reason. It is
 * kept for the position it was computed for, and shown on the cards or buttons it names. */
function showHint(msg) {
  if (msg.id !== hintAsked) return;
  hintAsked = null;
  if (msg.seq !== lastSeq) return; // the game moved on meanwhile
  const a = msg.action || {};
  let what;
  if ("play" in a) what = `play ${cardList([a.play])}`;
  else if ("bid" in a) what = `bid ${a.bid}`;
  else if ("pass" in a) what = `pass ${cardList(a.pass)}`;
  else if ("discard" in a) what = `discard ${cardList(a.discard)}`;
  else if ("look" in a) what = "look at your cards";
  else if ("draw" in a) what = a.draw === "keep" ? "keep the top card" : "discard it and take the next";
  else what = actionLabel(a).toLowerCase();
  let reason = String(msg.reason || "").trim();
  if (reason.replace(/\bmy\b/g, "your") === what) reason = ""; // "look at my cards" says nothing more
  hint = { seq: lastSeq, action: a, text: `Hint: ${what}${reason ? ` (${reason})` : ""}.` };
}

/** The hint of this turn, or null (it lapses when the player acts or the position changes). */
function liveHint() {
  return hint && hint.seq === lastSeq && myTurn() ? hint : null;
}

/** The cards a live hint names (a card to play, or cards to pass or discard). */
function hintedCards() {
  const h = liveHint();
  if (!h) return new Set();
  const a = h.action;
  return new Set("play" in a ? [a.play] : (a.pass || a.discard || []));
}

/** Does a live hint name this action button (a bid, a look, a misdeal call, accept, a draw)? */
function hintNames(a) {
  const h = liveHint();
  if (!h) return false;
  const keys = Object.keys(a).filter((k) => k !== "seat");
  return keys.length > 0 && keys.every((k) => h.action[k] === a[k]);
}

/** A marked button: a star and words (for a screen reader), not a color alone. */
function markHinted(button) {
  button.classList.add("hinted");
  button.prepend(el("span", { class: "hint-star", "aria-hidden": "true" }, "★"));
  button.append(el("span", { class: "visually-hidden" }, " (the hint)"));
  return button;
}

function renderHint() {
  const allowed = hintsAllowed();
  $("hint-row").hidden = !allowed;
  const button = $("hint-button");
  button.disabled = !myTurn() || Boolean(hintAsked);
  const h = liveHint();
  const text = h ? h.text : "";
  const p = $("hint-text");
  if (p.textContent !== text) p.textContent = text; // a live region: announced when it changes
}

function renderActions() {
  const view = state && state.view;
  const acts = legal();
  const prompt = $("action-prompt");
  const box = $("action-buttons");
  const buttons = [];
  let text = "";
  if (!view || state.over) {
    text = state && state.over ? "The game is over." : (table.status === "seating" ? "Waiting for players." : "");
  } else if (!acts.length) {
    text = view.to_act === null ? "" : `Waiting for ${seatName(view.to_act)}…`;
    if (view.phase === "bid" && you.seat !== null && you.seat !== undefined) text = `Bidding: ${text}`;
  } else {
    const bids = acts.filter((a) => "bid" in a);
    const passes = acts.filter((a) => "pass" in a);
    const discards = acts.filter((a) => "discard" in a);
    const others = acts.filter((a) => "look" in a || "accept" in a || "misdeal" in a || "draw" in a);
    if (bids.length) {
      const blindOnly = view.hand === null;
      text = blindOnly ? "You may bid blind before looking at your cards." : "Your bid: how many tricks will you take?";
      for (const a of bids) {
        const b = el("button", { type: "button", class: String(a.bid).startsWith("blind") ? "blind" : "",
          onclick: () => act({ bid: a.bid }), "data-bid": String(a.bid), "data-key": `bid:${a.bid}` }, actionLabel(a));
        buttons.push(hintNames(a) ? markHinted(b) : b);
      }
    }
    if (passes.length || discards.length) {
      // The server sends what to choose, not every combination: {"pass": {"choose": 2, "from": [...]}}.
      const kind = passes.length ? "pass" : "discard";
      const need = (passes.length ? passes : discards)[0][kind].choose;
      text = kind === "pass"
        ? `Choose ${need} card${need === 1 ? "" : "s"} to pass to your partner, then press Pass.`
        : `Choose ${need} card${need === 1 ? "" : "s"} to discard face down.`;
      buttons.push(el("button", { type: "button", class: "primary", id: "confirm-cards", "data-key": "confirm",
        disabled: selected.size !== need, onclick: () => {
          act({ [kind]: [...selected] });
          selected = new Set();
        } }, `${kind === "pass" ? "Pass" : "Discard"} ${selected.size}/${need}`));
    }
    for (const a of others) {
      if ("draw" in a && view.top_card) text = "The top card of the stock:";
      const b = el("button", { type: "button", onclick: () => act(a), "data-key": JSON.stringify(a) },
        actionLabel(a));
      buttons.push(hintNames(a) ? markHinted(b) : b);
    }
    if (acts.some((a) => "play" in a)) {
      text = view.current.length ? "Your turn: follow suit if you can." : "Your lead.";
    }
  }
  prompt.textContent = text;
  const extra = view && view.top_card && acts.some((a) => "draw" in a)
    ? el("div", { class: "draw-card" }, cardSVG(view.top_card)) : null;
  redrawChildren(box, extra, buttons);
}

function renderHand() {
  const view = state && state.view;
  const box = $("hand-cards");
  if (!view || you.seat === null || you.seat === undefined) {
    replaceChildren(box);
    $("my-hand").hidden = true;
    return;
  }
  $("my-hand").hidden = Boolean(state.over) && !(view.hand && view.hand.length); // no empty hand under "Game over"
  if (view.hand === null) {
    const count = view.hand_sizes[you.seat];
    box.style.setProperty("--n", String(Math.max(2, count)));
    redrawChildren(box, Array.from({ length: count }, () => el("span", { class: "hand-card back" },
      cardBack("hidden card"))));
    return;
  }
  const acts = legal();
  const playable = new Set(acts.filter((a) => "play" in a).map((a) => a.play));
  const choice = acts.find((a) => "pass" in a || "discard" in a);
  const choosable = new Set(choice ? (choice.pass || choice.discard).from : []);
  const choosing = Boolean(choice);
  const myPlay = playable.size > 0;
  const cards = sortHand(view.hand, topTrumps);
  const hinted = hintedCards();
  if (lifted && !playable.has(lifted)) lifted = null;
  const received = receivedCards(view);
  box.style.setProperty("--n", String(Math.max(2, cards.length)));
  redrawChildren(box, cards.map((code, i) => {
    const ok = myPlay ? playable.has(code) : choosing && choosable.has(code);
    const isSel = selected.has(code);
    const isHint = ok && hinted.has(code);
    const isLifted = myPlay && lifted === code;
    const from = received.get(code);
    // The accessible name starts with the card's name (what the corner shows), then its state.
    const btn = el("button", {
      type: "button",
      class: `hand-card${myPlay && !ok ? " illegal" : ""}${isSel ? " selected" : ""}${isHint ? " hinted" : ""}`
        + `${isLifted ? " lifted" : ""}${from !== undefined ? " received" : ""}`,
      "aria-disabled": ok ? "false" : "true",
      "aria-pressed": choosing ? String(isSel) : undefined,
      "aria-label": `${cardName(code)}${myPlay && !ok ? ", cannot be played now" : ""}`
        + `${from !== undefined ? `, passed to you by ${seatName(from)}` : ""}`
        + `${isLifted ? ", lifted: press again to play it" : ""}${isHint ? ", the hint" : ""}`,
      "data-card": code,
      "data-key": `card:${code}`,
      "data-index": i,
      onpointerdown: (e) => {
        pointerKind = e.pointerType || "mouse";
      },
      onclick: (e) => cardClicked(code, ok, choosing, e),
      onkeydown: (e) => cardKey(e, i),
    }, cardSVG(code), isHint ? el("span", { class: "hint-star", "aria-hidden": "true" }, "★") : null);
    btn.querySelector("svg").setAttribute("aria-hidden", "true");
    return btn;
  }));
}

/** The cards a partner passed to the player this hand (code -> the passer's seat), until play starts. */
function receivedCards(view) {
  const out = new Map();
  if (!view.passes || view.tricks.length > 0 || view.current.some(([seat]) => seat === you.seat)) return out;
  for (const p of view.passes) {
    if (p.to === you.seat && Array.isArray(p.cards)) for (const c of p.cards) if (view.hand.includes(c)) out.set(c, p.from);
  }
  return out;
}

function cardClicked(code, ok, choosing, e) {
  if (!ok) return;
  if (choosing) {
    if (selected.has(code)) selected.delete(code);
    else selected.add(code);
    render();
    return;
  }
  // A finger lifts the card first and plays it on a second tap (a slip plays nothing), unless the player
  // chose one-tap play; a mouse click or a key (a click with no detail) plays at once.
  const byKey = e && e.detail === 0;
  const twoStep = !byKey && pointerKind !== "mouse" && !settings.oneTap;
  if (twoStep && lifted !== code) {
    lifted = code;
    render();
    return;
  }
  const button = document.querySelector(`#hand-cards button[data-card="${CSS.escape(code)}"]`);
  playedFrom = button ? { code, at: centre(button.getBoundingClientRect()) } : null;
  act({ play: code });
}

function cardKey(e, i) {
  const cards = [...$("hand-cards").querySelectorAll("button.hand-card")];
  let next = null;
  if (e.key === "ArrowRight") next = cards[Math.min(cards.length - 1, i + 1)];
  else if (e.key === "ArrowLeft") next = cards[Math.max(0, i - 1)];
  else if (e.key === "Home") next = cards[0];
  else if (e.key === "End") next = cards[cards.length - 1];
  if (next) {
    e.preventDefault();
    next.focus();
  }
}

/** The score sheet, hand by hand, from the server's results: each side's points, total and bags. */
function scoreSheet() {
  const groups = sides();
  const results = state ? state.results : [];
  const head = el("tr", {}, el("th", { scope: "col" }, "Hand"), groups.map((seats) =>
    el("th", { scope: "col" }, sideLabel(seats))));
  const rows = results.map((r, i) => el("tr", {}, el("th", { scope: "row" }, String(i + 1)),
    groups.map((_, k) => el("td", {}, r.misdeal ? "misdeal" : [el("span", { class: "num" }, String(totalAfter(i, k))),
      el("span", { class: "sub" }, `${signed(r.points[k])} · ${r.bags[k]} bag${r.bags[k] === 1 ? "" : "s"}`)]))));
  return el("table", { class: "sheet pad" }, el("thead", {}, head), el("tbody", {}, rows.length ? rows
    : el("tr", {}, el("td", { colspan: groups.length + 1 }, "No hand scored yet."))));
}

function renderPad() {
  if (!layout) {
    replaceChildren($("score-pad"), el("p", { class: "hint" }, "Loading the rules…"));
    return;
  }
  replaceChildren($("score-pad"), scoreSheet());
}

function renderChat() {
  const list = $("chat-lines");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  replaceChildren(list, chat.map((c) => el("li", {}, el("strong", {}, `${c.name}: `), el("span", {}, c.text))));
  if (atBottom) list.scrollTop = list.scrollHeight;
  $("chat-form").hidden = !you.player;
  const open = $("open-panels");
  if (unread > 0) open.dataset.unread = String(Math.min(unread, 9));
  else delete open.dataset.unread;
}

function renderOver() {
  const over = state && state.over;
  const box = $("game-over");
  const opening = over && box.hidden;
  box.hidden = !over;
  if (!over) return;
  const groups = sides();
  const w = state.winner;
  const mine = w !== null && w !== undefined && you.seat !== null && you.seat !== undefined && groups[w].includes(you.seat);
  $("over-text").textContent = `${w === null || w === undefined ? "Nobody" : sideLabel(groups[w])} won`
    + `${mine ? " (you!)" : ""}: ` + groups.map((s, k) => `${sideLabel(s)} ${state.totals[k]}`).join(", ") + ".";
  replaceChildren($("over-sheet"), scoreSheet());
  $("download-record").href = `/api/tables/${encodeURIComponent(table.id)}/record`;
  $("watch-replay").href = `/replay.html?table=${encodeURIComponent(table.id)}`;
  $("review-game").href = `/replay.html?table=${encodeURIComponent(table.id)}&review=1`;
  $("download-record").setAttribute("download", `spades-${table.id}.json`);
  if (opening) {
    // The last hand's summary (its points line by line, the link to verify its deal) moves into the
    // game-over screen, under the final sheet.
    const summary = $("summary");
    if (summary.parentElement !== box) box.append(summary);
    summary.hidden = summaryFor === null;
    $("close-summary").hidden = true;
    $("rematch").focus({ preventScroll: true });
  }
}

/** The hand's summary shows over the felt until the player closes it or plays their first card of the
 * next hand (a spectator: until its first trick is over). */
function renderSummaryState() {
  const view = state && state.view;
  if ($("summary").hidden || summaryFor === null || !view || state.over) return;
  if (state.hand > summaryFor + 1 && (view.tricks.length > 0 || view.current.some(([seat]) => seat === you.seat))) {
    $("summary").hidden = true;
  }
}

async function showSummary(index) {
  const result = state.results[index];
  const groups = sides();
  const body = $("summary-body");
  summaryFor = index;
  $("summary-title").textContent = `Hand ${index + 1}${result.misdeal ? ": misdeal, dealt again" : ""}`;
  const bids = bidsByHand.get(index + 1);
  const rows = groups.map((seats, k) => el("li", { "data-side": k },
    el("strong", {}, sideLabel(seats)), ` ${signed(result.points[k])} (total ${totalAfter(index, k)}, `
      + `${result.bags[k]} bag${result.bags[k] === 1 ? "" : "s"})`, el("ul", { class: "lines" })));
  replaceChildren(body, el("ul", { class: "summary-sides" }, rows));
  $("summary").hidden = false;
  addVerifyLink(index);
  if (result.misdeal || !bids) return;
  // Explain the points line by line with the engine's scoring (POST /api/score/hand).
  try {
    const bagsBefore = index > 0 ? state.results[index - 1].bags : groups.map(() => 0);
    const spec = table.rules;
    const answer = await api("/api/score/hand", {
      rules: spec, bids: bids.some((b) => b === null) ? null : bids, tricks: result.tricks, bags_before: bagsBefore,
    });
    if (!answer.ok || summaryFor !== index) return;
    answer.sides.forEach((side, k) => {
      if (side.points !== result.points[k]) return; // the server's own points stand
      const ul = body.querySelector(`[data-side="${k}"] .lines`);
      replaceChildren(ul, side.lines.map(([text, pts]) => el("li", {},
        `${withNames(text)}: ${signed(pts)}`)));
    });
  } catch {
    // The points above are already shown; the lines are a bonus.
  }
}

function totalAfter(index, side) {
  let t = 0;
  for (let i = 0; i <= index; i++) t += state.results[i].points[side];
  return t;
}

/** The engine counts seats from 0 ("seat 2"): a person reads the seat's name instead. */
function withNames(text) {
  return String(text).replace(/\bseat (\d+)\b/gi, (m, k) => (Number(k) < n() ? seatName(Number(k)) : m));
}

function showActionError(text) {
  const node = $("action-error");
  node.textContent = withNames(text);
  node.className = "notice bad";
}

function clearActionError() {
  const node = $("action-error");
  node.textContent = "";
  node.className = "notice bad";
}

/** The new table of a rematch, with the seat to take there. */
function rematchUrl(r, seat) {
  return `/table.html?id=${encodeURIComponent(r.id)}${r.invite ? `&invite=${encodeURIComponent(r.invite)}` : ""}`
    + `${seat !== null && seat !== undefined ? `&seat=${seat}` : ""}`;
}

/** Ask the server for the rematch (the same rules, settings and seats at a new table): everyone at this
 * table is told, and the players go there (followRematch). */
async function rematch() {
  $("rematch").disabled = true;
  try {
    const made = await api(`/api/tables/${encodeURIComponent(table.id)}/rematch`, {});
    following = true;
    location.href = rematchUrl(made, made.seat);
  } catch (e) {
    $("rematch").disabled = false;
    showActionError(`No rematch: ${withNames(e.message)}`);
  }
}

let following = false;

/** Someone asked for a rematch: a player of this game goes to the new table (to the same seat); a
 * spectator gets the link. */
function followRematch() {
  const r = table && table.rematch;
  const box = $("rematch-note");
  if (!r || !state || !state.over) {
    box.hidden = true;
    return;
  }
  const seated = you.seat !== null && you.seat !== undefined;
  box.hidden = false;
  replaceChildren(box, `${r.by} asked for a rematch. `, el("a", { href: rematchUrl(r, seated ? you.seat : null) },
    seated ? "Going to the new table…" : "Watch it"));
  $("rematch").hidden = !seated;
  if (seated && !following) {
    following = true;
    setTimeout(() => {
      location.href = rematchUrl(r, you.seat);
    }, 1200);
  }
}

/** Arriving from a rematch (`seat` in the address): take that seat once, if it is still free. */
let seatWanted = params.has("seat") ? Number(params.get("seat")) : null;

function takeWantedSeat() {
  if (seatWanted === null || !table || !you.player || table.status !== "seating") return;
  const s = table.seats[seatWanted];
  const mine = table.seats.some((x) => x.player === you.player);
  if (mine || !s || s.kind !== "empty") {
    seatWanted = null;
    return;
  }
  if (send({ type: "sit", seat: seatWanted, id: clientId() })) seatWanted = null;
}

// ------------------------------------------------------------------ start

function init() {
  if (!tableId) {
    setConn("bad", "No table given: open a table from the home page.");
    stopped = true;
    return;
  }
  $("show-last-trick").addEventListener("click", () => {
    const box = $("last-trick");
    const view = state && state.view;
    if (!view || !view.tricks.length) return;
    box.hidden = !box.hidden;
    if (!box.hidden) drawLastTrick(view.tricks[view.tricks.length - 1]);
  });
  $("close-summary").addEventListener("click", () => {
    $("summary").hidden = true;
    render();
  });
  $("rematch").addEventListener("click", rematch);
  renderSettings();
  $("mute").addEventListener("click", () => {
    settings.muted = !settings.muted;
    saveSettings();
    renderSettings();
  });
  $("one-tap").addEventListener("change", () => {
    settings.oneTap = $("one-tap").checked;
    saveSettings();
  });
  const panels = (open) => {
    document.body.classList.toggle("panels-open", open);
    $("open-panels").setAttribute("aria-expanded", String(open));
    if (open) {
      unread = 0;
      renderChat();
      $("close-panels").focus({ preventScroll: true });
    } else {
      $("open-panels").focus({ preventScroll: true });
    }
  };
  $("open-panels").addEventListener("click", () => panels(!document.body.classList.contains("panels-open")));
  $("close-panels").addEventListener("click", () => panels(false));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && document.body.classList.contains("panels-open")) panels(false);
  });
  document.addEventListener("visibilitychange", turnCues);
  document.addEventListener("keydown", () => {
    keyboardUser = true;
  }, true);
  document.addEventListener("pointerdown", () => {
    keyboardUser = false;
  }, true);
  $("hint-button").addEventListener("click", askHint);
  document.addEventListener("keydown", (e) => {
    // "h" asks for a hint, unless the player is typing (chat, seed) or holds a modifier.
    if (e.key !== "h" && e.key !== "H") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const t = e.target;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    if (!myTurn()) return;
    e.preventDefault();
    askHint();
  });
  seeds = new SeedKeeper({ panel: $("fair-seed"), input: $("seed-input"), fresh: $("seed-fresh"),
    status: $("seed-status"), error: $("seed-error") }, send);
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    if (send({ type: "chat", id: clientId(), text })) $("chat-input").value = "";
  });
  $("fill-seats").addEventListener("click", () => send({ type: "fill", id: clientId(), level: $("fill-level").value }));
  $("stand-up").addEventListener("click", () => send({ type: "stand", id: clientId() }));
  $("copy-invite").addEventListener("click", () => {
    $("invite-link").select();
    navigator.clipboard.writeText($("invite-link").value).catch(() => {});
  });
  setInterval(() => {
    if (state && turnInfo.left !== null && turnInfo.left !== undefined) renderSeats();
  }, 1000);
  setConn("warn", "Connecting…");
  // A session first (the server makes a guest at once), then the table socket.
  api("/api/me").then((me) => {
    you.player = me.id;
    you.name = me.name;
  }).catch(() => {}).finally(connect);
  api("/api/levels").then((data) => {
    replaceChildren($("fill-level"), data.levels.map((lv) => el("option", { value: lv, selected: lv === data.default },
      lv)));
  }).catch(() => {});
}

// A small handle for tests and for people debugging from the console: drop the socket to see the
// page reconnect and catch up from the last event it saw.
window.spadesTable = {
  drop() {
    if (ws) ws.close();
  },
  act(action) {
    act(action);
  },
  get lastSeq() {
    return lastSeq;
  },
  /** The state the page shows (events applied to the last whole state). */
  get state() {
    return state;
  },
  /** The tones played so far ("turn", "trick"): sound itself cannot be heard by a test. */
  get cues() {
    return [...cueLog];
  },
};

init();
