// Dice faces and the words of bids ("four threes").

import { h } from './dom.js';
import { formatNumber, t, tList } from './i18n/index.js';

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
  const label = (words) => (counted ? t('dice.counted', { die: words }) : words);
  if (value === '*') {
    return h('span', { class: [...classes, 'die-star'], role: 'img', 'aria-label': label(t('dice.star')), title: t('dice.starTitle') }, '★');
  }
  if (!PIPS[value]) {
    return h('span', { class: [...classes, 'die-hidden'], role: 'img', 'aria-label': t('dice.hidden') });
  }
  return h('span', { class: [...classes, `die-${value}`], role: 'img', 'aria-label': label(t('dice.showing', { face: value })), dataset: { face: String(value) } },
    PIPS[value].map((p) => h('i', { class: `pip p${p}` })));
}

/** A row of dice; `shown` marks dice set out in the open (rules that let players show dice). */
export function diceRow(values, { counted = [], size = '', shown = [] } = {}) {
  return h('span', { class: 'dice-row' }, values.map((v, i) => {
    const node = die(v, { counted: Boolean(counted[i]), size });
    if (shown[i]) {
      node.classList.add('is-shown');
      const words = t('dice.shownSuffix', { die: node.getAttribute('aria-label') });
      node.title = words;
      node.setAttribute('aria-label', words);
    }
    return node;
  }));
}

/** A row of n hidden dice (another player's cup): one image named "5 hidden dice". */
export function hiddenDice(n, size = 'small') {
  return h('span', { class: 'dice-row', role: 'img', 'aria-label': t('dice.hiddenCount', { count: n }) },
    Array.from({ length: n }, () => {
      const node = die(null, { size });
      node.removeAttribute('role');
      node.removeAttribute('aria-label');
      return node;
    }));
}

/** A number in words where the language has them (up to twenty), else in digits. */
export function numberWord(n) {
  const words = tList('dice.numbers');
  return words[n] ?? formatNumber(n);
}

/** "four threes", "one six"; a bid on stars reads "three stars". */
export function bidWords(quantity, face) {
  const faceKey = face === '*' ? 'dice.face.star' : `dice.face.${face}`;
  return t('dice.bid', { count: quantity, number: numberWord(quantity), face: t(faceKey, { count: quantity }) });
}

/** "four 3s", "one 5", "three stars". */
export function bidWordsShort(quantity, face) {
  if (face === '*') return t('dice.starShort', { count: quantity, number: numberWord(quantity) });
  return t('dice.bidShort', { count: quantity, number: numberWord(quantity), face: String(face) });
}

/** A compact bid badge: "4 ×" followed by a die (named in words for screen readers). */
export function bidBadge(bid, size = 'small') {
  const words = bidWords(bid.quantity, bid.face);
  const face = die(bid.face, { size });
  face.setAttribute('aria-hidden', 'true');
  return h('span', { class: 'bid-badge', title: words, role: 'img', 'aria-label': words },
    h('span', { class: 'bid-qty', 'aria-hidden': 'true' }, String(bid.quantity), '×'), face);
}
