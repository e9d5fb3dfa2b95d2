// Room settings: labels, allowed values (docs/API.md, "Settings"), form fields and summaries.

import { h } from './dom.js';
import { defaultSystem, systemLabel, systemOf, systems } from './systems/index.js';
import { t } from './i18n/index.js';

/**
 * Settings every room has, whatever its rules (a system's own fields come from its module).
 * A field's `label` and each option's label are catalogue keys; an option may carry the params
 * of its words: [value, key, params].
 */
const SECONDS = (values) => values.map((n) => [n, 'settings.seconds', { n }]);
const HOURS = (values) => values.map((n) => [n * 3600, 'settings.hours', { count: n }]);
const SHARED_FIELDS = [
  { name: 'pace', label: 'settings.pace', default: 'live', options: [['live', 'settings.pace.live'], ['correspondence', 'settings.pace.correspondence']] },
  { name: 'turn_seconds', label: 'settings.turn_seconds', default: 30, options: [...SECONDS([15, 30, 60]), ...HOURS([1, 12, 24, 72])] },
  { name: 'break_seconds', label: 'settings.break_seconds', default: 60, options: SECONDS([30, 60, 120]) },
  { name: 'joining', label: 'settings.joining', default: 'open', options: [['open', 'settings.joining.open'], ['approval', 'settings.joining.approval'], ['passcode', 'settings.joining.passcode']] },
];

const RULES_LABEL = 'settings.rules';
const TURNS_BY_PACE = { live: [15, 30, 60], correspondence: [3600, 43200, 86400, 259200] };
const DEFAULT_TURN = { live: 30, correspondence: 86400 };

/** An option's words. */
function optionWords([, key, params]) {
  return t(key, params || {});
}

/** The settings of a new room: the default system's fields and the shared ones, at their defaults. */
export function defaultSettings() {
  const system = defaultSystem();
  const values = {};
  for (const field of [...system.fields, ...SHARED_FIELDS]) values[field.name] = field.default;
  return { ...values, rules: system.rules };
}

/** Every settings field of the form: each system's own (first seen first), then the shared ones. */
function allFields() {
  const fields = new Map();
  for (const system of systems()) for (const field of system.fields) if (!fields.has(field.name)) fields.set(field.name, field);
  for (const field of SHARED_FIELDS) fields.set(field.name, field);
  return [...fields.values()];
}

/** Whether a settings field applies to a room with these rules. */
function applies(name, rules) {
  return SHARED_FIELDS.some((f) => f.name === name) || systemOf(rules).fields.some((f) => f.name === name);
}

export function rulesLabel(value) {
  const found = systems().find((s) => s.rules === value);
  return found ? systemLabel(found) : String(value ?? systemLabel(defaultSystem()));
}

function rulesHelp(value) {
  const system = systemOf(value);
  return t(`${system.rules}.summary`);
}

function optionLabel(field, value) {
  const found = field.options.find(([v]) => String(v) === String(value));
  return found ? optionWords(found) : String(value ?? '—');
}

/**
 * Editable settings fields. onChange(name, value) is called with typed values.
 * prefix names the data-testid of each select: `${prefix}-${name}`.
 */
export function settingsForm(values, onChange, prefix = 'setting', { guestRoom = false } = {}) {
  let rules = values.rules ?? defaultSystem().rules;
  const help = h('span', { class: 'field-help muted small', testid: `${prefix}-rules-help` }, rulesHelp(rules));
  // A system's note says which of the other systems' settings it does without.
  const notes = systems().filter((system) => system.note).map((system) => [system.rules,
    h('p', { class: 'muted small settings-note', testid: `${prefix}-${system.rules}-note` }, t(`${system.rules}.note`))]);
  const rulesId = `${prefix}-rules`;
  const rulesSelect = h('select', {
    id: rulesId, testid: rulesId, value: rules,
    onchange: (event) => {
      rules = event.target.value;
      sync();
      onChange('rules', rules);
    },
  }, systems().map((system) => h('option', { value: system.rules }, systemLabel(system))));
  const rulesRow = h('label', { class: 'field field-wide', for: rulesId },
    h('span', { class: 'field-label' }, t(RULES_LABEL)), rulesSelect, help);
  const fieldRows = [];
  const rows = allFields().map((field) => {
    const id = `${prefix}-${field.name}`;
    const select = h('select', {
      id,
      testid: id,
      value: String(values[field.name] ?? field.default),
      onchange: (event) => {
        const raw = event.target.value;
        const kind = typeof field.options[0][0];
        const typed = kind === 'number' ? Number(raw) : kind === 'boolean' ? raw === 'true' : raw;
        onChange(field.name, typed);
        if (field.name === 'pace') fitTurnToPace(typed);
      },
    }, field.options.map((option) => h('option', { value: String(option[0]) }, optionWords(option))));
    if (guestRoom && field.name === 'joining') {
      select.disabled = true;
      select.title = t('settings.guestJoining');
    }
    const row = h('label', { class: 'field', for: id }, h('span', { class: 'field-label' }, t(field.label)), select);
    fieldRows.push([field.name, row, select]);
    return row;
  });
  // The turn times of the chosen pace only; a pace change takes that pace's default turn.
  function fitTurnToPace(pace, quiet) {
    const turn = fieldRows.find(([name]) => name === 'turn_seconds');
    if (!turn) return;
    const allowed = TURNS_BY_PACE[pace] || TURNS_BY_PACE.live;
    for (const option of turn[2].options) option.hidden = !allowed.includes(Number(option.value));
    if (!allowed.includes(Number(turn[2].value))) {
      turn[2].value = String(DEFAULT_TURN[pace] ?? 30);
      if (!quiet) onChange('turn_seconds', Number(turn[2].value));
    }
  }
  function sync() {
    help.textContent = rulesHelp(rules);
    for (const [owner, note] of notes) note.hidden = rules !== owner;
    for (const [name, row, select] of fieldRows) {
      const on = applies(name, rules);
      row.hidden = !on;
      if (!(guestRoom && name === 'joining')) select.disabled = !on;
    }
  }
  sync();
  fitTurnToPace(values.pace ?? 'live', true);
  return h('div', { class: 'settings-form' }, rulesRow, rows, notes.map(([, note]) => note));
}

/** Read-only list of settings. */
export function settingsSummary(values) {
  const rules = values.rules ?? defaultSystem().rules;
  const fields = allFields().filter((field) => applies(field.name, rules));
  return h('dl', { class: 'settings-summary' },
    h('dt', {}, t(RULES_LABEL)),
    h('dd', { testid: 'summary-rules', title: rulesHelp(values.rules) }, rulesLabel(rules)),
    fields.map((field) => [
      h('dt', {}, t(field.label)),
      h('dd', { testid: `summary-${field.name}` }, optionLabel(field, values[field.name] ?? field.default)),
    ]));
}

/** Short chips for the lobby: the system's, then how to join. */
export function settingsChips(values) {
  const v = values || {};
  const chips = systemOf(v.rules).chips(v);
  if (v.joining === 'approval') chips.push(t('settings.chip.approval'));
  if (v.joining === 'passcode') chips.push(t('settings.chip.passcode'));
  return h('span', { class: 'chips', role: 'list', 'aria-label': t('settings.chips') }, chips.map((c) => h('span', { class: 'chip', role: 'listitem' }, c)));
}

/** Short avatar mark of a bot: "B1" for "Bot 1". */
export function botMark(player) {
  const number = /(\d+)\s*$/.exec(player.name || '');
  return number ? `B${number[1]}` : 'B';
}
