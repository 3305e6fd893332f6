// The player's client seed for fair dealing (docs/fair-dealing.md, "At the table"). The server publishes
// the commitment to its secret seed for the next hand; only then does this page send the player's seed,
// so the server cannot have chosen its seed knowing it. The seed is random (16 bytes from the browser's
// secure source, 32 hex digits) unless the player types one; each seed is used for one deal, then a
// fresh random one takes its place.

export const SEED_MAX = 64;
const SEED_RE = /^[A-Za-z0-9_-]*$/;

/** 32 random hex digits from crypto.getRandomValues. */
export function randomSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What is wrong with a seed typed by the player, in the server's words, or null when it is fine. */
export function seedProblem(text) {
  if (text.length === 0) return `A seed cannot be empty: use 1 to ${SEED_MAX} letters, digits, - or _.`;
  if (text.length > SEED_MAX) return `A seed may be at most ${SEED_MAX} characters; this one has ${text.length}.`;
  if (!SEED_RE.test(text)) {
    const i = [...text].findIndex((ch) => !SEED_RE.test(ch));
    const ch = [...text][i];
    return `A seed may use only letters A-Z and a-z, digits, - and _: character ${i + 1}, "${ch}", is not allowed.`;
  }
  return null;
}

/**
 * Keeps the seed field and sends the seed when a commitment waits for it.
 * `nodes`: {panel, input, fresh, status, error}; `send(msg)` sends a message and returns whether it went.
 */
export class SeedKeeper {
  constructor(nodes, send) {
    this.nodes = nodes;
    this.send = send;
    this.msgs = new Map(); // hand index -> the seed message sent for it
    this.resend = false;
    this.nodes.input.value = randomSeed();
    this.nodes.input.maxLength = SEED_MAX;
    this.nodes.input.addEventListener("input", () => this.check());
    this.nodes.fresh.addEventListener("click", () => {
      this.nodes.input.value = randomSeed();
      this.check();
    });
  }

  /** Show whether the typed seed can be used; returns the problem or null. */
  check() {
    const problem = seedProblem(this.nodes.input.value);
    this.nodes.error.textContent = problem || "";
    this.nodes.error.hidden = !problem;
    this.nodes.input.setAttribute("aria-invalid", problem ? "true" : "false");
    return problem;
  }

  /** The state's `seeding` (a commitment waiting for seeds) for a viewer in `seat`: send the seed once. */
  update(seeding, seat) {
    this.nodes.panel.hidden = seat === null || seat === undefined;
    if (!seeding || seat === null || seat === undefined || seeding.sent.includes(seat)) return;
    const before = this.msgs.get(seeding.hand);
    if (before) {
      // Sent already; after a reconnect it goes again with the same id (the server stores it once).
      if (this.resend && this.send(before)) this.resend = false;
      return;
    }
    let seed = this.nodes.input.value;
    const problem = this.check();
    if (problem) {
      seed = randomSeed(); // never hold up the deal: a random seed instead, and say so
      this.say("warn", `Your seed could not be used (${problem}) A random one was sent instead.`);
    }
    const msg = { type: "seed", id: `seed-${seeding.hand}-${Date.now().toString(36)}`, hand: seeding.hand,
      commitment: seeding.commitment, seed };
    if (!this.send(msg)) return;
    this.msgs.set(seeding.hand, msg);
    if (!problem) {
      this.say("", `Seed ${seed} sent for hand ${seeding.hand + 1}, after the server committed to `
        + `${seeding.commitment.slice(0, 16)}…`);
    }
    this.nodes.input.value = randomSeed(); // a fresh one for the next deal
    this.check();
  }

  /** The connection is new: a seed sent without an answer goes again. */
  reconnected() {
    this.resend = true;
  }

  say(kind, text) {
    this.nodes.status.className = kind ? `notice ${kind}` : "notice";
    this.nodes.status.textContent = text;
  }

  /** A `deal` event: say whether the deal used the seed this page sent. */
  dealt(ev, seat) {
    const mine = this.seedOf(ev.hand);
    if (mine === undefined || seat === null || seat === undefined || !ev.client_seeds) return;
    const used = ev.client_seeds[seat];
    if (used === mine) this.say("ok", `Hand ${ev.hand + 1} was dealt with your seed ${mine}`);
    else {
      this.say("bad", `Hand ${ev.hand + 1} was NOT dealt with your seed ${mine}: the deal used `
        + `${JSON.stringify(used)} for your seat.`);
    }
  }

  /** An error answer to a seed message (its id starts with "seed-"): show it by the field. */
  refused(msg) {
    if (msg.code === "seed_fixed") return; // a resent seed the server already had
    this.say("bad", `The server refused your seed: ${msg.reason}`);
  }

  /** The seed sent for hand `index`, if any. */
  seedOf(index) {
    const msg = this.msgs.get(index);
    return msg ? msg.seed : undefined;
  }
}
