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

/** The rule systems (SPEC §9, SPEC-VARIANTS.md) with a one-line explanation each. */
export const RULES = [
  ['classic', 'Classic', 'Bid on all dice in play; * dice are wild; the loser of a challenge loses one die.'],
  ['wild-stars', 'Wild Stars', '★ replaces the 1 and is always wild; bid stars, show dice and reroll; lose the difference.'],
  ['poker', 'Poker Liar Dice', 'Pass one cup of five poker dice (9 T J Q K A) with a claimed hand; accept and reroll, or call Liar! and risk a life.'],
];

/** Poker Liar Dice settings and their defaults (absent from other rooms' settings). */
export const POKER_DEFAULTS = { lives: 3, dogs_life: false };

export const RULES_FIELD = { name: 'rules', label: 'Rules', options: RULES.map(([value, label]) => [value, label]) };

/** Settings that only classic rooms use (Wild Stars has neither). */
const CLASSIC_ONLY = new Set(['wildcard_chance', 'penalty']);
/** Settings that poker rooms do not use (one cup of five dice, lives instead of dice). */
const DICE_ONLY = new Set(['starting_dice', 'wildcard_chance', 'penalty']);
/** Settings that only poker rooms use. */
const POKER_ONLY = new Set(['lives', 'dogs_life']);

export function isWildStars(values) {
  return Boolean(values) && values.rules === 'wild-stars';
}

export function isPoker(values) {
  return Boolean(values) && values.rules === 'poker';
}

/** Whether a settings field applies to a room with these rules. */
function applies(name, rules) {
  if (rules === 'poker') return !DICE_ONLY.has(name);
  if (POKER_ONLY.has(name)) return false;
  return !(rules === 'wild-stars' && CLASSIC_ONLY.has(name));
}

export function rulesLabel(value) {
  const found = RULES.find(([v]) => v === value);
  return found ? found[1] : String(value ?? 'Classic');
}

function rulesHelp(value) {
  const found = RULES.find(([v]) => v === value) || RULES[0];
  return found[2];
}

export const FIELDS = [
  { name: 'lives', label: 'Lives', options: [1, 2, 3, 4, 5].map((n) => [n, `${n} per player`]) },
  { name: 'dogs_life', label: "Dog's life", options: [[false, 'Off'], [true, 'On: one extra life, once per game']] },
  { name: 'starting_dice', label: 'Starting dice', options: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, `${n} per player`]) },
  { name: 'wildcard_chance', label: 'Wildcard chance', options: [[0, '0 %'], [5, '5 %'], [10, '10 %']] },
  { name: 'penalty', label: 'Penalty (loser of a challenge)', options: [['discard', 'Discards 1 die'], ['give', 'Gives 1 die to winner']] },
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
  let rules = values.rules ?? DEFAULT_SETTINGS.rules;
  const help = h('span', { class: 'field-help muted small', testid: `${prefix}-rules-help` }, rulesHelp(rules));
  const note = h('p', { class: 'muted small settings-note', testid: `${prefix}-classic-only-note` },
    'Wildcard chance and penalty do not apply to Wild Stars.');
  const pokerNote = h('p', { class: 'muted small settings-note', testid: `${prefix}-poker-note` },
    'Poker uses one cup of five dice and lives: starting dice, wildcard chance and penalty do not apply.');
  const rulesId = `${prefix}-rules`;
  const rulesSelect = h('select', {
    id: rulesId, testid: rulesId, value: rules,
    onchange: (event) => {
      rules = event.target.value;
      sync();
      onChange('rules', rules);
    },
  }, RULES_FIELD.options.map(([v, label]) => h('option', { value: v }, label)));
  const rulesRow = h('label', { class: 'field field-wide', for: rulesId },
    h('span', { class: 'field-label' }, RULES_FIELD.label), rulesSelect, help);
  const fieldRows = [];
  const rows = FIELDS.map((field) => {
    const id = `${prefix}-${field.name}`;
    const select = h('select', {
      id,
      testid: id,
      value: String(values[field.name] ?? DEFAULT_SETTINGS[field.name] ?? POKER_DEFAULTS[field.name]),
      onchange: (event) => {
        const raw = event.target.value;
        const kind = typeof field.options[0][0];
        const typed = kind === 'number' ? Number(raw) : kind === 'boolean' ? raw === 'true' : raw;
        onChange(field.name, typed);
      },
    }, field.options.map(([v, label]) => h('option', { value: String(v) }, label)));
    if (guestRoom && field.name === 'joining') {
      select.disabled = true;
      select.title = 'Guest rooms cannot be joined by others';
    }
    const row = h('label', { class: 'field', for: id }, h('span', { class: 'field-label' }, field.label), select);
    fieldRows.push([field.name, row, select]);
    return row;
  });
  function sync() {
    help.textContent = rulesHelp(rules);
    note.hidden = rules !== 'wild-stars';
    pokerNote.hidden = rules !== 'poker';
    for (const [name, row, select] of fieldRows) {
      const on = applies(name, rules);
      row.hidden = !on;
      if (!(guestRoom && name === 'joining')) select.disabled = !on;
    }
  }
  sync();
  return h('div', { class: 'settings-form' }, rulesRow, rows, note, pokerNote);
}

/** Read-only list of settings. */
export function settingsSummary(values) {
  const fields = FIELDS.filter((field) => applies(field.name, values.rules ?? 'classic'));
  return h('dl', { class: 'settings-summary' },
    h('dt', {}, RULES_FIELD.label),
    h('dd', { testid: 'summary-rules', title: rulesHelp(values.rules) }, rulesLabel(values.rules ?? 'classic')),
    fields.map((field) => [
      h('dt', {}, field.label),
      h('dd', { testid: `summary-${field.name}` }, optionLabel(field, values[field.name] ?? POKER_DEFAULTS[field.name])),
    ]));
}

/** Short chips for the lobby. */
export function settingsChips(values) {
  const v = values || {};
  if (isPoker(v)) {
    const poker = ['Poker', `${v.lives ?? POKER_DEFAULTS.lives} lives`, `${v.turn_seconds ?? '?'}s turns`];
    if (v.dogs_life) poker.push("dog's life");
    if (v.joining === 'approval') poker.push('approval');
    if (v.joining === 'passcode') poker.push('passcode');
    return h('span', { class: 'chips' }, poker.map((c) => h('span', { class: 'chip' }, c)));
  }
  if (isWildStars(v)) {
    const wild = ['Wild Stars', `${v.starting_dice ?? '?'} dice`, `${v.turn_seconds ?? '?'}s turns`];
    if (v.joining === 'approval') wild.push('approval');
    if (v.joining === 'passcode') wild.push('passcode');
    return h('span', { class: 'chips' }, wild.map((c) => h('span', { class: 'chip' }, c)));
  }
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
