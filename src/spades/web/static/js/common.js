// Small helpers shared by every page. Text is always set with textContent: nothing a user types (or the
// server returns) is ever parsed as markup.

/**
 * Build an element: el("p", {class: "hint"}, "text", child, ...). Attributes starting with "on" are
 * event listeners; `text` children become text nodes.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      node.className = value;
    } else if (key === "style") {
      node.style.cssText = value; // through the CSSOM: the site's CSP forbids style attributes
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Remove every child of a node and add new ones. */
export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/**
 * Like replaceChildren, for controls drawn again on every message: a child equal to the one drawn in its
 * place (the same tag, attributes and content, `isEqualNode`) stays where it is, and only the others are
 * swapped. A press that spans a redraw (the button down, a chat line or a gathered trick redraws the page,
 * the button up) then ends on the element it began on and clicks it; on a fresh element the browser sends
 * the click to their common parent, and the press was lost. The kept element's listeners do what the new
 * one's would: the attributes they depend on are equal.
 */
export function redrawChildren(node, ...children) {
  const fresh = document.createDocumentFragment();
  append(fresh, children);
  const next = [...fresh.childNodes];
  const old = [...node.childNodes];
  next.forEach((child, i) => {
    const was = old[i];
    if (!was) node.appendChild(child);
    else if (!was.isEqualNode(child)) was.replaceWith(child);
  });
  for (const extra of old.slice(next.length)) extra.remove();
}

/** An error thrown when the server cannot be reached at all (as opposed to an answer that says no). */
export class OfflineError extends Error {}

/** POST or GET JSON; throws OfflineError when the network fails, Error on a non-2xx answer. */
export async function api(path, body) {
  let response;
  try {
    response = await fetch(path, body === undefined ? { headers: { Accept: "application/json" } } : {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new OfflineError(String(e));
  }
  if (!response.ok) {
    if (response.status >= 500 || response.status === 0) throw new OfflineError(`server answered ${response.status}`);
    let detail = `the server answered ${response.status}`;
    try {
      const data = await response.json();
      if (data && data.error && data.error.reason) detail = data.error.reason;
      else if (data && data.detail) detail += `: ${JSON.stringify(data.detail)}`;
    } catch { /* not JSON */ }
    const error = new Error(detail);
    error.status = response.status;
    throw error;
  }
  return response.json();
}

/** Read JSON from localStorage, or `fallback` when missing or unreadable. */
export function loadJSON(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

/** Write JSON to localStorage; false when the browser refuses (private mode, full). */
export function saveJSON(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

const CATALOGUE_KEY = "spades.rules-catalogue.v1";

/** The presets and options from /api/rules, kept on this device so forms work offline too. */
export async function rulesCatalogue() {
  try {
    const data = await api("/api/rules");
    saveJSON(CATALOGUE_KEY, data);
    return { data, fresh: true };
  } catch (e) {
    const cached = loadJSON(CATALOGUE_KEY, null);
    if (cached) return { data: cached, fresh: false };
    throw e;
  }
}

/** The rule book as last fetched on this device (null if never): the score keeper's twin needs it offline. */
export function cachedRulesCatalogue() {
  return loadJSON(CATALOGUE_KEY, null);
}

/** An option value as players write it: true, 500, "when_broken", ["BJ","LJ"], none. */
export function valueText(value) {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  return String(value);
}

/** A value of an option in plain words (the option's own words from the rule book). */
export function optionWords(opt, value) {
  if (value === null || value === undefined || (Array.isArray(value) && !value.length)) return opt.none_word || "none";
  const i = opt.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value));
  if (i >= 0 && opt.words && opt.words[i]) return opt.words[i];
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/**
 * The rules of a game for a status line in plain words: "Rules: standard, Nil is worth: 50 · game to 300",
 * each house rule a link to its explanation on the rules page. The labels and words come from the rule
 * book (`catalogue`, GET /api/rules; by default the copy kept on this device); without it, the options'
 * own names. The game's length is said once, at the end.
 */
export function rulesLine(preset, overrides, target, catalogue = cachedRulesCatalogue()) {
  const options = new Map(((catalogue && catalogue.options) || []).map((o) => [o.name, o]));
  const shown = Object.entries(overrides || {}).filter(([k]) => !(k === "target" && target !== undefined));
  return ["Rules: ", el("a", { href: "/rules.html#presets" }, preset),
    shown.map(([k, v]) => {
      const opt = options.get(k);
      return [", ", el("a", { href: `/rules.html#opt-${k}`, title: k }, opt ? opt.label || k : k),
        opt ? `: ${optionWords(opt, v)}` : ` ${valueText(v)}`];
    }),
    target === undefined ? "" : ` · game to ${target}`];
}

/** Signed points: +53, -160, 0. */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

// Keep the pages on this device for offline use (see /sw.js). Failing to register changes nothing else.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}
