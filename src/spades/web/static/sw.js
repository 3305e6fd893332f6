// The service worker: keeps the pages, styles and scripts on the device so the score keeper, the rules
// and the cards open without a connection. Network first (a fresh page whenever the server answers),
// the saved copy otherwise. API calls and the table socket are never cached: scores come from the server
// (offline, the score keeper scores with its twin, js/scoring.js, kept here like every script), and the
// score keeper keeps its own games in localStorage.

const CACHE = "spades-pages-v28";
const SHELL = [
  "/", "/index.html", "/score.html", "/rules.html", "/cards.html", "/table.html", "/replay.html", "/verify.html",
  "/lab.html", "/player.html",
  "/css/site.css", "/css/review.css", "/icons/favicon.svg",
  "/js/common.js", "/js/cards.js", "/js/rulesform.js", "/js/score.js", "/js/rules.js", "/js/home.js",
  "/js/cards-page.js", "/js/table.js", "/js/replay.js", "/js/verify.js", "/js/deal.js", "/js/seeds.js", "/js/lab.js", "/js/player.js",
  "/js/review.js", "/js/scoring.js", "/js/events.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) {
    return;
  }
  event.respondWith(fetch(request).then((response) => {
    if (response.ok && response.type === "basic") {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
