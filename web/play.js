// Small pieces of the game screen that the screen and the rule-system modules share.

import { h } from './dom.js';
import { serverNow } from './api.js';
import { formatSeconds, playerById } from './core.js';
import { capitalize as capitalizeWords, t } from './i18n/index.js';

export function actionPath(room) {
  return `/rooms/${encodeURIComponent(room.id)}/actions`;
}

export function myPlayer(room) {
  const me = room.me || {};
  return me.player_id ? playerById(room, me.player_id) : null;
}

export function isActive(player) {
  return Boolean(player && !player.eliminated && !player.resigned && player.dice_count > 0);
}

export const capitalize = capitalizeWords;

/** "1 die", "2 dice" (and "1 dado", "2 dados"). */
export function diceWord(n) {
  return t('dice.dice', { count: n });
}

/** A live countdown to an ISO deadline (the app's timer loop updates it). */
/**
 * A turn line's clock: " 0:27", or "…" while the player is still to be reached (a push's
 * playback: the turn has no deadline yet), never the countdown's bare placeholder.
 */
export function turnClock(turn) {
  if (!turn || !turn.deadline) return '…';
  return [' ', countdown(turn.deadline)];
}

export function countdown(deadline, extraClass = '') {
  if (!deadline) return h('span', { class: 'countdown muted' }, '—');
  // Filled at once (the timer loop keeps it current), so a fresh screen never shows a blank.
  const left = Date.parse(deadline) - serverNow();
  const text = Number.isNaN(left) ? '—' : formatSeconds(left);
  return h('span', { class: ['countdown', extraClass], dataset: { deadline }, testid: 'countdown' }, text);
}
