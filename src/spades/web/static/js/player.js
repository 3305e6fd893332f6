// A player's page: games played and won, contracts made, nils tried and made, bags and points per hand,
// and recent games with their replays. Every number comes from GET /api/players/{id}/stats, which the
// server works out by replaying the stored games with the engine; this page only shows them.

import { api, el, replaceChildren } from "./common.js";

const $ = (id) => document.getElementById(id);

function notice(kind, text) {
  $("player-status").className = kind ? `notice ${kind}` : "notice";
  $("player-status").textContent = text;
}

function percent(part, whole) {
  return whole ? ` (${Math.round((100 * part) / whole)}%)` : "";
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

function stat(label, value, detail) {
  return el("div", { class: "stat" },
    el("dt", {}, label),
    el("dd", {}, el("span", { class: "stat-value" }, value), detail ? el("span", { class: "hint" }, detail) : null));
}

function show(data, mine) {
  const name = data.player.name;
  document.title = `${mine ? "Your games" : name} · Spades`;
  $("player-title").textContent = mine ? `Your games, ${name}` : `${name}'s games`;
  const s = data;
  replaceChildren($("stat-grid"), [
    stat("Games played", String(s.games), `${plural(s.won, "won", "won")}${percent(s.won, s.games)}`),
    stat("Contracts made", `${s.contracts_made} of ${s.contracts}`, s.contracts ? `${Math.round((100 * s.contracts_made) / s.contracts)}% of contracts` : "none bid yet"),
    stat("Nils made", `${s.nils_made} of ${s.nils}`, s.blind_nils
      ? `blind nils: ${s.blind_nils_made} of ${s.blind_nils}` : "no blind nil yet"),
    stat("Points per hand", s.points_per_hand === null ? "–" : String(s.points_per_hand), plural(s.hands, "hand")),
    stat("Bags per hand", s.bags_per_hand === null ? "–" : String(s.bags_per_hand), plural(s.bags, "bag")),
  ]);
  $("stat-note").textContent = s.games > s.covers.latest
    ? `Worked out from the latest ${s.covers.latest} finished games.` : "Worked out from every finished game.";
  $("numbers").hidden = false;
  $("recent-box").hidden = false;
  $("recent-empty").hidden = s.recent.length > 0;
  replaceChildren($("recent"), s.recent.map((g) => el("li", {},
    el("a", { class: "button open-game", href: g.replay },
      el("span", {}, `${g.won ? "Won" : "Lost"} with ${g.points} points${g.rated ? " (rated)" : ""}`),
      el("span", { class: "meta" }, `${new Date(g.finished_at * 1000).toLocaleDateString()}`
        + `${g.hands ? ` · ${plural(g.hands, "hand")}` : ""} · replay`)))));
}

async function init() {
  const wanted = new URLSearchParams(location.search).get("id");
  try {
    const me = await api("/api/me");
    const id = wanted || me.id;
    show(await api(`/api/players/${encodeURIComponent(id)}/stats`), id === me.id);
    notice("", "");
  } catch (e) {
    notice("bad", `These numbers need the game server: ${e.message}`);
  }
  document.documentElement.dataset.ready = "player";
}

init();
