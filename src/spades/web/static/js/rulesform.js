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

  /**
   * Show the checked options. The controls are built once and then updated in place, so a check that
   * answers while the player is typing into another field neither replaces that field nor takes its
   * focus; the focused control keeps what the player is typing, and is shown the checked form of what
   * it sent (say "BJ, LJ" for "bj lj") only when nothing was typed into it since.
   */
  render(options, offline) {
    if (!this.fields) {
      this.fields = new Map(this.catalogue.options.map((opt) => [opt.name, this.field(opt)]));
      replaceChildren(this.grid, [...this.fields.values()].map((f) => f.wrap));
    }
    for (const opt of this.catalogue.options) {
      const { wrap, control } = this.fields.get(opt.name);
      const value = options[opt.name];
      wrap.classList.toggle("changed", Object.hasOwn(this.overrides, opt.name));
      control.disabled = offline;
      if (control === document.activeElement && control.tagName === "INPUT"
          && control.value !== control.dataset.sent) continue;
      if (opt.choices.length) control.value = JSON.stringify(value);
      else if (opt.low === null) control.value = (value || []).join(", ");
      else control.value = value === null || value === undefined ? "" : value;
      control.dataset.shown = control.value;
    }
  }

  field(opt) {
    const id = `${this.idPrefix}${opt.name}`;
    let control;
    if (opt.choices.length) {
      control = el("select", { id },
        opt.choices.map((c) => el("option", { value: JSON.stringify(c) }, valueText(c))));
      control.addEventListener("change", () => this.set(opt.name, JSON.parse(control.value)));
    } else if (opt.low === null) {
      control = el("input", { id, placeholder: "none", autocomplete: "off" });
      control.addEventListener("change", () => {
        control.dataset.sent = control.value;
        this.set(opt.name, control.value.split(/[\s,]+/).map((s) => s.trim().toUpperCase()).filter(Boolean));
      });
    } else {
      control = el("input", { id, type: "number", inputmode: "numeric", min: opt.low, max: opt.high,
        step: /points|penalty/.test(opt.name) ? 10 : 1, placeholder: opt.nullable ? "none" : undefined });
      control.addEventListener("change", () => {
        const raw = control.value.trim();
        control.dataset.sent = control.value;
        this.set(opt.name, raw === "" && opt.nullable ? null : Number(raw));
      });
    }
    if (control.tagName === "INPUT") {
      // Enter confirms this rule (and checks it) rather than submitting the whole form: a player setting
      // several house rules should not start the game after the first one.
      control.addEventListener("keydown", (e) => {
        if (e.key !== "Enter") return;
        e.preventDefault();
        if (control.value !== control.dataset.shown) control.dispatchEvent(new Event("change"));
      });
    }
    const wrap = el("div", { class: "field" },
      el("label", { for: id }, opt.name),
      control,
      el("span", { class: "hint" }, opt.meaning, " ", el("a", { href: `/rules.html#opt-${opt.name}` }, "More")));
    return { wrap, control };
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
  return `${layout.players} players, ${layout.hand_size} tricks a hand, game to ${layout.target}.`;
}
