// A round on the table, as the Play page and a room show it: the devils left, the fixation mark for the
// roll's foreperiod, then the dice, and their onset (onset.js, as the drill takes it).

import { markOnset } from "./onset.js";
import { served } from "./served.js";
import { clearRoll, commandBanner, drawRoll, setTable, showFixation } from "./table.js";

const svg = document.querySelector("#table");
// The built-in commands' words, for a roll that does not carry its own (web/pages.py: play_settings).
const BUILTIN_WORDS = served("play-settings").commands;

export function drawDevils(left) {
  document.querySelector("#devils").replaceChildren(...Object.entries(left).map(([color, count]) => {
    const token = document.createElement("span");
    token.className = `devil devil-${color}${count ? "" : " gone"}`;
    token.dataset.color = color;
    token.textContent = `${color} ×${count}`;
    return token;
  }));
}

// Show the roll of `current` (a round: {roll, ...}) of `game` (a variant's as_dict): the fixation mark, then
// after the roll's foreperiod the dice. Once painted (unless `stillOn()` says the round was left meanwhile)
// the round gets its onset and phase "stimulus", the page's state too, then `onStimulus()`. Returns the timer.
export function throwRoll(current, game, stillOn, onStimulus = () => {}) {
  const { roll } = current;
  document.querySelector("#verdict").textContent = "";
  document.querySelector("#reason").textContent = "";
  document.querySelector("#round-number").textContent = `round ${roll.round}`;
  document.body.dataset.round = String(roll.round);
  setTable(svg, game.table);
  clearRoll(svg);
  showFixation(svg, true);
  document.querySelector("#command-banner").textContent = "get ready…";
  return setTimeout(() => {
    if (!stillOn()) return;
    showFixation(svg, false);
    const commands = roll.commands ?? BUILTIN_WORDS;
    drawRoll(svg, { ...roll, game, commands });
    document.querySelector("#command-banner").textContent = commandBanner(commands[roll.command]);
    markOnset(current, stillOn, onStimulus);
  }, roll.foreperiod_ms);
}

export function showVerdict({ text, kind }, story) {
  const node = document.querySelector("#verdict");
  node.textContent = text;
  node.className = kind;
  document.querySelector("#reason").textContent = story;
}

// The answer buttons and keys: `onAnswer(answer, timeStamp)`; pointerdown, not click, so that a touch
// is timed when the finger lands, not when it lifts.
export function listenForAnswers(onAnswer) {
  for (const button of document.querySelectorAll("button.answer")) {
    button.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      onAnswer(button.dataset.answer, event.timeStamp);
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const button = document.querySelector(`button.answer[data-key="${CSS.escape(key)}"]`);
    if (button) {
      event.preventDefault();
      onAnswer(button.dataset.answer, event.timeStamp);
    }
  });
}
