// The screen stays awake during a match where the Wake Lock API is missing (plain http on
// the home Wi-Fi): NoSleep.js plays a tiny muted looping video, which a browser starts
// only after a tap. Loaded only there; static/vendor/NoSleep.min.js is NoSleep.js 0.12.0
// (MIT, static/vendor/NoSleep.LICENSE), as its npm package ships it.

const loaded = new Promise((resolve, reject) => {
  const script = Object.assign(document.createElement("script"), { src: "/static/vendor/NoSleep.min.js" });
  script.onload = resolve;
  script.onerror = reject;
  document.head.append(script);
});
let noSleep = null;

export async function keep(want) {
  await loaded;
  noSleep ??= new window.NoSleep();
  if (want && !noSleep.isEnabled)
    await noSleep.enable().catch(() => {}); // no tap yet: the next one
  else if (!want && noSleep.isEnabled) noSleep.disable();
}
