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

const ACES = 1;
const FACES = [1, 2, 3, 4, 5, 6];

/** "three aces", "one ace", "five 4s", "one 6". */
function words(quantity, face) {
  if (face === ACES) return `${numberWord(quantity)} ${quantity === 1 ? 'ace' : 'aces'}`;
  return `${numberWord(quantity)} ${face}${quantity === 1 ? '' : 's'}`;
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
  const dice = `at least ${quantity} ${quantity === 1 ? 'die' : 'dice'}`;
  if (face === ACES) return `${dice} showing an ace`;
  return palifico(room) ? `${dice} showing ${face} (aces are not wild)` : `${dice} showing ${face} or an ace`;
}

/** The bid preview, with the ace rule that makes it legal ("three aces beats five 4s"). */
function preview(room, quantity, face) {
  const current = room.game.current_bid;
  const out = [`You bid ${words(quantity, face)}: ${meaning(room, quantity, face)}.`];
  if (current && !palifico(room)) {
    if (face === ACES && current.face !== ACES) {
      out.push(h('span', { class: 'ace-rule', testid: 'ace-rule' },
        ` ${capitalize(words(quantity, face))} beats ${words(current.quantity, current.face)}: going to aces, half the quantity (rounded up) is enough.`));
    } else if (face !== ACES && current.face === ACES) {
      out.push(h('span', { class: 'ace-rule', testid: 'ace-rule' },
        ` Leaving ${words(current.quantity, current.face)} takes twice plus one: at least ${2 * current.quantity + 1}.`));
    }
  }
  if (!current && !palifico(room)) out.push(h('span', { class: 'muted', testid: 'no-aces-opening' }, ' No opening on aces.'));
  if (current && palifico(room) && !context(room).single) {
    out.push(h('span', { class: 'muted' }, ` Palifico: the face stays ${current.face === ACES ? 'aces' : `${current.face}s`}.`));
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
    title: 'Say the current bid is exactly right: win a die back if it is, lose one if not',
    onclick: (event) => roomCall('POST', actionPath(room), { type: 'calza', turn: g.turn.number }, event.currentTarget),
  }, 'Calza!');
  const box = h('div', { class: 'calza-box row-between' },
    h('span', { class: 'muted small' }, `Exactly ${words(g.current_bid.quantity, g.current_bid.face)}?`), button);
  return { box, extra: () => ({}) };
}

/** Aces look like aces: every die showing 1 gets the ace mark (styles in perudo.css). */
function markAces(node) {
  if (!node || !node.querySelectorAll) return node;
  for (const d of node.querySelectorAll('.die[data-face="1"]')) {
    d.classList.add('die-ace');
    d.setAttribute('aria-label', 'ace');
    d.title = 'Ace (1): wild';
  }
  return node;
}

function panel(room) {
  const node = diceBidPanel(room, makeTrack(room));
  const liar = node.querySelector('[data-testid="call-liar"]');
  if (liar) {
    liar.textContent = 'Dudo!';
    liar.title = 'Dudo (Liar!): challenge the current bid';
  }
  if (palifico(room)) {
    const opener = room.game.opener_id ? playerName(room, room.game.opener_id) : 'a player';
    const banner = h('div', { class: 'palifico-banner', testid: 'palifico-banner', role: 'status' },
      h('strong', {}, 'Palifico! '),
      `${opener} is down to one die. This round aces are not wild and the face is fixed: raise the quantity only (a player with a single die may change the face).`);
    const header = node.querySelector('h2');
    if (header) header.after(banner);
    else node.prepend(banner);
  }
  return markAces(node);
}

function revealSummary(room, reveal) {
  const bid = reveal.bid;
  const bidder = playerName(room, bid.player_id);
  const caller = playerName(room, reveal.challenger_id);
  const calza = reveal.kind === 'calza';
  const showing = bid.face === ACES ? 'showing an ace' : reveal.palifico ? `showing ${bid.face}` : `showing ${bid.face} or an ace`;
  const lines = [
    h('p', {}, h('strong', {}, bidder), ` bid ${words(bid.quantity, bid.face)} `, bidBadge(bid), '. ',
      h('strong', {}, caller), calza ? ' called Calza! (exactly right)' : ' called Dudo!'),
    h('p', {}, `There ${reveal.count === 1 ? 'was' : 'were'} `, h('strong', { testid: 'reveal-count' }, String(reveal.count)),
      ` ${reveal.count === 1 ? 'die' : 'dice'} ${showing}`,
      calza
        ? (reveal.count === bid.quantity ? ': exactly right.' : ': not exact.')
        : (reveal.count >= bid.quantity ? ': the bid stood.' : ': the bid was a lie.')),
  ];
  if (reveal.palifico) lines.push(h('p', { class: 'muted', testid: 'reveal-palifico' }, 'A palifico round: aces were not wild.'));
  if (reveal.gained_id) {
    lines.push(h('p', { class: 'ok', testid: 'reveal-gained' }, h('strong', {}, playerName(room, reveal.gained_id)), ' wins a die back.'));
  } else if (calza && !reveal.loser_id) {
    lines.push(h('p', { class: 'ok' }, h('strong', {}, caller), ' was right, but already has the starting dice.'));
  }
  if (reveal.loser_id) {
    lines.push(h('p', {}, h('strong', {}, playerName(room, reveal.loser_id)),
      !calza && reveal.penalty === 'give' ? ` gives a die to ${playerName(room, reveal.winner_id)}.` : ' loses a die.'));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, `${playerName(room, id)} is eliminated.`));
  return h('div', { class: 'reveal-summary' }, lines);
}

const REVEAL = {
  summary: revealSummary,
  isLoser: (reveal, row) => row.player_id === reveal.loser_id,
  pills: (reveal, row) => [
    row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, '−1 die') : null,
    row.player_id === reveal.gained_id ? h('span', { class: 'pill pill-ok', testid: 'reveal-gained-pill' }, '+1 die') : null,
  ],
  footnote: ' Aces (marked A) count toward every face, except in palifico.',
};

const PENALTY = {
  name: 'penalty', label: 'Penalty (loser of a Dudo)', default: 'discard',
  options: [['discard', 'Discards 1 die'], ['give', 'Gives 1 die to winner']],
};

export default {
  rules: 'perudo',
  label: 'Perudo',
  summary: 'Aces are wild; bid on aces at half; Dudo or Calza (exactly right wins a die back); palifico at one die.',
  note: 'The wildcard chance does not apply to Perudo: the aces are the wild dice.',
  stylesheet: './perudo.css',
  fields: [STARTING_DICE, PENALTY],
  maxPlayers: 10,
  errors: {
    opening_on_aces: 'The opening bid cannot be on aces (except in a palifico round).',
    palifico_face_fixed: 'In a palifico round the face stays the same: raise the quantity. Only a player down to one die may change the face.',
    aces_below_half: 'Going to aces needs at least half the quantity of the current bid (rounded up).',
    leaving_aces_too_low: 'Leaving aces needs at least twice their quantity plus one.',
    calza_heads_up: 'Calza is not allowed when only two players have dice.',
  },
  chips: (v) => ['Perudo', `${v.starting_dice ?? '?'} dice`, v.penalty === 'give' ? 'give' : 'discard', `${v.turn_seconds ?? '?'}s turns`],
  help: {
    goal: 'Be the last player with dice. 2 to 10 players.',
    steps: [
      'Everyone rolls their dice in secret. A 1 is an ace, and aces are wild: they count toward any face.',
      'Bid on all the dice on the table: “five 4s” means at least five dice show a 4 or an ace. Raise with more dice, or as many of a higher face.',
      'Going to aces, half the quantity is enough (rounded up): three aces beats five 4s. Leaving aces takes twice plus one: over three aces, seven of any face. You may not open on aces.',
      'Or call Dudo! (Liar!): if fewer dice than bid are there, the bidder loses a die; otherwise you do.',
      'Or call Calza! when you think the bid is exactly right: if it is, you win a die back (up to your starting dice); if not, you lose one. Not with only two players left.',
      'Palifico: when a player first drops to one die, the next round is theirs to open; aces are not wild and the face stays fixed (only a player with a single die may change it). Once per player.',
    ],
    tips: ['Whoever lost or won a die opens the next round.',
      'If your time runs out, the game calls Dudo for you (or bids one 2 to open, one ace in palifico).'],
  },
  terms: { ...DICE_TERMS, revealHint: 'When someone calls Dudo! or Calza!, every hand is revealed here.' },
  panel,
  card: (room, player, opts) => {
    const parts = diceCard(room, player, opts, makeTrack(room));
    parts.dice = parts.dice.map(markAces);
    if (parts.bid) {
      const bid = room.game.current_bid;
      parts.bid = markAces(h('span', { class: 'card-bid', testid: 'card-bid' }, 'bid ', bidBadge(bid), ` ${words(bid.quantity, bid.face)}`));
    }
    return parts;
  },
  reveal: (room, reveal, opts) => markAces(diceReveal(room, reveal, opts, REVEAL)),
  moveEvents: ['calza_called'],
  moveWords(e) {
    if (e.type === 'calza_called') return 'Calza!';
    return e.type === 'bid_placed' ? words(e.quantity, e.face) : null;
  },
  actionWords: (action) => (action.type === 'bid' ? `${words(action.quantity, action.face)} was bid` : null),
  bidFromEvent: diceBidFromEvent,
  replay: {
    ...diceReplay,
    bidWords: (bid) => words(bid.quantity, bid.face),
    verdict: (reveal) => `${reveal.kind === 'calza' ? 'Calza' : 'Dudo'}${reveal.palifico ? ' (palifico)' : ''}: ${reveal.count} counted`,
  },
};
