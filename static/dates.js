// Dates and times in the phone's own time zone and format, on the pages that show them
// (the server writes them in UTC).

const language = document.documentElement.lang;
const locale = navigator.languages.find((each) => each.startsWith(language)) ?? language;
const dates = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
for (const time of document.querySelectorAll("time[datetime]")) {
  time.textContent = dates.format(new Date(time.dateTime));
}
