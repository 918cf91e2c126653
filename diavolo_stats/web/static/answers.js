// The answer buttons of a game, as the drill, the Play page and a room show them: one per answer (each
// color of the game, then grey), named with its key; the keys are the server's (drill.settings.answer_keys).

// Draw the buttons for `keys` ({answer: key}) in `box`, in place of any there.
export function drawAnswerButtons(box, keys) {
  box.replaceChildren(...Object.entries(keys).map(([answer, key]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `answer answer-${answer}`;
    button.dataset.answer = answer;
    button.dataset.key = key;
    button.textContent = `${answer} (${key})`;
    return button;
  }));
}

// `onAnswer(answer, timeStamp)` for a press of any answer button in `box`, now or drawn later: on
// pointerdown, not click, so that a touch is timed when the finger lands, not when it lifts.
export function onAnswerButton(box, onAnswer) {
  box.addEventListener("pointerdown", (event) => {
    const button = event.target.closest("button.answer");
    if (!button) return;
    event.preventDefault();
    onAnswer(button.dataset.answer, event.timeStamp);
  });
}
