// The registry of rule systems: the one place that lists them. Each is the module
// `systems/<rules>.js`, named by the value of a room's `settings.rules` (web/README.md
// describes what a module exports). The first is the default for new rooms.

export const RULES = ['classic', 'wild-stars', 'poker', 'perudo'];

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
