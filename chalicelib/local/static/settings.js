// Room settings: labels, allowed values (SPEC §2), form fields and summaries.

import { h } from './dom.js';

export const DEFAULT_SETTINGS = {
  starting_dice: 5,
  wildcard_chance: 10,
  penalty: 'discard',
  turn_seconds: 30,
  break_seconds: 60,
  joining: 'open',
  rules: 'classic',
};

export const FIELDS = [
  { name: 'starting_dice', label: 'Starting dice', options: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, `${n} per player`]) },
  { name: 'wildcard_chance', label: 'Wildcard chance', options: [[0, '0 %'], [5, '5 %'], [10, '10 %']] },
  { name: 'penalty', label: 'Penalty', options: [['discard', 'Loser discards 1 die'], ['give', 'Loser gives 1 die to the winner']] },
  { name: 'turn_seconds', label: 'Time per turn', options: [[15, '15 s'], [30, '30 s'], [60, '60 s']] },
  { name: 'break_seconds', label: 'Break between rounds', options: [[30, '30 s'], [60, '60 s'], [120, '120 s']] },
  { name: 'joining', label: 'Joining', options: [['open', 'Open'], ['approval', 'Host approval'], ['passcode', '4-digit passcode']] },
];

function optionLabel(field, value) {
  const found = field.options.find(([v]) => String(v) === String(value));
  return found ? found[1] : String(value ?? '—');
}

/**
 * Editable settings fields. onChange(name, value) is called with typed values.
 * prefix names the data-testid of each select: `${prefix}-${name}`.
 */
export function settingsForm(values, onChange, prefix = 'setting', { guestRoom = false } = {}) {
  const rows = FIELDS.map((field) => {
    const id = `${prefix}-${field.name}`;
    const select = h('select', {
      id,
      testid: id,
      value: String(values[field.name] ?? DEFAULT_SETTINGS[field.name]),
      onchange: (event) => {
        const raw = event.target.value;
        const typed = typeof field.options[0][0] === 'number' ? Number(raw) : raw;
        onChange(field.name, typed);
      },
    }, field.options.map(([v, label]) => h('option', { value: String(v) }, label)));
    if (guestRoom && field.name === 'joining') {
      select.disabled = true;
      select.title = 'Guest rooms cannot be joined by others';
    }
    return h('label', { class: 'field', for: id }, h('span', { class: 'field-label' }, field.label), select);
  });
  return h('div', { class: 'settings-form' }, rows);
}

/** Read-only list of settings. */
export function settingsSummary(values) {
  return h('dl', { class: 'settings-summary' }, FIELDS.map((field) => [
    h('dt', {}, field.label),
    h('dd', {}, optionLabel(field, values[field.name])),
  ]));
}

/** Short chips for the lobby. */
export function settingsChips(values) {
  const v = values || {};
  const chips = [
    `${v.starting_dice ?? '?'} dice`,
    `${v.wildcard_chance ?? 0}% ★`,
    v.penalty === 'give' ? 'give' : 'discard',
    `${v.turn_seconds ?? '?'}s turns`,
  ];
  if (v.joining === 'approval') chips.push('approval');
  if (v.joining === 'passcode') chips.push('passcode');
  return h('span', { class: 'chips' }, chips.map((c) => h('span', { class: 'chip' }, c)));
}

/** Short avatar mark of a bot: "B1" for "Bot 1". */
export function botMark(player) {
  const number = /(\d+)\s*$/.exec(player.name || '');
  return number ? `B${number[1]}` : 'B';
}
