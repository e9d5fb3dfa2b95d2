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

/** The words of a dice game's screens. */
export const DICE_TERMS = {
  round: 'round',
  pieces: 'dice',
  bids: 'bids',
  loss: 'a die',
  revealHint: 'When someone calls Liar!, every hand is revealed here.',
};

/** The settings field of the dice each player starts with. */
export const STARTING_DICE = {
  name: 'starting_dice', label: 'Starting dice', default: 5,
  options: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, `${n} per player`]),
};

/** A face from a data attribute: '*' stays the star, anything else is a number. */
function parseFace(value) {
  return value === '*' ? '*' : Number(value);
}

function bidProblem(quantity, face, current, total, track) {
  if (!track.faces.includes(face)) return 'Choose a face.';
  if (!Number.isFinite(quantity) || quantity < 1) return 'Choose a quantity of at least 1.';
  if (!Number.isInteger(quantity)) return 'The quantity is a whole number of dice.';
  if (quantity > total) return `Only ${total} dice are in play.`;
  if (!track.isRaise(quantity, face, current)) {
    return `${capitalize(track.words(quantity, face))} does not beat ${track.words(current.quantity, current.face)}.`;
  }
  return null;
}

/** The bid slot while bidding: the current bid, quantity and face pickers, Bid and Liar!. */
export function diceBidPanel(room, track) {
  const g = room.game;
  const me = room.me || {};
  const mine = myPlayer(room);
  const current = g.current_bid;
  const turnPlayer = g.turn ? g.turn.player_id : null;
  const myTurn = g.phase === 'bidding' && turnPlayer && turnPlayer === me.player_id;
  const header = h('h2', {}, myTurn ? 'Your turn' : 'Bidding');
  const currentLine = current
    ? h('p', { class: 'current-bid-line', testid: 'current-bid' }, 'Current bid: ', bidBadge(current),
      ` by ${playerName(room, current.player_id)}`)
    : h('p', { class: 'current-bid-line muted', testid: 'current-bid' }, 'No bid yet this round.');

  if (!mine || !isActive(mine)) {
    const why = !mine ? 'You are watching this game.' : mine.resigned ? 'You resigned: you keep watching.' : 'You are out of dice: you keep watching.';
    return h('section', { class: 'card bid-panel', testid: 'bid-panel' }, header, currentLine, h('p', { class: 'muted' }, why),
      g.phase === 'bidding' && turnPlayer ? h('p', {}, `${playerName(room, turnPlayer)} to act`, turnClock(g.turn)) : null);
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
    testid: 'bid-quantity', id: 'bid-quantity', inputmode: 'numeric', 'aria-label': 'Quantity',
  });
  const faceButtons = track.faces.map((face) => h('button', {
    type: 'button', class: 'face-button', testid: `bid-face-${face === '*' ? 'star' : face}`, dataset: { face: String(face) },
    role: 'radio', 'aria-checked': String(face === selection.face), 'aria-label': face === '*' ? 'Stars' : `Face ${face}`,
  }, die(face)));
  const faceGroup = h('div', { class: 'face-picker', role: 'radiogroup', 'aria-label': 'Face', testid: 'bid-face', dataset: { value: String(selection.face) } }, faceButtons);
  const preview = h('p', { class: 'bid-preview', testid: 'bid-preview', 'aria-live': 'polite' });
  const submit = h('button', { class: 'btn btn-primary', type: 'submit', testid: 'bid-submit' }, 'Bid');
  const liar = h('button', {
    class: 'btn btn-danger', type: 'button', testid: 'call-liar',
    disabled: !myTurn || !current,
    title: current ? 'Challenge the current bid' : 'There is no bid to challenge yet',
    onclick: (event) => roomCall('POST', actionPath(room), { type: 'liar', turn: g.turn.number }, event.currentTarget),
  }, 'Liar!');

  function refresh() {
    const quantity = Number(quantityInput.value);
    const face = state.bid.face;
    state.bid = { ...state.bid, quantity };
    faceGroup.dataset.value = String(face);
    for (const button of faceButtons) button.setAttribute('aria-checked', String(parseFace(button.dataset.face) === face));
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
    'aria-label': delta > 0 ? 'More' : 'Fewer',
    onclick: () => {
      const next = Math.min(total, Math.max(1, (Number(quantityInput.value) || 0) + delta));
      quantityInput.value = String(next);
      refresh();
    },
  }, delta > 0 ? '+' : '−');

  const controls = track.controls ? track.controls(room, myTurn) : null;
  // The player's own dice, beside the current bid: on a phone the cards are a screen below
  // (style.css hides this where the cards stand beside the panel). A track whose controls
  // show the cup (`showsCup`) has them there already.
  const myDice = !track.showsCup && Array.isArray(me.dice) && me.dice.length
    ? h('p', { class: 'panel-dice', testid: 'panel-dice' }, h('span', { class: 'field-label' }, 'Your dice'), diceRow(me.dice, { size: 'small' }))
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
    h('label', { class: 'field-label', for: 'bid-quantity' }, 'Quantity'),
    h('div', { class: 'stepper-row' }, step(-1), quantityInput, step(1)),
    h('span', { class: 'field-label' }, 'Face'),
    faceGroup),
  preview,
  controls ? controls.box : null,
  h('div', { class: 'button-row bid-buttons' }, submit, liar));
  refresh();

  const turnLine = myTurn
    ? h('p', { class: 'turn-line is-mine' }, 'Time left ', countdown(g.turn.deadline, 'big'))
    : h('p', { class: 'turn-line' }, `Waiting for ${playerName(room, turnPlayer)}`, turnClock(g.turn));
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
    dice = h('span', { class: 'muted small' }, player.resigned ? 'Resigned' : 'Eliminated');
  } else if (isMe && Array.isArray(me.dice)) {
    dice = diceRow(me.dice, { size: 'medium' });
  } else {
    dice = hiddenDice(Math.max(0, player.dice_count - shown.length));
  }
  const shownRow = shown.length
    ? h('span', { class: 'shown-dice', testid: 'shown-dice', title: 'Shown: set out in the open for everyone to see' },
      h('span', { class: 'shown-label' }, 'shown'),
      diceRow(shown, { size: isMe ? 'medium' : 'small', shown: shown.map(() => true) }))
    : null;
  return {
    count: h('span', { class: 'dice-count', title: 'Dice' }, out ? '' : `${player.dice_count} ${player.dice_count === 1 ? 'die' : 'dice'}`),
    dice: [dice, shownRow],
    bid: bid ? h('span', { class: 'card-bid', testid: 'card-bid' }, 'bid ', bidBadge(bid), ` ${track.words(bid.quantity, bid.face)}`) : null,
  };
}

/**
 * The reveal of a challenge: a summary, then every hand with the dice that counted.
 * parts: {summary(room, reveal), isLoser(reveal, row), pills(reveal, row), footnote}.
 */
export function diceReveal(room, reveal, { previous }, parts) {
  const rows = (reveal.rows || []).map((row) => h('tr', {
    class: [parts.isLoser(reveal, row) ? 'is-loser' : ''], dataset: { playerId: row.player_id },
  },
  h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
    row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-muted' }, 'bidder') : null,
    row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, 'challenger') : null,
    parts.pills(reveal, row)),
  h('td', {}, (row.dice || []).length
    ? diceRow(row.dice, { counted: row.counted || [], size: 'small', shown: (reveal.shown || {})[row.player_id] || [] })
    : h('span', { class: 'muted' }, '—')),
  h('td', { class: 'reveal-bids' }, (row.bids || []).length
    ? h('span', { class: 'bid-list' }, row.bids.map((b) => bidBadge(b)))
    : h('span', { class: 'muted', testid: 'no-bids' }, '—'))));
  return h('section', { class: 'card reveal-panel', testid: 'reveal' },
    h('div', { class: 'row-between' }, h('h2', {}, `Round ${reveal.round} reveal`),
      previous ? h('span', { class: 'pill pill-muted' }, 'previous round') : null),
    parts.summary(room, reveal),
    h('div', { class: 'table-wrap' }, h('table', { class: 'reveal-table', testid: 'reveal-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Username'), h('th', {}, 'Dice'), h('th', {}, 'Bids'))),
      h('tbody', {}, rows))),
    h('p', { class: 'muted small' }, 'Highlighted dice counted toward the challenged bid.', parts.footnote || ''));
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
  actionWords: (action) => (action.type === 'bid' ? `${bidWordsShort(action.quantity, action.face)} was bid` : null),
};

/** The replay of a round of a dice game (records.js). */
export const diceReplay = {
  bidWords: (bid) => bidWords(bid.quantity, bid.face),
  hands: (history, record) => record.reveal.rows.map((row) => h('div', { class: 'replay-hand', testid: 'replay-hand', dataset: { playerId: row.player_id } },
    h('span', { class: 'replay-name' }, row.name), diceRow(row.dice, { counted: row.counted, size: 'small', shown: (record.reveal.shown || {})[row.player_id] || [] }))),
  verdict: (reveal) => `Counted: ${reveal.count}`,
  loss: (reveal) => (reveal.penalty === 'give' ? 'a die to the winner' : 'a die'),
};
