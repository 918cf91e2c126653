// A room: friends at one table, each on their own device, the server throwing the dice (web/rooms.py).
// One WebSocket per page for the whole game. The page's state is on <body> as data-state (join, lobby,
// fixation, stimulus, sent, result, over, closed), data-round and data-room.
//
// Timing: the onset and latency of onset.js, as in the drill; the latency is sent to the server, which
// hands out the devils in order of the latencies, each held to what the server saw pass on this page's link.
// The server measures that link by pings through the game: the page answers each at once with its pong.

import { latencyMs, onsetTime } from "./onset.js";
import { setState, setStatus, show } from "./page.js";
import { RETRY_MS, requestJson } from "./request.js";
import { drawDevils, listenForAnswers, showAnswers, showVerdict, throwRoll } from "./stage.js";
import { engineCheckText, fairnessText, roundRows, roundStory, seatLine, verdict, winnersText } from "./seats.js";

const body = document.body;
const params = new URLSearchParams(location.search);

let socket = null;
let code = null;
let name = null;
let room = null; // the last state the server sent
let me = { seat: null, host: false };
let round = null; // the roll on the table: its phase, onset, timers
let closedForGood = false;
let givingUp = null; // while the connection is lost: the timer that stops joining again

// How long a page joins again without a word from its server before it says the room is gone: as long as the
// servers wait for their link before they end a room (shared_rooms.OUTAGE_LIMIT_S), which they say themselves.
// A server behind a proxy that another process answers for says so too; this is for a page whose own server
// stopped.
const LOST_FOR_GOOD_MS = 30000;
const GONE = "the room ended: its server has not answered for 30 s (it stopped, or this device is offline). "
  + "Every answer it said was stored is in its log.";

function savedKeys() {
  try { return JSON.parse(localStorage.getItem(`diavolo.room.${code}`) || "{}"); } catch { return {}; }
}

function saveKeys(keys) {
  localStorage.setItem(`diavolo.room.${code}`, JSON.stringify({ ...savedKeys(), ...keys }));
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

// ------------------------------------------------------------------------------------------ joining

function connect() {
  const keys = savedKeys();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/rooms/${encodeURIComponent(code)}`);
  body.dataset.room = code;
  socket.addEventListener("open", () => {
    setStatus("");
    // The seat's key takes its seat back; the name, a seat freed when its page left the lobby.
    send({ type: "join", name: name ?? keys.name ?? null, seat_key: keys.seat_key ?? null,
      host_key: keys.host_key ?? null });
  });
  let said = null; // the server's last error on this connection: why it closes, when it says
  socket.addEventListener("message", (event) => {
    clearTimeout(givingUp); // the server answered
    givingUp = null;
    const message = JSON.parse(event.data);
    said = message.type === "error" ? message.message : null;
    receive(message);
  });
  socket.addEventListener("close", () => {
    if (closedForGood) return;
    setStatus(said ?? "connection lost: joining again…");
    givingUp ??= setTimeout(() => endForGood(GONE), LOST_FOR_GOOD_MS);
    setTimeout(() => closedForGood || connect(), RETRY_MS); // the requests' wait when the server named none
  });
}

// The room is over for this page, in words: no more joining again.
function endForGood(text) {
  closedForGood = true;
  clearTimeout(givingUp);
  if (socket && socket.readyState <= WebSocket.OPEN) socket.close();
  setStatus("");
  setState("closed");
  document.querySelector("#join-error").textContent = text;
  show("join");
  document.querySelector("#join-error").scrollIntoView({ block: "center" }); // below the forms on a phone
}

function joinRoom(roomCode, playerName) {
  closedForGood = false;
  givingUp = null;
  code = roomCode.toUpperCase();
  name = playerName || null;
  history.replaceState(null, "", `/room?code=${encodeURIComponent(code)}`);
  connect();
}

document.querySelector("#join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  joinRoom(form.elements.code.value.trim(), form.elements.name.value);
});

document.querySelector("#host-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const choices = { variant: form.elements.variant.value, devils: form.elements.devils.value,
    end: form.elements.end.value, timeout_s: Number(form.elements.timeout_s.value) };
  for (const key of ["foreperiod_ms", "feedback_ms"]) {
    if (params.get(key)) choices[key] = key === "foreperiod_ms" ? params.get(key).split(",").map(Number) : Number(params.get(key));
  }
  let reply;
  try {
    reply = await requestJson("/api/rooms", { payload: choices, onWait: () => setStatus("waiting for the server to answer…") });
  } catch (refusal) {
    document.querySelector("#join-error").textContent = refusal.message;
    return;
  }
  setStatus("");
  code = reply.code;
  saveKeys({ host_key: reply.host_key, join: reply.join, join_qr: reply.join_qr, typed: reply.typed });
  joinRoom(reply.code, form.elements.name.value);
});

// ------------------------------------------------------------------------------------------ messages

function receive(message) {
  switch (message.type) {
    case "joined":
      me = { seat: message.seat, host: message.host };
      if (message.seat_key) saveKeys({ seat_key: message.seat_key, ...(name ? { name } : {}) });
      break;
    case "state":
      room = message;
      me = { seat: message.you, host: message.host }; // seats freed in the lobby move the later ones up
      showAnswers(room.keys);
      showRoom();
      break;
    case "ping":
      send({ type: "pong", id: message.id });
      break;
    case "roll":
      startRound(message);
      break;
    case "devils":
      if (round && round.roll.round === message.round) drawDevils(message.devils_left);
      break;
    case "grabbed":
      if (round && round.roll.round === message.round) {
        round.grabbed[message.seat] = { answer: "grabbed", got: true };
        drawDevils(message.devils_left);
        drawSeats();
      }
      break;
    case "refused":
      setStatus(`not counted: ${message.message}`);
      break;
    case "unsaved": // the answer counts; the server keeps it and writes it once its disk takes it
      setStatus(message.message);
      body.dataset.unsaved = message.round;
      break;
    case "stored":
      if (body.dataset.unsaved) setStatus("");
      delete body.dataset.unsaved;
      break;
    case "result":
      showResult(message);
      break;
    case "over":
      finish(message);
      break;
    case "closed":
      endForGood(message.message);
      break;
    case "error":
      setStatus(message.message);
      break;
    default:
      break;
  }
}

function names() {
  return room.seats.map((seat) => seat.name);
}

function seatView() {
  return { gems: room.seats.map((seat) => seat.gems), human: me.seat,
    away: room.seats.flatMap((seat, index) => (seat.away || seat.idle ? [index] : [])) };
}

function drawSeats(list = document.querySelector("#seats")) {
  const grabs = round ? round.grabbed : {};
  list.replaceChildren(...room.seats.map((seat, index) => seatLine(seat.name, index, seatView(), grabs[index])));
}

function showRoom() {
  if (room.phase === "lobby") {
    show("lobby");
    setState("lobby");
    document.querySelector("#room-code").textContent = room.code;
    const { join: link, join_qr: qr, typed } = savedKeys();
    document.querySelector("#join-link").textContent = !(me.host && link) ? ""
      : typed ? `Others open ${location.origin}${link} (or scan the code below, or open this server's address, `
        + `/room, and type the code ${room.code}).`
      : `Others open ${location.origin}${link} (or scan the code below): it admits to this room only.`;
    const image = document.querySelector("#join-qr");
    image.hidden = !(me.host && qr);
    if (me.host && qr) image.src = qr;
    drawSeats(document.querySelector("#lobby-seats"));
    const start = document.querySelector("#start");
    start.hidden = !me.host;
    start.disabled = room.seats.length < 2;
    document.querySelector("#lobby-note").textContent = room.seats.length < 2
      ? "waiting for players: a game needs at least two" : `${room.seats.length} players at the table`;
  } else if (room.phase === "playing") {
    if (document.getElementById("stage").hidden) {
      show("stage");
      setState("result");
    }
    drawSeats();
  }
}

document.querySelector("#start").addEventListener("click", () => send({ type: "start" }));
document.querySelector("#again").addEventListener("click", () => send({ type: "start", again: true }));

// ------------------------------------------------------------------------------------------ rounds

function startRound(roll) {
  if (round) for (const timer of round.timers) clearTimeout(timer);
  show("stage");
  round = { roll, phase: "fixation", timers: [], grabbed: {} };
  drawDevils(roll.devils_left);
  drawSeats();
  setStatus("");
  setState("fixation");
  const current = round;
  current.timers.push(throwRoll(current, room, () => current === round));
}

function answered(answer, timeStamp) {
  const current = round;
  if (!current || current.phase !== "stimulus" || me.seat === null) return;
  if (!current.roll.seats_in.includes(me.seat)) return;
  current.phase = "sent";
  setState("sent");
  send({ type: "answer", round: current.roll.round, answer, latency_ms: latencyMs(current, timeStamp),
    timestamp: onsetTime(current) });
}

function showResult(message) {
  const record = message.round;
  room = { ...room, seats: message.seats };
  if (round && round.roll.round === record.number) round.phase = "result";
  const grabs = Object.fromEntries(record.grabs.map((grab) => [grab.seat, { ...grab, got: record.held[grab.seat] !== null }]));
  round = { ...(round ?? { timers: [] }), grabbed: grabs, phase: "result" };
  drawDevils(message.devils_left);
  drawSeats();
  const fair = fairnessText(record, names());
  const story = fair ? `${roundStory(record, names())}. ${fair}` : roundStory(record, names());
  if (me.seat !== null && record.gems_before[me.seat] > 0) showVerdict(verdict(record, me.seat), story);
  else showVerdict({ text: "", kind: "" }, story);
  setState("result");
}

function finish(message) {
  round = null;
  room = { ...room, seats: message.seats, phase: "over" };
  show("over");
  document.querySelector("#over-title").textContent = winnersText(message.winners, names());
  drawSeats(document.querySelector("#final"));
  body.dataset.engineMismatches = String(message.engine_check.mismatches.length);
  document.querySelector("#engine-check").textContent = engineCheckText(message.engine_check);
  const unchecked = message.seats.filter((seat) => seat.unchecked).map((seat) => seat.name);
  Object.assign(document.querySelector("#unchecked"), { hidden: !unchecked.length, textContent: unchecked.length
    ? `Times not checked against their own drill log (too few of their answers there, or none a model fits): `
      + `${unchecked.join(", ")}.` : "" });
  document.querySelector("#round-log tbody").replaceChildren(...roundRows(message.rounds, names()));
  document.querySelector("#again").hidden = !me.host;
  setState("over");
}

listenForAnswers(answered);

// Opened with ?code=: join that room (a reload takes its seat back with the key it kept).
setState("join");
if (params.get("code")) {
  const given = params.get("code").toUpperCase();
  document.querySelector("#join-form").elements.code.value = given;
  code = given;
  if (savedKeys().seat_key || savedKeys().host_key) joinRoom(given, null);
}
