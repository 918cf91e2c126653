// The variant explorer: a command editor over a variant file. The form holds the editor's state; every change
// reads it as a variant file's document (`documentOf`) and posts it to /api/explore, which reads it with the
// variant file's own reader and answers the exact odds (the document of `diavolo odds --format json`), a short
// simulation when closest is on the command die, and the TOML file that reproduces the view.

import { setState } from "./page.js";
import { requestJson } from "./request.js";
import { served } from "./served.js";

const SVG = "http://www.w3.org/2000/svg";
const START = served("explore-start");
const form = document.querySelector("#controls");
const PLACEHOLDER = /[KV]$/; // nth-highest:K, count:=V, ...: a figure with its parameter
let asked = 0; // answers to older questions are dropped
let fileUrl = null;

// ---- the editor: drawn from a document, read back as one ----------------------------------------------------

function facesText(faces) {
  return faces.join(",");
}

function numberOf(text) {
  const written = String(text).trim();
  return /^-?[0-9]+(\.[0-9]+)?$/.test(written) ? Number(written) : written; // the server refuses other text by name
}

function listOf(text) {
  return String(text).split(",").map((item) => item.trim()).filter(Boolean);
}

function input(name) {
  return form.elements.namedItem(name);
}

function drawColorDice(own) {
  const body = document.querySelector("#color-dice tbody");
  const kept = own ?? readColorDice();
  body.replaceChildren(...listOf(input("colors").value).map((color) => {
    const row = document.createElement("tr");
    row.dataset.color = color;
    const count = Object.assign(document.createElement("input"), {
      type: "number", min: 1, placeholder: "as all", value: kept[color]?.count ?? "",
    });
    count.dataset.key = "count";
    count.setAttribute("aria-label", `${color}: dice`);
    const faces = Object.assign(document.createElement("input"), {
      placeholder: "as all", value: kept[color]?.faces ? facesText(kept[color].faces) : "",
    });
    faces.dataset.key = "faces";
    faces.setAttribute("aria-label", `${color}: faces`);
    const cells = [Object.assign(document.createElement("td"), { textContent: color }), count, faces];
    row.append(...cells.map((node) => (node.tagName === "TD" ? node : wrap("td", node))));
    return row;
  }));
}

function wrap(tag, node) {
  const outer = document.createElement(tag);
  outer.append(node);
  return outer;
}

function readColorDice() {
  const own = {};
  for (const row of document.querySelectorAll("#color-dice tbody tr")) {
    const table = {};
    const count = row.querySelector("[data-key=count]");
    const faces = row.querySelector("[data-key=faces]");
    count.dataset.field = `dice.${row.dataset.color}.count`;
    faces.dataset.field = `dice.${row.dataset.color}.faces`;
    if (count.value.trim() !== "") table.count = numberOf(count.value);
    if (faces.value.trim() !== "") table.faces = listOf(faces.value).map(numberOf);
    if (Object.keys(table).length) own[row.dataset.color] = table;
  }
  return own;
}

function drawDie(faces) {
  document.querySelector("#die tbody").replaceChildren(...START.builtins.map((command) => {
    const row = document.createElement("tr");
    row.dataset.command = command.name;
    const count = Object.assign(document.createElement("input"), {
      type: "number", min: 0, value: faces[command.name] ?? 0,
    });
    count.dataset.key = "die";
    count.setAttribute("aria-label", `${command.name}: faces on the die`);
    const name = Object.assign(document.createElement("td"), { textContent: command.label, title: command.rule });
    row.append(name, wrap("td", count));
    return row;
  }));
}

function criterionNode(text, wins) {
  const node = document.querySelector("#criterion-template").content.firstElementChild.cloneNode(true);
  const select = node.querySelector("[data-key=figure]");
  for (const figure of START.vocabulary) select.append(new Option(figure, figure));
  const chosen = START.vocabulary.find((figure) => figure === text)
    ?? START.vocabulary.find((figure) => PLACEHOLDER.test(figure) && text.startsWith(figure.slice(0, -1))
      && /^-?[0-9]+$/.test(text.slice(figure.length - 1)));
  select.value = chosen ?? "sum";
  node.querySelector("[data-key=parameter]").value = chosen && PLACEHOLDER.test(chosen) ? text.slice(chosen.length - 1) : "";
  node.querySelector("[data-key=wins]").value = wins;
  showParameter(node);
  return node;
}

function showParameter(node) {
  const parameter = node.querySelector("[data-key=parameter]");
  const figure = node.querySelector("[data-key=figure]").value;
  parameter.hidden = !PLACEHOLDER.test(figure);
  parameter.placeholder = figure.slice(-1);
  if (!parameter.hidden && parameter.value === "") parameter.value = figure.endsWith("K") ? 2 : 6;
}

function figureOf(node) {
  const figure = node.querySelector("[data-key=figure]").value;
  return PLACEHOLDER.test(figure) ? figure.slice(0, -1) + node.querySelector("[data-key=parameter]").value.trim() : figure;
}

function tieBreakNode(text, wins) {
  const item = document.createElement("li");
  const remove = Object.assign(document.createElement("button"), { type: "button", textContent: "remove" });
  remove.dataset.action = "remove-tie-break";
  item.append("then ", criterionNode(text, wins), remove);
  return item;
}

function commandNode(name, section, faces) {
  const card = document.querySelector("#command-template").content.firstElementChild.cloneNode(true);
  card.querySelector("[data-key=name]").value = name;
  card.querySelector("[data-key=label]").value = section.label ?? "";
  card.querySelector("[data-key=rule]").value = section.rule ?? "";
  const wins = section.wins ?? "highest";
  card.querySelector("[data-key=first]").append(criterionNode(section.figure ?? "sum", wins));
  for (const step of section.then ?? []) {
    const text = typeof step === "string" ? step : step.figure;
    card.querySelector(".then").append(tieBreakNode(text, typeof step === "string" ? wins : step.wins ?? wins));
  }
  const die = Object.assign(document.createElement("input"), { type: "number", min: 0, value: faces });
  die.dataset.key = "die";
  card.querySelector("legend").after(Object.assign(document.createElement("label"), { textContent: "faces on the die " }));
  card.querySelector("legend + label").append(die);
  return card;
}

function readCommand(card) {
  const name = card.querySelector("[data-key=name]").value.trim();
  const where = `commands.${name}`;
  const section = {};
  const set = (key, value) => {
    card.querySelector(`[data-key=${key}]`).dataset.field = `${where}.${key}`;
    if (value !== "") section[key] = value;
  };
  card.querySelector("[data-key=name]").dataset.field = where;
  set("label", card.querySelector("[data-key=label]").value.trim());
  set("rule", card.querySelector("[data-key=rule]").value.trim());
  const first = card.querySelector("[data-key=first]");
  section.figure = figureOf(first);
  section.wins = first.querySelector("[data-key=wins]").value;
  first.querySelector("[data-key=figure]").dataset.field = `${where}.figure`;
  first.querySelector("[data-key=parameter]").dataset.field = `${where}.figure`;
  first.querySelector("[data-key=wins]").dataset.field = `${where}.wins`;
  const then = [...card.querySelectorAll(".then > li")].map((item, index) => {
    for (const control of item.querySelectorAll("select, input")) control.dataset.field = `${where}.then[${index}]`;
    const wins = item.querySelector("[data-key=wins]").value;
    return wins === section.wins ? figureOf(item) : { figure: figureOf(item), wins };
  });
  if (then.length) section.then = then;
  return [name, section];
}

// The editor as a variant file's document: the keys of the file, as `diavolo odds --variant FILE` reads them
// (its commands as [name, section] pairs, for `bodyOf`).
function documentOf() {
  const document_ = {};
  const name = input("name").value.trim();
  if (name) document_.name = name;
  document_.colors = listOf(input("colors").value);
  document_.dice_per_color = numberOf(input("dice_per_color").value);
  const faces = listOf(input("faces").value).map(numberOf);
  const plain = faces.length > 0 && faces.every((face, index) => face === index + 1);
  input("faces").dataset.field = plain ? "sides" : "faces";
  if (plain) document_.sides = faces.length;
  else document_.faces = faces;
  const own = readColorDice();
  if (Object.keys(own).length) document_.dice = own;
  const die = [];
  const repeat = (commandName, count) => {
    const times = Number(count.value);
    count.dataset.field = "command_die";
    if (!(Number.isInteger(times) && times >= 0)) { // a count exists only here: the file holds the faces themselves
      throw Object.assign(new Error(`command_die: the faces of ${commandName} on the die must be a whole number ` +
        `of 0 or more, got ${count.value}`), { field: "command_die" });
    }
    for (let face = 0; face < Math.min(times, START.limits.die_faces + 1); face++) die.push(commandName);
  };
  for (const row of document.querySelectorAll("#die tbody tr")) repeat(row.dataset.command, row.querySelector("[data-key=die]"));
  const commands = [];
  for (const card of document.querySelectorAll("#defined > .command")) {
    const [commandName, section] = readCommand(card);
    commands.push([commandName, section]);
    repeat(commandName, card.querySelector("legend + label [data-key=die]"));
  }
  if (commands.length) document_.commands = commands;
  document_.command_die = die;
  document_.table = {
    scatter_mm: numberOf(input("scatter_mm").value), die_mm: numberOf(input("die_mm").value),
    tolerance: numberOf(input("tolerance").value),
  };
  return document_;
}

// The document as JSON text. Two commands given one name stay two keys, which the server refuses by name, as
// TOML refuses a table declared twice (an object built here would keep the last one, silently).
function bodyOf(file) {
  const { commands, ...rest } = file;
  if (!commands) return JSON.stringify(rest);
  const sections = commands.map(([name, section]) => `${JSON.stringify(name)}:${JSON.stringify(section)}`).join(",");
  return JSON.stringify({ ...rest, commands: null }).replace('"commands":null', `"commands":{${sections}}`);
}

function drawEditor(start) {
  const file = start.document;
  input("name").value = file.name ?? "";
  input("colors").value = file.colors.join(",");
  input("dice_per_color").value = file.dice_per_color;
  input("faces").value = facesText(file.faces ?? Array.from({ length: file.sides }, (_, index) => index + 1));
  drawColorDice(file.dice ?? {});
  const faces = {};
  for (const name of file.command_die) faces[name] = (faces[name] ?? 0) + 1;
  drawDie(faces);
  document.querySelector("#defined").replaceChildren(...Object.entries(file.commands ?? {})
    .map(([name, section]) => commandNode(name, section, faces[name] ?? 0)));
  for (const key of ["scatter_mm", "die_mm", "tolerance"]) input(key).value = start.table[key];
}

function addCommand() {
  const taken = new Set([...START.builtins.map((c) => c.name),
    ...[...document.querySelectorAll("#defined [data-key=name]")].map((node) => node.value.trim())]);
  let name = "my-command";
  for (let number = 2; taken.has(name); number++) name = `my-command-${number}`;
  document.querySelector("#defined").append(commandNode(name, { figure: "sum", wins: "highest" }, 1));
}

form.addEventListener("click", (event) => {
  const action = event.target.dataset?.action ?? (event.target.id === "add-command" ? "add-command" : null);
  if (!action) return;
  const card = event.target.closest(".command");
  if (action === "add-command") addCommand();
  if (action === "remove-command") card.remove();
  if (action === "add-tie-break") {
    card.querySelector(".then").append(tieBreakNode("sum", card.querySelector("[data-key=first] [data-key=wins]").value));
  }
  if (action === "remove-tie-break") event.target.closest("li").remove();
  changed();
});

// ---- the view: the exact odds, the overall grey rate, the chart and the file ----------------------------------

function percent(probability) {
  return `${(100 * probability).toFixed(2)}\u00a0%`;
}

function cell(tag, text) {
  return Object.assign(document.createElement(tag), { textContent: text });
}

function labelOf(odds, name) {
  return odds.variant.defined_commands?.[name]?.label ?? START.builtins.find((c) => c.name === name)?.label ?? name;
}

function drawTable(view) {
  const table = document.querySelector("#odds");
  const odds = view.odds;
  const colors = odds.variant.colors;
  const head = document.createElement("tr");
  for (const name of ["command", "faces", "tie (grey)", "tie fraction", ...colors.map((c) => `P(${c})`)]) head.append(cell("th", name));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...Object.entries(odds.commands).map(([command, entry]) => {
    const row = document.createElement("tr");
    row.dataset.command = command;
    row.append(cell("td", labelOf(odds, command)), cell("td", String(view.die[command])),
      cell("td", percent(entry.tie_probability)), cell("td", entry.tie_fraction));
    row.lastChild.className = "fraction";
    for (const color of colors) {
      row.append(cell("td", percent(entry.answer_probability[color])));
      row.lastChild.title = entry.answer_fraction[color];
    }
    return row;
  }));
}

function drawOverall(view) {
  const overall = document.querySelector("#overall");
  const exact = view.odds?.overall;
  if (view.limit) overall.textContent = view.limit;
  else if (exact.tie_probability !== null) {
    overall.textContent = `overall grey rate (command die of ${exact.faces} faces): ${percent(exact.tie_probability)} = ${exact.tie_fraction}`;
  } else {
    const simulated = view.simulation.overall;
    overall.textContent = `overall grey rate (command die of ${simulated.faces} faces, closest simulated): ` +
      `${percent(simulated.tie_probability)} (95 % interval ${percent(simulated.ci95[0])} to ${percent(simulated.ci95[1])})`;
  }
  overall.dataset.fraction = exact?.tie_fraction ?? "";
}

function svgNode(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Horizontal bars: one per command, the exact tie probability, or the simulated one with its interval.
function drawChart(bars) {
  const chart = document.querySelector("#chart");
  const rowHeight = 28;
  const left = 150;
  const width = 560;
  const plot = width - left - 70;
  const height = rowHeight * bars.length + 30;
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const largest = Math.max(0.05, ...bars.map((bar) => bar.high ?? bar.value));
  const scale = plot / largest;
  const nodes = [];
  bars.forEach((bar, index) => {
    const y = 10 + index * rowHeight;
    nodes.push(svgNode("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, bar.command));
    nodes.push(svgNode("rect", {
      x: left, y, width: Math.max(0.5, bar.value * scale), height: rowHeight - 8,
      class: bar.simulated ? "bar-simulated" : "bar-value",
    }));
    if (bar.simulated) {
      nodes.push(svgNode("line", { x1: left + bar.low * scale, x2: left + bar.high * scale, y1: y + 10, y2: y + 10, class: "whisker" }));
    }
    const end = left + (bar.high ?? bar.value) * scale;
    nodes.push(svgNode("text", { x: end + 6, y: y + 13 }, percent(bar.value) + (bar.simulated ? " (sim.)" : "")));
  });
  nodes.push(svgNode("line", { x1: left, x2: left, y1: 5, y2: height - 20, class: "axis" }));
  chart.replaceChildren(...nodes);
}

function drawFile(view) {
  const { name, text } = view.file;
  document.querySelector("#variant-file").textContent = text;
  const link = document.querySelector("#download");
  if (fileUrl) URL.revokeObjectURL(fileUrl);
  fileUrl = URL.createObjectURL(new Blob([text], { type: "application/toml" }));
  link.href = fileUrl;
  link.download = name;
  const lines = [`diavolo odds --variant ${name}`];
  if (view.simulation) {
    lines.push(`diavolo simulate --variant ${name} --rounds ${view.simulation.rounds} --seed ${view.simulation.seed}`);
  }
  document.querySelector("#command-line").textContent = lines.join("\n");
}

// A refused variant leaves no odds of another on the page: the results go, the error names the key and marks
// its control (the one whose key is the error's, or the nearest that holds it).
function clearResults(message, field) {
  const odds = document.querySelector("#odds");
  odds.tHead.replaceChildren();
  odds.tBodies[0].replaceChildren();
  for (const id of ["closest", "command-line", "variant-file", "overall"]) document.getElementById(id).textContent = "";
  document.querySelector("#chart").replaceChildren();
  for (const id of ["chart", "command-line", "variant-file", "download"]) document.getElementById(id).hidden = Boolean(message);
  document.querySelector("#explore-error").textContent = message;
  const controls = [...form.querySelectorAll("[data-field]")];
  const holds = (control) => field === control.dataset.field || field?.startsWith(`${control.dataset.field}.`)
    || field?.startsWith(`${control.dataset.field}[`);
  const nearest = Math.max(0, ...controls.filter(holds).map((control) => control.dataset.field.length));
  for (const control of controls) {
    control.toggleAttribute("aria-invalid", Boolean(field) && holds(control) && control.dataset.field.length === nearest);
  }
}

// An answer to a form that has changed since is never shown; the page counts them (data-dropped).
function dropped() {
  document.body.dataset.dropped = String(Number(document.body.dataset.dropped ?? 0) + 1);
}

async function update() {
  const mine = ++asked;
  try {
    // asked again by the requests' policy (the server's heavy requests all taken: 503) while still the latest
    const view = await requestJson("/api/explore", { payload: bodyOf(documentOf()), wanted: () => mine === asked });
    if (mine !== asked) return dropped();
    clearResults("", null);
    drawOverall(view);
    const bars = [];
    if (view.odds) {
      drawTable(view);
      for (const [command, entry] of Object.entries(view.odds.commands)) bars.push({ command, value: entry.tie_probability });
    }
    const closest = document.querySelector("#closest");
    if (view.simulation) {
      const entry = view.simulation.commands.closest;
      bars.push({ command: "closest", value: entry.tie_probability, low: entry.ci95[0], high: entry.ci95[1], simulated: true });
      closest.textContent = `closest: ties in ${percent(entry.tie_probability)} of ${entry.rounds.toLocaleString("en")} ` +
        `simulated rounds (95 % interval ${percent(entry.ci95[0])} to ${percent(entry.ci95[1])}); ${view.simulation.table_model}`;
    }
    drawChart(bars);
    drawFile(view);
    setState("ready");
  } catch (failure) {
    if (mine !== asked) return dropped();
    clearResults(failure.message, failure.field);
    setState("error");
  }
}

let pending = null;
function changed() {
  clearTimeout(pending);
  asked += 1; // an answer still to come is to the form as it was: never shown, the page waits for the next
  setState("updating");
  pending = setTimeout(update, 150);
}

form.addEventListener("input", (event) => {
  if (event.target.name === "colors") drawColorDice();
  if (event.target.dataset.key === "figure") showParameter(event.target.closest(".criterion-fields"));
  changed();
});
form.addEventListener("submit", (event) => event.preventDefault());
drawEditor(START);
update();
