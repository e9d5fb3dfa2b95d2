// Classic Liar's Dice (docs/RULES.md, "Classic"): bids on all the dice in play, * dice are wild
// (the room's wildcard chance), the loser of a challenge discards a die or gives it to the winner.

import { h } from '../dom.js';
import { playerName } from '../core.js';
import { t, tNodes } from '../i18n/index.js';
import { bidBadge, bidWords } from '../dice.js';
import {
  DICE_TERMS, STARTING_DICE, diceBidFromEvent, diceBidPanel, diceCard, diceReplay, diceReveal, diceTableWords,
} from '../bidding.js';

const star = () => h('span', { class: 'star-glyph' }, '*');

/** "at least 4 dice showing 3 or *" ("… showing 3" when the room has no wildcards). */
function bidMeaning(quantity, face, wildcards = true) {
  return wildcards
    ? tNodes('classic.meaningWild', { count: quantity, face, star: star() })
    : tNodes('classic.meaning', { count: quantity, face });
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
    return tNodes('classic.preview', { bid: bidWords(quantity, face), meaning: bidMeaning(quantity, face, hasWildcards(room)) });
  },
};

function revealSummary(room, reveal, { byClock = false } = {}) {
  const bid = reveal.bid;
  const strong = (id) => h('strong', {}, playerName(room, id));
  const stood = reveal.count >= bid.quantity;
  const count = h('strong', { testid: 'reveal-count' }, String(reveal.count));
  const lines = [
    h('p', { testid: 'reveal-call' }, tNodes(byClock ? 'classic.reveal.clock' : 'classic.reveal.called', {
      bidder: strong(bid.player_id), bid: bidWords(bid.quantity, bid.face), badge: bidBadge(bid), challenger: strong(reveal.challenger_id),
    })),
    h('p', {}, tNodes(hasWildcards(room) ? 'classic.reveal.countWild' : 'classic.reveal.count', { count: reveal.count, n: count, face: bid.face, star: star() }),
    t(stood ? 'classic.reveal.stood' : 'classic.reveal.lie')),
    h('p', {}, tNodes(reveal.penalty === 'give' ? 'classic.reveal.gives' : 'classic.reveal.discards', {
      loser: strong(reveal.loser_id), winner: playerName(room, reveal.winner_id),
    })),
  ];
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, t('classic.reveal.eliminated', { name: playerName(room, id) })));
  return h('div', { class: 'reveal-summary' }, lines);
}

const REVEAL = {
  summary: revealSummary,
  isLoser: (reveal, row) => row.player_id === reveal.loser_id,
  pills: (reveal, row) => (row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, t('classic.reveal.lostPill')) : null),
  footnote: null,
};

const WILDCARD_CHANCE = {
  name: 'wildcard_chance', label: 'classic.wildcard_chance', default: 10,
  options: [0, 5, 10].map((n) => [n, 'classic.percent', { n }]),
};
const PENALTY = {
  name: 'penalty', label: 'classic.penalty', default: 'discard',
  options: [['discard', 'settings.penalty.discard'], ['give', 'settings.penalty.give']],
};

export default {
  rules: 'classic',
  label: 'Classic',
  fields: [STARTING_DICE, WILDCARD_CHANCE, PENALTY],
  chips: (v) => [
    t('settings.chip.dice', { count: v.starting_dice ?? 5 }),
    t('classic.chip.star', { n: v.wildcard_chance ?? 0 }),
    t(v.penalty === 'give' ? 'settings.chip.give' : 'settings.chip.discard'),
    t('settings.chip.turns', { n: v.turn_seconds ?? 30 }),
  ],
  // Its words (label, summary, How to play, the reveal) are in classic.i18n.json.
  terms: DICE_TERMS,
  panel: (room) => diceBidPanel(room, TRACK),
  card: (room, player, opts) => diceCard(room, player, opts, TRACK),
  reveal: (room, reveal, opts) => diceReveal(room, reveal, opts, REVEAL),
  moveEvents: [],
  ...diceTableWords,
  bidFromEvent: diceBidFromEvent,
  replay: diceReplay,
};
