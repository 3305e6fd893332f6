// Playing cards drawn as SVG by this project: crisp at any size. cardSVG("AS") gives a card element;
// "TD" is the ten of diamonds, "BJ" / "LJ" the big and little joker. {second: true} (or a trailing "*"
// on the code) marks a card of the second pack in the six-handed game. cardBack() is a face-down card.

const NS = "http://www.w3.org/2000/svg";
const W = 120;
const H = 168;

/** Suit outlines on a 100 x 100 square. */
export const SUIT_PATHS = {
  S: "M50 6C80 30 94 44 94 60C94 74 83 82 71 82C62 82 55 77 52 71C53 82 57 90 64 94L36 94C43 90 47 82 48 71"
    + "C45 77 38 82 29 82C17 82 6 74 6 60C6 44 20 30 50 6Z",
  H: "M50 90C20 66 6 50 6 31C6 17 17 7 30 7C40 7 46 13 50 21C54 13 60 7 70 7C83 7 94 17 94 31C94 50 80 66 50 90Z",
  D: "M50 4L88 50L50 96L12 50Z",
  C: "M50 8A20 20 0 0 1 66 40A20 20 0 1 1 56 70C57 82 61 89 68 95L32 95C39 89 43 82 44 70"
    + "A20 20 0 1 1 34 40A20 20 0 0 1 50 8Z",
};

export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", T: "ten",
  J: "jack", Q: "queen", K: "king", A: "ace",
};
const RANK_LABEL = { T: "10" };
const RED = "#c01f28";
const BLACK = "#1b1f1d";

// Pip centres for the number cards (the lower half is drawn upside down, as on printed cards).
const COL = [38, 60, 82];
const ROW = [38, 61, 84, 107, 130];
const corners = [[COL[0], ROW[0]], [COL[2], ROW[0]], [COL[0], ROW[4]], [COL[2], ROW[4]]];
const PIPS = {
  2: [[60, ROW[0]], [60, ROW[4]]],
  3: [[60, ROW[0]], [60, ROW[2]], [60, ROW[4]]],
  4: corners,
  5: [...corners, [60, ROW[2]]],
  6: [...corners, [COL[0], ROW[2]], [COL[2], ROW[2]]],
  7: [...corners, [COL[0], ROW[2]], [COL[2], ROW[2]], [60, ROW[1]]],
  8: [...corners, [COL[0], ROW[2]], [COL[2], ROW[2]], [60, ROW[1]], [60, ROW[3]]],
  9: [...corners, [COL[0], 69], [COL[2], 69], [COL[0], 99], [COL[2], 99], [60, ROW[2]]],
  T: [...corners, [COL[0], 69], [COL[2], 69], [COL[0], 99], [COL[2], 99], [60, 53], [60, 115]],
};

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.appendChild(c);
  return node;
}

function text(x, y, content, attrs = {}) {
  const node = svg("text", { x, y, "text-anchor": "middle", "font-family": "DejaVu Sans, Verdana, sans-serif",
    "font-weight": 700, ...attrs });
  node.textContent = content;
  return node;
}

function pip(suit, cx, cy, size, colour, flip = false) {
  const s = size / 100;
  const transform = flip
    ? `translate(${cx + size / 2} ${cy + size / 2}) rotate(180) scale(${s})`
    : `translate(${cx - size / 2} ${cy - size / 2}) scale(${s})`;
  return svg("path", { d: SUIT_PATHS[suit], fill: colour, transform });
}

/** A card's name in words: "ten of diamonds", "big joker"; "ace of spades, second pack" for "AS*". */
export function cardName(code) {
  const c = code.replace("*", "").toUpperCase();
  const pack = code.endsWith("*") ? ", second pack" : "";
  if (c === "BJ") return `big joker${pack}`;
  if (c === "LJ") return `little joker${pack}`;
  return `${RANK_NAMES[c[0]]} of ${SUIT_NAMES[c[1]]}${pack}`;
}

function frame(label, extraClass) {
  return svg("svg", { xmlns: NS, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label,
    class: `card ${extraClass}`.trim(), width: W, height: H },
  svg("rect", { x: 1.5, y: 1.5, width: W - 3, height: H - 3, rx: 9, fill: "#fff", stroke: "#6f766f",
    "stroke-width": 2 }));
}

function secondPackMark(node) {
  // A small ringed "2" at the bottom-left: the card belongs to the second pack.
  node.appendChild(svg("circle", { cx: 15, cy: H - 40, r: 9, fill: "#2348a8" }));
  node.appendChild(text(15, H - 35.5, "2", { "font-size": 13, fill: "#fff" }));
}

function joker(code, second) {
  const big = code === "BJ";
  const colour = big ? RED : BLACK;
  const node = frame(`${cardName(code)}${second ? ", second pack" : ""}`, big ? "joker big" : "joker little");
  node.dataset.card = code + (second ? "*" : "");
  for (const [x, y, rot] of [[14, 22, 0], [W - 14, H - 22, 180]]) {
    const g = svg("g", { transform: `rotate(${rot} ${x} ${y - 6})` });
    "JOKER".split("").forEach((ch, i) => g.appendChild(text(x, y + i * 13 - 6, ch, { "font-size": 12, fill: colour })));
    node.appendChild(g);
  }
  // A star, filled for the big joker and outlined for the little one.
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? 17 : 40;
    const a = (Math.PI / 5) * i - Math.PI / 2;
    pts.push(`${(60 + r * Math.cos(a)).toFixed(1)},${(76 + r * Math.sin(a)).toFixed(1)}`);
  }
  node.appendChild(svg("polygon", { points: pts.join(" "), fill: big ? colour : "#fff", stroke: colour,
    "stroke-width": 4, "stroke-linejoin": "round" }));
  node.appendChild(text(60, 140, big ? "BIG" : "LITTLE", { "font-size": 14, fill: colour }));
  if (second) secondPackMark(node);
  return node;
}

/** An SVG element drawing the card with this code ("AS", "TD", "BJ", "LJ"; "AS*" = second pack). */
export function cardSVG(code, { second = false } = {}) {
  let c = String(code).toUpperCase();
  if (c.endsWith("*")) {
    second = true;
    c = c.slice(0, -1);
  }
  if (c === "BJ" || c === "LJ") return joker(c, second);
  const rank = c[0];
  const suit = c[1];
  if (!RANK_NAMES[rank] || !SUIT_PATHS[suit]) throw new Error(`not a card: ${code}`);
  const colour = suit === "H" || suit === "D" ? RED : BLACK;
  const node = frame(`${cardName(c)}${second ? ", second pack" : ""}`, `suit-${suit}`);
  node.dataset.card = c + (second ? "*" : "");
  const label = RANK_LABEL[rank] || rank;
  // Corner indices, the bottom one upside down.
  for (const rot of [0, 180]) {
    const g = svg("g", { transform: `rotate(${rot} ${W / 2} ${H / 2})` });
    g.appendChild(text(15, 27, label, { "font-size": label.length > 1 ? 19 : 22, fill: colour,
      "letter-spacing": label.length > 1 ? -2 : 0 }));
    g.appendChild(pip(suit, 15, 41, 15, colour));
    node.appendChild(g);
  }
  if (rank === "A") {
    node.appendChild(pip(suit, 60, 84, suit === "S" ? 62 : 50, colour));
  } else if (PIPS[rank]) {
    for (const [x, y] of PIPS[rank]) node.appendChild(pip(suit, x, y, 21, colour, y > 84));
  } else {
    // Court cards: a framed panel with the letter and the suit.
    node.appendChild(svg("rect", { x: 30, y: 26, width: 60, height: 116, rx: 6, fill: colour === RED ? "#fbe9ea"
      : "#e9ecea", stroke: colour, "stroke-width": 2 }));
    node.appendChild(text(60, 86, rank, { "font-size": 46, fill: colour }));
    node.appendChild(pip(suit, 60, 116, 26, colour));
    node.appendChild(pip(suit, 60, 46, 20, colour, true));
  }
  if (second) secondPackMark(node);
  return node;
}

/** A face-down card. */
export function cardBack(label = "face-down card") {
  const node = svg("svg", { xmlns: NS, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label,
    class: "card back", width: W, height: H });
  node.appendChild(svg("rect", { x: 1.5, y: 1.5, width: W - 3, height: H - 3, rx: 9, fill: "#fff",
    stroke: "#6f766f", "stroke-width": 2 }));
  node.appendChild(svg("rect", { x: 9, y: 9, width: W - 18, height: H - 18, rx: 6, fill: "#123b2d" }));
  for (let y = 20; y < H - 12; y += 16) {
    for (let x = 20; x < W - 12; x += 16) {
      node.appendChild(svg("path", { d: SUIT_PATHS.S, fill: "#2f6b55",
        transform: `translate(${x - 5} ${y - 5}) scale(0.1)` }));
    }
  }
  return node;
}

/** Sort key for a hand: clubs, diamonds, spades, hearts (colours alternate), high to low; top trumps
 * (`topTrumps`, highest first, e.g. ["BJ", "LJ", "2S"]) lead the spades. */
export function sortHand(codes, topTrumps = []) {
  const suitOrder = { C: 0, D: 1, S: 2, H: 3 };
  const rankOrder = "23456789TJQKA";
  const key = (code) => {
    const c = code.replace("*", "");
    const top = topTrumps.indexOf(c);
    if (top >= 0) return [2, 100 - top];
    return [suitOrder[c[1]], rankOrder.indexOf(c[0])];
  };
  return [...codes].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka[0] - kb[0] || kb[1] - ka[1] || a.length - b.length;
  });
}
