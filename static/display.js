// The footer's display switches on the counter page, at once and without a network: they
// write the same cookies the server reads (site.choose_display), so every page shows the
// choice; without the script the same buttons post the form. Loaded after the first tap.

export function switchDisplay(button, form) {
  const on = button.value === button.dataset.on;
  const secure = location.protocol === "https:" ? "; secure" : "";
  document.cookie = `${button.name}=${button.value}; path=/; max-age=${form.dataset.maxAge}; samesite=lax${secure}`;
  if (button.name === "theme") document.documentElement.dataset.theme = button.value;
  else document.body.classList.toggle("facing", on);
  button.setAttribute("aria-pressed", String(on));
  button.value = on ? button.dataset.off : button.dataset.on;
}
