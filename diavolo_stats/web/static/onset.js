// The onset of a roll, the app's key measurement, taken one way by every page: performance.now() in the
// first animation-frame callback after the roll was put in the page (the frame that paints it). An answer
// is the key or pointer event's timeStamp, on the same clock; the latency is their difference. What this
// cannot see: the time the display itself takes to show the frame (its refresh and response time) and the
// keyboard's own delay.

import { setState } from "./page.js";

// Once the roll just put in the page is painted (unless `stillOn()` says the page left it meanwhile): the
// trial or round `current` gets its onset and phase "stimulus", the page too (data-onset), then `then()`.
export function markOnset(current, stillOn, then = () => {}) {
  requestAnimationFrame(() => {
    if (!stillOn()) return;
    // Its callback runs just before that frame is painted.
    current.onset = performance.now();
    current.phase = "stimulus";
    document.body.dataset.onset = current.onset.toFixed(3);
    setState("stimulus");
    then();
  });
}

// The latency of an answer at event time `timeStamp`, in ms to the 0.1 ms the log keeps.
export function latencyMs(current, timeStamp) {
  return Math.round((timeStamp - current.onset) * 10) / 10;
}

// The onset as a wall-clock ISO time (the log's timestamp); now, if the roll was never painted.
export function onsetTime(current) {
  return new Date(performance.timeOrigin + (current.onset ?? performance.now())).toISOString();
}
