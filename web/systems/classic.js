// Classic Liar's Dice (docs/RULES.md, "Classic"): bids on all the dice in play, * dice are wild
// (the room's wildcard chance), the loser of a challenge discards a die or gives it to the winner.

import { h } from '../dom.js';
import { playerName } from '../core.js';
import { bidBadge, bidWords } from '../dice.js';
import {
  DICE_TERMS, STARTING_DICE, diceBidFromEvent, diceBidPanel, diceCard, diceReplay, diceReveal, diceTableWords,
} from '../bidding.js';

/** "at least 4 dice showing 3 or *" ("… showing 3" when the room has no wildcards). */
function bidMeaning(quantity, face, wildcards = true) {
  return `at least ${quantity} ${quantity === 1 ? 'die' : 'dice'} showing ${face}${wildcards ? ' or *' : ''}`;
}

/** True when (quantity, face) raises the current bid (or opens when there is none). */
function isRaise(quantity, face, current) {
  if (!current) return true;
  return quantity > current.quantity || (quantity === current.quantity && face > current.face);
}

/** The smallest legal bid with the given face, or null if none fits the dice in play. */
function minimumWithFace(face, current, totalDice) {
  const quantity = !current ? 1 : face > current.face ? current.quantity : current.quantity + 1;
  return quantity <= totalDice ? quantity : null;
}

/** Rooms with a 0 % wildcard chance have no * dice: no "or *" anywhere. */
function hasWildcards(room) {
  return !(room.settings && room.settings.wildcard_chance === 0);
}

/** The bid to start from: the face the player holds most of, at its smallest legal quantity. */
function defaultBid(room) {
  const g = room.game;
  const current = g.current_bid;
  const dice = (room.me && room.me.dice) || [];
  const counts = [0, 0, 0, 0, 0, 0, 0];
  for (const d of dice) if (typeof d === 'number') counts[d] += 1;
  const faces = [1, 2, 3, 4, 5, 6].sort((a, b) => counts[b] - counts[a] || b - a);
  for (const face of faces) {
    const quantity = minimumWithFace(face, current, g.total_dice);
    if (quantity !== null) return { quantity, face };
  }
  return { quantity: Math.min(g.total_dice, (current ? current.quantity : 0) + 1), face: 1 };
}

const TRACK = {
  faces: [1, 2, 3, 4, 5, 6],
  words: bidWords,
  isRaise,
  minimum: minimumWithFace,
  defaultBid,
  preview(room, quantity, face) {
    const wilds = hasWildcards(room);
    return [`You bid ${bidWords(quantity, face)}: ${bidMeaning(quantity, face, wilds).replace(/\*$/, '')}`,
      ...(wilds ? [h('span', { class: 'star-glyph' }, '*')] : [])];
  },
};

function revealSummary(room, reveal) {
  const bid = reveal.bid;
  const bidder = playerName(room, bid.player_id);
  const challenger = playerName(room, reveal.challenger_id);
  const stood = reveal.count >= bid.quantity;
  const lines = [
    h('p', {}, h('strong', {}, bidder), ` bid ${bidWords(bid.quantity, bid.face)} `, bidBadge(bid), '. ',
      h('strong', {}, challenger), ' called Liar!'),
    h('p', {}, `There ${reveal.count === 1 ? 'was' : 'were'} `, h('strong', { testid: 'reveal-count' }, String(reveal.count)),
      ` ${reveal.count === 1 ? 'die' : 'dice'} showing ${bid.face}`, hasWildcards(room) ? [' or ', h('span', { class: 'star-glyph' }, '*')] : null,
      stood ? ': the bid stood.' : ': the bid was a lie.'),
    h('p', {}, h('strong', {}, playerName(room, reveal.loser_id)),
      reveal.penalty === 'give' ? ` gives a die to ${playerName(room, reveal.winner_id)}.` : ' discards a die.'),
  ];
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, `${playerName(room, id)} is eliminated.`));
  return h('div', { class: 'reveal-summary' }, lines);
}

const REVEAL = {
  summary: revealSummary,
  isLoser: (reveal, row) => row.player_id === reveal.loser_id,
  pills: (reveal, row) => (row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, '−1 die') : null),
  footnote: '',
};

const WILDCARD_CHANCE = { name: 'wildcard_chance', label: 'Wildcard chance', default: 10, options: [[0, '0 %'], [5, '5 %'], [10, '10 %']] };
const PENALTY = {
  name: 'penalty', label: 'Penalty (loser of a challenge)', default: 'discard',
  options: [['discard', 'Discards 1 die'], ['give', 'Gives 1 die to winner']],
};

export default {
  rules: 'classic',
  label: 'Classic',
  summary: 'Bid on all dice in play; * dice are wild; the loser of a challenge loses one die.',
  fields: [STARTING_DICE, WILDCARD_CHANCE, PENALTY],
  chips: (v) => [
    `${v.starting_dice ?? '?'} dice`,
    `${v.wildcard_chance ?? 0}% ★`,
    v.penalty === 'give' ? 'give' : 'discard',
    `${v.turn_seconds ?? '?'}s turns`,
  ],
  help: {
    goal: 'Be the last player with dice.',
    steps: [
      'Everyone rolls their dice in secret. You see only your own.',
      'On your turn, bid on all the dice on the table, yours and everyone else’s: “four 3s” means at least four dice show a 3 or a ★ (a wild die).',
      'Each bid must beat the last one: more dice (any face), or the same number of dice with a higher face. Over four 3s you may bid four 4s or five 1s, not three 6s.',
      'Or call Liar! on the last bid. All dice are shown: if there are fewer than bid, the bidder loses a die; otherwise the caller does.',
      'The loser discards the die, or gives it to the winner if the room says so. The loser opens the next round.',
    ],
    tips: ['How often a ★ comes up is a room setting (0, 5 or 10 %). With 0 % nothing is wild.',
      'If your time runs out, the game calls Liar! for you (or bids “one 1” to open).'],
  },
  terms: DICE_TERMS,
  panel: (room) => diceBidPanel(room, TRACK),
  card: (room, player, opts) => diceCard(room, player, opts, TRACK),
  reveal: (room, reveal, opts) => diceReveal(room, reveal, opts, REVEAL),
  moveEvents: [],
  ...diceTableWords,
  bidFromEvent: diceBidFromEvent,
  replay: diceReplay,
};
