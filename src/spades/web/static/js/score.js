// The score keeper for a game with real cards. Hands are typed in per seat or per side (each side's bid
// and tricks, and its nil bids made or failed) and kept in localStorage;
// every score comes from the server's POST /api/score (the engine's ScoreSheet) when it answers, and so do
// the bids offered for a hand (its bid_choices). Without a network the page scores with js/scoring.js, the
// twin of the engine's scoring that tests/web/test_scoring_twin.py holds to spades.core over thousands of
// seeded hands in every preset: points, bags and totals appear as hands are typed in, under the game's house
// rules, and the server's answer replaces them when it is back.
// Signed in with an account, the games are also kept on the server (GET/PUT/DELETE /api/scoregames) and
// merged with this device's copies: the copy changed last wins, a game deleted on one device goes from
// the others.

import { OfflineError, api, cachedRulesCatalogue, el, loadJSON, replaceChildren, rulesCatalogue, rulesLine, saveJSON,
  signed, valueText } from "./common.js";
import { RulesForm, layoutSummary } from "./rulesform.js";
import { scoreSheet } from "./scoring.js";

const STORE_KEY = "spades.scorekeeper.v1";
const RETRY_MS = 15000;
const FOUR_NAMES = ["North", "East", "South", "West"];

/** Everything kept on this device: {games: [game], deleted: [{id, account}]} (deletions not yet told to
 * the server). A game the server also keeps has `account` (whose it is) and `synced` (its `updated` when
 * this device and the server last agreed). */
let store = loadJSON(STORE_KEY, { games: [] });
if (!store || !Array.isArray(store.games)) store = { games: [] };
if (!Array.isArray(store.deleted)) store.deleted = [];

let catalogue = null;
let editing = null; // index of the hand being edited, or null for a new hand
let retryTimer = null;
const undone = new Map(); // game id -> hands taken back by "Undo", for "Put it back"

const $ = (id) => document.getElementById(id);

function persist() {
  if (!saveJSON(STORE_KEY, store)) {
    setNotice($("score-status"), "bad", "This browser refused to save the game (private mode or full storage).");
  }
}

function setNotice(node, kind, text) {
  node.className = `notice ${kind}`;
  node.textContent = text;
}

function clearNotice(node) {
  node.className = "notice";
  node.textContent = "";
}

function newId() {
  return `g${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

function findGame(id) {
  return store.games.find((g) => g.id === id) || null;
}

/** The rules as the API and records write them: a preset name, or the preset with overrides. */
function rulesSpec(game) {
  const overrides = game.overrides || {};
  return Object.keys(overrides).length ? { preset: game.preset, ...overrides } : game.preset;
}

function rulesSummary(preset, overrides) {
  const parts = Object.entries(overrides || {}).map(([k, v]) => `${k} ${valueText(v)}`);
  return parts.length ? `${preset} with ${parts.join(", ")}` : preset;
}

function sideLabel(game, side) {
  return game.layout.sides[side].map((s) => game.names[s] || `Seat ${s + 1}`).join(" & ");
}

/** A score line or a reason from the server (or the twin), with "seat 1" and "side 0" (counted from 0)
 * written as the players' names. */
function lineText(game, text) {
  return String(text)
    .replace(/\bseat (\d+)/g, (m, n) => game.names[Number(n)] || m)
    .replace(/\bside (\d+)/g, (m, k) => (game.layout.sides[Number(k)] ? sideLabel(game, Number(k)) : m));
}

/** The game's full option set, for the offline twin: as checked when the game was made, or (games kept
 * before that was stored) the preset's options from the cached rule book with the game's overrides. */
function gameOptions(game) {
  if (game.options) return game.options;
  const cat = catalogue || cachedRulesCatalogue();
  if (!cat) return null;
  const preset = cat.presets.find((p) => p.name === game.preset);
  if (!preset) return null;
  return { ...cat.defaults, ...preset.options, ...(game.overrides || {}) };
}

/** The sheet scored on this device by the twin (offline only), or null when the rules are not known here. */
function twinScore(game, hands) {
  const options = gameOptions(game);
  return options ? scoreSheet(options, game.layout, hands) : null;
}

function bidText(bid) {
  return bid === null || bid === undefined ? "–" : String(bid);
}

/** What was entered for side `k` in a hand (per seat or per side): its bids as text and its tricks. */
function sideEntered(game, hand, k) {
  const seats = game.layout.sides[k];
  if (hand.sides) {
    const side = hand.sides[k];
    if (side.bid === undefined && !side.nil) return { bids: "no bids", took: side.tricks };
    const nils = (side.nil || []).map((x) => `${game.names[x.seat] || `seat ${x.seat + 1}`} ${x.bid} `
      + `${x.tricks ? `failed (${x.tricks})` : "made"}`);
    const parts = [...(side.bid === null || side.bid === undefined ? [] : [String(side.bid)]), ...nils];
    return { bids: parts.join(" + "), took: side.tricks };
  }
  return {
    bids: hand.bids ? seats.map((s) => bidText(hand.bids[s])).join("+") : "no bids",
    took: seats.reduce((t, s) => t + (Number(hand.tricks[s]) || 0), 0),
  };
}

// ---------------------------------------------------------------- a timed game's clock

/** The time now in milliseconds, for the game clock only. A test may set `window.spadesNow` (a function
 * giving milliseconds) before the page loads, to move the clock on without waiting. */
function now() {
  return typeof window.spadesNow === "function" ? Number(window.spadesNow()) : Date.now();
}

/** A timed game's minutes (time_limit_minutes, from the overrides or the table's layout), or null. */
function timeLimit(game) {
  const overrides = game.overrides || {};
  if ("time_limit_minutes" in overrides) return overrides.time_limit_minutes || null;
  return (game.layout && game.layout.time_limit_minutes) || null;
}

/** When the game's clock started: when the game was created, or when "Start the clock now" was pressed
 * (`clockStarted`; games saved before the clock existed have only `created`). */
function clockStart(game) {
  return Number(game.clockStarted) || Number(game.created) || now();
}

function msLeft(game) {
  return clockStart(game) + timeLimit(game) * 60000 - now();
}

/** The first hand entered as the one in which the time ran out, or -1. */
function timeUpHand(game) {
  return game.hands.findIndex((h) => h && h.time_up === true);
}

function clockTime(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The clock line of a timed game (and the pre-ticked "time ran out" box of a new hand once it is up). */
function renderClock() {
  const game = current;
  const box = $("game-clock");
  const limit = game ? timeLimit(game) : null;
  if (!game || !limit) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const marked = timeUpHand(game);
  const left = msLeft(game);
  let text;
  if (marked >= 0) {
    text = `Timed game (${limit} min): the time ran out in hand ${marked + 1}.`;
  } else if (left > 0) {
    text = `Time left: ${Math.ceil(left / 60000)} min of ${limit} (the clock started at ${clockTime(clockStart(game))}).`;
  } else {
    text = `Time is up: ${limit} min since ${clockTime(clockStart(game))}. `
      + "The game ends after the hand being played.";
  }
  box.classList.toggle("up", marked < 0 && left <= 0);
  box.dataset.left = marked >= 0 ? "marked" : String(Math.max(0, Math.ceil(left / 60000)));
  if ($("clock-text").textContent !== text) $("clock-text").textContent = text;
  $("restart-clock").hidden = game.hands.length > 0;
  const tick = $("time-up");
  if (editing === null && !$("time-up-row").hidden && !tick.dataset.touched) tick.checked = left <= 0;
}

function restartClock() {
  const game = current;
  if (!game || game.hands.length) return;
  game.clockStarted = now();
  game.updated = Date.now();
  persist();
  pushSoon(game);
  delete $("time-up").dataset.touched;
  renderClock();
}

/** What the server's answer says about the end of time: the winner, or that a tie goes on. */
function renderTimeResult(game, scored) {
  const node = $("time-result");
  const marked = timeUpHand(game);
  if (!timeLimit(game) || !scored || !scored.time_up || marked < 0) {
    clearNotice(node);
    return;
  }
  const totals = scored.totals;
  if (scored.over && scored.winner !== null && scored.winner !== undefined) {
    const w = scored.winner;
    const others = totals.filter((_, k) => k !== w).join(" and ");
    const verb = game.layout.sides[w].length > 1 ? "win" : "wins";
    setNotice(node, "ok", `Time ran out in hand ${marked + 1}. Game over: ${sideLabel(game, w)} ${verb}, `
      + `${totals[w]} to ${others}.`);
  } else if (!scored.over) {
    const best = Math.max(...totals);
    const tied = game.layout.sides.map((_, k) => k).filter((k) => totals[k] === best);
    setNotice(node, "warn", `Time ran out in hand ${marked + 1}, but ${tied.map((k) => sideLabel(game, k))
      .join(" and ")} are tied at ${best}: the game goes on, and ends after the next hand that leaves `
      + "one side ahead.");
  } else {
    clearNotice(node);
  }
}

function handKey(game) {
  return JSON.stringify({ rules: rulesSpec(game), hands: game.hands });
}

// ---------------------------------------------------------------- the server's copies (signed in)

let account = null; // the signed-in user name; null for a guest, or without the game server
let syncState = "local"; // local | guest | synced | offline | error
let syncing = null;
const SYNC_MS = 60000;

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, { method, headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new OfflineError(String(e));
  }
  if (response.status >= 500) throw new OfflineError(`server answered ${response.status}`);
  let data = null;
  try {
    data = await response.json();
  } catch { /* not JSON */ }
  return { status: response.status, data };
}

function reasonOf(answer) {
  return answer.data && answer.data.error ? answer.data.error.reason : `the server answered ${answer.status}`;
}

/** The game as the server keeps it: without this device's sync marks and cached scores. */
function serverCopy(game) {
  const { account: _a, synced: _s, scored: _c, scoredKey: _k, twin: _t, twinKey: _tk, ...rest } = game;
  return rest;
}

function fromServer(row, local) {
  return { ...row.game, account, synced: row.updated,
    scored: local ? local.scored : null, scoredKey: local ? local.scoredKey : null };
}

function renderSync() {
  const texts = {
    local: ["", ""],
    guest: ["", "Games stay on this device. Sign in on the home page to keep them with your account too."],
    synced: ["ok", `Games are kept on this device and with your account ${account}.`],
    offline: ["warn", "The server cannot be reached: games are kept on this device and go to your account when it is back."],
  };
  const [kind, text] = texts[syncState] || ["bad", syncState];
  for (const node of [$("sync-status"), $("game-sync")]) {
    if (text) setNotice(node, kind, text); else clearNotice(node);
  }
}

/** Replace a local game with the server's copy (and redraw it if it is on screen). */
function adopt(row) {
  const i = store.games.findIndex((g) => g.id === row.id);
  const merged = fromServer(row, i >= 0 ? store.games[i] : null);
  if (i >= 0) store.games[i] = merged; else store.games.push(merged);
  if (current && current.id === row.id) {
    current = merged;
    if (!$("game-view").hidden && editing === null) showGame(merged);
  }
}

/** Send one game to the server; a copy there changed later wins and comes back instead. */
async function push(game) {
  if (!account || (game.account && game.account !== account)) return;
  const sent = game.updated;
  const answer = await call("PUT", `/api/scoregames/${encodeURIComponent(game.id)}`, { game: serverCopy(game) });
  if (answer.status === 200) {
    game.account = account;
    game.synced = sent;
  } else if (answer.status === 409 && answer.data && answer.data.game) {
    adopt(answer.data.game);
  } else if (answer.status === 401 || answer.status === 403) {
    account = null;
    syncState = "guest";
  } else {
    throw new Error(`"${game.name}" could not be kept on the server: ${reasonOf(answer)}`);
  }
}

/** Merge this device's games with the account's games on the server. */
async function sync() {
  if (syncing) return syncing;
  syncing = (async () => {
    try {
      const me = await call("GET", "/api/me");
      if (me.status !== 200 || !me.data || !("guest" in me.data)) {
        account = null;
        syncState = "local"; // pages served without the game server
        return;
      }
      account = me.data.guest ? null : me.data.username;
      store.lastAccount = account;
      if (!account) {
        syncState = "guest";
        return;
      }
      for (const d of store.deleted.filter((x) => x.account === account)) {
        const answer = await call("DELETE", `/api/scoregames/${encodeURIComponent(d.id)}`);
        if (answer.status === 200 || answer.status === 404) store.deleted = store.deleted.filter((x) => x !== d);
      }
      const list = await call("GET", "/api/scoregames");
      if (list.status !== 200) throw new Error(reasonOf(list));
      const remote = new Map(list.data.games.map((row) => [row.id, row]));
      for (const row of remote.values()) {
        if (store.deleted.some((d) => d.id === row.id && d.account === account)) continue;
        const local = findGame(row.id);
        if (local && local.account && local.account !== account) continue;
        if (!local || row.updated > local.updated) adopt(row);
        else if (row.updated < local.updated) await push(local);
        else {
          local.account = account;
          local.synced = row.updated;
        }
      }
      for (const local of [...store.games]) {
        if (remote.has(local.id) || (local.account && local.account !== account)) continue;
        if (local.account === account && local.synced !== undefined && local.updated <= local.synced) {
          store.games = store.games.filter((g) => g !== local); // deleted on another device
          if (current === local) current = null;
        } else {
          await push(local);
        }
      }
      syncState = "synced";
    } catch (e) {
      // Offline: only someone who was signed in here last time is told the games will reach an account.
      syncState = e instanceof OfflineError ? (store.lastAccount ? "offline" : "local") : e.message;
    } finally {
      persist();
      syncing = null;
    }
  })();
  await syncing;
  renderSync();
  const linked = location.hash.startsWith("#game-") && findGame(location.hash.slice(6));
  if (!$("list-view").hidden && linked) route(); // the game the address names came with the account
  else if (!$("list-view").hidden) showList();
  else if (!$("game-view").hidden && !current) route(); // the game on screen was deleted elsewhere
  return null;
}

/** After a change to a game: keep it on the server too (when signed in). */
function pushSoon(game) {
  if (!account) return;
  push(game).then(() => {
    persist();
    syncState = "synced";
  }).catch((e) => {
    syncState = e instanceof OfflineError ? (store.lastAccount ? "offline" : "local") : e.message;
  }).finally(renderSync);
}

// ---------------------------------------------------------------- routing

function route() {
  const hash = location.hash;
  for (const id of ["list-view", "new-view", "game-view"]) $(id).hidden = true;
  if (hash === "#new") {
    showNewGame();
  } else if (hash.startsWith("#game-") && findGame(hash.slice(6))) {
    showGame(findGame(hash.slice(6)));
  } else {
    showList();
  }
}

// ---------------------------------------------------------------- list of games

function showList() {
  $("list-view").hidden = false;
  const list = $("game-list");
  const games = [...store.games].sort((a, b) => (b.updated || 0) - (a.updated || 0));
  $("no-games").hidden = games.length > 0;
  replaceChildren(list, games.map((g) => {
    const totals = g.scored && g.scoredKey === handKey(g)
      ? g.layout.sides.map((_, k) => `${sideLabel(g, k)} ${g.scored.totals[k]}`).join(" · ")
      : `${g.hands.length} hand${g.hands.length === 1 ? "" : "s"}`;
    const when = new Date(g.updated || g.created).toLocaleString();
    return el("li", {},
      el("a", { class: "button open-game", href: `#game-${g.id}` },
        el("span", {}, g.name),
        el("span", { class: "meta" }, `${totals} · ${when}`)));
  }));
  scoreListed(games);
}

let listScoring = false;

/** Games with no scores on this device yet (one that came from the account, one entered offline) are
 * scored by the server in the background, and the list shows their totals once they come. */
async function scoreListed(games) {
  if (listScoring) return;
  const todo = games.filter((g) => g.hands.length && !(g.scored && g.scoredKey === handKey(g))).slice(0, 20);
  if (!todo.length) return;
  listScoring = true;
  try {
    for (const g of todo) {
      const key = handKey(g);
      g.scored = await api("/api/score", { rules: rulesSpec(g), hands: g.hands });
      g.scoredKey = key;
    }
  } catch {
    return; // offline or refused: the list keeps showing the number of hands
  } finally {
    listScoring = false;
    persist();
  }
  if (!$("list-view").hidden) showList();
}

function importGame(file) {
  const reader = new FileReader();
  reader.onload = () => {
    try {
      const data = JSON.parse(String(reader.result));
      if (!data || !Array.isArray(data.hands)) throw new Error("no hands in this file");
      const spec = data.rules === undefined ? "standard" : data.rules;
      const preset = typeof spec === "string" ? spec : (spec.preset || "standard");
      const overrides = typeof spec === "string" ? {} : Object.fromEntries(
        Object.entries(spec).filter(([k]) => k !== "preset"));
      api("/api/rules/check", { preset, overrides }).then((check) => {
        if (!check.ok) throw new Error(check.error);
        const names = Array.isArray(data.names) ? data.names.map(String) : defaultNames(check.layout.players);
        const game = {
          id: newId(), name: String(data.name || file.name.replace(/\.json$/i, "")).slice(0, 80),
          created: Date.now(), updated: Date.now(), preset, overrides, layout: check.layout, names,
          hands: data.hands.map((h) => ({
            ...(h && h.sides ? { sides: h.sides } : { bids: h.bids === undefined ? null : h.bids, tricks: h.tricks }),
            ...(h && h.time_up === true ? { time_up: true } : {}),
          })),
          scored: null, scoredKey: null,
        };
        store.games.push(game);
        persist();
        pushSoon(game);
        location.hash = `#game-${game.id}`;
      }).catch((e) => setNotice($("list-status"), "bad", `Could not import: ${e.message}`));
    } catch (e) {
      setNotice($("list-status"), "bad", `Could not import: ${e.message}`);
    }
  };
  reader.readAsText(file);
}

// ---------------------------------------------------------------- new game

let form = null; // the RulesForm of the new-game page
let layout = null; // the checked layout of the rules chosen there

function defaultNames(players) {
  if (players === 4) return [...FOUR_NAMES];
  return Array.from({ length: players }, (_, i) => `Player ${i + 1}`);
}

async function showNewGame() {
  $("new-view").hidden = false;
  if (!$("game-name").value) $("game-name").value = `Game of ${new Date().toLocaleDateString()}`;
  if (!catalogue) {
    try {
      catalogue = (await rulesCatalogue()).data;
    } catch {
      setNotice($("rules-status"), "bad", "The rules could not be loaded: connect once to start a new game.");
      $("start-game").disabled = true;
      return;
    }
  }
  if (!form) {
    form = new RulesForm({ catalogue, select: $("preset"), grid: $("option-grid"), status: $("rules-status"),
      countNode: $("override-count"), onChecked: rulesChecked });
  }
  $("start-game").disabled = true;
  await form.check();
}

/** After each check of the chosen rules: the status line, the seat names and the start button. */
function rulesChecked(result) {
  const info = form.presetInfo();
  $("preset-description").textContent = info ? info.description : "";
  if (!result.ok) {
    layout = null;
    $("start-game").disabled = true;
    delete $("new-form").dataset.checked;
    setNotice($("rules-status"), "bad", `These rules cannot be played: ${result.error}`);
    return;
  }
  layout = result.layout;
  if (result.offline) {
    setNotice($("rules-status"), "warn", "Offline: house rules can be changed once the server is reachable.");
  } else {
    setNotice($("rules-status"), "ok", layoutSummary(layout));
  }
  // Seat names: keep what was typed when the table size stays.
  const box = $("names");
  const typed = [...box.querySelectorAll("input")].map((i) => i.value);
  replaceChildren(box, defaultNames(layout.players).map((d, i) => el("div", { class: "field" },
    el("label", { for: `name-${i}` }, `Seat ${i + 1}`, el("span", { class: "hint" }, ` · ${sideOfText(i)}`)),
    el("input", { id: `name-${i}`, maxlength: 30, value: typed.length === layout.players ? typed[i] : d,
      autocomplete: "off" }))));
  $("start-game").disabled = false;
  $("new-form").dataset.checked = form.preset;
}

function sideOfText(seat) {
  const sides = layout.sides;
  const k = sides.findIndex((s) => s.includes(seat));
  if (sides[k].length === 1) return "plays alone";
  const partners = sides[k].filter((s) => s !== seat).map((s) => `seat ${s + 1}`);
  return `partner of ${partners.join(" and ")}`;
}

async function startGame(event) {
  event.preventDefault();
  // Typing a house rule and pressing Start at once: the rules are still being checked.
  if (form && !form.result) await form.settled();
  if (!layout || $("start-game").disabled || !form.result || !form.result.ok) return;
  const names = [...$("names").querySelectorAll("input")].map((i, k) => i.value.trim() || `Seat ${k + 1}`);
  const game = {
    id: newId(),
    name: $("game-name").value.trim() || "Spades",
    created: Date.now(),
    updated: Date.now(),
    preset: form.preset,
    overrides: { ...form.overrides },
    options: form.result.options, // the full checked rules: the offline twin scores with them
    layout,
    names,
    hands: [],
    scored: null,
    scoredKey: null,
  };
  try { // the first hand's bids, from the engine
    game.scored = await api("/api/score", { rules: rulesSpec(game), hands: [] });
    game.scoredKey = handKey(game);
  } catch {
    // offline: the twin gives them
  }
  store.games.push(game);
  persist();
  pushSoon(game);
  $("game-name").value = "";
  form.select.value = "standard";
  form.preset = "standard";
  form.overrides = {};
  location.hash = `#game-${game.id}`;
}

// ---------------------------------------------------------------- one game

let current = null;

function showGame(game) {
  current = game;
  if (editing !== null && editing >= game.hands.length) editing = null;
  $("game-view").hidden = false;
  $("game-title").textContent = game.name;
  replaceChildren($("game-rules"), rulesLine(game.preset, game.overrides, game.layout.target));
  $("share-text").hidden = typeof navigator.share !== "function";
  renderGame();
  buildHandForm();
  rescore();
}

/** The server's answer for the hands as they are, or else the twin's (worked out while offline). */
function scoredNow(game) {
  const key = handKey(game);
  if (game.scored && game.scoredKey === key) return game.scored;
  return game.twin && game.twinKey === key ? game.twin : null;
}

function serverScored(game) {
  return Boolean(game.scored && game.scoredKey === handKey(game));
}

/** How many leading hands of the game the last answer from the server still scores (the rest were
 * entered or changed since, e.g. offline). */
function scoredPrefix(game) {
  const [scored, keyText] = game.twin && game.twinKey === handKey(game) ? [game.twin, game.twinKey]
    : [game.scored, game.scoredKey];
  if (!scored || !keyText) return [0, null];
  let before;
  try {
    before = JSON.parse(keyText);
  } catch {
    return [0, null];
  }
  if (JSON.stringify(before.rules) !== JSON.stringify(rulesSpec(game))) return [0, null];
  let k = 0;
  while (k < game.hands.length && k < before.hands.length && k < scored.hands.length
    && JSON.stringify(before.hands[k]) === JSON.stringify(game.hands[k])) k += 1;
  return [k, scored];
}

/** Ask the server for the scores of the current game (unless they are already known). */
async function rescore() {
  const game = current;
  if (!game) return;
  clearTimeout(retryTimer);
  if (serverScored(game) || game.hands.length === 0) {
    clearNotice($("score-status"));
    renderGame();
    return;
  }
  const key = handKey(game);
  try {
    const result = await api("/api/score", { rules: rulesSpec(game), hands: game.hands });
    game.scored = result;
    game.scoredKey = key;
    if (result.layout && result.layout.bids) game.layout = result.layout; // games kept before layout.bids
    persist();
    game.twin = null;
    game.twinKey = null;
    persist();
    showScoreError(game, result, "");
  } catch (e) {
    if (e instanceof OfflineError) {
      const twin = twinScore(game, game.hands);
      if (twin) {
        game.twin = twin;
        game.twinKey = key;
        persist();
        showScoreError(game, twin, "Offline: scored on this device with the same rules as the server, "
          + "which checks them again when it is back.");
      } else {
        setNotice($("score-status"), "warn",
          "Offline: your hands are saved on this device. Scores will be worked out when the server is back.");
      }
      retryTimer = setTimeout(rescore, RETRY_MS);
    } else {
      setNotice($("score-status"), "bad", e.message);
    }
  }
  if (current === game) renderGame();
}

/** The status line after scoring: a hand that cannot be scored (in names), or `otherwise`. */
function showScoreError(game, result, otherwise) {
  if (result.error && result.error.hand === null) {
    setNotice($("score-status"), "bad", `These rules cannot be scored: ${lineText(game, result.error.reason)}`);
  } else if (result.error) {
    setNotice($("score-status"), "bad",
      `Hand ${result.error.hand + 1} cannot be scored: ${lineText(game, result.error.reason)}. Edit it to go on.`);
  } else if (otherwise) {
    setNotice($("score-status"), "warn", otherwise);
  } else {
    clearNotice($("score-status"));
  }
}

function timeTag(i) {
  return el("span", { class: "tag", "data-testid": `hand-${i}-time-up` }, "time ran out");
}

function renderGame() {
  const game = current;
  const lay = game.layout;
  const scored = scoredNow(game);
  // Totals.
  replaceChildren($("totals"), lay.sides.map((_, k) => {
    const win = scored && scored.winner === k;
    return el("div", { class: `total-card${win ? " winner" : ""}`, "data-side": k },
      el("div", { class: "who" }, sideLabel(game, k), win ? " · wins!" : ""),
      el("div", { class: "points", "data-testid": `total-${k}` },
        scored ? String(scored.totals[k]) : (game.hands.length ? "…" : "0")),
      el("div", { class: "bags" }, scored ? `${scored.bags[k]} bag${scored.bags[k] === 1 ? "" : "s"}` : "\u00a0"));
  }));
  // Sheet.
  replaceChildren($("sheet-head"), el("tr", {},
    el("th", { scope: "col" }, "#"),
    lay.sides.map((_, k) => el("th", { scope: "col" }, sideLabel(game, k))),
    el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Actions"))));
  const rows = [];
  const errorHand = scored && scored.error ? scored.error.hand : null;
  const [known, knownSheet] = scoredPrefix(game);
  game.hands.forEach((hand, i) => {
    const row = i < known ? knownSheet.hands[i] : null;
    const bad = errorHand === i;
    rows.push(el("tr", { class: `${bad ? "has-error" : ""}${editing === i ? " editing" : ""}`, "data-hand": i },
      // A hand in which the time ran out is tagged on its "How ... scored" line (the narrow first column
      // would squeeze the sides' columns on a phone), or under its number while it has no scores.
      el("th", { scope: "row" }, String(i + 1), hand.time_up && !row ? timeTag(i) : null),
      lay.sides.map((seats, k) => {
        const { bids, took } = sideEntered(game, hand, k);
        const side = row ? row.sides[k] : null;
        return el("td", {},
          side ? el("span", { class: "num", "data-testid": `hand-${i}-total-${k}` }, String(side.total))
            : el("span", { class: "pending" }, bad ? "error" : "…"),
          side ? el("span", { class: `sub ${side.points < 0 ? "pts-neg" : "pts-pos"}` },
            `${signed(side.points)} · ${side.bags} bag${side.bags === 1 ? "" : "s"}`) : null,
          el("span", { class: "sub" }, `bid ${bids} · took ${took}${side ? statusWord(side) : ""}`));
      }),
      el("td", {}, el("button", { type: "button", class: "edit-hand", "aria-label": `Edit hand ${i + 1}`,
        onclick: () => startEdit(i) }, "Edit"))));
    if (row) {
      rows.push(el("tr", { class: "explain-row" }, el("td", {}), el("td", { colspan: lay.sides.length + 1 },
        el("details", { class: "explain" },
          el("summary", {}, `How hand ${i + 1} was scored`, hand.time_up ? [" ", timeTag(i)] : null),
          lay.sides.map((_, k) => el("div", { class: "lines-side" },
            el("strong", {}, sideLabel(game, k)),
            el("ul", {}, row.sides[k].lines.map(([text, pts]) =>
              el("li", {}, `${lineText(game, text)}: ${signed(pts)}`)),
            el("li", {}, `hand ${signed(row.sides[k].points)}, total ${row.sides[k].total}, `
                + `bags ${row.sides[k].bags}`))))))));
    } else if (bad) {
      rows.push(el("tr", { class: "explain-row" }, el("td", {}), el("td", { colspan: lay.sides.length + 1 },
        el("span", { class: "pts-neg" }, lineText(game, scored.error.reason)))));
    }
  });
  replaceChildren($("sheet-body"), rows);
  $("sheet").hidden = game.hands.length === 0;
  $("undo-hand").disabled = game.hands.length === 0;
  const stack = undone.get(game.id) || [];
  $("redo-hand").hidden = stack.length === 0;
  const over = scored && scored.over && !scored.error;
  $("hand-form").hidden = over && editing === null;
  renderTimeResult(game, scored);
  renderTie(game, scored);
  renderClock();
}

/** The side's result as the engine gave it: made, set, or nothing (no contract). */
function statusWord(side) {
  if (side.made === true) return side.contract ? " · made" : "";
  if (side.made === false) return " · set";
  return "";
}

/** Why the game goes on though a side has reached the end: the lead is tied (the engine's `tied`). */
function renderTie(game, scored) {
  const node = $("tie-note");
  if (!scored || !scored.tied || scored.time_up) {
    clearNotice(node);
    return;
  }
  const totals = scored.totals;
  const best = Math.max(...totals);
  const tied = game.layout.sides.map((_, k) => k).filter((k) => totals[k] === best);
  setNotice(node, "warn", `${tied.map((k) => sideLabel(game, k)).join(" and ")} are tied at ${best}. `
    + `A game that reaches its end (${game.layout.target} to win) with the lead tied goes on: the next hand that `
    + "leaves one side ahead ends it.");
}

// ---------------------------------------------------------------- entering a hand

// The bids a hand may be entered with come from the engine: every answer of POST /api/score gives, for each
// hand scored, the bids it could be entered with (hands[i].bid_choices) and those of the next hand
// (bid_choices). Offline, or before any answer, the twin gives the same lists.
function choicesFor(game, index) {
  const [known, sheet] = scoredPrefix(game);
  if (sheet && index < known && sheet.hands[index].bid_choices !== undefined) return sheet.hands[index].bid_choices;
  if (sheet && index === known && known === sheet.hands.length && sheet.bid_choices !== undefined && !sheet.error) {
    return sheet.bid_choices;
  }
  const twin = twinScore(game, game.hands.slice(0, index));
  return twin ? twin.bid_choices : null;
}

let seatChoices = null; // per seat, the bids the hand on the form may have

function bidChoices(seat) {
  const list = (seatChoices && seatChoices[seat]) || [];
  return [["", "Bid…"], ...list.map((b) => [b, b])];
}

function handIndex() {
  return editing === null ? current.hands.length : editing;
}

function isBidless(index) {
  return !current.layout.first_hand_bids && index === 0;
}

/** Whether the table has partners, so that a hand can be entered per side. */
function hasPartners(lay) {
  return lay.sides.some((seats) => seats.length > 1);
}

let formMode = "seat"; // how the hand on the form is entered: "seat" or "side"

function stepper(id, label, value, { min = 0, max, onChange }) {
  const input = el("input", { id, type: "number", inputmode: "numeric", min, max, value,
    "aria-describedby": "tricks-sum", autocomplete: "off" });
  input.addEventListener("input", onChange);
  const step = (d) => () => {
    const v = Math.max(min, Math.min(max, (Number(input.value) || 0) + d));
    input.value = String(v);
    onChange();
  };
  return el("div", { class: "stepper" },
    el("label", { for: id, class: "visually-hidden" }, label),
    el("button", { type: "button", "aria-label": `One fewer: ${label}`, onclick: step(-1) }, "−"),
    input,
    el("button", { type: "button", "aria-label": `One more: ${label}`, onclick: step(1) }, "+"));
}

function buildHandForm() {
  const game = current;
  seatChoices = choicesFor(game, handIndex());
  const lay = game.layout;
  const index = handIndex();
  const existing = editing === null ? null : game.hands[editing];
  $("hand-title").textContent = editing === null ? `Hand ${index + 1}` : `Edit hand ${index + 1}`;
  $("add-hand").textContent = editing === null ? "Add hand" : `Save hand ${index + 1}`;
  $("cancel-edit").hidden = editing === null;
  $("bidless-note").hidden = !isBidless(index);
  clearNotice($("hand-error"));
  const partners = hasPartners(lay);
  if (!partners) formMode = "seat";
  else if (existing) formMode = existing.sides ? "side" : "seat";
  else formMode = game.entry === "side" ? "side" : "seat";
  $("entry-mode").hidden = !partners;
  $("entry-seat").checked = formMode === "seat";
  $("entry-side").checked = formMode === "side";
  buildFields(existing && (existing.sides ? "side" : "seat") === formMode ? existing : null);
  buildTimeUp(existing);
}

/** The "time ran out during this hand" box: for a timed game only, and not after a hand already said so
 * (then the lead was tied and the game goes on until a hand leaves one side ahead). A new hand's box is
 * ticked once the clock says the time is up; an edited hand's box shows what was entered. */
function buildTimeUp(existing) {
  const game = current;
  const tick = $("time-up");
  delete tick.dataset.touched;
  const marked = timeUpHand(game);
  const index = handIndex();
  const show = Boolean(timeLimit(game)) && (marked < 0 || marked >= index);
  $("time-up-row").hidden = !show;
  if (existing) {
    tick.checked = existing.time_up === true;
    tick.dataset.touched = "1";
  } else {
    tick.checked = show && msLeft(game) <= 0;
  }
  const note = $("time-up-note");
  const scored = scoredNow(game);
  note.hidden = !(timeLimit(game) && !show && editing === null && scored && scored.time_up && !scored.over);
  note.textContent = note.hidden ? "" : `The time ran out in hand ${marked + 1} with the lead tied: `
    + "the game ends after this hand unless the lead is still tied.";
}

/** The hand read from the form with its time_up (only when ticked: other hands keep their old shape). */
function withTimeUp(hand) {
  const existing = editing === null ? null : current.hands[editing];
  const ticked = $("time-up-row").hidden ? Boolean(existing && existing.time_up === true) : $("time-up").checked;
  return ticked && timeLimit(current) ? { ...hand, time_up: true } : hand;
}

function buildFields(existing) {
  $("seats").dataset.mode = formMode;
  if (formMode === "side") buildSideFields(existing);
  else buildSeatFields(existing);
  updateSum();
}

function buildSeatFields(existing) {
  const game = current;
  const lay = game.layout;
  const bidless = isBidless(handIndex());
  replaceChildren($("seats"), Array.from({ length: lay.players }, (_, s) => {
    const choices = bidChoices(s);
    const side = lay.sides.findIndex((x) => x.includes(s));
    const bidValue = existing && existing.bids ? String(existing.bids[s]) : "";
    const tricks = existing ? existing.tricks[s] : "";
    const tricksInput = el("input", { id: `tricks-${s}`, type: "number", inputmode: "numeric", min: 0,
      max: lay.hand_size, value: tricks, "aria-describedby": "tricks-sum", autocomplete: "off" });
    tricksInput.addEventListener("input", updateSum);
    const step = (d) => () => {
      const v = Math.max(0, Math.min(lay.hand_size, (Number(tricksInput.value) || 0) + d));
      tricksInput.value = String(v);
      updateSum();
    };
    return el("div", { class: "seat-row" },
      el("div", { class: "seat-name" }, game.names[s],
        lay.sides[side].length > 1 ? el("span", { class: "side-tag" }, sideLabel(game, side)) : null),
      bidless ? el("span", { class: "hint" }, "no bid") : el("div", {},
        el("label", { for: `bid-${s}`, class: "visually-hidden" }, `Bid of ${game.names[s]}`),
        el("select", { id: `bid-${s}` }, choices.map(([v, t]) =>
          el("option", { value: v, selected: v === bidValue }, t)))),
      el("div", { class: "stepper" },
        el("label", { for: `tricks-${s}`, class: "visually-hidden" }, `Tricks taken by ${game.names[s]}`),
        el("button", { type: "button", "aria-label": `One trick fewer for ${game.names[s]}`, onclick: step(-1) }, "−"),
        tricksInput,
        el("button", { type: "button", "aria-label": `One trick more for ${game.names[s]}`, onclick: step(1) }, "+")));
  }));
}

/** The nil choices of one player in a side entry: "" (bids a number), "nil made", "nil failed", ... (from the
 * bids the engine allows that player). */
function nilChoices(seat) {
  const list = (seatChoices && seatChoices[seat]) || [];
  const out = [["", "bids a number"]];
  for (const b of ["nil", "blind nil"]) {
    if (list.includes(b)) out.push([`${b} made`, `${b}, made`], [`${b} failed`, `${b}, failed`]);
  }
  return out;
}

/** A side's bid together: the numbers and blind bids its players may make. */
function sideBidChoices(seats) {
  const lists = seats.map((s) => (seatChoices && seatChoices[s]) || []);
  const numbers = new Set(lists.flat().filter((b) => /^[0-9]+$/.test(b)).map(Number));
  const blind = [...new Set(lists.flat().filter((b) => /^blind [0-9]+$/.test(b)))];
  return [["", "Bid…"], ...[...numbers].sort((a, b) => a - b).map((k) => [String(k), String(k)]),
    ...blind.map((b) => [b, b])];
}

function buildSideFields(existing) {
  const game = current;
  const lay = game.layout;
  const bidless = isBidless(handIndex());
  replaceChildren($("seats"), lay.sides.map((seats, k) => {
    const given = existing ? existing.sides[k] : null;
    const nils = new Map(((given && given.nil) || []).map((x) => [x.seat, x]));
    const who = sideLabel(game, k);
    const players = bidless ? [] : seats.map((s) => {
      const nil = nils.get(s);
      const value = nil ? `${nil.bid} ${nil.tricks > 0 ? "failed" : "made"}` : "";
      const took = stepper(`nil-tricks-${s}`, `Tricks ${game.names[s]} took`, nil && nil.tricks > 0 ? nil.tricks : 1,
        { min: 1, max: lay.hand_size, onChange: updateSum });
      const tookBox = el("span", { class: "nil-took", hidden: !value.endsWith("failed") }, "took ", took);
      const select = el("select", { id: `nil-${s}`, "data-seat": s }, nilChoices(s).map(([v, t]) =>
        el("option", { value: v, selected: v === value }, t)));
      select.addEventListener("change", () => {
        tookBox.hidden = !select.value.endsWith("failed");
        sideBidState(k);
        updateSum();
      });
      return el("div", { class: "nil-row" },
        el("label", { for: `nil-${s}` }, game.names[s]), select, tookBox);
    });
    const bidValue = given && given.bid !== null && given.bid !== undefined ? String(given.bid) : "";
    return el("fieldset", { class: "side-entry", "data-side": k },
      el("legend", {}, who),
      el("div", { class: "side-main" },
        bidless ? el("span", { class: "hint" }, "no bid") : el("div", { class: "field" },
          el("label", { for: `side-bid-${k}` }, "Bid together"),
          el("select", { id: `side-bid-${k}` }, sideBidChoices(seats).map(([v, t]) =>
            el("option", { value: v, selected: v === bidValue }, t)))),
        el("div", { class: "field" },
          el("span", { class: "label", id: `side-tricks-label-${k}` }, "Tricks taken"),
          stepper(`side-tricks-${k}`, `Tricks taken by ${who}`, given ? given.tricks : "",
            { max: lay.hand_size, onChange: updateSum }))),
      players.length ? el("div", { class: "nil-rows" }, players) : null);
  }));
  lay.sides.forEach((_, k) => sideBidState(k));
}

/** A side whose players all bid nil has no bid to choose. */
function sideBidState(k) {
  const select = $(`side-bid-${k}`);
  if (!select) return;
  const seats = current.layout.sides[k];
  const allNil = seats.every((s) => $(`nil-${s}`) && $(`nil-${s}`).value !== "");
  select.disabled = allNil;
  if (allNil) select.value = "";
}

function readTricks() {
  return Array.from({ length: current.layout.players }, (_, s) => {
    const raw = $(`tricks-${s}`).value.trim();
    return raw === "" ? null : Number(raw);
  });
}

function readSideTricks() {
  return current.layout.sides.map((_, k) => {
    const raw = $(`side-tricks-${k}`).value.trim();
    return raw === "" ? null : Number(raw);
  });
}

function updateSum() {
  const tricks = formMode === "side" ? readSideTricks() : readTricks();
  const total = tricks.reduce((t, x) => t + (x || 0), 0);
  const need = current.layout.hand_size;
  const node = $("tricks-sum");
  node.textContent = `${total} of ${need} tricks entered`;
  node.classList.toggle("off", total > need || (total > 0 && total !== need));
  previewSoon();
}

// ---------------------------------------------------------------- the hand's score as it is typed

let previewTimer = null;
let previewSeq = 0;

/** Show what the hand on the form scores, once it is complete: the server's answer, or offline the twin's. */
function previewSoon() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(preview, 150);
}

async function preview() {
  const game = current;
  const node = $("hand-preview");
  if (!game || $("hand-form").hidden) return;
  const seq = ++previewSeq;
  const index = handIndex();
  const read = formMode === "side" ? readSideHand(index) : readSeatHand(index);
  if (read.error) {
    node.textContent = "";
    delete node.dataset.source;
    return;
  }
  const hands = [...game.hands];
  hands[index] = withTimeUp(read.hand);
  let result;
  let source = "server";
  try {
    result = await api("/api/score", { rules: rulesSpec(game), hands: hands.slice(0, index + 1) });
  } catch (e) {
    if (!(e instanceof OfflineError)) return;
    result = twinScore(game, hands.slice(0, index + 1));
    source = "device";
  }
  if (seq !== previewSeq || game !== current || !result) return;
  node.dataset.source = source;
  if (result.error && result.error.hand === index) {
    node.textContent = `This hand cannot be scored: ${lineText(game, result.error.reason)}`;
    return;
  }
  const row = result.hands[index];
  if (!row) {
    node.textContent = "";
    return;
  }
  node.textContent = `This hand: ${game.layout.sides.map((_, k) => {
    const side = row.sides[k];
    const bags = side.new_bags ? `, ${side.new_bags} bag${side.new_bags === 1 ? "" : "s"}` : "";
    return `${sideLabel(game, k)} ${signed(side.points)}${bags} → ${side.total}`;
  }).join(" · ")}`;
}

function parseBid(raw) {
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** The hand on the form as a per-seat entry, or {error, focus} naming what is missing. */
function readSeatHand(index) {
  const game = current;
  const lay = game.layout;
  const tricks = readTricks();
  let bids = null;
  if (!isBidless(index)) {
    bids = Array.from({ length: lay.players }, (_, s) => $(`bid-${s}`).value);
    const missing = bids.findIndex((b) => b === "");
    if (missing >= 0) return { error: `Choose a bid for ${game.names[missing]}.`, focus: `bid-${missing}` };
    bids = bids.map(parseBid);
  }
  const blank = tricks.findIndex((t) => t === null || !Number.isInteger(t) || t < 0);
  if (blank >= 0) return { error: `Enter the tricks ${game.names[blank]} took (0 or more).`, focus: `tricks-${blank}` };
  const sum = tricks.reduce((a, b) => a + b, 0);
  if (sum !== lay.hand_size) return { error: `The tricks add up to ${sum}; a hand has ${lay.hand_size}.` };
  return { hand: { bids, tricks } };
}

/** The hand on the form as a per-side entry (the server turns it into seats and scores it). */
function readSideHand(index) {
  const game = current;
  const lay = game.layout;
  const bidless = isBidless(index);
  const tricks = readSideTricks();
  const sides = [];
  for (const [k, seats] of lay.sides.entries()) {
    const who = sideLabel(game, k);
    const t = tricks[k];
    if (t === null || !Number.isInteger(t) || t < 0) {
      return { error: `Enter the tricks ${who} took (0 or more).`, focus: `side-tricks-${k}` };
    }
    const side = { tricks: t };
    if (!bidless) {
      const nil = [];
      for (const s of seats) {
        const v = $(`nil-${s}`).value;
        if (!v) continue;
        const failed = v.endsWith("failed");
        const took = failed ? Number($(`nil-tricks-${s}`).value) : 0;
        if (failed && (!Number.isInteger(took) || took < 1)) {
          return { error: `A failed nil took at least one trick: how many did ${game.names[s]} take?`,
            focus: `nil-tricks-${s}` };
        }
        nil.push({ seat: s, bid: v.replace(/ (made|failed)$/, ""), tricks: took });
      }
      const raw = $(`side-bid-${k}`).value;
      if (nil.length < seats.length && raw === "") return { error: `Choose the bid of ${who}.`, focus: `side-bid-${k}` };
      side.bid = nil.length === seats.length ? null : parseBid(raw);
      side.nil = nil;
    }
    sides.push(side);
  }
  const sum = tricks.reduce((a, b) => a + b, 0);
  if (sum !== lay.hand_size) return { error: `The tricks add up to ${sum}; a hand has ${lay.hand_size}.` };
  return { hand: { sides } };
}

async function submitHand(event) {
  event.preventDefault();
  const game = current;
  const index = handIndex();
  const error = $("hand-error");
  const read = formMode === "side" ? readSideHand(index) : readSeatHand(index);
  if (read.error) {
    setNotice(error, "bad", read.error);
    if (read.focus) $(read.focus).focus();
    return;
  }
  const hand = withTimeUp(read.hand);
  const hands = [...game.hands];
  if (editing === null) hands.push(hand); else hands[editing] = hand;
  $("add-hand").disabled = true;
  try {
    const result = await api("/api/score", { rules: rulesSpec(game), hands });
    if (result.error && (result.error.hand === index || result.error.hand === null)) {
      setNotice(error, "bad", lineText(game, result.error.reason));
      return;
    }
    if (editing !== null && result.error && result.error.hand > index && result.over) {
      // The change ends the game (e.g. the time ran out in this hand) before hands already entered.
      const later = game.hands.length - result.error.hand;
      setNotice(error, "bad", `With this change the game is over after hand ${result.error.hand}, but `
        + `${later} later hand${later === 1 ? " is" : "s are"} entered. Take ${later === 1 ? "it" : "them"} `
        + "back with \"Undo last hand\" first, or leave this hand as it was.");
      return;
    }
    game.scored = result;
    game.scoredKey = JSON.stringify({ rules: rulesSpec(game), hands });
  } catch (e) {
    if (!(e instanceof OfflineError)) {
      setNotice(error, "bad", e.message);
      return;
    }
    // Offline: the twin refuses what the server would; a hand it takes is kept, and rescore() scores it here.
    const twin = twinScore(game, hands);
    if (twin && twin.error && (twin.error.hand === index || twin.error.hand === null)) {
      setNotice(error, "bad", lineText(game, twin.error.reason));
      return;
    }
  } finally {
    $("add-hand").disabled = false;
  }
  game.hands = hands;
  game.updated = Date.now();
  if (editing === null) undone.delete(game.id);
  editing = null;
  persist();
  pushSoon(game);
  await rescore();
  buildHandForm();
  const next = firstField();
  if (next) next.focus();
}

function firstField() {
  return $("seats").querySelector("select:not([disabled]), input");
}

function startEdit(i) {
  editing = i;
  buildHandForm();
  renderGame();
  $("hand-form").scrollIntoView({ block: "start" });
  const first = firstField();
  if (first) first.focus({ preventScroll: true });
}

function cancelEdit() {
  editing = null;
  buildHandForm();
  renderGame();
}

function undoHand() {
  const game = current;
  if (!game.hands.length) return;
  const stack = undone.get(game.id) || [];
  stack.push(game.hands.pop());
  undone.set(game.id, stack);
  if (editing !== null && editing >= game.hands.length) editing = null;
  game.updated = Date.now();
  persist();
  pushSoon(game);
  buildHandForm();
  rescore();
  setNotice($("score-status"), "ok", `Hand ${game.hands.length + 1} taken back.`);
}

function redoHand() {
  const game = current;
  const stack = undone.get(game.id) || [];
  if (!stack.length) return;
  game.hands.push(stack.pop());
  game.updated = Date.now();
  persist();
  pushSoon(game);
  buildHandForm();
  rescore();
}

// ---------------------------------------------------------------- sharing

function sheetText(game) {
  const scored = scoredNow(game);
  const lay = game.layout;
  const lines = [`Spades score: ${game.name}`, `Rules: ${rulesSummary(game.preset, game.overrides)}`];
  game.hands.forEach((hand, i) => {
    const seats = hand.sides
      ? lay.sides.map((_, k) => {
        const { bids, took } = sideEntered(game, hand, k);
        return `${sideLabel(game, k)} ${bids}/${took}`;
      })
      : game.names.map((name, s) => `${name} ${hand.bids ? bidText(hand.bids[s]) : "-"}/${hand.tricks[s]}`);
    let scoresText = "score pending";
    if (scored && scored.hands[i]) {
      scoresText = lay.sides.map((_, k) => {
        const side = scored.hands[i].sides[k];
        return `${sideLabel(game, k)} ${signed(side.points)} = ${side.total}`;
      }).join("; ");
    }
    lines.push(`Hand ${i + 1} (bid/took): ${seats.join(", ")} -> ${scoresText}`
      + `${hand.time_up ? " (time ran out)" : ""}`);
  });
  if (scored) {
    lines.push(`Totals: ${lay.sides.map((_, k) => `${sideLabel(game, k)} ${scored.totals[k]} `
      + `(${scored.bags[k]} bag${scored.bags[k] === 1 ? "" : "s"})`).join(", ")}`);
    if (scored.winner !== null && scored.winner !== undefined) lines.push(`Winner: ${sideLabel(game, scored.winner)}`);
  }
  return lines.join("\n");
}

function exportJSON() {
  const game = current;
  const data = { rules: rulesSpec(game), hands: game.hands, name: game.name, names: game.names };
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob),
    download: `${game.name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "spades"}.json` });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function copyText() {
  const text = sheetText(current);
  try {
    await navigator.clipboard.writeText(text);
    setNotice($("score-status"), "ok", "The score sheet is copied as text.");
  } catch {
    const area = el("textarea", { readonly: true, rows: 8, "aria-label": "Score sheet as text" });
    area.value = text;
    $("score-status").replaceChildren("Copy the text below:", area);
    $("score-status").className = "notice warn";
    area.select();
  }
}

function shareText() {
  navigator.share({ title: current.name, text: sheetText(current) }).catch(() => {});
}

function deleteGame() {
  const game = current;
  const where = game.account ? "this device and your account" : "this device";
  // eslint-disable-next-line no-alert
  if (!confirm(`Delete "${game.name}" from ${where}?`)) return;
  store.games = store.games.filter((g) => g !== game);
  current = null;
  if (game.account) {
    store.deleted.push({ id: game.id, account: game.account });
    if (account === game.account) {
      call("DELETE", `/api/scoregames/${encodeURIComponent(game.id)}`).then((answer) => {
        if (answer.status === 200 || answer.status === 404) {
          store.deleted = store.deleted.filter((d) => d.id !== game.id || d.account !== game.account);
          persist();
        }
      }).catch(() => {}); // offline: told at the next sync
    }
  }
  persist();
  location.hash = "";
}

// ---------------------------------------------------------------- start

function init() {
  $("new-form").addEventListener("submit", startGame);
  $("reset-overrides").addEventListener("click", () => {
    if (form) form.reset();
  });
  $("hand-form").addEventListener("submit", submitHand);
  $("seats").addEventListener("change", previewSoon); // a bid chosen (the tricks call updateSum)
  for (const radio of [$("entry-seat"), $("entry-side")]) {
    radio.addEventListener("change", () => {
      if (!radio.checked || !current) return;
      formMode = radio.value;
      if (editing === null) {
        current.entry = formMode; // the next hands of this game are entered the same way
        persist();
      }
      clearNotice($("hand-error"));
      buildFields(null);
    });
  }
  $("cancel-edit").addEventListener("click", cancelEdit);
  $("time-up").addEventListener("change", () => {
    $("time-up").dataset.touched = "1";
  });
  $("restart-clock").addEventListener("click", restartClock);
  setInterval(() => {
    if (current && !$("game-view").hidden) renderClock();
  }, 1000);
  $("undo-hand").addEventListener("click", undoHand);
  $("redo-hand").addEventListener("click", redoHand);
  $("export-json").addEventListener("click", exportJSON);
  $("copy-text").addEventListener("click", copyText);
  $("share-text").addEventListener("click", shareText);
  $("delete-game").addEventListener("click", deleteGame);
  $("import-file").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (file) importGame(file);
    e.target.value = "";
  });
  window.addEventListener("hashchange", () => {
    editing = null;
    route();
  });
  window.addEventListener("online", () => {
    rescore();
    sync();
  });
  setInterval(() => {
    if (account || syncState === "offline") sync();
  }, SYNC_MS);
  window.addEventListener("storage", (e) => {
    if (e.key === STORE_KEY) {
      store = loadJSON(STORE_KEY, { games: [] });
      if (!store || !Array.isArray(store.games)) store = { games: [] };
      if (!Array.isArray(store.deleted)) store.deleted = [];
      route();
    }
  });
  route();
  document.documentElement.dataset.ready = "score";
  sync().then(() => {
    document.documentElement.dataset.synced = syncState;
  });
}

init();
