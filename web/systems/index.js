// The registry of rule systems: the one place that lists them. Each is the module
// `systems/<rules>.js`, named by the value of a room's `settings.rules` (web/README.md
// describes what a module exports). The first is the default for new rooms.

export const RULES = ['classic', 'wild-stars', 'poker', 'perudo'];

import { addMessages, has, t } from '../i18n/index.js';

let loaded = null;

/** Load every system module (and its stylesheet) once, before the first screen is drawn. */
export async function loadSystems() {
  if (loaded) return loaded;
  const modules = await Promise.all(RULES.map((rules) => import(`./${rules}.js`)));
  loaded = modules.map((module, i) => {
    const system = module.default;
    if (!system || system.rules !== RULES[i]) throw new Error(`systems/${RULES[i]}.js does not export its system`);
    return system;
  });
  // Each system's words: `<rules>.i18n.json` beside its module (web/i18n/index.js says how).
  await Promise.all(RULES.map(async (rules) => {
    const response = await fetch(new URL(`./${rules}.i18n.json`, import.meta.url));
    if (response.ok) addMessages(await response.json());
  }));
  await Promise.all(loaded.filter((s) => s.stylesheet).map((s) => new Promise((resolve) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = new URL(s.stylesheet, import.meta.url).href;
    link.onload = resolve;
    link.onerror = resolve;
    document.head.append(link);
  })));
  return loaded;
}

/** A system's name in the chosen language (`<rules>.label`), its module's `label` otherwise. */
export function systemLabel(system) {
  return has(`${system.rules}.label`) ? t(`${system.rules}.label`) : system.label;
}

/** A system's short name (`<rules>.short`), else its label. */
export function systemShort(system) {
  return has(`${system.rules}.short`) ? t(`${system.rules}.short`) : systemLabel(system);
}

/** The systems in registry order (after loadSystems()). */
export function systems() {
  if (!loaded) throw new Error('loadSystems() has not finished');
  return loaded;
}

/** The system of new rooms. */
export function defaultSystem() {
  return systems()[0];
}

/** The system a `rules` value names (a room's, a history's); the default one when unknown. */
export function systemOf(rules) {
  return systems().find((s) => s.rules === rules) || defaultSystem();
}

/** The system of a room view (or any object with `settings.rules`). */
export function roomSystem(room) {
  return systemOf(room && room.settings ? room.settings.rules : undefined);
}
