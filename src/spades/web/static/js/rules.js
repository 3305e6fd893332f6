// The generated half of the rules page: table sizes, ready-made tables and every house rule, built from
// GET /api/rules so the page always lists exactly what the engine knows.

import { el, replaceChildren, rulesCatalogue, valueText } from "./common.js";

const $ = (id) => document.getElementById(id);

function optionLink(name) {
  return el("a", { href: `#opt-${name}` }, el("code", {}, name));
}

function teamsText(layout) {
  const sides = layout.sides;
  if (sides[0].length === 1) return "none: each plays alone";
  return `${sides.length} teams of ${sides[0].length}, partners opposite`;
}

/** One row per distinct table (players, teams, cards), listing the ready-made tables that use it. */
function renderSizes(presets) {
  const groups = new Map();
  for (const p of presets) {
    const l = p.layout;
    const key = [l.players, l.sides.length, l.deck_size, l.hand_size].join("/");
    if (!groups.has(key)) groups.set(key, { layout: l, names: [] });
    groups.get(key).names.push(p.name);
  }
  const rows = [...groups.values()].sort((a, b) => a.layout.players - b.layout.players
    || b.layout.sides.length - a.layout.sides.length || a.layout.deck_size - b.layout.deck_size).map((g) => {
    const l = g.layout;
    const dealt = l.hand_size * l.players;
    let cards = `${l.deck_size}${l.two_decks ? " from two packs" : ""}`;
    if (l.players === 2) cards += ", half drawn, half discarded";
    else if (dealt < l.deck_size) cards += `, ${l.deck_size - dealt} set aside or discarded`;
    return el("tr", {},
      el("td", { "data-label": "Players" }, String(l.players)),
      el("td", { "data-label": "Partners" }, teamsText(l)),
      el("td", { "data-label": "Cards" }, cards),
      el("td", { "data-label": "Each holds" }, String(l.hand_size)),
      el("td", { "data-label": "Tables" }, el("span", {},
        g.names.map((n, i) => [i ? ", " : "", el("a", { href: `#preset-${n}` }, n)]))));
  });
  replaceChildren($("sizes-body"), rows);
  $("sizes-table").hidden = false;
}

function renderPresets(presets) {
  replaceChildren($("preset-list"), presets.map((p) => {
    const entries = Object.entries(p.options);
    return el("div", { class: "preset-item", id: `preset-${p.name}` },
      el("h3", {}, el("code", {}, p.name)),
      el("p", {}, p.description),
      el("p", { class: "hint" }, entries.length ? "Sets: " : "The defaults: no house rule changed.",
        entries.map(([k, v], i) => [i ? ", " : "", optionLink(k), ` = ${valueText(v)}`])));
  }));
}

function renderOptions(options, presets) {
  replaceChildren($("option-list"), options.map((o) => {
    const users = presets.filter((p) => Object.hasOwn(p.options, o.name));
    const range = o.low !== null && !o.choices.length ? `${o.low} to ${o.high}` : null;
    return el("div", { class: "option-item", id: `opt-${o.name}`, tabindex: -1 },
      el("h3", {}, el("code", {}, o.name)),
      el("p", {}, o.meaning),
      el("dl", {},
        el("dt", {}, "Values"), el("dd", {}, o.values),
        el("dt", {}, "Standard"), el("dd", {}, valueText(o.default)),
        range ? [el("dt", {}, "Range"), el("dd", {}, range)] : null,
        users.length ? [el("dt", {}, "Set by"), el("dd", {}, users.map((p, i) => [i ? ", " : "",
          el("a", { href: `#preset-${p.name}` }, p.name), ` (${valueText(p.options[o.name])})`]))] : null));
  }));
}

async function init() {
  const status = $("rules-load");
  try {
    const { data, fresh } = await rulesCatalogue();
    renderSizes(data.presets);
    renderPresets(data.presets);
    renderOptions(data.options, data.presets);
    if (fresh) {
      status.textContent = "";
      status.className = "notice";
    } else {
      status.textContent = "Offline: showing the rules saved on this device.";
      status.className = "notice warn";
    }
    // The anchors exist only now: honour a link such as rules.html#opt-nil_points.
    if (location.hash.length > 1) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  } catch {
    status.textContent = "The list of house rules could not be loaded. Check the connection and reload.";
    status.className = "notice bad";
  }
  document.documentElement.dataset.ready = "rules";
}

init();
