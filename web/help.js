// "How to play": a short panel per rule system (its module's `help`), opened from the lobby and
// from a room. The full rules, in the same words, are in docs/RULES.md.

import { h } from './dom.js';
import { defaultSystem, systemLabel, systemOf, systemShort, systems } from './systems/index.js';
import { t, tList } from './i18n/index.js';

let dialog = null;

function panelFor(system) {
  const key = (part) => `${system.rules}.help.${part}`;
  return h('section', {
    class: 'howto-panel', testid: `how-to-panel-${system.rules}`, dataset: { rules: system.rules },
    role: 'tabpanel', id: `how-to-panel-${system.rules}`, 'aria-labelledby': `how-to-tab-${system.rules}`,
  },
    h('h3', { class: 'howto-title' }, systemLabel(system)),
    h('p', { class: 'howto-goal' }, h('strong', {}, t('help.goal')), ' ', t(key('goal'))),
    h('ol', { class: 'howto-steps' }, tList(key('steps')).map((step) => h('li', {}, step))),
    h('ul', { class: 'howto-tips muted small' }, tList(key('tips')).map((tip) => h('li', {}, tip))),
    h('h4', {}, t('help.shortcuts')),
    h('ul', { class: 'howto-tips small', testid: 'how-to-shortcuts' }, tList('help.shortcutList').map((line) => h('li', {}, line))));
}

/** Open the How to play panel, on the tab of `rules` (the room's rules, or the default ones). */
export function openHowToPlay(rules = defaultSystem().rules) {
  if (dialog) dialog.remove();
  const body = h('div', { class: 'howto-body' });
  const tabs = h('div', { class: 'tabs howto-tabs', role: 'tablist', 'aria-label': t('help.rulesTabs') });
  function show(value, focus = false) {
    const system = systemOf(value);
    for (const tab of tabs.children) {
      const on = tab.dataset.rules === system.rules;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      if (on && focus) tab.focus();
    }
    body.replaceChildren(panelFor(system));
  }
  for (const system of systems()) {
    tabs.append(h('button', {
      type: 'button', class: 'tab', role: 'tab', dataset: { rules: system.rules }, testid: `how-to-tab-${system.rules}`,
      id: `how-to-tab-${system.rules}`, 'aria-controls': `how-to-panel-${system.rules}`,
      onclick: () => show(system.rules),
    }, systemShort(system)));
  }
  // Arrow keys move between the tabs (the tab pattern of WAI-ARIA).
  tabs.addEventListener('keydown', (event) => {
    const list = [...tabs.children];
    const at = list.indexOf(document.activeElement);
    if (at < 0) return;
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    show(list[(at + step + list.length) % list.length].dataset.rules, true);
  });
  const opener = document.activeElement;
  const close = h('button', { type: 'button', class: 'btn btn-ghost btn-small', testid: 'how-to-close', onclick: () => dialog.close() }, t('common.close'));
  dialog = h('dialog', { class: 'howto', testid: 'how-to-play-dialog', 'aria-labelledby': 'how-to-title' },
    h('div', { class: 'row-between' }, h('h2', { id: 'how-to-title' }, t('help.title')), close), tabs, body);
  dialog.addEventListener('close', () => {
    dialog.remove();
    dialog = null;
    // Focus goes back to what opened the panel.
    if (opener && opener.isConnected && opener.focus) opener.focus();
  });
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
  }, t('help.title'));
}
