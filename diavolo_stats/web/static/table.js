// The table as SVG, in millimetres: the viewBox is the table model's scatter area, so every die is
// drawn at the position the roll is judged on, and the browser scales the whole table to the window
// with its aspect kept (preserveAspectRatio="xMidYMid meet").

const SVG = "http://www.w3.org/2000/svg";

// Each die is painted by its color's class (`die-black`: its `face` and `pip`s), from /looks.css, which the
// server writes from the drill's die looks: every color a game may be drilled in, as the terminal paints it.

// A symbol per command, drawn on the command die; its name is written beside it.
export const COMMAND_SYMBOLS = {
  "highest-total": "Σ+",
  "lowest-total": "Σ−",
  "largest-spread": "↕",
  "most-odd": "odd",
  "highest-die": "▲",
  closest: "◎",
};

// Pip places per face, in fractions of the die's edge from its center.
const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

function element(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// A command's words: the server's (`words`, the roll's `commands[name]`: label, rule, code), else the name.
function commandLabel(command, words) {
  return words ? words.label : command.replace("-", " ");
}

// A command's symbol on the die: a built-in's own, else its code (the initials of its label, as the terminal's).
function commandSymbol(command, words) {
  return COMMAND_SYMBOLS[command] ?? (words ? words.code : command.slice(0, 2).toUpperCase());
}

// The banner above the table: the command's symbol and its label ("most odd" alone: its symbol is a word of it).
export function commandBanner(command, words) {
  const symbol = commandSymbol(command, words);
  const label = commandLabel(command, words);
  return label.split(" ").includes(symbol) ? label : `${symbol} ${label}`;
}

// Size the table to a game: the felt and the fixation cross.
export function setTable(svg, table) {
  const side = table.scatter_mm;
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  const felt = svg.querySelector("#felt");
  felt.setAttribute("width", side);
  felt.setAttribute("height", side);
  const c = side / 2;
  const arm = table.die_mm * 0.6;
  svg.querySelector("#cross").setAttribute("d", `M ${c - arm} ${c} H ${c + arm} M ${c} ${c - arm} V ${c + arm}`);
}

// One die of `color`: a rounded square of `size` mm centered at (x, y), with pips (`pips`: every face 1 to 6),
// else numerals.
export function die(x, y, size, color, value, pips) {
  const group = element("g", { class: `die die-${color}`, transform: `translate(${x} ${y})` });
  group.append(element("rect", {
    class: "face", x: -size / 2, y: -size / 2, width: size, height: size, rx: size * 0.18,
    "stroke-width": size * 0.04,
  }));
  if (pips && PIPS[value]) {
    for (const [px, py] of PIPS[value]) {
      group.append(element("circle", { class: "pip", cx: px * size * 0.27, cy: py * size * 0.27, r: size * 0.095 }));
    }
  } else {
    group.append(element("text", {
      class: "pip", x: 0, y: 0, "font-size": size * 0.55, "text-anchor": "middle", "dominant-baseline": "central",
      "font-weight": "bold",
    }, String(value)));
  }
  return group;
}

// The command die: a grey rounded square with the command's symbol, and its label underneath.
export function commandDie(x, y, size, command, sceneSide, words) {
  const group = element("g", { class: "die command-die die-grey", transform: `translate(${x} ${y})` });
  group.append(element("rect", {
    class: "face", x: -size / 2, y: -size / 2, width: size, height: size, rx: size * 0.18,
    "stroke-width": size * 0.04,
  }));
  const symbol = commandSymbol(command, words);
  group.append(element("text", {
    class: "pip", x: 0, y: 0, "font-size": size * [0.62, 0.62, 0.46, 0.38][Math.min(symbol.length, 3)],
    "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold",
  }, symbol));
  // The name goes below the die, or above it at the bottom edge of the table; never off the felt.
  const below = y + size * 1.3 <= sceneSide;
  const half = size * 2.4; // about half the longest name's width
  group.append(element("text", {
    x: Math.min(Math.max(x, half), sceneSide - half) - x, y: below ? size * 0.95 : -size * 0.95,
    "font-size": size * 0.55, "text-anchor": "middle", "dominant-baseline": "central",
    class: "command-name",
  }, commandLabel(command, words)));
  return group;
}

// A die is drawn at least this many pixels wide, so that a phone's small table stays readable; its center
// stays where it landed, which is what the rules judge.
const MIN_DIE_PX = 28;

// Draw a roll: the command die, then (unless `dice` is false: command first) every colored die.
export function drawRoll(svg, roll, { dice = true } = {}) {
  const layer = svg.querySelector("#dice");
  layer.replaceChildren();
  const table = roll.game.table;
  const shownPx = svg.getBoundingClientRect().width; // the table's scatter_mm, on screen
  const size = shownPx > 0 ? Math.max(table.die_mm, (MIN_DIE_PX * table.scatter_mm) / shownPx) : table.die_mm;
  const [cx, cy] = roll.positions.command;
  const words = roll.commands ? roll.commands[roll.command] : undefined;
  layer.append(commandDie(cx, cy, size, roll.command, table.scatter_mm, words));
  if (!dice) return;
  const pips = roll.pips ?? roll.game.sides <= 6;
  for (const color of roll.game.colors) {
    roll.positions[color].forEach(([x, y], index) => {
      layer.append(die(x, y, size, color, roll.dice[color][index], pips));
    });
  }
}

export function clearRoll(svg) {
  svg.querySelector("#dice").replaceChildren();
}

export function showFixation(svg, shown) {
  svg.querySelector("#fixation").setAttribute("visibility", shown ? "visible" : "hidden");
}
