// arcwise viewer: dependency trees as arcs above the words, gold against systems,
// and (served by `arcwise serve`) parsing and the oracle explorer.  No build step.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
};
const svgEl = (tag, attrs = {}, text) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
};

// ------------------------------------------------------------------ trees

// Is the arc head -> dep non-projective: some word between them not dominated by head?
function nonProjective(heads, head, dep) {
  const n = heads.length;
  const [lo, hi] = head < dep ? [head, dep] : [dep, head];
  for (let k = lo + 1; k < hi; k++) {
    let w = k, steps = 0;
    while (w > 0 && w !== head && steps++ <= n) w = heads[w - 1];
    if (w !== head) return true;
  }
  return false;
}

// An SVG of the tree: heads[i - 1], labels[i - 1] of word i (head 0: the root, -1: none);
// with gold heads (and labels), wrong heads and wrong labels are marked.
function renderTree(form, tags, heads, labels, goldHeads, goldLabels) {
  const n = form.length;
  const words = ["ROOT", ...form];
  const widths = words.map((w) => Math.max(46, 7.4 * w.length + 16));
  const centers = [];
  let x = 10;
  for (const w of widths) { centers.push(x + w / 2); x += w; }
  const arcs = [];
  for (let d = 1; d <= n; d++) {
    const h = heads[d - 1];
    if (h >= 0 && h <= n) arcs.push({ h, d, lo: Math.min(h, d), hi: Math.max(h, d) });
  }
  arcs.sort((a, b) => (a.hi - a.lo) - (b.hi - b.lo));
  for (const a of arcs) {
    a.level = 1;
    for (const b of arcs) {
      if (b !== a && b.lo >= a.lo && b.hi <= a.hi && b.level !== undefined && (b.hi - b.lo) < (a.hi - a.lo))
        a.level = Math.max(a.level, b.level + 1);
    }
  }
  const step = 20;
  const top = 14 + step * Math.max(1, ...arcs.map((a) => a.level));
  const base = top + 4;
  const svg = svgEl("svg", { class: "tree", width: x + 10, height: base + 52 });
  words.forEach((w, i) => {
    svg.appendChild(svgEl("text", { class: "word", x: centers[i], y: base + 16 }, w));
    if (i > 0 && tags && tags[i - 1] && tags[i - 1] !== "_")
      svg.appendChild(svgEl("text", { class: "tag", x: centers[i], y: base + 31 }, tags[i - 1]));
    svg.appendChild(svgEl("text", { class: "index", x: centers[i], y: base + 45 }, String(i)));
  });
  for (const a of arcs) {
    const label = labels ? labels[a.d - 1] : "";
    const classes = ["arc"];
    if (nonProjective(heads, a.h, a.d)) classes.push("nonproj");
    if (goldHeads) {
      if (goldHeads[a.d - 1] !== a.h) classes.push("wrong-head");
      else if (goldLabels && labels && goldLabels[a.d - 1] !== label) classes.push("wrong-label");
    }
    const g = svgEl("g", { class: classes.join(" "), "data-head": a.h, "data-dep": a.d,
                           "data-label": label || "" });
    const hx = centers[a.h] + (a.h < a.d ? 4 : -4), dx = centers[a.d];
    const y = base, peak = base - step * a.level, r = 6, s = hx < dx ? 1 : -1;
    g.appendChild(svgEl("path", { d: `M${hx},${y} L${hx},${peak + r} Q${hx},${peak} ${hx + s * r},${peak} `
      + `L${dx - s * r},${peak} Q${dx},${peak} ${dx},${peak + r} L${dx},${y}` }));
    g.appendChild(svgEl("path", { class: "arrow", d: `M${dx - 4},${y - 7} L${dx + 4},${y - 7} L${dx},${y} Z` }));
    if (label) g.appendChild(svgEl("text", { x: (hx + dx) / 2, y: peak - 3 }, label));
    const tip = goldHeads && goldHeads[a.d - 1] !== a.h ? ` (gold head ${goldHeads[a.d - 1]})` : "";
    g.appendChild(svgEl("title", {}, `${words[a.h]} → ${words[a.d]} ${label || ""}${tip}`));
    svg.appendChild(g);
  }
  return svg;
}

// ------------------------------------------------------------------ the trees tab

const view = { data: null, shown: [], at: 0 };

function goldIndex() { return view.data.gold === null || view.data.gold === undefined ? null : view.data.gold; }

// Word indices (1-based) whose head, or only label, differs from gold in tree t.
function errors(sentence, t) {
  const g = goldIndex();
  const out = { head: [], label: [] };
  if (g === null || t === g) return out;
  const [gh, gl] = sentence.trees[g], [sh, sl] = sentence.trees[t];
  for (let i = 0; i < gh.length; i++) {
    if (sh[i] !== gh[i]) out.head.push(i + 1);
    else if (sl[i] !== gl[i]) out.label.push(i + 1);
  }
  return out;
}

function matches(sentence) {
  const q = $("search").value.trim().toLowerCase();
  if (q && !String(sentence.id).toLowerCase().includes(q)
      && !sentence.form.some((w) => w.toLowerCase() === q)) return false;
  const len = $("filter-length").value;
  if (len) {
    const [lo, hi] = len.split("-").map(Number);
    if (sentence.form.length < lo || sentence.form.length > hi) return false;
  }
  const kind = $("filter-error").value, relation = $("filter-relation").value;
  const g = goldIndex();
  const t = Number($("filter-system").value);
  const relOf = (i) => sentence.trees[g === null ? 0 : g][1][i - 1];
  if (!kind) return !relation || sentence.form.some((_, i) => relOf(i + 1) === relation);
  if (g === null || Number.isNaN(t)) return true;
  const e = errors(sentence, t);
  const words = kind === "head" ? e.head : kind === "label" ? e.label : [...e.head, ...e.label];
  return words.some((i) => !relation || relOf(i) === relation);
}

function applyFilters() {
  const current = view.shown[view.at];
  view.shown = view.data.sentences.map((_, k) => k).filter((k) => matches(view.data.sentences[k]));
  const again = view.shown.indexOf(current);
  view.at = again >= 0 ? again : 0;
  show();
}

function score(sentence, t) {
  const e = errors(sentence, t), n = sentence.form.length;
  const uas = (n - e.head.length) / n, las = (n - e.head.length - e.label.length) / n;
  return `UAS ${(100 * uas).toFixed(1)}  LAS ${(100 * las).toFixed(1)}`;
}

function show() {
  const panels = $("panels");
  panels.replaceChildren();
  $("count").textContent = `/ ${view.shown.length}` +
    (view.shown.length !== view.data.sentences.length ? ` (of ${view.data.sentences.length})` : "");
  $("position").value = view.shown.length ? view.at + 1 : 0;
  if (!view.shown.length) { $("sentence-info").textContent = "no sentence matches"; return; }
  const sentence = view.data.sentences[view.shown[view.at]];
  $("sentence-info").textContent = `sent_id ${sentence.id}` + (sentence.text ? ` — ${sentence.text}` : "");
  const g = goldIndex();
  view.data.names.forEach((name, t) => {
    const [heads, labels] = sentence.trees[t];
    const panel = el("div", { class: "panel", "data-tree": name });
    const title = el("h2", {}, name + (t === g && name !== "gold" ? " (gold)" : ""));
    if (g !== null && t !== g) title.appendChild(el("span", { class: "score" }, score(sentence, t)));
    panel.appendChild(title);
    const gold = g !== null && t !== g ? sentence.trees[g] : [null, null];
    panel.appendChild(renderTree(sentence.form, sentence.upos, heads, labels, gold[0], gold[1]));
    panels.appendChild(panel);
  });
}

function go(k) {
  if (!view.shown.length) return;
  view.at = Math.max(0, Math.min(view.shown.length - 1, k));
  show();
}

function setData(data) {
  view.data = data;
  const systemSelect = $("filter-system");
  systemSelect.replaceChildren();
  data.names.forEach((name, t) => {
    if (t !== goldIndex()) systemSelect.appendChild(el("option", { value: t }, name));
  });
  const relations = new Set();
  for (const s of data.sentences) for (const [, labels] of s.trees) labels.forEach((l) => relations.add(l));
  const relationSelect = $("filter-relation");
  relationSelect.replaceChildren(el("option", { value: "" }, "any relation"));
  [...relations].sort().forEach((r) => relationSelect.appendChild(el("option", { value: r }, r)));
  view.at = 0;
  applyFilters();
}

// ------------------------------------------------------------------ served: parsing

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

// The gold trees of CoNLL-U text (null when a sentence has no heads).
function goldTrees(text) {
  return text.split(/\n\s*\n/).filter((b) => b.trim()).map((block) => {
    const rows = block.split("\n").filter((l) => /^[0-9]+\t/.test(l)).map((l) => l.split("\t"));
    if (!rows.length || rows.some((r) => !/^[0-9]+$/.test(r[6] || ""))) return null;
    return [rows.map((r) => Number(r[6])), rows.map((r) => r[7])];
  });
}

async function parseText() {
  const status = $("parse-status");
  status.className = "status"; status.textContent = "parsing…";
  const data = $("parse-data").value, input = $("parse-input").value, model = $("parse-model").value;
  try {
    const answer = await api("/v1/parse", { data, input: input || null, model, output: "json" });
    const golds = input === "conllu" || input === "" ? goldTrees(data) : [];
    const withGold = golds.length === answer.result.length && golds.every((t) => t !== null);
    const sentences = answer.result.map((s, k) => {
      const parsed = [s.words.map((w) => w.head), s.words.map((w) => w.deprel)];
      return { id: s.id, text: s.text || "", form: s.words.map((w) => w.form), upos: s.words.map((w) => w.upos),
               trees: withGold ? [golds[k], parsed] : [parsed] };
    });
    setData({ names: withGold ? ["gold", answer.model] : [answer.model], gold: withGold ? 0 : null, sentences });
    status.textContent = `${answer.sentences} sentence${answer.sentences === 1 ? "" : "s"} parsed by ${answer.model}`;
  } catch (error) {
    status.className = "status error"; status.textContent = error.message;
  }
}

// ------------------------------------------------------------------ served: oracle explorer

const explorer = { heads: null, words: null, labels: null, history: [], state: null };

function explorerGold() {
  if ($("explorer-source").value === "typed" || !view.shown.length) {
    const heads = $("explorer-heads").value.trim().split(/[\s,]+/).filter(Boolean).map(Number);
    const typed = $("explorer-words").value.trim().split(/\s+/).filter(Boolean);
    return { heads, words: typed.length === heads.length ? typed : heads.map((_, i) => `w${i + 1}`),
             labels: null };
  }
  const sentence = view.data.sentences[view.shown[view.at]];
  const t = goldIndex() === null ? 0 : goldIndex();
  return { heads: sentence.trees[t][0], words: sentence.form, labels: sentence.trees[t][1] };
}

async function explorerStep(history) {
  const status = $("explorer-status");
  try {
    const state = await api("/v1/explore", { system: $("explorer-system").value.trim(),
                                             heads: explorer.heads, history });
    explorer.history = history;
    explorer.state = state;
    status.className = "status";
    renderExplorer();
  } catch (error) {
    status.className = "status error"; status.textContent = error.message;
  }
}

function renderExplorer() {
  const state = explorer.state, words = ["ROOT", ...explorer.words];
  const status = $("explorer-status");
  const main = state.oracles[0], losses = state.trajectory;
  const delta = losses.length > 1 ? losses[losses.length - 1] - losses[losses.length - 2] : 0;
  status.dataset.terminal = String(state.terminal);
  status.dataset.steps = String(state.history.length);
  status.textContent = `${state.history.length} steps, loss ${losses[losses.length - 1]}`
    + (losses.length > 1 ? ` (${delta >= 0 ? "+" : ""}${delta} by the last step)` : "")
    + (state.terminal ? " — terminal configuration" : "")
    + (state.can_build ? "" : " — the system cannot build this gold tree");
  const conf = $("explorer-configuration");
  conf.replaceChildren();
  for (const [name, value] of Object.entries(state.configuration)) {
    const row = el("div", { class: "field" });
    row.appendChild(el("span", { class: "name" }, name));
    const shown = Array.isArray(value) ? "[" + value.map((w) => `${words[w] ?? w}:${w}`).join(" ") + "]" : String(value);
    row.appendChild(el("span", {}, shown));
    conf.appendChild(row);
  }
  const tree = $("explorer-tree");
  const built = el("div", { class: "panel", id: "explorer-built" });
  built.append(el("h2", {}, "arcs built (wrong heads marked)"),
               renderTree(explorer.words, null, state.heads, null, explorer.heads, null));
  const gold = el("div", { class: "panel", id: "explorer-gold" });
  gold.append(el("h2", {}, "gold"), renderTree(explorer.words, null, explorer.heads, explorer.labels));
  tree.replaceChildren(built, gold);
  const oracleSelect = $("explorer-oracle");
  if ([...oracleSelect.options].map((o) => o.value).join("|") !== state.oracles.join("|")) {
    oracleSelect.replaceChildren(...state.oracles.map((o) => el("option", { value: o }, o)));
  }
  const table = $("explorer-moves");
  table.replaceChildren();
  const head = el("tr");
  ["transition", "arc", ...state.oracles.map((o) => `cost: ${o}${state.exact[o] ? "" : " (estimate)"}`), ""]
    .forEach((h) => head.appendChild(el("th", {}, h)));
  table.appendChild(head);
  for (const move of state.legal) {
    const row = el("tr", { "data-action": move.action });
    row.appendChild(el("td", {}, move.action));
    row.appendChild(el("td", {}, move.arc ? `${words[move.arc[0]]} → ${words[move.arc[1]]}` : ""));
    for (const o of state.oracles) {
      const cost = move.costs[o];
      const least = Math.min(...state.legal.map((m) => m.costs[o]));
      const cls = [cost === least ? "zero" : "costly", state.choice[o] === move.action ? "choice" : ""];
      row.appendChild(el("td", { class: cls.join(" ").trim() }, String(cost)));
    }
    const cell = el("td");
    const button = el("button", { class: "apply" }, "apply");
    button.addEventListener("click", () => explorerStep([...explorer.history, move.action]));
    cell.appendChild(button);
    row.appendChild(cell);
    table.appendChild(row);
  }
  $("explorer-losses").textContent = "loss now: " + state.oracles.map((o) => `${o} ${state.loss[o]}`).join(", ")
    + ` — loss after each step (${main}): ${losses.join(" ")}`;
}

function startExplorer() {
  const gold = explorerGold();
  explorer.heads = gold.heads;
  explorer.words = gold.words;
  explorer.labels = gold.labels;
  explorerStep([]);
}

// ------------------------------------------------------------------ start

function bind() {
  $("prev").addEventListener("click", () => go(view.at - 1));
  $("next").addEventListener("click", () => go(view.at + 1));
  $("position").addEventListener("change", () => go(Number($("position").value) - 1));
  for (const id of ["search", "filter-system", "filter-error", "filter-relation", "filter-length"])
    $(id).addEventListener("input", applyFilters);
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "TEXTAREA") return;
    if (event.key === "ArrowLeft") go(view.at - 1);
    if (event.key === "ArrowRight") go(view.at + 1);
  });
  document.querySelectorAll("#tabs button").forEach((button) => button.addEventListener("click", () => {
    document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b === button));
    const tab = button.dataset.tab;
    document.querySelectorAll(".tab-trees").forEach((s) => { s.hidden = tab !== "trees"; });
    document.querySelectorAll(".tab-explorer").forEach((s) => { s.hidden = tab !== "explorer"; });
  }));
}

async function startServed() {
  $("parse-run").addEventListener("click", parseText);
  $("explorer-start").addEventListener("click", startExplorer);
  $("explorer-undo").addEventListener("click", () => {
    if (explorer.history.length) explorerStep(explorer.history.slice(0, -1));
  });
  $("explorer-follow").addEventListener("click", () => {
    const state = explorer.state;
    const choice = state && state.choice[$("explorer-oracle").value || state.oracles[0]];
    if (choice) explorerStep([...explorer.history, choice]);
  });
  try {
    const models = await api("/v1/models");
    $("parse-model").replaceChildren(...models.models.map((m) =>
      el("option", { value: m.name }, `${m.name} (${m.system})`)));
    const systems = await api("/v1/systems");
    $("explorer-systems").replaceChildren(...systems.systems.map((s) => el("option", { value: s })));
  } catch (error) {
    $("parse-status").textContent = error.message;
  }
  document.body.dataset.ready = "true";
}

bind();
const embedded = JSON.parse($("arcwise-data").textContent || "null");
if (embedded && embedded.sentences) {
  document.body.classList.add("offline");
  setData(embedded);
  document.body.dataset.ready = "true";
} else {
  setData({ names: [], gold: null, sentences: [] });
  startServed();
}
