// What rule systems of bids on all the dice in play (a quantity and a face) share: the bid
// panel, the dice on a player card, the reveal table, the words of the live table and of the
// replay. A system module builds its own from these with a *track* (web/README.md):
//   faces, words(q, f), isRaise(q, f, current), minimum(f, current, total), defaultBid(room),
//   preview(room, q, f) -> children after "You bid …", and optionally
//   controls(room, myTurn) -> {box, extra}, showsCup (the controls show the player's dice,
//   so the panel does not), shownDice(room, playerId) -> dice set out.

import { h } from './dom.js';
import { playerName, roomCall, state } from './core.js';
import { bidBadge, bidWords, bidWordsShort, diceRow, die, hiddenDice } from './dice.js';
import { actionPath, capitalize, countdown, isActive, myPlayer, turnClock } from './play.js';
import { t, tNodes } from './i18n/index.js';

/**
 * The words of a dice game's shared screens: each term names its catalogue key (a system with
 * other words, e.g. hands and lives, names its own keys; web/README.md lists the terms).
 */
export const DICE_TERMS = Object.fromEntries(['round', 'rounds', 'Round', 'roundN', 'piecesInPlay', 'finalPieces',
  'progress', 'pieces', 'bidsInOrder', 'replayRounds', 'loss', 'revealHint', 'revealTitle', 'revealN', 'previous',
  'roundOver'].map((term) => [term, `terms.${term}`]));

/** The settings field of the dice each player starts with. */
export const STARTING_DICE = {
  name: 'starting_dice', label: 'settings.starting_dice', default: 5,
  options: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, 'settings.perPlayer', { count: n }]),
};

/** A die drawn inside a control that has its own name: not read twice. */
function hideFromReaders(node) {
  node.removeAttribute('role');
  node.removeAttribute('aria-label');
  node.setAttribute('aria-hidden', 'true');
  return node;
}

/** A face from a data attribute: '*' stays the star, anything else is a number. */
function parseFace(value) {
  return value === '*' ? '*' : Number(value);
}

function bidProblem(quantity, face, current, total, track) {
  if (!track.faces.includes(face)) return t('bid.chooseFace');
  if (!Number.isFinite(quantity) || quantity < 1) return t('bid.atLeastOne');
  if (!Number.isInteger(quantity)) return t('bid.whole');
  if (quantity > total) return t('bid.onlyInPlay', { count: total });
  if (!track.isRaise(quantity, face, current)) {
    return capitalize(t('bid.doesNotBeat', { bid: track.words(quantity, face), current: track.words(current.quantity, current.face) }));
  }
  return null;
}

/** The bid slot while bidding: the current bid, quantity and face pickers, Bid and Liar!. */
export function diceBidPanel(room, track, part = {}) {
  const g = room.game;
  const me = room.me || {};
  const mine = myPlayer(room);
  const current = g.current_bid;
  const turnPlayer = g.turn ? g.turn.player_id : null;
  const myTurn = g.phase === 'bidding' && turnPlayer && turnPlayer === me.player_id;
  const header = h('h2', { testid: 'bid-heading', tabindex: '-1', 'data-focus-fallback': '' }, myTurn ? t('bid.yourTurn') : t('bid.bidding'));
  const currentLine = current
    ? h('p', { class: 'current-bid-line', testid: 'current-bid' },
      tNodes('bid.current', { bid: bidBadge(current), name: playerName(room, current.player_id) }))
    : h('p', { class: 'current-bid-line muted', testid: 'current-bid' }, t('bid.none'));

  if (!mine || !isActive(mine)) {
    const why = !mine ? t('bid.watching') : mine.resigned ? t('bid.resigned') : t('bid.outOfDice');
    return h('section', { class: 'card bid-panel', testid: 'bid-panel' }, header, currentLine, h('p', { class: 'muted' }, why),
      g.phase === 'bidding' && turnPlayer ? h('p', {}, t('bid.toAct', { name: playerName(room, turnPlayer) }), turnClock(g.turn)) : null);
  }

  // Keep the player's selection while it is still legal; start fresh each round.
  const total = g.total_dice;
  let selection = state.bid;
  if (selection.round !== g.round || bidProblem(selection.quantity, selection.face, current, total, track)) {
    selection = { ...track.defaultBid(room), round: g.round };
  }
  state.bid = selection;

  const quantityInput = h('input', {
    type: 'number', min: '1', max: String(total), step: '1', value: String(selection.quantity),
    testid: 'bid-quantity', id: 'bid-quantity', inputmode: 'numeric',
  });
  const faceButtons = track.faces.map((face) => h('button', {
    type: 'button', class: 'face-button', testid: `bid-face-${face === '*' ? 'star' : face}`, dataset: { face: String(face) },
    role: 'radio', 'aria-checked': String(face === selection.face), 'aria-label': face === '*' ? t('bid.stars') : t('bid.faceN', { n: face }),
    tabindex: face === selection.face ? '0' : '-1',
  }, hideFromReaders(die(face))));
  const faceGroup = h('div', { class: 'face-picker', role: 'radiogroup', 'aria-label': t('bid.face'), testid: 'bid-face', dataset: { value: String(selection.face) } }, faceButtons);
  const preview = h('p', { class: 'bid-preview', testid: 'bid-preview', 'aria-live': 'polite' });
  const submit = h('button', { class: 'btn btn-primary', type: 'submit', testid: 'bid-submit', 'aria-keyshortcuts': 'B' }, t('bid.bid'));
  const liarWords = t(track.liarKey || 'bid.liar');
  const liar = h('button', {
    class: 'btn btn-danger', type: 'button', testid: 'call-liar', 'aria-keyshortcuts': 'L',
    disabled: !myTurn || !current,
    title: current ? t('bid.challenge') : t('bid.noChallenge'),
    onclick: (event) => roomCall('POST', actionPath(room), { type: 'liar', turn: g.turn.number }, event.currentTarget),
  }, liarWords);

  function refresh() {
    const quantity = Number(quantityInput.value);
    const face = state.bid.face;
    state.bid = { ...state.bid, quantity };
    faceGroup.dataset.value = String(face);
    for (const button of faceButtons) {
      const on = parseFace(button.dataset.face) === face;
      button.setAttribute('aria-checked', String(on));
      button.tabIndex = on ? 0 : -1;
    }
    const problem = bidProblem(quantity, face, current, total, track);
    if (problem) {
      preview.classList.add('is-invalid');
      preview.replaceChildren(problem);
    } else {
      preview.classList.remove('is-invalid');
      preview.replaceChildren(...track.preview(room, quantity, face));
    }
    submit.disabled = !myTurn || Boolean(problem);
  }

  quantityInput.addEventListener('input', refresh);
  // The face picker is one radio group: arrow keys move the choice (WAI-ARIA radio group).
  faceGroup.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const at = faceButtons.findIndex((b) => parseFace(b.dataset.face) === state.bid.face);
    const next = faceButtons[(Math.max(0, at) + step + faceButtons.length) % faceButtons.length];
    next.click();
    next.focus();
  });
  for (const button of faceButtons) {
    button.addEventListener('click', () => {
      const face = parseFace(button.dataset.face);
      state.bid = { ...state.bid, face };
      // Jump to the smallest legal quantity for this face when the current one no longer fits.
      const quantity = Number(quantityInput.value);
      if (bidProblem(quantity, face, current, total, track)) {
        const least = track.minimum(face, current, total);
        if (least !== null) quantityInput.value = String(least);
      }
      refresh();
    });
  }
  const step = (delta) => h('button', {
    type: 'button', class: 'btn btn-ghost stepper', testid: delta > 0 ? 'bid-quantity-up' : 'bid-quantity-down',
    'aria-label': delta > 0 ? t('bid.more') : t('bid.fewer'),
    onclick: () => {
      const next = Math.min(total, Math.max(1, (Number(quantityInput.value) || 0) + delta));
      quantityInput.value = String(next);
      refresh();
    },
  }, delta > 0 ? '+' : '−');

  const controls = track.controls ? track.controls(room, myTurn, part) : null;
  // The player's own dice, beside the current bid: on a phone the cards are a screen below
  // (style.css hides this where the cards stand beside the panel). A track whose controls
  // show the cup (`showsCup`) has them there already.
  const myDice = !track.showsCup && Array.isArray(me.dice) && me.dice.length
    ? h('p', { class: 'panel-dice', testid: 'panel-dice' }, h('span', { class: 'field-label' }, t('bid.yourDice')), diceRow(me.dice, { size: 'small' }))
    : null;
  const form = h('form', {
    class: 'bid-form',
    onsubmit: (event) => {
      event.preventDefault();
      const quantity = Number(quantityInput.value);
      const { face } = state.bid;
      if (!myTurn || bidProblem(quantity, face, current, total, track)) return;
      const extra = controls ? controls.extra() : {};
      roomCall('POST', actionPath(room), { type: 'bid', quantity, face, turn: g.turn.number, ...extra }, submit);
    },
  },
  h('div', { class: 'bid-inputs' },
    h('label', { class: 'field-label', for: 'bid-quantity' }, t('bid.quantity')),
    h('div', { class: 'stepper-row' }, step(-1), quantityInput, step(1)),
    h('span', { class: 'field-label', 'aria-hidden': 'true' }, t('bid.face')),
    faceGroup),
  preview,
  controls ? controls.box : null,
  h('div', { class: 'button-row bid-buttons' }, submit, liar),
  myTurn ? h('p', { class: 'muted small shortcut-hint', testid: 'shortcut-hint' }, t('bid.shortcuts', { liar: liarWords })) : null);
  refresh();

  const turnLine = myTurn
    ? h('p', { class: 'turn-line is-mine' }, tNodes('bid.timeLeft', { time: countdown(g.turn.deadline, 'big') }))
    : h('p', { class: 'turn-line' }, t('bid.waitingFor', { name: playerName(room, turnPlayer) }), turnClock(g.turn));
  return h('section', { class: ['card', 'bid-panel', myTurn ? 'is-my-turn' : ''], testid: 'bid-panel' }, header, currentLine, myDice, turnLine, form);
}

/** A player card's system parts: the dice count, the dice (own, hidden, set out), the bid. */
export function diceCard(room, player, { isMe, out }, track) {
  const me = room.me || {};
  const g = room.game;
  const bid = g.current_bid && g.current_bid.player_id === player.id ? g.current_bid : null;
  const shown = out || !track.shownDice ? [] : track.shownDice(room, player.id);
  let dice;
  if (out) {
    dice = h('span', { class: 'muted small' }, player.resigned ? t('card.resigned') : t('card.eliminated'));
  } else if (isMe && Array.isArray(me.dice)) {
    dice = diceRow(me.dice, { size: 'medium' });
  } else {
    dice = hiddenDice(Math.max(0, player.dice_count - shown.length));
  }
  const shownRow = shown.length
    ? h('span', { class: 'shown-dice', testid: 'shown-dice', title: t('card.shownTitle') },
      h('span', { class: 'shown-label' }, t('card.shown')),
      diceRow(shown, { size: isMe ? 'medium' : 'small', shown: shown.map(() => true) }))
    : null;
  return {
    count: h('span', { class: 'dice-count', title: t('card.diceTitle') }, out ? '' : t('dice.dice', { count: player.dice_count })),
    dice: [dice, shownRow],
    bid: bid ? h('span', { class: 'card-bid', testid: 'card-bid' }, tNodes('card.bid', { badge: bidBadge(bid), words: track.words(bid.quantity, bid.face) })) : null,
  };
}

/**
 * The reveal of a challenge: a summary, then every hand with the dice that counted.
 * parts: {summary(room, reveal), isLoser(reveal, row), pills(reveal, row), footnote}.
 */
export function diceReveal(room, reveal, { previous, byClock }, parts) {
  const rows = (reveal.rows || []).map((row) => h('tr', {
    class: [parts.isLoser(reveal, row) ? 'is-loser' : ''], dataset: { playerId: row.player_id },
  },
  h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
    row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-muted' }, t('reveal.bidder')) : null,
    row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, t('reveal.challenger')) : null,
    parts.pills(reveal, row)),
  h('td', {}, (row.dice || []).length
    ? diceRow(row.dice, { counted: row.counted || [], size: 'small', shown: (reveal.shown || {})[row.player_id] || [] })
    : h('span', { class: 'muted' }, '—')),
  h('td', { class: 'reveal-bids' }, (row.bids || []).length
    ? h('span', { class: 'bid-list' }, row.bids.map((b) => bidBadge(b)))
    : h('span', { class: 'muted', testid: 'no-bids' }, '—'))));
  return h('section', { class: 'card reveal-panel', testid: 'reveal' },
    h('div', { class: 'row-between' }, h('h2', {}, t('terms.revealN', { n: reveal.round })),
      previous ? h('span', { class: 'pill pill-muted' }, t('terms.previous')) : null),
    parts.summary(room, reveal, { byClock: Boolean(byClock) }),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('terms.revealN', { n: reveal.round }) },
      h('table', { class: 'reveal-table', testid: 'reveal-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('reveal.username')), h('th', { scope: 'col' }, t('reveal.dice')), h('th', { scope: 'col' }, t('reveal.bids')))),
        h('tbody', {}, rows))),
    h('p', { class: 'muted small' }, t('reveal.highlighted'), parts.footnote ? [' ', t(parts.footnote)] : ''));
}

/** The bid of a `bid_placed` event, as the room view's `current_bid` has it. */
export function diceBidFromEvent(e) {
  const bid = { player_id: e.player_id };
  for (const k of ['quantity', 'face']) if (e[k] !== undefined && e[k] !== null) bid[k] = e[k];
  return bid;
}

/** The live table's words of a dice bid (and of a bid played for a player out of time). */
export const diceTableWords = {
  moveWords: (e) => (e.type === 'bid_placed' ? bidWordsShort(e.quantity, e.face) : null),
  actionWords: (action) => (action.type === 'bid' ? t('table.bidWasPlayed', { bid: bidWordsShort(action.quantity, action.face) }) : null),
};

/** The replay of a round of a dice game (records.js). */
export const diceReplay = {
  bidWords: (bid) => bidWords(bid.quantity, bid.face),
  hands: (history, record) => record.reveal.rows.map((row) => h('div', { class: 'replay-hand', testid: 'replay-hand', dataset: { playerId: row.player_id } },
    h('span', { class: 'replay-name' }, row.name), diceRow(row.dice, { counted: row.counted, size: 'small', shown: (record.reveal.shown || {})[row.player_id] || [] }))),
  verdict: (reveal) => t('replay.counted', { n: reveal.count }),
  loss: (reveal) => (reveal.penalty === 'give' ? t('replay.lossGive') : t('replay.lossDie')),
};
