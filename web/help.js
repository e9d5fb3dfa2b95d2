// "How to play": a short panel per rule system (its module's `help`), opened from the lobby and
// from a room. The full rules, in the same words, are in docs/RULES.md.

import { h } from './dom.js';
import { defaultSystem, systemOf, systems } from './systems/index.js';

let dialog = null;

function panelFor(system) {
  const { goal, steps, tips } = system.help;
  return h('section', { class: 'howto-panel', testid: `how-to-panel-${system.rules}`, dataset: { rules: system.rules } },
    h('h3', { class: 'howto-title' }, system.label),
    h('p', { class: 'howto-goal' }, h('strong', {}, 'Goal: '), goal),
    h('ol', { class: 'howto-steps' }, steps.map((step) => h('li', {}, step))),
    h('ul', { class: 'howto-tips muted small' }, tips.map((tip) => h('li', {}, tip))));
}

/** Open the How to play panel, on the tab of `rules` (the room's rules, or the default ones). */
export function openHowToPlay(rules = defaultSystem().rules) {
  if (dialog) dialog.remove();
  const body = h('div', { class: 'howto-body' });
  const tabs = h('div', { class: 'tabs howto-tabs', role: 'tablist' });
  function show(value) {
    const system = systemOf(value);
    for (const tab of tabs.children) tab.setAttribute('aria-selected', String(tab.dataset.rules === system.rules));
    body.replaceChildren(panelFor(system));
  }
  for (const system of systems()) {
    tabs.append(h('button', {
      type: 'button', class: 'tab', role: 'tab', dataset: { rules: system.rules }, testid: `how-to-tab-${system.rules}`,
      onclick: () => show(system.rules),
    }, system.short || system.label));
  }
  const close = h('button', { type: 'button', class: 'btn btn-ghost btn-small', testid: 'how-to-close', onclick: () => dialog.close() }, 'Close');
  dialog = h('dialog', { class: 'howto', testid: 'how-to-play-dialog', 'aria-label': 'How to play' },
    h('div', { class: 'row-between' }, h('h2', {}, 'How to play'), close), tabs, body);
  dialog.addEventListener('close', () => { dialog.remove(); dialog = null; });
  dialog.addEventListener('click', (event) => { if (event.target === dialog) dialog.close(); });
  document.body.append(dialog);
  show(rules);
  dialog.showModal();
}

/** A "How to play" button opening the panel on the given rules. */
export function howToPlayButton(rules = () => defaultSystem().rules, extraClass = '') {
  return h('button', {
    type: 'button', class: ['btn', 'btn-ghost', 'btn-small', 'howto-button', extraClass], testid: 'how-to-play',
    onclick: () => openHowToPlay(typeof rules === 'function' ? rules() : rules),
  }, 'How to play');
}
