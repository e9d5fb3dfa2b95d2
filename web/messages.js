// What the player reads when the server refuses something. The one table of the client that
// turns an error into words: by the API's stable `code`, then by the input `field` at fault,
// then by HTTP status. The server's `message` is never shown for input errors (it is the
// validator's wording, e.g. "String should match pattern …"); for other codes it is a
// last resort only.

import { defaultSystem, roomSystem, systemLabel, systems } from './systems/index.js';
import { has, language, t } from './i18n/index.js';

/** The username rules, shown under the field before anyone submits. */
export const usernameRules = () => t('auth.usernameRules');
export const passwordRules = () => t('auth.passwordRules');
export const NAME_MAX = 24;

const USERNAME_RE = /^[A-Za-z0-9_-]{3,24}$/;

/** The username's problem in words, or null when the rules are met. */
export function usernameProblem(value) {
  if (!value) return t('auth.chooseUsername');
  if (/\s/.test(value)) return t('auth.usernameSpaces');
  if (value.length < 3) return t('auth.usernameShort');
  if (value.length > 24) return t('auth.usernameLong');
  if (!USERNAME_RE.test(value)) return t('auth.usernameChars');
  return null;
}

export function passwordProblem(value) {
  if (!value || value.length < 8) return t('auth.passwordShort');
  if (value.length > 128) return t('auth.passwordLong');
  return null;
}

// By code (`error.<code>` in the catalogues): what it means for the player, and what to do.
// Input errors by field (`field.<name>`): what a valid value looks like. Where the player is
// changes what some codes mean (`error.<action>.<code>`). Last, by HTTP status (`status.<n>`).
const FIELDS = new Set(['username', 'password', 'name', 'passcode', 'text', 'quantity', 'face', 'level', 'order', 'turn']);
const STATUSES = new Set([400, 401, 403, 404, 409, 413, 429, 503]);

/** Codes whose server message is a validator's wording, never to be shown. */
const INPUT_CODES = new Set(['invalid_input', 'unknown_field', 'invalid_json', 'invalid_setting', 'invalid_action', 'bad_request', 'http_error', 'domain_error']);

function sentence(text) {
  const t = String(text || '').trim();
  if (!t) return '';
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** The top-level name of the field at fault ("settings.passcode" → "passcode"). */
function fieldName(field) {
  if (!field) return null;
  const parts = String(field).split('.').filter((p) => !/^\d+$/.test(p));
  return parts.length ? parts[parts.length - 1] : null;
}

/**
 * Codes whose words are a rule system's: its own refusals (a module's `errors`, found in the
 * room's system first, then in any), and those that name it (the default one too).
 */
function systemWords(code, room) {
  const system = room && room.settings ? roomSystem(room) : null;
  if (code === 'too_many_players' && system && system.maxPlayers) {
    return t('error.too_many_players_for', { system: systemLabel(system), max: system.maxPlayers, fallback: systemLabel(defaultSystem()) });
  }
  const own = [system, ...systems()].find((s) => s && (s.errors || []).includes(code));
  return own ? t(`${own.rules}.error.${code}`) : null;
}

/**
 * Human words for an error: {code, field, status, message} (an ApiError), in the context of
 * an action ('login', 'register', 'guest', 'join', 'chat', or none) and of the room on screen.
 */
export function errorMessage(err, action = null, room = null) {
  const code = (err && err.code) || 'http_error';
  const field = fieldName(err && err.field);
  if (action && has(`error.${action}.${code}`)) return t(`error.${action}.${code}`);
  const words = systemWords(code, room);
  if (words) return words;
  const known = has(`error.${code}`);
  if (INPUT_CODES.has(code) || (field && !known)) {
    if (field && FIELDS.has(field)) return t(`field.${field}`, { max: NAME_MAX });
    if (code === 'invalid_setting' || (field && field.startsWith('settings'))) return t('error.chooseSetting');
    return t('status.400');
  }
  if (known) return t(`error.${code}`);
  const status = err && err.status;
  // A code the catalogue does not know yet: the engine's messages are English sentences for
  // players, shown only to those who read English.
  if (status && status !== 400 && err.message && language() === 'en') return sentence(err.message);
  return STATUSES.has(status) ? t(`status.${status}`) : t('error.unknown');
}
