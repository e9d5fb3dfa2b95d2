// What the player reads when the server refuses something. The one table of the client that
// turns an error into words: by the API's stable `code`, then by the input `field` at fault,
// then by HTTP status. The server's `message` is never shown for input errors (it is the
// validator's wording, e.g. "String should match pattern …"); for other codes it is a
// last resort only.

import { defaultSystem, roomSystem, systems } from './systems/index.js';

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
  guest_not_allowed: 'Guests cannot do that. Register (it is free) first.',
  name_taken: 'That name reads as a registered player’s username. Choose another one.',
  invalid_name: 'A name needs letters or symbols people can read, with plain spaces only.',
  name_reserved: 'Names like “Bot 3” belong to bots. Choose another one.',
  too_many_accounts: 'Too many new accounts from here. Try again later.',
  too_many_invitations: 'No more invitations for now: that player or this room already has the most there can be.',
  invalid_order: 'That order is not possible: put every player in it once, and keep the ranks already decided.',
  // A request the server does not take: this page and the server do not match.
  method_not_allowed: 'The server does not take that request. Reload the page and try again.',
  unsupported_media_type: 'The server could not read that request. Reload the page and try again.',
  invalid_message: 'The server could not read a live-update message. Reload the page.',
  unknown_action: 'The server could not read a live-update message. Reload the page.',
  message_too_large: 'That is too long to send.',
  unknown_connection: 'The live connection was lost. It reconnects by itself.',
  too_many_subscriptions: 'Too many rooms are open at once. Close a few tabs, then reload.',
  websocket_unavailable: 'Live updates are off on this server: the table refreshes every few seconds instead.',
  // The store's own refusals (rare: a race the server did not retry)
  version_conflict: 'The room changed meanwhile. Try again.',
  room_exists: 'Something went wrong on the server. Try again.',
  user_exists: 'That username is taken. Choose another one.',
  store_error: 'Something went wrong on the server. Try again.',
  too_many_rating_changes: 'Something went wrong on the server. Try again.',
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

/**
 * Codes whose words are a rule system's: its own refusals (a module's `errors`, found in the
 * room's system first, then in any), and those that name it (the default one too).
 */
function systemWords(code, room) {
  const system = room && room.settings ? roomSystem(room) : null;
  if (code === 'too_many_players' && system && system.maxPlayers) {
    return `${system.label} is for 2 to ${system.maxPlayers} players: remove a seat or choose ${defaultSystem().label}.`;
  }
  const own = [system, ...systems()].find((s) => s && s.errors && Object.hasOwn(s.errors, code));
  return own ? own.errors[code] : null;
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
