// Wild Stars (docs/RULES.md, "Wild Stars"): the star replaces the 1 and is always wild, star bids
// sit on one track with the number bids, a bidder may show dice and reroll the rest, and the side
// that was wrong loses the difference (a perfect bid costs everyone else a die, Die Hard
// excepted).

import { h } from '../dom.js';
import { playerName } from '../core.js';
import { bidBadge, bidWordsShort, die } from '../dice.js';
import {
  DICE_TERMS, STARTING_DICE, diceBidFromEvent, diceBidPanel, diceCard, diceReplay, diceReveal, diceTableWords,
} from '../bidding.js';
import { diceWord } from '../play.js';
import { t, tNodes } from '../i18n/index.js';

/** The faces a bid may name: the star, then 2-6. */
const FACES = ['*', 2, 3, 4, 5, 6];

/** "at least 3 dice showing ★" (star bid) or "at least 4 dice showing 3 or ★". */
function bidMeaning(quantity, face) {
  return face === '*' ? t('wild-stars.meaningStar', { count: quantity }) : t('wild-stars.meaning', { count: quantity, face });
}

/** Twice a bid's space on the track: 2q for a number bid, 4k - 1 for k stars. */
function trackRank(quantity, face) {
  return face === '*' ? 4 * quantity - 1 : 2 * quantity;
}

/** A higher space with any face, or the same number space with a higher face. */
function isRaise(quantity, face, current) {
  if (!current) return true;
  const next = trackRank(quantity, face);
  const old = trackRank(current.quantity, current.face);
  return next > old || (next === old && face !== '*' && current.face !== '*' && face > current.face);
}

/** The smallest legal bid with the given face, or null if none fits. */
function minimumWithFace(face, current, totalDice) {
  for (let quantity = 1; quantity <= totalDice; quantity += 1) {
    if (isRaise(quantity, face, current)) return quantity;
  }
  return null;
}

/** Dice a player has set out in the open this round (public). */
function shownDice(room, playerId) {
  const table = room.game && room.game.table;
  return (table && table.shown && table.shown[playerId]) || [];
}

/** The bid to start from: the face the player knows most of (cup and shown dice, stars count). */
function defaultBid(room) {
  const g = room.game;
  const me = room.me || {};
  const known = [...(me.dice || []), ...shownDice(room, me.player_id)];
  const stars = known.filter((d) => d === '*').length;
  const count = (face) => (face === '*' ? stars : stars + known.filter((d) => d === face).length);
  const faces = [...FACES].sort((a, b) => count(b) - count(a) || (b === '*' ? 1 : b) - (a === '*' ? 1 : a));
  for (const face of faces) {
    const quantity = minimumWithFace(face, g.current_bid, g.total_dice);
    if (quantity !== null) return { quantity, face };
  }
  return { quantity: g.total_dice, face: 6 };
}

/**
 * "Show & reroll": click dice of the cup to set them out in the open (at least one
 * stays in the cup); the rest of the cup is rerolled with the bid. With no die picked nothing
 * is rerolled (a reroll without showing is not a move). Returns the controls and a function
 * giving the extra fields of the bid action ({show: [...]} or {}).
 */
function showRerollControls(room, myTurn, part) {
  const g = room.game;
  const cup = (room.me && room.me.dice) || [];
  const key = `${g.round}:${g.turn ? g.turn.number : ''}`;
  if (!part.show || part.show.key !== key) part.show = { key, on: false, picked: [] };
  const sel = part.show;
  const toggle = h('button', {
    type: 'button', class: 'btn btn-ghost btn-small show-toggle', testid: 'show-reroll',
    'aria-pressed': String(sel.on), disabled: !myTurn,
    title: t('wild-stars.showTitle'),
  }, t('wild-stars.showReroll'));
  const hint = h('p', { class: 'muted small show-hint', testid: 'show-reroll-hint', 'aria-live': 'polite' });
  const dice = cup.map((value, index) => {
    const button = h('button', {
      type: 'button', class: 'cup-die', testid: 'cup-die', dataset: { index: String(index) },
      'aria-pressed': String(sel.picked.includes(index)), disabled: !myTurn || cup.length < 2,
      'aria-label': `${t('wild-stars.setOut', { n: index + 1 })}: ${t('dice.showing', { face: value })}`,
    }, die(value, { size: 'medium' }));
    button.addEventListener('click', () => {
      if (sel.picked.includes(index)) sel.picked = sel.picked.filter((i) => i !== index);
      else if (sel.picked.length < cup.length - 1) sel.picked = [...sel.picked, index];
      else { hint.textContent = t('wild-stars.keepOne'); return; }
      sel.on = sel.on || sel.picked.length > 0;
      sync();
    });
    return button;
  });
  toggle.addEventListener('click', () => {
    sel.on = !sel.on;
    if (!sel.on) sel.picked = [];
    sync();
  });
  function sync() {
    toggle.setAttribute('aria-pressed', String(sel.on));
    if (box) box.classList.toggle('is-on', sel.on);
    for (const button of dice) button.setAttribute('aria-pressed', String(sel.picked.includes(Number(button.dataset.index))));
    const n = cup.length;
    const k = sel.picked.length;
    if (!sel.on) {
      hint.textContent = t('wild-stars.hintOff');
    } else if (k === 0) {
      hint.textContent = t('wild-stars.hintPick');
    } else {
      hint.textContent = t('wild-stars.hintPicked', { count: k, rest: n - k });
    }
  }
  let box = null;
  sync();
  box = h('div', { class: ['show-reroll', sel.on ? 'is-on' : ''], testid: 'show-reroll-box' },
    h('div', { class: 'row-between' }, h('span', { class: 'field-label' }, t('wild-stars.yourCup')), toggle),
    h('div', { class: 'cup-picker', role: 'group', 'aria-label': t('wild-stars.yourCup') }, dice),
    hint);
  const extra = () => {
    if (!sel.on) return {};
    // A reroll without showing anything is not a move: nothing picked, nothing rerolled.
    return sel.picked.length ? { show: [...sel.picked].sort((a, b) => a - b) } : {};
  };
  return { box, extra };
}

function revealSummary(room, reveal, { byClock = false } = {}) {
  const bid = reveal.bid;
  const strong = (id) => h('strong', {}, playerName(room, id));
  const d = reveal.count - bid.quantity;
  const count = h('strong', { testid: 'reveal-count' }, String(reveal.count));
  const lines = [
    h('p', { testid: 'reveal-call' }, tNodes(byClock ? 'wild-stars.reveal.clock' : 'wild-stars.reveal.called', {
      bidder: strong(bid.player_id), bid: bidWordsShort(bid.quantity, bid.face), badge: bidBadge(bid), challenger: strong(reveal.challenger_id),
    })),
    h('p', {}, tNodes(bid.face === '*' ? 'wild-stars.reveal.countStar' : 'wild-stars.reveal.count', { count: reveal.count, n: count, face: bid.face }),
      d < 0 ? t('wild-stars.reveal.short', { dice: diceWord(-d) }) : d > 0 ? t('wild-stars.reveal.over', { dice: diceWord(d) }) : t('wild-stars.reveal.exact')),
  ];
  if (reveal.perfect) {
    lines.push(h('p', { class: 'ok', testid: 'reveal-perfect' }, h('strong', {}, t('wild-stars.reveal.perfect')), ' ',
      t('wild-stars.reveal.everyoneBut', { name: playerName(room, bid.player_id) })));
  }
  const lost = Object.entries(reveal.lost || {}).filter(([, n]) => n > 0);
  if (!reveal.perfect) {
    for (const [id, n] of lost) lines.push(h('p', {}, tNodes('wild-stars.reveal.loses', { name: strong(id), dice: diceWord(n) })));
  }
  for (const id of reveal.die_hard || []) {
    lines.push(h('p', { testid: 'reveal-die-hard' }, tNodes('wild-stars.reveal.dieHard', { name: strong(id) })));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, t('wild-stars.reveal.eliminated', { name: playerName(room, id) })));
  return h('div', { class: 'reveal-summary' }, lines);
}

const TRACK = {
  faces: FACES,
  words: bidWordsShort,
  isRaise,
  minimum: minimumWithFace,
  defaultBid,
  preview: (room, quantity, face) => [t('wild-stars.preview', { bid: bidWordsShort(quantity, face), meaning: bidMeaning(quantity, face) })],
  controls: showRerollControls,
  showsCup: true, // the Show & reroll box holds the player's dice: the panel need not
  shownDice,
};

const REVEAL = {
  summary: revealSummary,
  isLoser: (reveal, row) => ((reveal.lost || {})[row.player_id] || 0) > 0,
  pills(reveal, row) {
    const n = (reveal.lost || {})[row.player_id] || 0;
    return [
      reveal.perfect && row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-ok', testid: 'perfect-bid' }, t('wild-stars.reveal.perfectPill')) : null,
      (reveal.die_hard || []).includes(row.player_id) ? h('span', { class: 'pill pill-ok', testid: 'die-hard' }, t('wild-stars.reveal.dieHardPill')) : null,
      n > 0 ? h('span', { class: 'pill pill-bad', testid: 'reveal-lost' }, `−${diceWord(n)}`) : null,
    ];
  },
  footnote: 'wild-stars.reveal.footnote',
};

export default {
  rules: 'wild-stars',
  label: 'Wild Stars',
  fields: [STARTING_DICE],
  maxPlayers: 6,
  chips: (v) => [t('wild-stars.label'), t('settings.chip.dice', { count: v.starting_dice ?? 5 }), t('settings.chip.turns', { n: v.turn_seconds ?? 30 })],
  // Its words (label, summary, note, How to play, the reveal) are in wild-stars.i18n.json.
  terms: DICE_TERMS,
  panel: (room, { selection }) => diceBidPanel(room, TRACK, selection),
  card: (room, player, opts) => diceCard(room, player, opts, TRACK),
  reveal: (room, reveal, opts) => diceReveal(room, reveal, opts, REVEAL),
  moveEvents: [],
  moveWords(e) {
    if (e.type !== 'bid_placed') return null;
    const bid = bidWordsShort(e.quantity, e.face);
    return (e.show || []).length ? t('wild-stars.shows', { bid, dice: e.show.map((d) => (d === '*' ? '★' : d)).join(' ') }) : bid;
  },
  actionWords: diceTableWords.actionWords,
  bidFromEvent: diceBidFromEvent,
  replay: diceReplay,
};
