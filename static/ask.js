// A question in the page, for a step that is not taken back in one tap: a modal dialog
// with the step's own words on its buttons. `answers`: [value, words] each, the first
// the one a player most often means. Answers a value, or "" when closed unanswered.

export function ask(text, answers, { required = false } = {}) {
  const dialog = document.createElement("dialog");
  dialog.className = "ask";
  const question = document.createElement("p");
  question.textContent = text;
  const buttons = document.createElement("form");
  buttons.method = "dialog";
  for (const [value, label] of answers) {
    const button = document.createElement("button");
    button.value = value;
    button.textContent = label;
    if (value === answers[0][0]) button.className = "primary";
    buttons.append(button);
  }
  dialog.append(question, buttons);
  document.body.append(dialog);
  // A question that must be answered is not closed by Escape (or Android's back) at once.
  if (required) dialog.addEventListener("cancel", (event) => event.preventDefault());
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue);
    });
  });
}
