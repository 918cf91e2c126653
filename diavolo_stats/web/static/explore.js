// The variant explorer: every change of a control asks the server for the exact odds (/api/odds, the
// document of `diavolo odds --format json`) and, when closest is on the command die, for a short
// simulation (/api/simulate); then redraws the table, the chart and the reproducing command.

const SVG = "http://www.w3.org/2000/svg";
const SIMULATION = { rounds: 20000, seed: 1 };
const form = document.querySelector("#controls");
let asked = 0; // answers to older questions are dropped

function fields() {
  const data = new FormData(form);
  return {
    colors: String(data.get("colors")).split(",").map((c) => c.trim()).filter(Boolean).join(","),
    dice_per_color: String(data.get("dice_per_color")),
    sides: String(data.get("sides")),
    commands: data.getAll("commands").join(","),
    tolerance: String(data.get("tolerance")),
    scatter_mm: String(data.get("scatter_mm")),
    die_mm: String(data.get("die_mm")),
  };
}

async function getJson(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error);
  return body;
}

function percent(probability) {
  return `${(100 * probability).toFixed(2)}\u00a0%`;
}

function cell(tag, text) {
  return Object.assign(document.createElement(tag), { textContent: text });
}

function drawTable(odds) {
  const table = document.querySelector("#odds");
  const colors = odds.variant.colors;
  const head = document.createElement("tr");
  for (const name of ["command", "tie (grey)", "tie fraction", ...colors.map((c) => `P(${c})`)]) head.append(cell("th", name));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...Object.entries(odds.commands).map(([command, entry]) => {
    const row = document.createElement("tr");
    row.dataset.command = command;
    row.append(cell("td", command), cell("td", percent(entry.tie_probability)), cell("td", entry.tie_fraction));
    row.lastChild.className = "fraction";
    for (const color of colors) row.append(cell("td", percent(entry.answer_probability[color])));
    return row;
  }));
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
  const left = 120;
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

// The controls as command-line flags, in three lines: the dice, the commands, the table model.
function flags(values) {
  const flag = (name) => (values[name] === "" ? "" : `--${name.replaceAll("_", "-")} ${values[name]}`);
  const lines = [["colors", "dice_per_color", "sides"], ["commands"], ["tolerance", "scatter_mm", "die_mm"]];
  return lines.map((names) => names.map(flag).filter(Boolean).join(" ")).filter(Boolean).join(" \\\n    ");
}

// A refused variant leaves no odds of another on the page: the results go, the error names every bad field
// ("field: what is wrong; field: ...") and marks its control.
function clearResults(message) {
  const odds = document.querySelector("#odds");
  odds.tHead.replaceChildren();
  odds.tBodies[0].replaceChildren();
  for (const id of ["closest", "command-line"]) document.getElementById(id).textContent = "";
  document.querySelector("#chart").replaceChildren();
  for (const id of ["chart", "command-line"]) document.getElementById(id).hidden = Boolean(message);
  document.querySelector("#explore-error").textContent = message;
  const named = message.split("; ").map((part) => part.split(":")[0]);
  for (const input of form.querySelectorAll("input")) input.toggleAttribute("aria-invalid", named.includes(input.name));
}

async function update() {
  const mine = ++asked;
  const values = fields();
  const query = new URLSearchParams(values);
  try {
    const odds = await getJson(`/api/odds?${query}`);
    let simulation = null;
    if (values.commands.split(",").includes("closest")) {
      simulation = await getJson(`/api/simulate?${query}&${new URLSearchParams({ rounds: SIMULATION.rounds, seed: SIMULATION.seed })}`);
    }
    if (mine !== asked) return;
    clearResults("");
    drawTable(odds);
    const bars = Object.entries(odds.commands).map(([command, entry]) => ({ command, value: entry.tie_probability }));
    const closest = document.querySelector("#closest");
    if (simulation) {
      const entry = simulation.commands.closest;
      bars.push({ command: "closest", value: entry.tie_probability, low: entry.ci95[0], high: entry.ci95[1], simulated: true });
      closest.textContent = `closest: ties in ${percent(entry.tie_probability)} of ${entry.rounds.toLocaleString("en")} ` +
        `simulated rounds (95 % interval ${percent(entry.ci95[0])} to ${percent(entry.ci95[1])}); ${simulation.table_model}`;
    }
    drawChart(bars);
    const lines = [`diavolo odds ${flags(values)}`];
    if (simulation) lines.push(`diavolo simulate --rounds ${SIMULATION.rounds} --seed ${SIMULATION.seed} ${flags(values)}`);
    document.querySelector("#command-line").textContent = lines.join("\n");
    document.body.dataset.state = "ready";
  } catch (failure) {
    if (mine !== asked) return;
    clearResults(failure.message);
    document.body.dataset.state = "error";
  }
}

let pending = null;
form.addEventListener("input", () => {
  clearTimeout(pending);
  document.body.dataset.state = "updating";
  pending = setTimeout(update, 150);
});
form.addEventListener("submit", (event) => event.preventDefault());
update();
