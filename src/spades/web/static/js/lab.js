// The shuffle lab (lab.html): the simulation's answer, table and plot from GET /api/lab/simulate(.svg),
// and the exact mixing table for 52 and 104 cards from GET /api/lab/mixing. The server computes and caches
// everything within its limits; this page only asks and draws (text only, never markup).

import { el, replaceChildren } from "./common.js";

const $ = (id) => document.getElementById(id);
const MODEL_NAMES = { machine: "the two-pile machine", riffle: "riffles", overhand: "overhand shuffles" };

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await r.json();
  } catch {
    body = null;
  }
  if (!r.ok) {
    const reason = body && body.error ? body.error.reason : `the server answered ${r.status}`;
    throw new Error(reason);
  }
  return body;
}

function fixed(x, digits) {
  if (x >= 0.0001 || x === 0) return x.toFixed(digits);
  return x.toExponential(1);
}

function pValue(p) {
  if (p === 0) return "0";
  if (p < 0.001) return p.toExponential(1);
  return p.toFixed(3);
}

function params() {
  const p = new URLSearchParams();
  p.set("model", $("sim-model").value);
  p.set("from", "0");
  p.set("to", $("sim-to").value.trim());
  p.set("trials", $("sim-trials").value.trim());
  p.set("seed", $("sim-seed").value.trim());
  p.set("bias", $("sim-bias").value.trim());
  p.set("reverse_piles", $("sim-reverse").checked ? "1" : "0");
  p.set("b_on_top", $("sim-btop").checked ? "1" : "0");
  return p;
}

function showSimulation(result, query) {
  const model = MODEL_NAMES[result.model] || result.model;
  const answer = $("sim-answer");
  if (result.passes_needed === null) {
    answer.textContent = `Not within ${result.figures[result.figures.length - 1].passes} passes of ${model}: `
      + "try more passes.";
  } else {
    answer.textContent = `Tonight's deck needs about ${result.passes_needed} `
      + `pass${result.passes_needed === 1 ? "" : "es"} of ${model}.`;
  }
  const rows = [...result.figures, result.uniform].map((f) => el("tr", {
    class: f.passes === result.passes_needed ? "lab-needed" : "" },
  el("th", { scope: "row" }, f.passes === null ? "perfect" : String(f.passes)),
  el("td", {}, fixed(f.spades_tv, 4)), el("td", {}, fixed(f.shape_tv, 4)),
  el("td", {}, f.same_trick_pairs.toFixed(4)),
  el("td", {}, pValue(Math.min(f.spades_p, f.shape_p, f.pairs_p))),
  el("td", {}, f.uniform_like ? "yes" : "no")));
  replaceChildren($("sim-table").querySelector("tbody"), rows);
  $("sim-table").hidden = false;
  $("sim-plot").src = `/api/lab/simulate.svg?${query}`;
  $("sim-plot-box").hidden = false;
}

async function runSimulation() {
  const status = $("sim-status");
  const query = params().toString();
  status.className = "notice";
  status.textContent = "Shuffling and dealing… (a few seconds the first time)";
  $("sim-run").disabled = true;
  try {
    const result = await getJSON(`/api/lab/simulate?${query}`);
    status.textContent = `${result.trials} deals of freshly gathered tricks, seed ${result.seed}.`;
    showSimulation(result, query);
  } catch (e) {
    status.className = "notice bad";
    status.textContent = `No simulation: ${e.message}`;
  } finally {
    $("sim-run").disabled = false;
  }
}

async function loadExact() {
  const status = $("exact-status");
  try {
    for (const table of document.querySelectorAll("table[data-cards]")) {
      const cards = table.dataset.cards;
      const data = await getJSON(`/api/lab/mixing?cards=${cards}&from=1&to=14`);
      table.querySelector(".lab-need").textContent = `${data.passes_for_half} riffles bring the total `
        + "variation below 1/2";
      replaceChildren(table.querySelector("tbody"), data.figures.map((f) => el("tr", {
        class: f.passes === data.passes_for_half ? "lab-needed" : "" },
      el("th", { scope: "row" }, String(f.passes)), el("td", {}, f.tv.toFixed(4)),
      el("td", {}, f.separation.toFixed(4)), el("td", {}, fixed(f.bits_left, 4)))));
      table.hidden = false;
    }
    status.textContent = "";
  } catch (e) {
    status.className = "notice bad";
    status.textContent = `The exact table could not be loaded: ${e.message}`;
  }
}

function syncMachineFields() {
  const machine = $("sim-model").value === "machine";
  for (const id of ["sim-bias", "sim-reverse", "sim-btop"]) $(id).disabled = !machine;
  if ($("sim-model").value === "overhand" && Number($("sim-to").value) < 30) {
    $("sim-to").value = "30"; // overhand shuffles need many more passes
    $("sim-trials").value = "1000";
  }
}

async function init() {
  $("sim-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSimulation();
  });
  $("sim-model").addEventListener("change", syncMachineFields);
  syncMachineFields();
  await Promise.all([loadExact(), runSimulation()]);
  document.documentElement.dataset.ready = "lab";
}

init();
