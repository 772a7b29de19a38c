// ESLint for the page's scripts (static/, ES modules run by the browser as they are) and
// their unit tests (tests/js/, run by Node): `npx eslint static tests/js`.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "static/vendor/"] },
  js.configs.recommended,
  {
    files: ["static/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
    // A script a reader takes in at once (docs/architecture.md): split one that grows past it.
    rules: { "max-lines": ["error", 300] },
  },
  {
    // The service worker is registered as a classic script (counter.js), with its own globals.
    files: ["static/sw.js"],
    languageOptions: { sourceType: "script", globals: globals.serviceworker },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
