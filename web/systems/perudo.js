// Perudo (Dudo; docs/RULES.md, "Perudo"): aces (1s) are wild except in palifico, bids on aces go
// at half the quantity rounded up and leave at twice plus one, the opening bid may not be on aces,
// calza (exactly right) wins a die back, and a player first down to one die gets a palifico round
// (aces not wild, the face fixed).

import { h } from '../dom.js';
import { playerName, roomCall } from '../core.js';
import { bidBadge, numberWord } from '../dice.js';
import {
  DICE_TERMS, STARTING_DICE, diceBidFromEvent, diceBidPanel, diceCard, diceReplay, diceReveal,
} from '../bidding.js';
import { actionPath, capitalize, isActive, myPlayer } from '../play.js';
import { t, tNodes } from '../i18n/index.js';

const ACES = 1;
const FACES = [1, 2, 3, 4, 5, 6];

/** "three aces", "one ace", "five 4s", "one 6". */
function words(quantity, face) {
  const number = quantity === 1 ? t('perudo.one') : numberWord(quantity);
  if (face === ACES) return t('perudo.aces', { count: quantity, number });
  return t('perudo.face', { count: quantity, number, face: String(face), faceWord: t(`dice.face.${face}`, { count: quantity }) });
}

function palifico(room) {
  const table = room.game && room.game.table;
  return Boolean(table && table.palifico);
}

function playersWithDice(room) {
  return (room.players || []).filter((p) => isActive(p)).length;
}

/**
 * The smallest quantity on `face` over `current` (or opening), null if the face is not allowed:
 * aces at half rounded up, leaving aces at twice plus one, no opening on aces outside
 * palifico; in palifico the face is fixed unless the bidder holds a single die.
 */
function lowest(face, current, { pal = false, single = false } = {}) {
  if (!current) return face === ACES && !pal ? null : 1;
  const { quantity: q, face: f } = current;
  if (pal) {
    if (face !== f && !single) return null;
    return face > f ? q : q + 1;
  }
  if (face === ACES) return f === ACES ? q + 1 : Math.ceil(q / 2);
  if (f === ACES) return 2 * q + 1;
  return face > f ? q : q + 1;
}

function context(room) {
  const mine = myPlayer(room);
  return { pal: palifico(room), single: Boolean(mine && mine.dice_count === 1) };
}

function makeTrack(room) {
  const ctx = context(room);
  // Only the faces a bid may name now: no aces to open (outside palifico), and in palifico
  // with more than one die only the face of the current bid.
  const current = room.game.current_bid;
  return {
    faces: FACES.filter((face) => lowest(face, current, ctx) !== null),
    words,
    isRaise(quantity, face, current) {
      const least = lowest(face, current, ctx);
      return least !== null && quantity >= least;
    },
    minimum(face, current, total) {
      const least = lowest(face, current, ctx);
      return least !== null && least <= total ? least : null;
    },
    defaultBid,
    preview,
    controls: calzaControls,
    liarKey: 'perudo.dudo',
  };
}

/** How many of my dice count toward a face (aces are wild outside palifico). */
function mineToward(room, face) {
  const dice = (room.me && room.me.dice) || [];
  const pal = palifico(room);
  return dice.filter((d) => d === face || (d === ACES && !pal && face !== ACES)).length;
}

/** The bid to start from: the face I hold most of (aces count), at its smallest legal quantity. */
function defaultBid(room) {
  const g = room.game;
  const ctx = context(room);
  const faces = [...FACES].sort((a, b) => mineToward(room, b) - mineToward(room, a) || b - a);
  for (const face of faces) {
    const least = lowest(face, g.current_bid, ctx);
    if (least !== null && least <= g.total_dice) return { quantity: least, face };
  }
  return { quantity: g.total_dice, face: g.current_bid ? g.current_bid.face : 2 };
}

/** "at least 3 dice showing 4 or an ace" / "at least 2 aces". */
function meaning(room, quantity, face) {
  if (face === ACES) return t('perudo.meaningAces', { count: quantity });
  return t(palifico(room) ? 'perudo.meaningPal' : 'perudo.meaning', { count: quantity, face });
}

/** The bid preview, with the ace rule that makes it legal ("three aces beats five 4s"). */
function preview(room, quantity, face) {
  const current = room.game.current_bid;
  const out = [t('perudo.preview', { bid: words(quantity, face), meaning: meaning(room, quantity, face) })];
  if (current && !palifico(room)) {
    if (face === ACES && current.face !== ACES) {
      out.push(' ', h('span', { class: 'ace-rule', testid: 'ace-rule' },
        capitalize(t('perudo.toAces', { bid: words(quantity, face), current: words(current.quantity, current.face) }))));
    } else if (face !== ACES && current.face === ACES) {
      out.push(' ', h('span', { class: 'ace-rule', testid: 'ace-rule' },
        t('perudo.leaveAces', { current: words(current.quantity, current.face), n: 2 * current.quantity + 1 })));
    }
  }
  if (!current && !palifico(room)) out.push(' ', h('span', { class: 'muted', testid: 'no-aces-opening' }, t('perudo.noAcesOpening')));
  if (current && palifico(room) && !context(room).single) {
    const faceWords = current.face === ACES ? t('perudo.acesWord')
      : t('perudo.facesWord', { face: current.face, faceWord: t(`dice.face.${current.face}`, { count: 2 }) });
    out.push(' ', h('span', { class: 'muted' }, t('perudo.palFace', { face: faceWords })));
  }
  return out;
}

/** The Calza button ("exactly right"), offered when a bid stands and three or more have dice. */
function calzaControls(room, myTurn) {
  const g = room.game;
  const legal = Boolean(myTurn && g.current_bid && playersWithDice(room) >= 3);
  if (!g.current_bid || playersWithDice(room) < 3) return { box: null, extra: () => ({}) };
  const button = h('button', {
    type: 'button', class: 'btn btn-ghost calza-button', testid: 'call-calza', disabled: !legal,
    title: t('perudo.calzaTitle'),
    onclick: (event) => roomCall('POST', actionPath(room), { type: 'calza', turn: g.turn.number }, event.currentTarget),
  }, t('perudo.calza'));
  const box = h('div', { class: 'calza-box row-between' },
    h('span', { class: 'muted small' }, t('perudo.exactly', { bid: words(g.current_bid.quantity, g.current_bid.face) })), button);
  return { box, extra: () => ({}) };
}

/** Aces look like aces: every die showing 1 gets the ace mark (styles in perudo.css). */
function markAces(node) {
  if (!node || !node.querySelectorAll) return node;
  for (const d of node.querySelectorAll('.die[data-face="1"]')) {
    d.classList.add('die-ace');
    if (d.getAttribute('role') === 'img') d.setAttribute('aria-label', t('perudo.ace'));
    d.title = t('perudo.aceTitle');
  }
  return node;
}

function panel(room) {
  const node = diceBidPanel(room, makeTrack(room));
  const liar = node.querySelector('[data-testid="call-liar"]');
  if (liar) {
    liar.textContent = t('perudo.dudo');
    liar.title = t('perudo.dudoTitle');
  }
  if (palifico(room)) {
    const opener = room.game.opener_id ? playerName(room, room.game.opener_id) : t('perudo.aPlayer');
    const banner = h('div', { class: 'palifico-banner', testid: 'palifico-banner', role: 'status' },
      h('strong', {}, t('perudo.palifico')), ' ', t('perudo.palBanner', { name: opener }));
    const header = node.querySelector('h2');
    if (header) header.after(banner);
    else node.prepend(banner);
  }
  return markAces(node);
}

function revealSummary(room, reveal, { byClock = false } = {}) {
  const bid = reveal.bid;
  const strong = (id) => h('strong', {}, playerName(room, id));
  const calza = reveal.kind === 'calza';
  const count = h('strong', { testid: 'reveal-count' }, String(reveal.count));
  const countKey = bid.face === ACES ? 'perudo.reveal.countAces' : reveal.palifico ? 'perudo.reveal.countPal' : 'perudo.reveal.count';
  const callKey = calza ? 'perudo.reveal.calza' : byClock ? 'perudo.reveal.clock' : 'perudo.reveal.dudo';
  const lines = [
    h('p', { testid: 'reveal-call' }, tNodes(callKey, {
      bidder: strong(bid.player_id), bid: words(bid.quantity, bid.face), badge: bidBadge(bid), caller: strong(reveal.challenger_id),
    })),
    h('p', {}, tNodes(countKey, { count: reveal.count, n: count, face: bid.face }),
      t(calza
        ? (reveal.count === bid.quantity ? 'perudo.reveal.exact' : 'perudo.reveal.notExact')
        : (reveal.count >= bid.quantity ? 'perudo.reveal.stood' : 'perudo.reveal.lie'))),
  ];
  if (reveal.palifico) lines.push(h('p', { class: 'muted', testid: 'reveal-palifico' }, t('perudo.reveal.palifico')));
  if (reveal.gained_id) {
    lines.push(h('p', { class: 'ok', testid: 'reveal-gained' }, tNodes('perudo.reveal.gained', { name: strong(reveal.gained_id) })));
  } else if (calza && !reveal.loser_id) {
    lines.push(h('p', { class: 'ok' }, tNodes('perudo.reveal.alreadyFull', { name: strong(reveal.challenger_id) })));
  }
  if (reveal.loser_id) {
    lines.push(h('p', {}, tNodes(!calza && reveal.penalty === 'give' ? 'perudo.reveal.gives' : 'perudo.reveal.loses', {
      loser: strong(reveal.loser_id), winner: playerName(room, reveal.winner_id),
    })));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, t('perudo.reveal.eliminated', { name: playerName(room, id) })));
  return h('div', { class: 'reveal-summary' }, lines);
}

const REVEAL = {
  summary: revealSummary,
  isLoser: (reveal, row) => row.player_id === reveal.loser_id,
  pills: (reveal, row) => [
    row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, t('perudo.reveal.lostPill')) : null,
    row.player_id === reveal.gained_id ? h('span', { class: 'pill pill-ok', testid: 'reveal-gained-pill' }, t('perudo.reveal.gainedPill')) : null,
  ],
  footnote: 'perudo.reveal.footnote',
};

const PENALTY = {
  name: 'penalty', label: 'perudo.penalty', default: 'discard',
  options: [['discard', 'settings.penalty.discard'], ['give', 'settings.penalty.give']],
};

export default {
  rules: 'perudo',
  label: 'Perudo',
  stylesheet: './perudo.css',
  fields: [STARTING_DICE, PENALTY],
  maxPlayers: 10,
  // Words of its own error codes: perudo.error.<code> in perudo.i18n.json.
  errors: ['opening_on_aces', 'palifico_face_fixed', 'aces_below_half', 'leaving_aces_too_low', 'calza_heads_up'],
  chips: (v) => [t('perudo.label'), t('settings.chip.dice', { count: v.starting_dice ?? 5 }),
    t(v.penalty === 'give' ? 'settings.chip.give' : 'settings.chip.discard'), t('settings.chip.turns', { n: v.turn_seconds ?? 30 })],
  // Its words (label, summary, note, How to play, the reveal) are in perudo.i18n.json.
  terms: { ...DICE_TERMS, revealHint: 'perudo.revealHint' },
  panel,
  card: (room, player, opts) => {
    const parts = diceCard(room, player, opts, makeTrack(room));
    parts.dice = parts.dice.map(markAces);
    if (parts.bid) {
      const bid = room.game.current_bid;
      parts.bid = markAces(h('span', { class: 'card-bid', testid: 'card-bid' }, tNodes('card.bid', { badge: bidBadge(bid), words: words(bid.quantity, bid.face) })));
    }
    return parts;
  },
  reveal: (room, reveal, opts) => markAces(diceReveal(room, reveal, opts, REVEAL)),
  moveEvents: ['calza_called'],
  liarKey: 'perudo.dudo',
  liarActionKey: 'perudo.liarWasCalled',
  moveWords(e) {
    if (e.type === 'calza_called') return t('perudo.calza');
    return e.type === 'bid_placed' ? words(e.quantity, e.face) : null;
  },
  actionWords: (action) => (action.type === 'bid' ? t('perudo.wasBid', { bid: words(action.quantity, action.face) }) : null),
  bidFromEvent: diceBidFromEvent,
  replay: {
    ...diceReplay,
    bidWords: (bid) => words(bid.quantity, bid.face),
    verdict: (reveal) => t(`perudo.replay.verdict${reveal.kind === 'calza' ? 'Calza' : ''}${reveal.palifico ? 'Pal' : ''}`, { n: reveal.count }),
  },
};
