// A rule-set chooser in plain words: a preset, the game's length, the house rules people ask for first,
// and every other option under "More house rules", grouped. Each option's plain label, group, meaning and
// values in words come from the server's rule book (GET /api/rules, from spades.core's option table):
// this file holds no list of options of its own. Every change is checked by POST /api/rules/check (the
// engine's own validation).

import { OfflineError, api, el, optionWords, replaceChildren } from "./common.js";

const SHORT_LENGTHS = [300, 500];
const TIMED_MINUTES = 60;

function isBoolean(opt) {
  return opt.choices.length === 2 && opt.choices.every((c) => typeof c === "boolean");
}

/**
 * Wire a preset <select>, a container for the option controls and a status line.
 * `onChecked(result)` runs after each check: {ok, options, layout} or {ok: false, error}.
 * `idPrefix` keeps control ids unique when several forms share a page.
 */
export class RulesForm {
  constructor({ catalogue, select, grid, status, countNode, idPrefix = "opt-", onChecked = () => {} }) {
    this.catalogue = catalogue;
    this.select = select;
    this.grid = grid;
    this.status = status;
    this.countNode = countNode;
    this.idPrefix = idPrefix;
    this.onChecked = onChecked;
    this.preset = "standard";
    this.overrides = {};
    this.result = null;
    this.seq = 0;
    if (!select.options.length) {
      for (const p of catalogue.presets) select.appendChild(el("option", { value: p.name }, p.name));
    }
    select.value = this.preset;
    select.addEventListener("change", () => {
      this.preset = select.value;
      this.overrides = {};
      this.check();
    });
  }

  /** The rules as the server takes them: a preset name, or the preset with overrides. */
  spec() {
    return Object.keys(this.overrides).length ? { preset: this.preset, ...this.overrides } : this.preset;
  }

  presetInfo() {
    return this.catalogue.presets.find((p) => p.name === this.preset);
  }

  reset() {
    this.overrides = {};
    return this.check();
  }

  /** Ask the server whether the rules can be played, then show its answer in the controls. */
  check() {
    this.pending = this.runCheck();
    return this.pending;
  }

  /** The result of the latest check, once it has answered (a change made meanwhile is waited for too). */
  async settled() {
    let seq;
    do {
      seq = this.seq;
      await this.pending;
    } while (seq !== this.seq);
    return this.result;
  }

  async runCheck() {
    const seq = ++this.seq;
    const n = Object.keys(this.overrides).length;
    if (this.countNode) this.countNode.textContent = n ? `(${n} changed)` : "";
    this.result = null;
    let result;
    try {
      result = await api("/api/rules/check", { preset: this.preset, overrides: this.overrides });
    } catch (e) {
      if (seq !== this.seq) return;
      const info = this.presetInfo();
      if (e instanceof OfflineError && info && n === 0) {
        result = { ok: true, offline: true, options: { ...this.catalogue.defaults, ...info.options }, layout: info.layout };
      } else {
        result = { ok: false, error: e instanceof OfflineError
          ? "offline: these rules cannot be checked now" : e.message };
      }
    }
    if (seq !== this.seq) return;
    this.result = result;
    if (result.ok) this.render(result.options, Boolean(result.offline));
    this.onChecked(result);
  }

  /** Build the controls once: game length, the first house rules, then "More house rules" by group. */
  build() {
    const cat = this.catalogue;
    const byName = new Map(cat.options.map((o) => [o.name, o]));
    const first = (cat.first || []).filter((name) => byName.has(name));
    this.first = first;
    this.fields = new Map();
    for (const opt of cat.options) {
      if (opt.name === "time_limit_minutes") continue; // set by the game length
      this.fields.set(opt.name, this.field(opt, first.includes(opt.name)));
    }
    const length = this.lengthField();
    const quick = el("fieldset", { class: "quick-rules" }, el("legend", {}, "House rules"),
      first.map((name) => this.fields.get(name).wrap));
    const groups = (cat.groups || []).map((g) => {
      const wraps = cat.options.filter((o) => o.group === g.name && !first.includes(o.name) && this.fields.has(o.name))
        .map((o) => this.fields.get(o.name).wrap);
      if (!wraps.length) return null;
      return el("details", { class: "rule-group", "data-group": g.name },
        el("summary", {}, g.title, " ", el("span", { class: "hint group-count", "data-group-count": g.name })),
        el("div", { class: "option-grid" }, wraps));
    });
    this.more = el("details", { class: "house-rules more-rules", id: `${this.idPrefix}more` },
      el("summary", {}, "More house rules ", el("span", { class: "hint more-count" })),
      el("p", { class: "hint" }, "Every other rule, by what it changes. Each is explained on the ",
        el("a", { href: "/rules.html#house-rules" }, "rules page"),
        "; the small name is the one the command line takes."),
      groups);
    replaceChildren(this.grid, length, quick, this.more);
  }

  /** Game length: to 300, to 500 (or the table's own target), or timed with minutes. */
  lengthField() {
    const id = `${this.idPrefix}length`;
    this.length = el("select", { id });
    this.minutes = el("input", { id: `${this.idPrefix}minutes`, type: "number", inputmode: "numeric", min: 1,
      max: 1440, value: TIMED_MINUTES, autocomplete: "off" });
    this.minutesBox = el("span", { class: "minutes-box" },
      el("label", { for: this.minutes.id, class: "visually-hidden" }, "Minutes"), this.minutes, " minutes, then the hand being played ends the game");
    this.length.addEventListener("change", () => this.setLength());
    this.minutes.addEventListener("change", () => this.setLength());
    return el("div", { class: "field length-field" },
      el("label", { for: id }, "Game length"),
      el("span", { class: "length-row" }, this.length, this.minutesBox));
  }

  setLength() {
    const v = this.length.value;
    const o = this.overrides;
    if (v === "timed") {
      const m = Math.round(Number(this.minutes.value));
      o.time_limit_minutes = Number.isFinite(m) && m > 0 ? m : TIMED_MINUTES;
    } else {
      delete o.time_limit_minutes;
      o.target = Number(v);
    }
    // An override equal to the preset's own value is no change.
    const info = this.presetInfo();
    const base = { ...this.catalogue.defaults, ...(info ? info.options : {}) };
    for (const k of ["target", "time_limit_minutes"]) {
      if (k in o && JSON.stringify(o[k]) === JSON.stringify(base[k])) delete o[k];
    }
    return this.check();
  }

  renderLength(options) {
    const target = options.target;
    const timed = options.time_limit_minutes;
    const targets = [...new Set([...SHORT_LENGTHS, target])].sort((a, b) => a - b);
    const want = [...targets.map((t) => [String(t), `to ${t} points`]), ["timed", "timed"]];
    if (this.length.options.length !== want.length || [...this.length.options].some((o, i) => o.value !== want[i][0])) {
      replaceChildren(this.length, want.map(([v, t]) => el("option", { value: v }, t)));
    }
    this.length.value = timed ? "timed" : String(target);
    this.minutesBox.hidden = !timed;
    if (timed && this.minutes !== document.activeElement) this.minutes.value = timed;
  }

  /**
   * Show the checked options. The controls are built once and then updated in place, so a check that
   * answers while the player is typing into another field neither replaces that field nor takes its
   * focus; the focused control keeps what the player is typing, and is shown the checked form of what
   * it sent (say "BJ, LJ" for "bj lj") only when nothing was typed into it since.
   */
  render(options, offline) {
    if (!this.fields) this.build();
    this.renderLength(options);
    this.length.disabled = offline;
    this.minutes.disabled = offline;
    const changed = new Map();
    for (const [name, { wrap, control, opt }] of this.fields) {
      const value = options[name];
      const isChanged = Object.hasOwn(this.overrides, name);
      wrap.classList.toggle("changed", isChanged);
      if (isChanged && !this.first.includes(name)) changed.set(opt.group, (changed.get(opt.group) || 0) + 1);
      control.disabled = offline;
      if (name === "blind_nil_points" || name === "blind_pass") wrap.hidden = options.blind_nil === false;
      if (control.type === "checkbox") {
        control.checked = JSON.stringify(value) === JSON.stringify(opt.on);
        continue;
      }
      if (control === document.activeElement && control.tagName === "INPUT"
          && control.value !== control.dataset.sent) continue;
      if (opt.choices.length) control.value = JSON.stringify(value);
      else if (opt.low === null) control.value = (value || []).join(", ");
      else control.value = value === null || value === undefined ? "" : value;
      control.dataset.shown = control.value;
    }
    let more = 0;
    for (const node of this.grid.querySelectorAll("[data-group-count]")) {
      const k = changed.get(node.dataset.groupCount) || 0;
      more += k;
      node.textContent = k ? `(${k} changed)` : "";
    }
    this.grid.querySelector(".more-count").textContent = more ? `(${more} changed)` : "";
  }

  field(opt, first) {
    const id = `${this.idPrefix}${opt.name}`;
    let control;
    const entry = { opt };
    if (isBoolean(opt)) {
      // A toggle: ticked means the value that is not the usual one, or true.
      entry.opt = { ...opt, on: true };
      control = el("input", { id, type: "checkbox" });
      control.addEventListener("change", () => this.set(opt.name, control.checked));
    } else if (opt.name === "spades_lead" && first) {
      entry.opt = { ...opt, on: "any_time" };
      control = el("input", { id, type: "checkbox" });
      control.addEventListener("change", () => this.set(opt.name, control.checked ? "any_time" : "when_broken"));
    } else if (opt.choices.length) {
      control = el("select", { id },
        opt.choices.map((c) => el("option", { value: JSON.stringify(c) }, optionWords(opt, c))));
      control.addEventListener("change", () => this.set(opt.name, JSON.parse(control.value)));
    } else if (opt.low === null) {
      control = el("input", { id, placeholder: opt.none_word || "none", autocomplete: "off" });
      control.addEventListener("change", () => {
        control.dataset.sent = control.value;
        this.set(opt.name, control.value.split(/[\s,]+/).map((s) => s.trim().toUpperCase()).filter(Boolean));
      });
    } else {
      control = el("input", { id, type: "number", inputmode: "numeric", min: opt.low, max: opt.high,
        step: /points|penalty/.test(opt.name) ? 10 : 1, placeholder: opt.nullable ? opt.none_word || "none" : undefined });
      control.addEventListener("change", () => {
        const raw = control.value.trim();
        control.dataset.sent = control.value;
        this.set(opt.name, raw === "" && opt.nullable ? null : Number(raw));
      });
    }
    if (control.tagName === "INPUT" && control.type !== "checkbox") {
      // Enter confirms this rule (and checks it) rather than submitting the whole form: a player setting
      // several house rules should not start the game after the first one.
      control.addEventListener("keydown", (e) => {
        if (e.key !== "Enter") return;
        e.preventDefault();
        if (control.value !== control.dataset.shown) control.dispatchEvent(new Event("change"));
      });
    }
    const label = opt.name === "spades_lead" && first ? "Spades may be led any time" : opt.label || opt.name;
    // The first rules are plain enough by their label; the others say what they mean in one line. Each
    // shows its public name small (a link to its explanation) for those who use the command line.
    const name = el("a", { href: `/rules.html#opt-${opt.name}`, class: "opt-name" }, el("code", {}, opt.name));
    const meaning = first ? null : el("span", { class: "hint" }, opt.meaning, " ", name);
    const labelNode = el("label", { for: id }, control.type === "checkbox" ? control : null, label);
    const head = first ? el("span", { class: "label-with-name" }, labelNode, name) : labelNode;
    const wrap = control.type === "checkbox"
      ? el("div", { class: "field toggle", "data-option": opt.name }, head, meaning)
      : el("div", { class: "field", "data-option": opt.name }, el("span", { class: "field-row" }, head, control), meaning);
    entry.wrap = wrap;
    entry.control = control;
    return entry;
  }

  set(name, value) {
    // A control left after an unchanged edit reports a change again: nothing to check then.
    if (Object.hasOwn(this.overrides, name) && JSON.stringify(this.overrides[name]) === JSON.stringify(value)) {
      return this.pending;
    }
    this.overrides[name] = value;
    return this.check();
  }
}

/** A short description of a checked rule set for a status line. */
export function layoutSummary(layout) {
  const length = layout.time_limit_minutes ? `timed, ${layout.time_limit_minutes} minutes (or to ${layout.target})`
    : `game to ${layout.target}`;
  return `${layout.players} players, ${layout.hand_size} tricks a hand, ${length}.`;
}
