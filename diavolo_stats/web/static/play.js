// The Play page: a whole game against modelled players. The server holds the game and referees it;
// this page throws nothing itself. Each round: the roll comes alone, the page shows a fixation mark for the
// roll's foreperiod, paints the dice, and shows the opponents' grabs as the server tells them, as they happen
// (it keeps them until then), while the human answers. The page's
// state is on <body> as data-state (setup, fixation, stimulus, result, over) and data-round.
//
// Timing: the onset and latency of onset.js, as in the drill.

import { latencyMs, onsetTime } from "./onset.js";
import { setState, setStatus, show } from "./page.js";
import { requestJson } from "./request.js";
import { drawDevils, listenForAnswers, showAnswers, showVerdict, throwRoll } from "./stage.js";
import { engineCheckText, roundRows, roundStory, seatLine, verdict, winnersText } from "./seats.js";

const GAME_KEY = "diavolo.play-game";
const SETUP_KEY = "diavolo.play-setup";
const body = document.body;
const params = new URLSearchParams(location.search);
// For tests and practice, as the drill's: ?foreperiod_ms=MIN,MAX&feedback_ms=MS (the waits before and after a roll).
const feedbackMs = params.get("feedback_ms");
const foreperiod = params.get("foreperiod_ms");

let game = null; // the game document from the server
let round = null; // the round on the table: its roll, phase, timers

// A JSON request to the server, asked again by the requests' policy; a Refusal with the server's message
// when it refuses.
async function call(path, payload) {
  const answer = await requestJson(path, { payload, onWait: () => setStatus("waiting for the server to answer…") });
  setStatus("");
  return answer;
}

// ------------------------------------------------------------------------------------------ setup

const form = document.querySelector("#setup-form");

for (const row of form.querySelectorAll(".opponent")) {
  const select = row.querySelector("select");
  select.addEventListener("change", () => { row.querySelector("input[type=file]").hidden = select.value !== "file"; });
}

// The opponents chosen: "preset:NAME", a drill log player's name, or a player file's name and text.
async function readOpponents() {
  const chosen = [];
  for (const row of form.querySelectorAll(".opponent")) {
    const value = row.querySelector("select").value;
    if (!value) continue;
    if (value !== "file") {
      chosen.push(value);
      continue;
    }
    const [file] = row.querySelector("input[type=file]").files;
    if (!file) throw new Error("opponents: choose the player file");
    chosen.push({ file: file.name, toml: await file.text() });
  }
  return chosen;
}

function loadSetup() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(SETUP_KEY) || "{}"); } catch { saved = {}; }
  for (const name of ["player", "variant", "devils", "end", "timeout_s"]) {
    const field = form.elements[name];
    // a choice this server no longer offers (a variant file it held before) leaves the page's default
    if (saved[name] && (field.tagName !== "SELECT" || [...field.options].some((option) => option.value === saved[name]))) {
      field.value = saved[name];
    }
  }
  if (params.get("player")) form.elements.player.value = params.get("player");
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.querySelector("#setup-error");
  error.textContent = "";
  const setup = {
    player: form.elements.player.value, variant: form.elements.variant.value,
    devils: form.elements.devils.value, end: form.elements.end.value, timeout_s: Number(form.elements.timeout_s.value),
  };
  localStorage.setItem(SETUP_KEY, JSON.stringify(setup));
  try {
    const opponents = await readOpponents();
    if (!opponents.length) throw new Error("opponents: choose at least one");
    game = await call("/api/play/games", { ...setup, opponents, ...(foreperiod ? { foreperiod_ms: foreperiod.split(",").map(Number) } : {}) });
  } catch (failure) {
    error.textContent = failure.message;
    return;
  }
  sessionStorage.setItem(GAME_KEY, game.id);
  begin();
});

function begin() {
  if (game.notes.length) setStatus(game.notes.join("; "));
  showAnswers(game.keys);
  show("stage");
  nextRound();
}

// -------------------------------------------------------------------------------------- the rounds

function drawSeats(list, grabs = {}) {
  list.replaceChildren(...game.names.map((name, seat) => seatLine(name, seat, game, grabs[seat])));
}

async function nextRound() {
  let roll;
  try {
    roll = await call(`/api/play/games/${game.id}/round`, {});
  } catch (failure) {
    setStatus(`the game stopped: ${failure.message}`);
    return;
  }
  round = { roll, phase: "fixation", timers: [], shown: {} };
  drawDevils(roll.devils_left);
  drawSeats(document.querySelector("#seats"));
  setState("fixation");
  const current = round;
  current.timers.push(throwRoll(current, game, () => current === round, () => {
    followGrabs(current);
    current.timers.push(setTimeout(() => answered(current, null, null), 1000 * game.timeout_s));
  }));
}

// The opponents' hands reaching the table, as they happen: the server keeps their grabs until their time has
// come and answers once another one has; each reply carries the devils left.
async function followGrabs(current) {
  let known = 0;
  for (;;) {
    let reply;
    try {
      reply = await call(`/api/play/games/${game.id}/grabs`, { round: current.roll.round, known });
    } catch {
      return;
    }
    if (current !== round || current.phase !== "stimulus" || !reply.on_table) return;
    for (const grab of reply.grabs) current.shown[grab.seat] = grab;
    known = reply.grabs.length;
    drawDevils(reply.devils_left);
    drawSeats(document.querySelector("#seats"), current.shown);
    if (!reply.more) return;
  }
}

function stopTimers(current) {
  for (const timer of current.timers) clearTimeout(timer);
  current.timers = [];
}

async function answered(current, answer, timeStamp) {
  if (current !== round || current.phase !== "stimulus") return;
  stopTimers(current);
  current.phase = "sent";
  const latency = answer === null ? null : latencyMs(current, timeStamp);
  const timestamp = onsetTime(current);
  let outcome;
  try {
    outcome = await call(`/api/play/games/${game.id}/answer`, {
      round: current.roll.round, answer, latency_ms: latency, timestamp,
    });
  } catch (failure) {
    setStatus(`the game stopped: ${failure.message}`);
    return;
  }
  game = outcome.game;
  showResult(outcome.round);
  const pause = feedbackMs === null ? game.feedback_ms : Number(feedbackMs);
  current.timers.push(setTimeout(() => {
    if (current !== round) return;
    if (game.over) finish();
    else nextRound();
  }, pause));
}

function showResult(record) {
  setState("result");
  drawDevils(record.devils_left);
  const grabs = Object.fromEntries(record.grabs.map((grab) => [grab.seat, { ...grab, got: record.held[grab.seat] !== null }]));
  drawSeats(document.querySelector("#seats"), grabs);
  showVerdict(verdict(record, game.human), roundStory(record, game.names));
}

function finish() {
  round = null;
  sessionStorage.removeItem(GAME_KEY);
  show("over");
  document.querySelector("#over-title").textContent = winnersText(game.winners, game.names);
  drawSeats(document.querySelector("#final"));
  const check = game.engine_check;
  body.dataset.engineMismatches = String(check.mismatches.length);
  document.querySelector("#engine-check").textContent = engineCheckText(check);
  document.querySelector("#report-link").href = `/report?${new URLSearchParams({ player: game.names[game.human] })}`;
  document.querySelector("#round-log tbody").replaceChildren(...roundRows(game.rounds, game.names));
  setState("over");
}

// --------------------------------------------------------------------------------------- input

listenForAnswers((answer, timeStamp) => { if (round) answered(round, answer, timeStamp); });

document.querySelector("#again").addEventListener("click", () => {
  show("setup");
  setState("setup");
});

// A reloaded page takes its game up again at the round on the table.
async function resume() {
  const id = sessionStorage.getItem(GAME_KEY);
  if (!id) return;
  try {
    game = await call(`/api/play/games/${id}`);
  } catch {
    sessionStorage.removeItem(GAME_KEY);
    return;
  }
  if (game.over) finish();
  else begin();
}

loadSetup();
setState("setup");
resume();
