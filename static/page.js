// What every page of the site does with a script: the theme and face-to-face switches in
// the footer, remembered in this browser, and the service worker that keeps the counter
// for use without a network (only in a secure context: HTTPS, or this computer itself).

const display = document.querySelector(".display");
const darkQuery = matchMedia("(prefers-color-scheme: dark)");

function applyDisplay() {
  const theme = localStorage.getItem("theme");
  const dark = theme ? theme === "dark" : darkQuery.matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  display.querySelector("[data-theme-toggle]").setAttribute("aria-pressed", String(dark));
  const facing = localStorage.getItem("facing") === "on";
  document.body.classList.toggle("facing", facing);
  display.querySelector("[data-facing-toggle]").setAttribute("aria-pressed", String(facing));
}

if (display) {
  display.hidden = false;
  display.querySelector("[data-theme-toggle]").addEventListener("click", () => {
    localStorage.setItem("theme", document.documentElement.dataset.theme === "dark" ? "light" : "dark");
    applyDisplay();
  });
  display.querySelector("[data-facing-toggle]").addEventListener("click", () => {
    localStorage.setItem("facing", document.body.classList.contains("facing") ? "off" : "on");
    applyDisplay();
  });
  darkQuery.addEventListener("change", applyDisplay);
  applyDisplay();
}

if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
