// The home page: play now against the computer, create a table, join by link, the lobby and your name.
// The online part appears only when the game server answers (GET /api/me); the score keeper and the
// rules work without it.

import { cardSVG } from "./cards.js";
import { api, el, replaceChildren, rulesCatalogue } from "./common.js";
import { RulesForm, layoutSummary } from "./rulesform.js";

const $ = (id) => document.getElementById(id);

const hero = $("hero-cards");
for (const code of ["AS", "KH", "QC", "JD", "BJ"]) hero.appendChild(cardSVG(code));

function notice(node, kind, text) {
  node.className = kind ? `notice ${kind}` : "notice";
  node.textContent = text;
}

function tableUrl(made) {
  const invite = made.invite ? `&invite=${encodeURIComponent(made.invite)}` : "";
  return `/table.html?id=${encodeURIComponent(made.id)}${invite}`;
}

function fillLevels(select, levels) {
  replaceChildren(select, levels.levels.map((lv) => el("option", { value: lv, selected: lv === levels.default }, lv)));
}

function rulesText(spec) {
  if (typeof spec === "string") return spec;
  const { preset, ...rest } = spec || {};
  const extra = Object.entries(rest).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return `${preset || "standard"}${extra.length ? ` (${extra.join(", ")})` : ""}`;
}

async function loadLobby() {
  try {
    const data = await api("/api/lobby");
    const open = data.tables.filter((t) => t.status !== "over");
    $("lobby-empty").hidden = open.length > 0;
    replaceChildren($("lobby"), open.map((t) => {
      const free = t.seats.filter((s) => s.kind === "empty").length;
      const names = t.seats.filter((s) => s.kind !== "empty").map((s) => s.name).join(", ") || "nobody yet";
      return el("li", {}, el("a", { class: "button open-game", href: tableUrl(t) },
        el("span", {}, `${rulesText(t.rules)} · ${t.status === "seating" ? `${free} seat${free === 1 ? "" : "s"} free`
          : "playing"}`),
        el("span", { class: "meta" }, names)));
    }));
  } catch {
    $("lobby-empty").hidden = false;
  }
}

async function joinLink(event) {
  event.preventDefault();
  const raw = $("join-link").value.trim();
  if (!raw) return;
  try {
    const url = new URL(raw, location.origin);
    if (url.searchParams.get("id")) {
      location.href = `/table.html${url.search}`;
      return;
    }
  } catch {
    // not a link: perhaps an invite code
  }
  try {
    const found = await api(`/api/invite/${encodeURIComponent(raw)}`);
    location.href = tableUrl({ id: found.id, invite: raw });
  } catch {
    notice($("join-status"), "bad", "That link or code does not lead to a table.");
  }
}

function showMe(me) {
  $("my-name").value = me.name;
  $("guest-box").hidden = !me.guest;
  $("account-box").hidden = me.guest;
  $("me-summary").textContent = me.guest
    ? `You play as a guest, ${me.name}, on this browser.`
    : `Signed in as ${me.username}. Rating ${me.rating} after ${me.rated_games} rated game${me.rated_games === 1 ? "" : "s"}.`;
}

async function loadHistory(me) {
  try {
    const data = await api(`/api/players/${encodeURIComponent(me.id)}/history`);
    $("history-empty").hidden = data.games.length > 0;
    replaceChildren($("history"), data.games.slice(0, 20).map((g) => el("li", {},
      el("a", { class: "button open-game", href: `/replay.html?table=${encodeURIComponent(g.table)}` },
        el("span", {}, `${g.won ? "Won" : "Lost"} with ${g.points} points${g.rated ? " (rated)" : ""}`),
        el("span", { class: "meta" }, `${new Date(g.finished_at * 1000).toLocaleString()} · replay`)))));
  } catch {
    $("history-empty").hidden = false;
  }
}

async function loadLeaders() {
  try {
    const data = await api("/api/leaderboard");
    $("leaders-empty").hidden = data.players.length > 0;
    replaceChildren($("leaders"), data.players.slice(0, 10).map((p) =>
      el("li", {}, el("a", { href: `/player.html?id=${encodeURIComponent(p.id)}` }, p.name),
        `: ${p.rating} (${p.rated_games} game${p.rated_games === 1 ? "" : "s"})`)));
  } catch {
    $("leaders-empty").hidden = false;
  }
}

async function startOnline(me) {
  $("online").hidden = false;
  const [levels, catalogue] = await Promise.all([api("/api/levels"), rulesCatalogue().then((c) => c.data)]);
  fillLevels($("play-level"), levels);

  // One setup form for both ways to play: the computer at once, or a table for friends.
  const form = new RulesForm({
    catalogue, select: $("play-preset"), grid: $("play-grid"), status: $("play-status"),
    countNode: null, idPrefix: "setup-",
    onChecked: (result) => {
      const info = form.presetInfo();
      $("play-description").textContent = info ? info.description : "";
      $("create-table").disabled = !result.ok;
      $("play-now").disabled = !result.ok;
      if (result.ok) notice($("play-status"), "ok", layoutSummary(result.layout));
      else notice($("play-status"), "bad", `These rules cannot be played: ${result.error}`);
    },
  });

  /** The checked rules, waiting for a house rule typed just before the click; null when they cannot be played. */
  async function checkedRules() {
    if (!form.result) await form.settled();
    return form.result && form.result.ok ? form.spec() : null;
  }

  $("play-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const rules = await checkedRules();
    if (rules === null) return;
    $("play-now").disabled = true;
    try {
      const made = await api("/api/play", { rules, bot_level: $("play-level").value });
      location.href = tableUrl(made);
    } catch (err) {
      notice($("play-status"), "bad", `Could not start a game: ${err.message}`);
      $("play-now").disabled = false;
    }
  });
  $("create-table").addEventListener("click", async () => {
    const rules = await checkedRules();
    if (rules === null) return;
    const turn = JSON.parse($("create-turn").value);
    try {
      const made = await api("/api/tables", { rules, public: $("create-public").checked,
        turn_seconds: turn, bot_level: $("play-level").value });
      location.href = tableUrl(made);
    } catch (err) {
      notice($("create-status"), "bad", `Could not create the table: ${err.message}`);
    }
  });
  await form.check(); // the buttons come alive only now, with their handlers in place

  $("join-form").addEventListener("submit", joinLink);
  $("lobby-refresh").addEventListener("click", loadLobby);
  setInterval(loadLobby, 15000);
  $("name-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const updated = await api("/api/me/name", { name: $("my-name").value.trim() });
      showMe(updated);
      notice($("me-status"), "ok", `You are ${updated.name}.`);
    } catch (err) {
      notice($("me-status"), "bad", err.message);
    }
  });
  $("register-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const updated = await api("/api/register", { username: $("reg-user").value.trim(),
        password: $("reg-pass").value });
      $("reg-pass").value = "";
      showMe(updated);
      notice($("me-status"), "ok", `Your account ${updated.username} keeps your games.`);
    } catch (err) {
      notice($("me-status"), "bad", err.message);
    }
  });
  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const updated = await api("/api/login", { username: $("login-user").value.trim(),
        password: $("login-pass").value });
      $("login-pass").value = "";
      showMe(updated);
      notice($("me-status"), "ok", `Welcome back, ${updated.name}.`);
      loadHistory(updated);
    } catch (err) {
      notice($("me-status"), "bad", err.message);
    }
  });
  $("logout").addEventListener("click", async () => {
    await api("/api/logout", {}).catch(() => {});
    const guest = await api("/api/me");
    showMe(guest);
    loadHistory(guest);
    notice($("me-status"), "ok", "Logged out.");
  });
  showMe(me);
  loadHistory(me);
  loadLeaders();
  await loadLobby();
}

api("/api/me").then(startOnline).catch(() => {
  $("offline-note").hidden = false;
}).finally(() => {
  document.documentElement.dataset.ready = "home";
});
