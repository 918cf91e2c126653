// A round on the table, as the Play page and a room show it: the devils left, the fixation mark for the
// roll's foreperiod, then the dice, and their onset (onset.js, as the drill takes it).

import { drawAnswerButtons, onAnswerButton } from "./answers.js";
import { markOnset } from "./onset.js";
import { clearRoll, commandBanner, drawRoll, setTable, showFixation } from "./table.js";

const svg = document.querySelector("#table");
const answerBox = document.querySelector("#answers");

// The devils still on the table, as the server counts them ({color or grey: count}).
export function drawDevils(left) {
  document.querySelector("#devils").replaceChildren(...Object.entries(left).map(([color, count]) => {
    const token = document.createElement("span");
    token.className = `devil devil-${color}${count ? "" : " gone"}`;
    token.dataset.color = color;
    token.textContent = `${color} ×${count}`;
    return token;
  }));
}

// Show the roll of `current` (a round: {roll, ...}) of the game `drawn` (what the server draws it with, its
// web/trials.py drawn_game: {game, commands, pips}): the fixation mark, then after the roll's foreperiod the
// dice. Once painted (unless `stillOn()` says the round was left meanwhile) the round gets its onset and phase
// "stimulus", the page's state too, then `onStimulus()`. Returns the timer.
export function throwRoll(current, drawn, stillOn, onStimulus = () => {}) {
  const { game, commands, pips } = drawn;
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
    drawRoll(svg, { ...roll, game, commands, pips });
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

// The game's answer buttons, for its keys ({answer: key}, the server's).
export function showAnswers(keys) {
  drawAnswerButtons(answerBox, keys);
}

// The answer buttons and keys: `onAnswer(answer, timeStamp)`.
export function listenForAnswers(onAnswer) {
  onAnswerButton(answerBox, onAnswer);
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
