// What the player reads when the server refuses something. The one table of the client that
// turns an error into words: by the API's stable `code`, then by the input `field` at fault,
// then by HTTP status. The server's `message` is never shown for input errors (it is the
// validator's wording, e.g. "String should match pattern …"); for other codes it is a
// last resort only.

import { defaultSystem, roomSystem } from './systems/index.js';

/** The username rules, shown under the field before anyone submits. */
export const USERNAME_RULES = '3 to 24 characters: letters A–Z, digits, _ and -. No spaces.';
export const PASSWORD_RULES = 'At least 8 characters.';
export const NAME_MAX = 24;

const USERNAME_RE = /^[A-Za-z0-9_-]{3,24}$/;

/** The username's problem in words, or null when the rules are met. */
export function usernameProblem(value) {
  if (!value) return 'Choose a username.';
  if (/\s/.test(value)) return 'A username has no spaces.';
  if (value.length < 3) return 'A username has at least 3 characters.';
  if (value.length > 24) return 'A username has at most 24 characters.';
  if (!USERNAME_RE.test(value)) return 'Use only letters A–Z, digits, _ and - in a username.';
  return null;
}

export function passwordProblem(value) {
  if (!value || value.length < 8) return 'A password has at least 8 characters.';
  if (value.length > 128) return 'A password has at most 128 characters.';
  return null;
}

/** By code: what it means for the player, and what to do. */
const BY_CODE = {
  network_error: 'Cannot reach the server. Check your connection.',
  unavailable: 'The server is busy. Try again in a moment.',
  internal_error: 'Something went wrong on the server. Try again.',
  not_signed_in: 'Sign in first.',
  invalid_token: 'Your session ended. Please sign in again.',
  token_expired: 'Your session ended. Please sign in again.',
  bad_credentials: 'Wrong username or password.',
  username_taken: 'That username is taken. Choose another one.',
  rate_limited: 'Too many tries. Wait a few minutes, then try again.',
  body_too_large: 'That is too long to send.',
  not_found: 'That was not found.',
  unknown_room: 'This room does not exist (it may have expired).',
  unknown_user: 'Nobody is registered with that username.',
  forbidden: 'You are not allowed to do that.',
  not_host: 'Only the host can do that.',
  not_a_member: 'You are not in this room.',
  not_a_player: 'You are not playing in this game.',
  not_waiting: 'The game has already started or ended.',
  joining_closed: 'Play has begun: you can watch, but no longer join.',
  already_joined: 'You are already in this room.',
  guest_room: 'A guest created this room: only they play in it. You can watch.',
  guest_cannot_join: 'Guests cannot join other players’ rooms. Register (it is free) to join.',
  room_full: 'This room is full.',
  wrong_passcode: 'Wrong passcode. Ask the host for the four digits.',
  already_requested: 'Your request is already waiting for the host.',
  request_denied: 'The host declined your request to join this room.',
  no_request: 'That request is no longer waiting.',
  invalid_level: 'Choose a bot level from the list.',
  too_many_bots: 'A room holds at most 9 bots.',
  unknown_bot: 'That bot has already left.',
  not_enough_players: 'Add a bot or wait for another player: a game needs two.',
  not_ready: 'Not everyone is ready yet.',
  too_many_players: 'There are too many players for these rules: remove a seat or choose other rules.',
  not_finished: 'Only a finished game can be played again.',
  already_recreated: 'Someone already opened the next game: follow the link to it.',
  room_limit_reached: 'You already have 5 open rooms. Finish or leave one first.',
  not_your_turn: 'It is not your turn.',
  stale_turn: 'Too late: the turn has moved on.',
  wrong_phase: 'That is not possible right now.',
  wrong_stage: 'That is not possible at this point of the turn.',
  no_bid: 'There is no bid to challenge yet.',
  illegal_bid: 'That bid does not beat the current one.',
  already_agreed: 'You have already agreed.',
  already_out: 'You are already out of this game.',
  not_started: 'The game has not started yet.',
  unrated: 'This game is unrated: no rating changes.',
  conflict: 'The room changed meanwhile. Here is the latest; try again.',
  too_long: 'That message is too long (500 characters at most).',
  chat_not_allowed: 'Only registered players can chat.',
};

/** Input errors by field: what a valid value looks like. */
const BY_FIELD = {
  username: `Usernames are ${USERNAME_RULES.charAt(0).toLowerCase()}${USERNAME_RULES.slice(1)}`,
  password: 'Passwords have 8 to 128 characters.',
  name: `A nickname has 1 to ${NAME_MAX} characters, letters and symbols people can read.`,
  passcode: 'The passcode is exactly four digits.',
  text: 'Write a message of 1 to 500 characters.',
  quantity: 'The quantity is a whole number of dice.',
  face: 'Choose a face from the picker.',
  level: 'Choose a bot level from the list.',
  order: 'Put every player in the order once.',
  turn: 'Too late: the turn has moved on.',
};

/** Where the player is when it happens changes what some codes mean. */
const BY_ACTION = {
  login: {
    // A wrong password is wrong, whatever the policy for new passwords says.
    invalid_input: 'Wrong username or password.',
    rate_limited: 'Too many sign-in attempts for this username. Wait a few minutes, then try again.',
  },
  join: {
    rate_limited: 'Too many passcode attempts for this room: even the right code is refused for up to 15 minutes. Wait, or ask the host to invite you (no passcode needed).',
  },
  chat: { rate_limited: 'You are sending messages too fast. Wait a few seconds.' },
  register: { rate_limited: 'Too many new accounts from here. Try again later.' },
  guest: { rate_limited: 'Too many guest sign-ins from here. Try again later.' },
};

const BY_STATUS = {
  400: 'That was not accepted. Check what you entered.',
  401: 'Please sign in again.',
  403: 'You are not allowed to do that.',
  404: 'That was not found.',
  409: 'The room changed meanwhile. Try again.',
  413: 'That is too long to send.',
  429: 'Too many tries. Wait a little, then try again.',
  503: 'The server is busy. Try again in a moment.',
};

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

/** Codes whose words name the room's rule system (a module of systems/, and the default one). */
function systemWords(code, room) {
  const system = room && room.settings ? roomSystem(room) : null;
  if (code === 'too_many_players' && system && system.maxPlayers) {
    return `${system.label} is for 2 to ${system.maxPlayers} players: remove a seat or choose ${defaultSystem().label}.`;
  }
  return null;
}

/**
 * Human words for an error: {code, field, status, message} (an ApiError), in the context of
 * an action ('login', 'register', 'guest', 'join', 'chat', or none) and of the room on screen.
 */
export function errorMessage(err, action = null, room = null) {
  const code = (err && err.code) || 'http_error';
  const field = fieldName(err && err.field);
  const special = action && BY_ACTION[action];
  if (special && special[code]) return special[code];
  const words = systemWords(code, room);
  if (words) return words;
  if (INPUT_CODES.has(code) || (field && !BY_CODE[code])) {
    if (field && BY_FIELD[field]) return BY_FIELD[field];
    if (code === 'invalid_setting' || (field && field.startsWith('settings'))) return 'Choose a setting from the lists.';
    return BY_STATUS[400];
  }
  if (BY_CODE[code]) return BY_CODE[code];
  const status = err && err.status;
  // A code this table does not know yet: the engine's messages are sentences for players.
  if (status && status !== 400 && err.message) return sentence(err.message);
  return BY_STATUS[status] || 'Something went wrong. Try again.';
}
