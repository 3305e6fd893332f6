// The cards page: the whole deck, the jokers, the second-pack mark and the back.
import { cardBack, cardSVG, SUIT_NAMES } from "./cards.js";
import { el } from "./common.js";

const gallery = document.getElementById("gallery");
const ranks = "AKQJT98765432".split("");
for (const suit of ["C", "D", "S", "H"]) {
  gallery.appendChild(el("h2", {}, SUIT_NAMES[suit][0].toUpperCase() + SUIT_NAMES[suit].slice(1)));
  const fan = el("div", { class: "card-fan" });
  for (const rank of ranks) fan.appendChild(cardSVG(rank + suit));
  gallery.appendChild(fan);
}
gallery.appendChild(el("h2", {}, "Jokers, the second pack and the back"));
gallery.appendChild(el("p", { class: "hint" }, "In the six-handed game two packs are shuffled together; a "
  + "card of the second pack carries a small blue 2. Of two identical cards on one trick, the one played "
  + "second wins."));
const extra = el("div", { class: "card-fan big" });
for (const code of ["BJ", "LJ", "AS", "AS*", "2C*", "BJ*"]) extra.appendChild(cardSVG(code));
extra.appendChild(cardBack());
gallery.appendChild(extra);
document.documentElement.dataset.ready = "cards";
