// Applying the server's events to the state a page shows (docs/protocol.md, "Changes"): the twin of
// spades.core.view.apply_event, tested against it on the same event streams (tests/web/test_events_twin.py).
// It works out no rule: every value (whose turn, the legal actions, the trick's winner, a contract's status)
// comes in the change; this only puts the values in place, and a card played on the table.

const isDict = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** Legal actions listed by value alone: `legal_plays: ["2D"]` is `legal: [{seat, play: "2D"}]`. */
const LISTED = { legal_plays: "play", legal_bids: "bid" };

/** `state` (a state, or a view) with `change` applied; a new object, `state` is left as it was. */
export function applyChange(state, change) {
  const out = "won" in change ? closeTrick(state, change.won) : { ...state };
  for (const [key, value] of Object.entries(change)) {
    if (key === "won") continue;
    if (key.startsWith("+")) {
      const name = key.slice(1);
      out[name] = [...out[name], ...value];
    } else if (key.startsWith("@")) {
      const name = key.slice(1);
      const entries = [...out[name]];
      for (const [index, entry] of Object.entries(value)) {
        const i = Number(index);
        entries[i] = isDict(entries[i]) && isDict(entry) ? applyChange(entries[i], entry) : entry;
      }
      out[name] = entries;
    } else if (Object.prototype.hasOwnProperty.call(LISTED, key)) {
      const kind = LISTED[key];
      out.legal = value.map((v) => ({ seat: out.seat, [kind]: v }));
    } else if (isDict(out[key]) && isDict(value)) {
      out[key] = applyChange(out[key], value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** A view after an action as every client sees it, as far as the action itself says: a bid is written in
 * `bids` (a number as its digits), a card played goes on the table (`playOn`). */
export function actOn(view, action) {
  if ("play" in action) return playOn(view, action.seat, action.play);
  if ("bid" in action && "bids" in view) {
    const bids = [...view.bids];
    bids[action.seat] = typeof action.bid === "number" ? String(action.bid) : action.bid;
    return { ...view, bids };
  }
  return view;
}

/** A view after `seat` played `card`, as far as the play itself says: the card joins `current`, the seat
 * holds one card fewer, the player's own hand loses it. Whose turn, who wins, whether the trick closed:
 * all come in the change. */
export function playOn(view, seat, card) {
  const out = { ...view };
  if ("current" in out) out.current = [...out.current, [seat, card]];
  if ("hand_sizes" in out) {
    out.hand_sizes = [...out.hand_sizes];
    out.hand_sizes[seat] -= 1;
  }
  if (out.seat === seat && Array.isArray(out.hand) && out.hand.includes(card)) {
    const held = [...out.hand];
    held.splice(held.indexOf(card), 1);
    out.hand = held;
  }
  return out;
}

/** A view after the trick on the table closed, won by `winner` (the engine's, from the change's `won`):
 * the cards on the table become the last finished trick, the winner's count goes up, the table is empty. */
export function closeTrick(view, winner) {
  const out = { ...view };
  const current = out.current;
  out.tricks = [...out.tricks, { leader: current[0][0], cards: current, winner }];
  out.tricks_taken = [...out.tricks_taken];
  out.tricks_taken[winner] += 1;
  out.current = [];
  out.trick_winner = null;
  return out;
}

/** The keys of an event message that are not the event's own fields (protocol version 2). */
const ENVELOPE = new Set(["ev", "kind", "by", "change", "state", "table"]);

/** The event of an event message (protocol version 2: `{"ev": 58, "seat": 1, "play": "QD", ...}`) in the
 * structured shape, `{kind: "action", action: {seat, play}, by}` or `{kind, ...fields}`; `null` for any
 * other message. The twin of spades.server.protocol.event_of. */
export function eventOf(msg) {
  if (msg.ev === undefined) return null;
  const fields = {};
  for (const [key, value] of Object.entries(msg)) if (!ENVELOPE.has(key)) fields[key] = value;
  if ("kind" in msg) return { kind: msg.kind, ...fields };
  return { kind: "action", action: fields, by: msg.by || "player" };
}

/** The state after one event message: its whole `state` when it has one; otherwise its action (a message
 * without `kind` is an action, its fields at the top level: `actOn` reads `seat`, `play` and `bid`), then
 * its `change`; when the change moves the view's `to_act` and says nothing of `turn`, `turn.seat` follows
 * it (the two are always the same seat). `state` must be the one after the previous event. */
export function applyEvent(state, msg) {
  if (msg.state) return msg.state;
  if (!state) return state;
  let next = state;
  if (!("kind" in msg) && next.view) next = { ...next, view: actOn(next.view, msg) };
  if (!msg.change) return next;
  next = applyChange(next, msg.change);
  if (!("turn" in msg.change) && next.view && msg.change.view && "to_act" in msg.change.view) {
    next.turn = { ...next.turn, seat: next.view.to_act };
  }
  return next;
}
