// spades-deal/1 in the browser (docs/fair-dealing.md): the commitment of a server seed and the
// permutation the seeds make, computed with the browser's own SHA-256 and HMAC (Web Crypto), so the
// verify page does not have to take the server's word for the deal it checks.

/** Whether this browser can compute them (Web Crypto exists only on https pages and on localhost). */
export function canDerive() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

function seedBytes(seedHex) {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new Error("the seed is not 64 hex digits");
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) bytes[i] = parseInt(seedHex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The client seeds as the procedure writes them: compact JSON with every non-ASCII character as \uXXXX. */
export function seedsJson(clientSeeds) {
  return JSON.stringify(clientSeeds.map(String))
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** SHA-256 of the seed's 32 bytes, as 64 lowercase hex digits. */
export async function commitmentOf(seedHex) {
  return hex(await crypto.subtle.digest("SHA-256", seedBytes(seedHex)));
}

/** The permutation of 0..n-1 that the server seed and the client seeds make (Fisher-Yates from the top,
 *  unbiased draws from the HMAC-SHA256 byte stream). */
export async function derivePermutation(seedHex, clientSeeds, n) {
  const key = await crypto.subtle.importKey("raw", seedBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false,
    ["sign"]);
  const prefix = `spades-deal/1:${seedsJson(clientSeeds)}:`;
  const encoder = new TextEncoder();
  let block = 0;
  let bytes = new Uint8Array(0);
  let pos = 0;
  async function nextByte() {
    if (pos === bytes.length) {
      bytes = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(prefix + block)));
      block += 1;
      pos = 0;
    }
    pos += 1;
    return bytes[pos - 1];
  }
  async function below(m) {
    let w = 1;
    while (256 ** w < m) w += 1;
    const span = 256 ** w;
    const limit = span - (span % m);
    for (;;) {
      let x = 0;
      for (let k = 0; k < w; k += 1) x = x * 256 + (await nextByte());
      if (x < limit) return x % m;
    }
  }
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i >= 1; i -= 1) {
    const j = await below(i + 1);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  return perm;
}

/** The hands a permutation deals, as the engine does: card k of the shuffled deck to seat
 *  (dealer + 1 + k) mod n until each has `handSize`, the rest left out (to the dealer when the dealer
 *  discards). Not for the two-handed game, whose hands come from the draw. */
export function dealHands(deck, perm, players, handSize, dealer, dealerDiscard) {
  const order = perm.map((i) => deck[i]);
  const hands = Array.from({ length: players }, () => []);
  const dealt = players * handSize;
  order.slice(0, dealt).forEach((card, k) => hands[(dealer + 1 + k) % players].push(card));
  const out = order.slice(dealt);
  if (dealerDiscard) return { hands: hands.map((h, s) => (s === dealer ? [...h, ...out] : h)), out: [], order };
  return { hands, out, order };
}
