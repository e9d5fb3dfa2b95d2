// The client's words: message catalogues and `t(key, params)`. The only place words live.
//
// HOW A FEATURE ADDS WORDS (every key in all three languages, or tests/browser/test_i18n_catalogue.py fails):
//   1. Pick a key under your area's prefix: `lobby.*`, `room.*`, `waiting.*`, `game.*`, `table.*`,
//      `results.*`, `records.*`, `auth.*`, `chat.*`, `settings.*`, `help.*`, `app.*`, `error.<code>`
//      (a new error code's words), `field.<name>`. A new area takes a new prefix (`quickplay.*`,
//      `mygames.*`, `push.*`…).
//   2. Add it to web/i18n/en.json, web/i18n/es.json and web/i18n/pt-BR.json (es is Spanish,
//      pt-BR Brazilian Portuguese; write real sentences, never English). The same {placeholders}
//      in every language.
//   3. In code: `t('lobby.create')`, `t('lobby.seated', { count: 3 })`. Never glue sentences
//      from pieces (`t('a') + name + t('b')`): put the whole sentence in the catalogue with
//      {name}. Where a placeholder must be a DOM node (a strong name, a die), use
//      `tNodes(key, {name: h('strong', {}, n)})`, which returns an array of strings and nodes.
//   4. Plurals: the value is an object of Intl.PluralRules categories, chosen by `count`:
//      `"game.dice": {"one": "{count} die", "other": "{count} dice"}` (every language needs at
//      least `one` and `other`; a missing category falls back to `other`).
//   5. Numbers in params are formatted for the language (Intl.NumberFormat); an array param is
//      a list (Intl.ListFormat: "ana, bo and cy" / "ana, bo y cy"). Dates: `formatDate()`.
//   6. A list of sentences (How to play's steps) is an array, read with `tList(key)`; it has
//      the same length in every language.
//   7. A rule system's words live in its own catalogue, `web/systems/<rules>.i18n.json`
//      (`{"en": {...}, "es": {...}, "pt-BR": {...}}`, every key prefixed `<rules>.`), loaded by
//      the registry (web/systems/index.js) with the module.
// The language: a signed-in user's choice remembered on the server (GET /me's
// preferences.language, docs/API.md; app.js passes it to `adoptLanguage`), else the picker's
// choice on this browser (localStorage), else the browser's (navigator.languages). A pick while
// signed in is saved to the server too (app.js).

export const LANGUAGES = [
  ['en', 'English'],
  ['es', 'Español'],
  ['pt-BR', 'Português (Brasil)'],
];
const CODES = LANGUAGES.map(([code]) => code);
const STORE_KEY = 'liars-lies.language';
const FALLBACK = 'en';

const catalogues = Object.fromEntries(CODES.map((code) => [code, {}]));
let current = FALLBACK;
const plurals = new Map();
const numbers = new Map();
const lists = new Map();
const listeners = new Set();

/** The language whose words are shown ('en', 'es', 'pt-BR'). */
export function language() {
  return current;
}

/** The best supported language for a list of BCP 47 tags (browser order), or the fallback. */
export function matchLanguage(tags) {
  for (const tag of tags || []) {
    if (!tag) continue;
    const lower = String(tag).toLowerCase();
    const exact = CODES.find((code) => code.toLowerCase() === lower);
    if (exact) return exact;
    const base = lower.split('-')[0];
    // Any Portuguese reads the Brazilian catalogue; any Spanish the Spanish one.
    const near = CODES.find((code) => code.toLowerCase().split('-')[0] === base);
    if (near) return near;
  }
  return FALLBACK;
}

function remembered() {
  try {
    const stored = localStorage.getItem(STORE_KEY);
    return CODES.includes(stored) ? stored : null;
  } catch {
    return null;
  }
}

/** Add words: {lang: {key: value}} (a system's catalogue), or one language's object. */
export function addMessages(byLanguage) {
  for (const [code, messages] of Object.entries(byLanguage || {})) {
    if (catalogues[code]) Object.assign(catalogues[code], messages);
  }
}

/** Load the shared catalogues and choose the language (before the first screen). */
export async function loadCatalogues() {
  await Promise.all(CODES.map(async (code) => {
    const response = await fetch(new URL(`./${code}.json`, import.meta.url));
    addMessages({ [code]: await response.json() });
  }));
  const browser = typeof navigator !== 'undefined' ? (navigator.languages || [navigator.language]) : [];
  apply(remembered() || matchLanguage(browser));
}

function apply(code) {
  current = CODES.includes(code) ? code : FALLBACK;
  if (typeof document !== 'undefined') document.documentElement.lang = current;
}

/** Choose a language (the picker): remembered, then every listener redraws. */
export function setLanguage(code, picked = true) {
  apply(code);
  try { localStorage.setItem(STORE_KEY, current); } catch { /* private mode: this page only */ }
  for (const listener of listeners) listener(current, picked);
}

/** Use the language remembered on the server for the signed-in user (null: keep this one).
 * Remembered on this browser too; listeners redraw only if it changed. */
export function adoptLanguage(code) {
  if (!CODES.includes(code) || code === current) return;
  setLanguage(code, false);
}

/** Be told when the language changes (the app redraws the screen). */
export function onLanguageChange(listener) {
  listeners.add(listener);
}

function pluralRules() {
  if (!plurals.has(current)) plurals.set(current, new Intl.PluralRules(current));
  return plurals.get(current);
}

/** A number as the language writes it (1,234.5 / 1.234,5). */
export function formatNumber(n, options) {
  if (options) return new Intl.NumberFormat(current, options).format(n);
  if (!numbers.has(current)) numbers.set(current, new Intl.NumberFormat(current, { maximumFractionDigits: 1 }));
  return numbers.get(current).format(n);
}

/** A rating as players know it: no thousands separator, one decimal at most (1512,3 / 1512.3). */
export function formatRating(n) {
  return formatNumber(n, { maximumFractionDigits: 1, useGrouping: false });
}

/** "ana, bo and cy" in the language's words. */
export function formatList(items, type = 'conjunction') {
  const key = `${current}|${type}`;
  if (!lists.has(key)) lists.set(key, new Intl.ListFormat(current, { style: 'long', type }));
  return lists.get(key).format(items.map(String));
}

/** A date and time as the language writes it. */
export function formatDate(value, options = { dateStyle: 'medium', timeStyle: 'short' }) {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return new Intl.DateTimeFormat(current, options).format(date);
}

/** A time of day ("14:05" / "2:05 PM"). */
export function formatTime(value) {
  return formatDate(value, { hour: '2-digit', minute: '2-digit' });
}

/** An ordinal rank in words ("1st", "1.º", "1º"). */
export function ordinal(n) {
  const value = lookup('common.ordinal');
  const category = new Intl.PluralRules(current, { type: 'ordinal' }).select(n);
  const text = typeof value === 'object' ? (value[category] ?? value.other) : String(value);
  return text.replace('{n}', formatNumber(n));
}

function lookup(key) {
  const own = catalogues[current][key];
  if (own !== undefined) return own;
  const fallback = catalogues[FALLBACK][key];
  if (fallback !== undefined) {
    if (typeof console !== 'undefined') console.warn(`i18n: "${key}" has no ${current} words`);
    return fallback;
  }
  if (typeof console !== 'undefined') console.warn(`i18n: unknown key "${key}"`);
  return key;
}

function template(key, params) {
  let value = lookup(key);
  if (value && typeof value === 'object') {
    const count = Number(params && params.count);
    const category = pluralRules().select(Number.isFinite(count) ? count : 0);
    value = value[category] ?? value.other ?? '';
  }
  return String(value);
}

function paramText(value) {
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return formatList(value);
  return value === null || value === undefined ? '' : String(value);
}

/** A list of sentences (a catalogue value that is an array: How to play's steps). */
export function tList(key) {
  const value = lookup(key);
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

/** Whether a catalogue has this key (a system's optional words). */
export function has(key) {
  return catalogues[current][key] !== undefined || catalogues[FALLBACK][key] !== undefined;
}

/** The words of `key` in the chosen language, with {placeholders} filled from params. */
export function t(key, params = {}) {
  return template(key, params).replace(/\{(\w+)\}/g, (whole, name) => (
    Object.hasOwn(params, name) ? paramText(params[name]) : whole));
}

/**
 * Like t(), but a param may be a DOM node or an array of parts (strings and nodes, e.g. another
 * tNodes() answer; a list of words goes through formatList() first): returns a flat array of
 * strings and nodes for h()/append(). The sentence's word order is the language's.
 */
export function tNodes(key, params = {}) {
  const out = [];
  const text = template(key, params);
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    out.push(text.slice(last, match.index));
    const name = match[1];
    if (!Object.hasOwn(params, name)) out.push(match[0]);
    else {
      const value = params[name];
      const isNode = typeof Node !== 'undefined' && value instanceof Node;
      // A node, or an array of parts (another tNodes() answer), goes in as it is.
      out.push(isNode || Array.isArray(value) ? value : paramText(value));
    }
    last = match.index + match[0].length;
  }
  out.push(text.slice(last));
  return out.flat(Infinity).filter((part) => part !== '');
}

/** The first letter upper-cased, as the language does it. */
export function capitalize(text) {
  const s = String(text || '');
  return s.charAt(0).toLocaleUpperCase(current) + s.slice(1);
}
