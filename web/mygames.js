// "My games": the rooms I sit in, my turn first (GET /me/games), on the lobby.

import { api } from './api.js';
import { h, mount } from './dom.js';
import { state } from './core.js';
import { rulesLabel } from './settings.js';

// Words of this module (moved into the i18n catalogues with the rest of the client's words).
const WORDS = {
  title: 'My games',
  yourTurn: (n) => (n === 1 ? 'Your turn in 1 game' : `Your turn in ${n} games`),
  noTurn: 'Waiting for the others.',
  none: 'You are not in any game.',
  waiting: 'waiting',
  correspondence: 'a move a day',
  mine: 'your turn',
  due: (when) => `due ${when}`,
  open: 'Open',
};

function dueText(iso) {
  const ms = Date.parse(iso) - Date.now();
  if (!Number.isFinite(ms)) return '';
  const hours = Math.round(ms / 3600000);
  if (hours >= 48) return WORDS.due(`in ${Math.round(hours / 24)} days`);
  if (hours >= 1) return WORDS.due(`in ${hours} h`);
  return WORDS.due(`in ${Math.max(0, Math.round(ms / 60000))} min`);
}

function row(game) {
  const pills = [h('span', { class: 'pill' }, rulesLabel(game.rules))];
  if (game.status === 'waiting') pills.push(h('span', { class: 'pill pill-muted' }, WORDS.waiting));
  if (game.pace === 'correspondence') pills.push(h('span', { class: 'pill pill-muted' }, WORDS.correspondence));
  if (game.my_turn) pills.push(h('span', { class: 'pill pill-playing', testid: 'my-turn' }, WORDS.mine));
  return h('li', { class: 'row-between', testid: 'my-game', dataset: { roomId: game.room_id } },
    h('span', {}, pills, game.deadline && game.my_turn ? h('span', { class: 'muted small' }, ` ${dueText(game.deadline)}`) : null),
    h('a', { class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(game.room_id)}` }, WORDS.open));
}

/** The lobby card: "Your turn in N games" and the list (null when signed out). */
export function myGamesCard() {
  if (!state.user) return null;
  const heading = h('p', { class: 'muted small', testid: 'my-games-summary' }, '');
  const list = h('ul', { class: 'plain-list' });
  const card = h('section', { class: 'card', testid: 'my-games', hidden: true }, h('h2', {}, WORDS.title), heading, list);
  api('GET', '/me/games').then((answer) => {
    const games = (answer && answer.games) || [];
    if (!card.isConnected && !document.body.contains(card)) return;
    const mine = games.filter((g) => g.my_turn).length;
    heading.textContent = games.length === 0 ? WORDS.none : mine > 0 ? WORDS.yourTurn(mine) : WORDS.noTurn;
    mount(list, games.map(row));
    card.hidden = games.length === 0;
  }).catch(() => {});
  return card;
}
