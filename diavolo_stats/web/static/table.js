// The table as SVG, in millimetres: the viewBox is the table model's scatter area, so every die is
// drawn at the position the roll is judged on, and the browser scales the whole table to the window
// with its aspect kept (preserveAspectRatio="xMidYMid meet"). On a small screen the dice are drawn larger
// than the model's (MIN_DIE_PX), as far as the roll's closest two dice allow (none is drawn on another),
// and the felt then gets a border of half the extra around the scatter area, so that a die that landed at
// the edge still lies wholly on the felt.

const SVG = "http://www.w3.org/2000/svg";

// Each die is painted by its color's class (`die-black`: its `face` and `pip`s), from /looks.css, which the
// server writes from the drill's die looks: every color a game may be drilled in, as the terminal paints it.

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

// A command's words are the server's (`words`, a roll's `commands[name]`, drill.teaching.command_words):
// its label, rule, code, and the symbol drawn on the die (a built-in's own, else its code).

// The banner above the table: the command's symbol and its label ("most odd" alone: its symbol is a word of it).
export function commandBanner(words) {
  return words.label.split(" ").includes(words.symbol) ? words.label : `${words.symbol} ${words.label}`;
}

// A die is drawn at least this many pixels wide, so that a phone's small table stays readable; its center
// stays where it landed, which is what the rules judge.
const MIN_DIE_PX = 28;

// The drawn die's edge and the felt's border beyond the scatter area, in mm, for the table's width on screen.
// The felt of side + 2 border is shown `shownPx` wide, and a die is at least MIN_DIE_PX of it; every die's
// center lands at least die_mm / 2 inside the scatter area, so a border of (size - die_mm) / 2 holds it.
function drawnSizes(svg, table) {
  const shownPx = svg.getBoundingClientRect().width;
  const side = table.scatter_mm;
  const die = table.die_mm;
  // size = MIN_DIE_PX * (side + size - die) / shownPx, solved for size
  const size = shownPx > MIN_DIE_PX && (MIN_DIE_PX * side) / shownPx > die
    ? (MIN_DIE_PX * (side - die)) / (shownPx - MIN_DIE_PX) : die;
  return { size, border: (size - die) / 2 };
}

// Size the table to a game: the felt (the scatter area and the border the drawn dice need) and the
// fixation cross. Returns the drawn die's edge in mm.
export function setTable(svg, table) {
  const side = table.scatter_mm;
  const { size, border } = drawnSizes(svg, table);
  svg.setAttribute("viewBox", `${-border} ${-border} ${side + 2 * border} ${side + 2 * border}`);
  const felt = svg.querySelector("#felt");
  for (const [name, value] of [["x", -border], ["y", -border], ["width", side + 2 * border],
    ["height", side + 2 * border]]) felt.setAttribute(name, value);
  const c = side / 2;
  const arm = table.die_mm * 0.6;
  svg.querySelector("#cross").setAttribute("d", `M ${c - arm} ${c} H ${c + arm} M ${c} ${c - arm} V ${c + arm}`);
  return size;
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

// The command die: a grey rounded square with the command's symbol.
export function commandDie(x, y, size, words) {
  const group = element("g", { class: "die command-die die-grey", transform: `translate(${x} ${y})` });
  group.append(element("rect", {
    class: "face", x: -size / 2, y: -size / 2, width: size, height: size, rx: size * 0.18,
    "stroke-width": size * 0.04,
  }));
  const { symbol } = words;
  group.append(element("text", {
    class: "pip", x: 0, y: 0, "font-size": size * [0.62, 0.62, 0.46, 0.38][Math.min(symbol.length, 3)],
    "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold",
  }, symbol));
  return group;
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

// The command's label beside its die at (x, y): below it, above, right or left (smaller if it must),
// the first place that is on the felt (`felt`: its box) and clear of every die (`dice`: their boxes). Where
// no place is free it is left out: the banner above the table names the command too. Its box is the one the
// browser measures, taken about the text's anchor as measured: the font is scaled to whole screen pixels, so
// on a small table the box is not centered on the anchor that "central" asks for.
function placeLabel(layer, x, y, size, label, felt, dice) {
  const text = element("text", { class: "command-name", "text-anchor": "middle", "dominant-baseline": "central" },
    label);
  layer.append(text);
  for (const fontSize of [size * 0.55, size * 0.42]) {
    text.setAttribute("font-size", fontSize);
    text.setAttribute("x", 0);
    text.setAttribute("y", 0);
    const { x: left, y: top, width, height } = text.getBBox();
    const gap = size * 0.5 + fontSize * 0.2;
    // below and above: slid along the edge to stay on the felt
    const along = Math.min(Math.max(x - width / 2, felt.x), felt.x + felt.width - width);
    for (const [boxX, boxY] of [[along, y + gap], [along, y - gap - height], [x + gap, y - height / 2],
      [x - gap - width, y - height / 2]]) {
      const box = { x: boxX, y: boxY, width, height };
      const onFelt = box.x >= felt.x && box.y >= felt.y && box.x + width <= felt.x + felt.width
        && box.y + height <= felt.y + felt.height;
      if (onFelt && !dice.some((die) => overlaps(box, die))) {
        text.setAttribute("x", boxX - left);
        text.setAttribute("y", boxY - top);
        return text;
      }
    }
  }
  text.remove();
  return null;
}

// The largest edge, in mm, at which square dice centered at `centers` ([x, y] each) cover none of each other:
// the smallest distance along x or y, the larger of the two, between any two of them.
function clearEdge(centers) {
  let edge = Infinity;
  centers.forEach(([x, y], index) => {
    for (const [u, v] of centers.slice(index + 1)) {
      edge = Math.min(edge, Math.max(Math.abs(x - u), Math.abs(y - v)));
    }
  });
  return edge;
}

// The roll drawn on each table ({roll, dice, width}: what drawRoll drew, for the table's on-screen width then).
const drawn = new WeakMap();

// A drawn roll is drawn again when its table's width on screen changes (a phone turned, a window resized, the
// page's layout settling after the roll came): the dice's least size is in screen pixels, and the label's box
// as the browser measures it changes with the width (its font is scaled to whole pixels), so a label placed
// clear of a die at one width can cover it at another. A hidden table (no width) keeps its drawing.
const redraw = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const shown = drawn.get(target);
    const { width } = target.getBoundingClientRect();
    if (shown && width && width !== shown.width) drawRoll(target, shown.roll, { dice: shown.dice });
  }
});

// Draw a roll: the command die, then (unless `dice` is false: command first) every colored die, then the
// command's label where it covers none of them. Every die of the roll is drawn at one size: the table's
// (setTable), or less where two dice landed closer than that, so that none covers another; the size is the
// same with the command die alone, so it does not change when the other dice come. Drawn again whenever the
// table's width on screen changes, until clearRoll.
export function drawRoll(svg, roll, { dice = true } = {}) {
  drawn.set(svg, { roll, dice, width: svg.getBoundingClientRect().width });
  redraw.observe(svg);
  const layer = svg.querySelector("#dice");
  layer.replaceChildren();
  const [cx, cy] = roll.positions.command;
  const landed = roll.game.colors.flatMap((color) => roll.positions[color].map((point, index) => [color, index, point]));
  // sized again: the window may have changed since the fixation
  const size = Math.min(setTable(svg, roll.game.table), clearEdge([[cx, cy], ...landed.map(([, , point]) => point)]));
  const words = roll.commands[roll.command];
  layer.append(commandDie(cx, cy, size, words));
  const centers = [[cx, cy]];
  if (dice) {
    for (const [color, index, [x, y]] of landed) {
      layer.append(die(x, y, size, color, roll.dice[color][index], roll.pips));
      centers.push([x, y]);
    }
  }
  const boxes = centers.map(([x, y]) => ({ x: x - size / 2, y: y - size / 2, width: size, height: size }));
  const felt = svg.viewBox.baseVal;
  placeLabel(layer, cx, cy, size, words.label, felt, boxes);
}

export function clearRoll(svg) {
  drawn.delete(svg);
  svg.querySelector("#dice").replaceChildren();
}

export function showFixation(svg, shown) {
  svg.querySelector("#fixation").setAttribute("visibility", shown ? "visible" : "hidden");
}
