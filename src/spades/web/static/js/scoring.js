// The score keeper's offline twin of the engine's scoring: spades.core.scoring (score_hand, apply_bags,
// blind_eligible_sides, game_outcome) and spades.scorekeeper (ScoreSheet, seats_from_sides, bid_choices),
// line for line, so that points, bags and totals appear as hands are typed in with no network.
//
// This is the one place where a page holds rules of the game, and it may only because a test holds it to
// spades.core: tests/web/test_scoring_twin.py scores thousands of seeded hands in every preset (and
// variations of every scoring option) with both and requires the same answer, line texts included. When
// the server answers, its answer is the one shown; this twin only fills the gap while offline.
//
// `scoreSheet(options, layout, hands)` answers as POST /api/score does. `options` is the full option set
// (as /api/rules/check answers it), `layout` the rules' layout (players, sides, hand_size).

/** A bid as records write it (3, "nil", "blind nil", "blind 6") read into {tricks, blind}; throws if not a bid. */
export function parseBid(value) {
  if (typeof value === "number" && Number.isInteger(value)) {
    if (value === 0) throw new Error("zero can only be bid as nil");
    if (value > 0) return { tricks: value, blind: false };
  }
  if (typeof value === "string") {
    const t = value.trim().toLowerCase();
    const blind = t.startsWith("blind ");
    const core = blind ? t.slice(6).trim() : t;
    if (core === "nil") return { tricks: 0, blind };
    if (/^[0-9]{1,3}$/.test(core) && Number(core) > 0) return { tricks: Number(core), blind };
  }
  throw new Error(`${JSON.stringify(value)} is not a bid: bids are a number, 'nil', 'blind nil' or 'blind N'`);
}

/** A bid as records write it. */
export function bidText(bid) {
  const core = bid.tricks === 0 ? "nil" : String(bid.tricks);
  return bid.blind ? `blind ${core}` : core;
}

const plural = (n) => (n !== 1 ? "s" : "");

/** spades.core.scoring.apply_bags: [points, new count, lines]. */
export function applyBags(r, count, newBags) {
  const lines = [];
  const mode = r.bags;
  if (newBags <= 0) return [0, count, lines];
  const p = plural(newBags);
  let pts;
  if (mode === "penalty") {
    pts = newBags;
    lines.push([`${newBags} bag${p}`, newBags]);
  } else if (mode === "none") {
    return [newBags, count, [[`${newBags} over-trick${p}`, newBags]]];
  } else if (mode === "minus_one") {
    return [-newBags, count, [[`${newBags} over-trick${p} at -1`, -newBags]]];
  } else if (mode === "minus_ten") {
    return [-10 * newBags, count, [[`${newBags} over-trick${p} at -10`, -10 * newBags]]];
  } else {
    pts = 0;
    lines.push([`${newBags} bag${p} (counted, no points)`, 0]);
  }
  let c = count + newBags;
  while (c >= r.bag_limit) {
    c -= r.bag_limit;
    pts -= r.bag_penalty;
    lines.push([`${r.bag_limit} bags reached`, -r.bag_penalty]);
  }
  return [pts, c, lines];
}

function scoreSide(r, handSize, seats, bids, tricks, bags) {
  const lines = [];
  const partnerCounts = r.failed_nil_tricks === "count_for_partner";
  let taken = 0;
  let contract = 0;
  let blindPart = 0;
  let toward = 0;
  let nilTricks = 0;
  let hasBidder = false;
  let hasNil = false;
  for (const s of seats) {
    const bid = bids[s];
    const n = tricks[s];
    taken += n;
    if (bid === null) {
      toward += n;
    } else if (bid.tricks) {
      hasBidder = true;
      contract += bid.tricks;
      if (bid.blind) blindPart += bid.tricks;
      toward += n;
    } else {
      hasNil = true;
      const value = bid.blind ? r.blind_nil_points : r.nil_points;
      const name = bid.blind ? "blind nil" : "nil";
      if (n === 0) lines.push([`${name} made (seat ${s})`, value]);
      else lines.push([`${name} failed (seat ${s} took ${n} trick${plural(n)})`, -value]);
      if (partnerCounts) toward += n;
      else nilTricks += n;
    }
  }
  let made = null;
  let over = 0;
  if (hasBidder) {
    const blind = blindPart ? " blind" : "";
    if (r.boston && contract === handSize) {
      const value = blindPart ? 400 : 200;
      made = toward === handSize;
      lines.push([`${blind ? `${blind.trim()} ` : ""}Boston ${made ? "made" : "failed"}`, made ? value : -value]);
    } else if (r.ten_for_two_hundred && contract === 10) {
      made = toward === 10;
      lines.push([`ten for two hundred ${made ? "made" : `missed (${toward} tricks)`}`, made ? 200 : -200]);
    } else {
      made = toward >= contract;
      const value = 10 * (contract - blindPart) + 20 * blindPart;
      if (made) {
        lines.push([`contract of ${contract}${blind} made`, value]);
        over = toward - contract;
      } else if (r.set_penalty === "bid") {
        lines.push([`set: contract of ${contract}${blind}, took ${toward}`, -value]);
      } else {
        const short = contract - toward;
        lines.push([`set: ${short} short of ${contract}${blind}`, -10 * short * (blindPart ? 2 : 1)]);
      }
    }
  } else {
    made = hasNil ? true : null;
  }
  if (made && nilTricks) over += nilTricks;
  let bagsAfter = bags;
  if (over > 0) {
    const [, after, bagLines] = applyBags(r, bags, over);
    bagsAfter = after;
    lines.push(...bagLines);
  }
  const points = lines.reduce((t, [, p]) => t + p, 0);
  const counted = r.bags === "penalty" || r.bags === "count_only";
  return { points, bags: counted ? over : 0, bags_total: bagsAfter, tricks: taken, contract, made, lines };
}

/** spades.core.scoring.score_hand: each side's {points, bags, bags_total, tricks, contract, made, lines}. */
export function scoreHand(r, layout, bids, tricks, bagsBefore) {
  return layout.sides.map((seats, k) => {
    if (bids === null) {
      const taken = seats.reduce((t, s) => t + tricks[s], 0);
      const pts = 10 * taken;
      return { points: pts, bags: 0, bags_total: bagsBefore[k], tricks: taken, contract: 0, made: null,
        lines: [[`${taken} tricks at 10, no bids this hand`, pts]] };
    }
    return scoreSide(r, layout.hand_size, seats, bids, tricks, bagsBefore[k]);
  });
}

/** spades.core.scoring.blind_eligible_sides. */
export function blindEligibleSides(r, totals) {
  return totals.map((t, i) => {
    const others = totals.filter((_, j) => j !== i);
    const lead = others.length ? Math.max(...others) : t;
    return r.blind_behind === 0 || lead - t >= r.blind_behind;
  });
}

function reachesEnd(r, totals, timeUp) {
  const ends = Math.max(...totals) >= r.target || timeUp;
  return ends || (r.lose_at !== null && r.lose_at !== undefined && Math.min(...totals) <= r.lose_at);
}

/** spades.core.scoring.tied_at_end: the game has reached its end with the lead tied, so it goes on. */
export function tiedAtEnd(r, totals, timeUp) {
  const best = Math.max(...totals);
  return reachesEnd(r, totals, timeUp) && totals.filter((x) => x === best).length > 1;
}

/** spades.core.scoring.game_outcome: [over, winner]. A tie for first place goes on. */
export function gameOutcome(r, totals, timeUp) {
  if (!reachesEnd(r, totals, timeUp)) return [false, null];
  const best = Math.max(...totals);
  const leaders = totals.map((x, i) => [x, i]).filter(([x]) => x === best).map(([, i]) => i);
  return leaders.length === 1 ? [true, leaders[0]] : [false, null];
}

class SheetError extends Error {
  constructor(reason, hand) {
    super(`hand ${hand}: ${reason}`);
    this.reason = reason;
    this.hand = hand;
  }
}

const isCount = (t) => typeof t === "number" && Number.isInteger(t);

function partnerOf(layout, seat) {
  const side = layout.sides.find((s) => s.includes(seat));
  return side.length === 2 ? side.find((s) => s !== seat) : null;
}

function sideOf(layout, seat) {
  return layout.sides.findIndex((s) => s.includes(seat));
}

function checkSideBids(r, layout, bids, hand) {
  layout.sides.forEach((seats, k) => {
    const contract = seats.reduce((t, s) => t + (bids[s] !== null ? bids[s].tricks : 0), 0);
    if (contract < r.min_side_bid) {
      throw new SheetError(`side ${k}: its contract is ${contract}, and min_side_bid is ${r.min_side_bid}`, hand);
    }
    if (r.max_side_bid !== null && r.max_side_bid !== undefined && contract > r.max_side_bid) {
      throw new SheetError(`side ${k}: its contract is ${contract}, and max_side_bid is ${r.max_side_bid}`, hand);
    }
    if (r.forced_bids === "suicide" && seats.length === 2) {
      const nils = seats.filter((s) => bids[s] !== null && bids[s].tricks === 0).length;
      if (nils !== 1) throw new SheetError(`side ${k}: in suicide exactly one partner bids nil, not ${nils}`, hand);
    }
  });
}

function count(value, what, most, hand) {
  if (!isCount(value) || value < 0 || value > most) {
    throw new SheetError(`${what} is a whole number from 0 to ${most}, not ${JSON.stringify(value)}`, hand);
  }
  return value;
}

/** spades.scorekeeper.seats_from_sides: per-seat bids and tricks that score as a hand entered per side. */
export function seatsFromSides(r, layout, sides, bidless, hand) {
  if (!Array.isArray(sides) || sides.length !== layout.sides.length) {
    throw new SheetError(`sides must list ${layout.sides.length} sides, in seat order of their first player`, hand);
  }
  const n = layout.players;
  const bids = Array(n).fill(null);
  const tricks = Array(n).fill(0);
  layout.sides.forEach((seats, k) => {
    const side = sides[k];
    const who = `side ${k}`;
    if (!side || typeof side !== "object" || Array.isArray(side)) {
      throw new SheetError(`${who}: a side is an object with bid, tricks and nil`, hand);
    }
    const unknown = Object.keys(side).filter((x) => !["bid", "tricks", "nil"].includes(x)).sort();
    if (unknown.length) throw new SheetError(`${who}: unknown field '${unknown[0]}' (a side has bid, tricks and nil)`, hand);
    const taken = count(side.tricks, `${who}: tricks`, layout.hand_size, hand);
    const nils = side.nil || [];
    if (!Array.isArray(nils) || nils.length > seats.length) {
      throw new SheetError(`${who}: nil lists at most ${seats.length} nil bids`, hand);
    }
    const nilSeats = new Map();
    for (const entry of nils) {
      const seat = entry && typeof entry === "object" ? entry.seat : undefined;
      if (!isCount(seat) || !seats.includes(seat)) {
        throw new SheetError(`${who}: a nil bid names one of the side's seats [${seats.join(", ")}]`, hand);
      }
      if (nilSeats.has(seat)) throw new SheetError(`${who}: seat ${seat} bid nil twice`, hand);
      let value;
      try {
        value = parseBid(entry.bid === undefined ? "nil" : entry.bid);
      } catch (e) {
        throw new SheetError(`seat ${seat}: ${e.message}`, hand);
      }
      if (value.tricks !== 0) throw new SheetError(`seat ${seat}: nil lists only nil and blind nil bids`, hand);
      nilSeats.set(seat, [value, count(entry.tricks === undefined ? 0 : entry.tricks, `seat ${seat}: tricks`,
        layout.hand_size, hand)]);
    }
    const nilTaken = [...nilSeats.values()].reduce((t, [, x]) => t + x, 0);
    if (nilTaken > taken) {
      throw new SheetError(`${who}: its nil bidders took ${nilTaken} tricks, more than the side's ${taken}`, hand);
    }
    const bidders = seats.filter((s) => !nilSeats.has(s));
    for (const [seat, [value, t]] of nilSeats) {
      bids[seat] = value;
      tricks[seat] = t;
    }
    if (bidders.length) tricks[bidders[0]] = taken - nilTaken;
    else if (taken !== nilTaken) {
      throw new SheetError(`${who}: every player bid nil, so the side's ${taken} tricks must be theirs `
        + `(they took ${nilTaken})`, hand);
    }
    const raw = side.bid === undefined ? null : side.bid;
    if (bidless) {
      if (raw !== null || nilSeats.size) {
        throw new SheetError("the first hand is played without bids (first_hand_bids is false)", hand);
      }
      return;
    }
    if (!bidders.length) {
      if (raw !== null && raw !== 0) throw new SheetError(`${who}: every player bid nil, so the side has no other bid`, hand);
      return;
    }
    let total;
    try {
      total = parseBid(raw);
    } catch (e) {
      throw new SheetError(`${who}: ${e.message}`, hand);
    }
    if (total.tricks === 0) {
      throw new SheetError(`${who}: the side's bid is its players' numbers together; give nil bids player by player`,
        hand);
    }
    if (total.blind && !r.blind_bids) throw new SheetError(`${who}: these rules do not allow blind bids`, hand);
    const least = total.blind ? r.blind_bid_min : 1;
    const rest = r.team_bidding ? 0 : least * (bidders.length - 1);
    if (total.tricks - rest < least) {
      throw new SheetError(`${who}: ${bidders.length} players bidding need a bid of at least `
        + `${least + rest}${total.blind ? " blind" : ""}`, hand);
    }
    bids[bidders[0]] = { tricks: total.tricks - rest, blind: total.blind };
    for (const seat of bidders.slice(1)) bids[seat] = r.team_bidding ? null : { tricks: least, blind: total.blind };
  });
  if (bidless) return [null, tricks];
  return [bids.map((b) => (b === null ? null : b.tricks && !b.blind ? b.tricks : bidText(b))), tricks];
}

/** spades.scorekeeper.bid_choices: the bids each seat may be entered with in the next hand (null: no bids).
 * Every bid the rules allow is the engine's `possible_bids`, sent with the rules' layout (`layout.bids`) and
 * kept with the game; blind bids are kept only for a side far enough behind. */
export function bidChoices(r, layout, totals, handIndex) {
  if (!r.first_hand_bids && handIndex === 0) return null;
  const eligible = blindEligibleSides(r, totals);
  const every = layout.bids || [];
  return Array.from({ length: layout.players }, (_, seat) =>
    every.filter((b) => !b.startsWith("blind") || eligible[sideOf(layout, seat)]));
}

/** A running score, as spades.scorekeeper.ScoreSheet keeps it. */
class Sheet {
  constructor(r, layout) {
    this.r = r;
    this.layout = layout;
    this.hands = [];
    this.totals = layout.sides.map(() => 0);
    this.bags = layout.sides.map(() => 0);
    this.over = false;
    this.winner = null;
    this.timeUp = false;
  }

  addHand(bids, tricks, timeUp) {
    const i = this.hands.length;
    const { r, layout } = this;
    const n = layout.players;
    if (this.over) throw new SheetError("the game is already over", i);
    if (timeUp && (r.time_limit_minutes === null || r.time_limit_minutes === undefined)) {
      throw new SheetError("time_up is for a timed game (set time_limit_minutes)", i);
    }
    const bidless = !r.first_hand_bids && i === 0;
    if (!Array.isArray(tricks) || tricks.length !== n) throw new SheetError(`tricks must list ${n} numbers, one per seat`, i);
    if (!tricks.every((t) => isCount(t) && t >= 0)) throw new SheetError("tricks must be whole numbers from 0", i);
    const sum = tricks.reduce((a, b) => a + b, 0);
    if (sum !== layout.hand_size) throw new SheetError(`the tricks add up to ${sum}, not ${layout.hand_size}`, i);
    let parsed = null;
    if (bidless) {
      if (bids !== null && bids !== undefined) {
        throw new SheetError("the first hand is played without bids (first_hand_bids is false)", i);
      }
    } else {
      if (!Array.isArray(bids) || bids.length !== n) throw new SheetError(`bids must list ${n} bids, one per seat`, i);
      parsed = [];
      const eligible = blindEligibleSides(r, this.totals);
      bids.forEach((b, seat) => {
        if (b === null && r.team_bidding) {
          parsed.push(null);
          return;
        }
        let v;
        try {
          v = parseBid(b);
        } catch (e) {
          throw new SheetError(`seat ${seat}: ${e.message}`, i);
        }
        if (v.tricks > layout.hand_size) throw new SheetError(`seat ${seat}: a bid is at most ${layout.hand_size}`, i);
        if (v.blind) {
          const allowed = v.tricks === 0 ? r.blind_nil : r.blind_bids && v.tricks >= r.blind_bid_min;
          if (!allowed) throw new SheetError(`seat ${seat}: these rules do not allow ${bidText(v)}`, i);
          if (!eligible[sideOf(layout, seat)]) {
            throw new SheetError(`seat ${seat}: only a side at least ${r.blind_behind} points behind may bid blind`, i);
          }
        }
        parsed.push(v);
      });
      parsed.forEach((pv, seat) => {
        const partner = partnerOf(layout, seat);
        const given = partner !== null ? parsed[partner] : null;
        if (pv === null && (given === null || given.tricks === 0)) {
          throw new SheetError(`seat ${seat}: a bid is needed unless the partner gave the side's total`, i);
        }
      });
      checkSideBids(r, layout, parsed, i);
    }
    const sides = scoreHand(r, layout, parsed, tricks, this.bags);
    this.hands.push(sides);
    sides.forEach((s, k) => {
      this.totals[k] += s.points;
      this.bags[k] = s.bags_total;
    });
    this.timeUp = this.timeUp || Boolean(timeUp);
    [this.over, this.winner] = gameOutcome(r, this.totals, this.timeUp);
    return sides;
  }

  addEntry(entry) {
    const i = this.hands.length;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      throw new SheetError("a hand is an object with bids and tricks per seat, or sides", i);
    }
    const timeUp = entry.time_up === undefined ? false : entry.time_up;
    if (typeof timeUp !== "boolean") throw new SheetError(`time_up is true or false, not ${JSON.stringify(timeUp)}`, i);
    if ("sides" in entry && entry.sides !== undefined && entry.sides !== null) {
      if ((entry.bids !== undefined && entry.bids !== null) || (entry.tricks !== undefined && entry.tricks !== null)) {
        throw new SheetError("a hand is entered per seat (bids, tricks) or per side (sides), not both", i);
      }
      const bidless = !this.r.first_hand_bids && i === 0;
      const [bids, tricks] = seatsFromSides(this.r, this.layout, entry.sides, bidless, i);
      return this.addHand(bids, tricks, timeUp);
    }
    if (!("tricks" in entry)) throw new SheetError("a hand is an object with bids and tricks per seat, or sides", i);
    return this.addHand(entry.bids === undefined ? null : entry.bids, entry.tricks, timeUp);
  }
}

/**
 * Score a sheet of hands as POST /api/score answers: {ok, error, hands, totals, bags, winner, over, time_up,
 * blind_eligible, next_hand_bids, bid_choices, offline: true}.
 */
export function scoreSheet(options, layout, hands) {
  const sheet = new Sheet(options, layout);
  let error = null;
  for (const [i, hand] of hands.entries()) {
    try {
      sheet.addEntry(hand);
    } catch (e) {
      error = { hand: i, reason: e instanceof SheetError ? e.reason : String(e.message || e) };
      break;
    }
  }
  const running = layout.sides.map(() => 0);
  const outHands = sheet.hands.map((sides, i) => ({
    bid_choices: bidChoices(options, layout, running, i),
    sides: sides.map((s, k) => {
      running[k] += s.points;
      return { points: s.points, total: running[k], bags: s.bags_total, lines: s.lines.map(([t, p]) => [t, p]),
        contract: s.contract, made: s.made, tricks: s.tricks, new_bags: s.bags };
    }),
  }));
  return {
    hands: outHands,
    totals: [...sheet.totals],
    winner: sheet.winner,
    ok: error === null,
    error,
    bags: [...sheet.bags],
    over: sheet.over,
    time_up: sheet.timeUp,
    tied: sheet.hands.length > 0 && tiedAtEnd(options, sheet.totals, sheet.timeUp),
    blind_eligible: blindEligibleSides(options, sheet.totals),
    next_hand_bids: Boolean(options.first_hand_bids) || sheet.hands.length > 0,
    bid_choices: sheet.over ? null : bidChoices(options, layout, sheet.totals, sheet.hands.length),
    offline: true,
  };
}
