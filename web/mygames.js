// "My games": the rooms I sit in, my turn first (GET /me/games), on the lobby.

import { api } from './api.js';
import { h, mount } from './dom.js';
import { state } from './core.js';
import { rulesLabel } from './settings.js';
import { t } from './i18n/index.js';

function dueText(iso) {
  const ms = Date.parse(iso) - Date.now();
  if (!Number.isFinite(ms)) return '';
  const hours = Math.round(ms / 3600000);
  if (hours >= 48) return t('mygames.dueDays', { count: Math.round(hours / 24) });
  if (hours >= 1) return t('mygames.dueHours', { count: hours });
  return t('mygames.dueMinutes', { count: Math.max(0, Math.round(ms / 60000)) });
}

function row(game) {
  const pills = [h('span', { class: 'pill' }, rulesLabel(game.rules))];
  if (game.status === 'waiting') pills.push(h('span', { class: 'pill pill-muted' }, t('mygames.waiting')));
  if (game.pace === 'correspondence') pills.push(h('span', { class: 'pill pill-muted' }, t('mygames.correspondence')));
  if (game.my_turn) pills.push(h('span', { class: 'pill pill-playing', testid: 'my-turn' }, t('mygames.mine')));
  return h('li', { class: 'row-between', testid: 'my-game', dataset: { roomId: game.room_id } },
    h('span', {}, pills, game.deadline && game.my_turn ? h('span', { class: 'muted small' }, ` ${dueText(game.deadline)}`) : null),
    h('a', { class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(game.room_id)}` }, t('common.open')));
}

/** The lobby card: "Your turn in N games" and the list (null when signed out). */
export function myGamesCard() {
  if (!state.user) return null;
  const heading = h('p', { class: 'muted small', testid: 'my-games-summary' }, '');
  const list = h('ul', { class: 'plain-list' });
  const card = h('section', { class: 'card', testid: 'my-games', hidden: true }, h('h2', {}, t('mygames.title')), heading, list);
  api('GET', '/me/games').then((answer) => {
    const games = (answer && answer.games) || [];
    if (!card.isConnected) return; // the lobby was drawn again meanwhile
    const mine = games.filter((g) => g.my_turn).length;
    heading.textContent = mine > 0 ? t('mygames.yourTurn', { count: mine }) : t('mygames.noTurn');
    mount(list, games.map(row));
    card.hidden = games.length === 0;
  }).catch(() => {});
  return card;
}
