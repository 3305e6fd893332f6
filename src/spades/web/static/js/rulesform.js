// A rule-set chooser: a preset plus overrides of any house rule, checked by the server's
// POST /api/rules/check (the engine's own validation) after every change.

import { OfflineError, api, el, replaceChildren, valueText } from "./common.js";

/**
 * Wire a preset <select>, a grid for the option controls and a status line.
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

  /** Ask the server whether the rules can be played, then redraw the controls from its answer. */
  async check() {
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

  render(options, offline) {
    replaceChildren(this.grid, this.catalogue.options.map((opt) => this.field(opt, options[opt.name], offline)));
  }

  field(opt, value, offline) {
    const id = `${this.idPrefix}${opt.name}`;
    const changed = Object.hasOwn(this.overrides, opt.name);
    let control;
    if (opt.choices.length) {
      control = el("select", { id, disabled: offline },
        opt.choices.map((c) => el("option", { value: JSON.stringify(c), selected: c === value }, valueText(c))));
      control.addEventListener("change", () => this.set(opt.name, JSON.parse(control.value)));
    } else if (opt.low === null) {
      control = el("input", { id, value: (value || []).join(", "), placeholder: "none", disabled: offline,
        autocomplete: "off" });
      control.addEventListener("change", () => this.set(opt.name,
        control.value.split(/[\s,]+/).map((s) => s.trim().toUpperCase()).filter(Boolean)));
    } else {
      control = el("input", { id, type: "number", inputmode: "numeric", min: opt.low, max: opt.high,
        step: /points|penalty/.test(opt.name) ? 10 : 1, value: value === null ? "" : value,
        placeholder: opt.nullable ? "none" : undefined, disabled: offline });
      control.addEventListener("change", () => {
        const raw = control.value.trim();
        this.set(opt.name, raw === "" && opt.nullable ? null : Number(raw));
      });
    }
    return el("div", { class: `field${changed ? " changed" : ""}` },
      el("label", { for: id }, opt.name),
      control,
      el("span", { class: "hint" }, opt.meaning, " ", el("a", { href: `/rules.html#opt-${opt.name}` }, "More")));
  }

  set(name, value) {
    this.overrides[name] = value;
    return this.check().then(() => {
      const again = document.getElementById(`${this.idPrefix}${name}`);
      if (again) again.focus();
    });
  }
}

/** A short description of a checked rule set for a status line. */
export function layoutSummary(layout) {
  return `${layout.players} players, ${layout.hand_size} tricks a hand, game to ${layout.target}.`;
}
