// Dice faces and the words of bids ("four threes").

import { h } from './dom.js';

// Pip positions on a 3x3 grid, numbered 1..9 row by row.
const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

/** A die showing a face 1-6, a wildcard '*' (star), or hidden (null). */
export function die(value, { counted = false, size = '' } = {}) {
  const classes = ['die', size, counted ? 'counted' : ''];
  if (value === '*') {
    return h('span', { class: [...classes, 'die-star'], role: 'img', 'aria-label': 'wildcard star', title: 'Wildcard *' }, '★');
  }
  if (!PIPS[value]) {
    return h('span', { class: [...classes, 'die-hidden'], role: 'img', 'aria-label': 'hidden die' });
  }
  return h('span', { class: [...classes, `die-${value}`], role: 'img', 'aria-label': `die showing ${value}`, dataset: { face: String(value) } },
    PIPS[value].map((p) => h('i', { class: `pip p${p}` })));
}

/** A row of dice; `shown` marks dice set out in the open (Wild Stars). */
export function diceRow(values, { counted = [], size = '', shown = [] } = {}) {
  return h('span', { class: 'dice-row' }, values.map((v, i) => {
    const node = die(v, { counted: Boolean(counted[i]), size });
    if (shown[i]) {
      node.classList.add('is-shown');
      node.title = `${node.title || node.getAttribute('aria-label')} (shown)`;
    }
    return node;
  }));
}

/** A row of n hidden dice (another player's cup). */
export function hiddenDice(n, size = 'small') {
  return h('span', { class: 'dice-row' }, Array.from({ length: n }, () => die(null, { size })));
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine',
  'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen',
  'nineteen', 'twenty'];
const FACE_SINGULAR = { 1: 'one', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six' };
const FACE_PLURAL = { 1: 'ones', 2: 'twos', 3: 'threes', 4: 'fours', 5: 'fives', 6: 'sixes' };

export function numberWord(n) {
  return NUMBER_WORDS[n] ?? String(n);
}

/** "four threes", "one six"; star bids (Wild Stars) read "three stars". */
export function bidWords(quantity, face) {
  if (face === '*') return `${numberWord(quantity)} ${quantity === 1 ? 'star' : 'stars'}`;
  return `${numberWord(quantity)} ${quantity === 1 ? FACE_SINGULAR[face] : FACE_PLURAL[face]}`;
}

/** "at least 4 dice showing 3 or *" ("… showing 3" when the room has no wildcards). */
export function bidMeaning(quantity, face, wildcards = true) {
  return `at least ${quantity} ${quantity === 1 ? 'die' : 'dice'} showing ${face}${wildcards ? ' or *' : ''}`;
}

// ---- Wild Stars (SPEC-VARIANTS.md): one bidding track with star bids ----------

/** The faces a Wild Stars bid may name: the star, then 2-6. */
export const WILD_FACES = ['*', 2, 3, 4, 5, 6];

/** "four 3s", "one 5", "three stars". */
export function wildBidWords(quantity, face) {
  if (face === '*') return bidWords(quantity, face);
  return `${numberWord(quantity)} ${face}${quantity === 1 ? '' : 's'}`;
}

/** "at least 3 dice showing ★" (star bid) or "at least 4 dice showing 3 or ★". */
export function wildBidMeaning(quantity, face) {
  const dice = `at least ${quantity} ${quantity === 1 ? 'die' : 'dice'} showing`;
  return face === '*' ? `${dice} ★` : `${dice} ${face} or ★`;
}

/** Twice a bid's space on the track: 2q for a number bid, 4k - 1 for k stars. */
export function trackRank(quantity, face) {
  return face === '*' ? 4 * quantity - 1 : 2 * quantity;
}

/** A higher space with any face, or the same number space with a higher face. */
export function wildIsRaise(quantity, face, current) {
  if (!current) return true;
  const next = trackRank(quantity, face);
  const old = trackRank(current.quantity, current.face);
  return next > old || (next === old && face !== '*' && current.face !== '*' && face > current.face);
}

/** The smallest legal Wild Stars bid with the given face, or null if none fits. */
export function wildMinimumWithFace(face, current, totalDice) {
  for (let quantity = 1; quantity <= totalDice; quantity += 1) {
    if (wildIsRaise(quantity, face, current)) return quantity;
  }
  return null;
}

/** True when (quantity, face) raises the current bid (or opens when there is none). */
export function isRaise(quantity, face, current) {
  if (!current) return true;
  return quantity > current.quantity || (quantity === current.quantity && face > current.face);
}

/** The smallest legal bid with the given face, or null if none fits the dice in play. */
export function minimumWithFace(face, current, totalDice) {
  const quantity = !current ? 1 : face > current.face ? current.quantity : current.quantity + 1;
  return quantity <= totalDice ? quantity : null;
}

/** A compact bid badge: "4 ×" followed by a die. */
export function bidBadge(bid, size = 'small') {
  return h('span', { class: 'bid-badge', title: bidWords(bid.quantity, bid.face) },
    h('span', { class: 'bid-qty' }, String(bid.quantity), '×'), die(bid.face, { size }));
}
