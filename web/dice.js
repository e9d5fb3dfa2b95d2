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

/** A row of dice; `shown` marks dice set out in the open (rules that let players show dice). */
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

/** "four threes", "one six"; a bid on stars reads "three stars". */
export function bidWords(quantity, face) {
  if (face === '*') return `${numberWord(quantity)} ${quantity === 1 ? 'star' : 'stars'}`;
  return `${numberWord(quantity)} ${quantity === 1 ? FACE_SINGULAR[face] : FACE_PLURAL[face]}`;
}

/** "four 3s", "one 5", "three stars". */
export function bidWordsShort(quantity, face) {
  if (face === '*') return bidWords(quantity, face);
  return `${numberWord(quantity)} ${face}${quantity === 1 ? '' : 's'}`;
}

/** A compact bid badge: "4 ×" followed by a die. */
export function bidBadge(bid, size = 'small') {
  return h('span', { class: 'bid-badge', title: bidWords(bid.quantity, bid.face) },
    h('span', { class: 'bid-qty' }, String(bid.quantity), '×'), die(bid.face, { size }));
}
