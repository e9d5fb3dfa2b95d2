// Poker Liar Dice (docs/RULES.md, "Poker Liar Dice"): hands of five poker dice, their words, the
// cup and the stage controls (respond, reroll, claim, five aces), and the poker reveal.

import { h } from '../dom.js';
import { playerName, roomCall, state } from '../core.js';
import { turnClock } from '../play.js';

/** The faces, low to high, as the server names them. */
const POKER_FACES = ['9', 'T', 'J', 'Q', 'K', 'A'];
const CATEGORIES = ['high_card', 'pair', 'two_pairs', 'three_of_a_kind', 'full_house', 'four_of_a_kind', 'five_of_a_kind'];
const CATEGORY_LABELS = ['High card', 'One pair', 'Two pairs', 'Three of a kind', 'Full house', 'Four of a kind', 'Five of a kind'];
/** How many distinct faces a hand of each category names (its groups, largest first). */
const GROUPS = [5, 4, 3, 3, 2, 2, 1];
const SINGULAR = { 9: 'nine', T: 'ten', J: 'jack', Q: 'queen', K: 'king', A: 'ace' };
const PLURAL = { 9: 'nines', T: 'tens', J: 'jacks', Q: 'queens', K: 'kings', A: 'aces' };
const COUNT_WORDS = ['', 'one', 'two', 'three', 'four', 'five'];

const value = (face) => POKER_FACES.indexOf(String(face)) + 1;
const faceOf = (v) => POKER_FACES[v - 1];

function counts(values) {
  const out = new Map();
  for (const v of values) out.set(v, (out.get(v) || 0) + 1);
  return out;
}

/** Dice values (1..6) in canonical order: larger groups first, equal groups by the higher face. */
function canonical(values) {
  const c = counts(values);
  const order = [...c.keys()].sort((a, b) => c.get(b) - c.get(a) || b - a);
  return order.flatMap((v) => Array(c.get(v)).fill(v));
}

function categoryIndex(values) {
  const pattern = [...counts(values).values()].sort((a, b) => b - a).join('');
  return { 11111: 0, 2111: 1, 221: 2, 311: 3, 32: 4, 41: 5, 5: 6 }[pattern];
}

/** A number ordering hands: category first, then the dice in canonical order. */
function rank(values) {
  return canonical(values).reduce((code, v) => code * 7 + v, categoryIndex(values));
}

const ALL_HANDS = (() => {
  const out = [];
  const walk = (start, hand) => {
    if (hand.length === 5) { out.push(canonical(hand)); return; }
    for (let v = start; v <= 6; v += 1) walk(v, [...hand, v]);
  };
  walk(1, []);
  return out.sort((a, b) => rank(a) - rank(b));
})();

function includes(hand, exposed) {
  const have = counts(hand);
  return [...counts(exposed)].every(([v, n]) => (have.get(v) || 0) >= n);
}

/** The lowest hand above `current` (a rank) with the exposed dice, of a category with leading faces. */
function lowestClaim(current, exposed, cat = null, faces = []) {
  return ALL_HANDS.find((hand) => (current === null || rank(hand) > current)
    && (cat === null || categoryIndex(hand) === cat)
    && faces.every((v, i) => [...new Set(hand)][i] === v)
    && includes(hand, exposed)) || null;
}

/** "a pair of jacks, K Q 9", "a full house, queens over nines", "ace high, K Q J 9". */
function handWords(hand) {
  const faces = canonical(hand.map(value)).map(faceOf);
  const groups = [...new Set(faces)];
  const rest = (from) => groups.slice(from).map((f) => (f === 'T' ? '10' : f)).join(' ');
  switch (categoryIndex(faces.map(value))) {
    case 0: return `${SINGULAR[groups[0]]} high, ${rest(1)}`;
    case 1: return `a pair of ${PLURAL[groups[0]]}, ${rest(1)}`;
    case 2: return `two pairs, ${PLURAL[groups[0]]} and ${PLURAL[groups[1]]}, ${rest(2)}`;
    case 3: return `three ${PLURAL[groups[0]]}, ${rest(1)}`;
    case 4: return `a full house, ${PLURAL[groups[0]]} over ${PLURAL[groups[1]]}`;
    case 5: return `four ${PLURAL[groups[0]]}, ${rest(1)}`;
    default: return `five ${PLURAL[groups[0]]}`;
  }
}

/** A poker die tile: 9 T J Q K A (T is shown as 10), or hidden (null). */
function pokerDie(face, { size = '', exposed = false, testid = null } = {}) {
  const classes = ['pdie', size, exposed ? 'is-exposed' : ''];
  if (!face) return h('span', { class: [...classes, 'pdie-hidden'], role: 'img', 'aria-label': 'hidden die', testid }, '?');
  const label = face === 'T' ? '10' : face;
  return h('span', {
    class: [...classes, `pdie-${face}`], role: 'img', testid, dataset: { face },
    'aria-label': `${SINGULAR[face]}${exposed ? ' (exposed)' : ''}`, title: `${capitalize(SINGULAR[face])}${exposed ? ', exposed' : ''}`,
  }, label);
}

/** A row of poker dice tiles. */
function pokerHand(faces, { size = 'small', exposed = [] } = {}) {
  return h('span', { class: 'dice-row pdice-row' }, faces.map((f, i) => pokerDie(f, { size, exposed: exposed.includes(i) })));
}

/** A claim as tiles and words. */
function claimBadge(claim, size = 'small') {
  return h('span', { class: 'claim-badge', title: handWords(claim.hand) }, pokerHand(claim.hand, { size }),
    h('span', { class: 'claim-words' }, handWords(claim.hand)));
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function diceWord(n) {
  return `${COUNT_WORDS[n] ?? n} ${n === 1 ? 'die' : 'dice'}`;
}

/** "Bot 1 rerolled 2 dice", "You passed the cup without rerolling". */
function rerollWords(room, entry) {
  const me = room.me || {};
  const who = entry.player_id === me.player_id ? 'You' : playerName(room, entry.player_id);
  return entry.count === 0 ? `${who} rerolled nothing` : `${who} rerolled ${diceWord(entry.count)}`;
}

/** The latest announced reroll of a player this hand, or null. */
function lastReroll(room, playerId) {
  const table = (room.game && room.game.table) || {};
  const mine = (table.rerolls || []).filter((r) => r.player_id === playerId);
  return mine.length ? mine[mine.length - 1] : null;
}

/** "3 lives" with hearts. */
function livesBadge(n, of) {
  const total = Math.max(n, of || n);
  const hearts = Array.from({ length: total }, (_, i) => h('span', { class: i < n ? 'heart' : 'heart is-lost', 'aria-hidden': 'true' }, '♥'));
  return h('span', { class: 'lives', testid: 'lives', title: `${n} ${n === 1 ? 'life' : 'lives'}`, dataset: { lives: String(n) } },
    hearts, h('span', { class: 'lives-count' }, `${n} ${n === 1 ? 'life' : 'lives'}`));
}

const STAGE_WAIT = {
  claim: 'is making a claim',
  respond: 'decides: accept the claim or call Liar!',
  reroll: 'looks at the dice and may reroll',
  aces: 'rolls for five aces',
};

// ---- the stage controls -------------------------------------------------------

/** The selection of the current turn: dice to reroll, exposure changes, the claim builder. */
function selection(room) {
  const g = room.game;
  const key = `${room.id}:${g.round}:${g.turn ? g.turn.number : ''}`;
  if (!state.poker || state.poker.key !== key) {
    state.poker = { key, reroll: [], expose: [], unexpose: [], category: null, faces: [] };
  }
  return state.poker;
}

/**
 * The poker panel in the bid slot: current claim, announcements, the cup, and the controls
 * of the stage the turn is at. helpers: {countdown, active} from the game screen.
 */
function pokerPanel(room, { countdown, active }) {
  const g = room.game;
  const me = room.me || {};
  const table = g.table || {};
  const stage = table.stage;
  const turnPlayer = g.turn ? g.turn.player_id : null;
  const bidding = g.phase === 'bidding';
  const myTurn = bidding && active && turnPlayer === me.player_id;
  const path = `/rooms/${encodeURIComponent(room.id)}/actions`;
  const send = (body, button) => roomCall('POST', path, { ...body, turn: g.turn.number }, button);
  const current = g.current_bid;
  const cup = Array.isArray(me.dice) && me.dice.length === 5 ? me.dice : null;
  const exposedNow = (table.exposed || [null, null, null, null, null]).map((f, i) => (f ? i : null)).filter((i) => i !== null);
  const sel = selection(room);

  const header = h('h2', {}, myTurn ? 'Your turn' : 'Poker Liar Dice');
  const claimLine = current
    ? h('p', { class: 'current-bid-line', testid: 'poker-current-claim' }, 'Current claim: ', claimBadge(current, 'small'),
      ` by ${playerName(room, current.player_id)}`)
    : h('p', { class: 'current-bid-line muted', testid: 'poker-current-claim' }, 'No claim yet this hand.');
  const rerolls = (table.rerolls || []).length
    ? h('ul', { class: 'poker-rerolls', testid: 'poker-rerolls', 'aria-live': 'polite' },
      table.rerolls.length > 4 ? h('li', { class: 'muted' }, `${table.rerolls.length - 4} earlier`) : null,
      table.rerolls.slice(-4).map((r) => h('li', { testid: 'poker-reroll-note' }, rerollWords(room, r))))
    : null;

  if (!bidding) {
    const note = g.phase === 'break' ? 'The hand is over. The next hand starts after the break.' : 'Final reveal…';
    return h('section', { class: 'card bid-panel poker-panel', testid: 'bid-panel' }, header, h('p', { class: 'muted' }, note));
  }

  // The exposure after this turn's changes, and which dice are picked for a reroll.
  const exposedAfter = () => [...exposedNow.filter((i) => !sel.unexpose.includes(i)), ...sel.expose].sort();
  const canReroll = myTurn && (stage === 'reroll' || stage === 'aces');
  const canExpose = myTurn && cup && (stage === 'reroll' || stage === 'claim');
  const hint = h('p', { class: 'muted small poker-hint', testid: 'poker-hint', 'aria-live': 'polite' });
  const dieButtons = [];
  const cupTiles = [0, 1, 2, 3, 4].map((i) => {
    const face = cup ? cup[i] : (table.exposed || [])[i] || null;
    const out = exposedAfter().includes(i);
    const tile = pokerDie(face, { size: 'medium', exposed: out });
    const holderOnly = cup && !exposedNow.includes(i);
    if (!canReroll && !canExpose) {
      return h('span', { class: 'cup-slot', testid: 'poker-die', dataset: { index: String(i), face: face || '' } }, tile,
        holderOnly ? h('span', { class: 'cup-slot-note muted' }, 'only you') : out ? h('span', { class: 'cup-slot-note' }, 'exposed') : null);
    }
    const button = h('button', {
      type: 'button', class: 'cup-die poker-cup-die', testid: 'poker-die', dataset: { index: String(i), face: face || '' },
      'aria-pressed': String(sel.reroll.includes(i)), disabled: !canReroll,
      'aria-label': `Reroll die ${i + 1}`,
    }, tile);
    button.addEventListener('click', () => {
      if (exposedAfter().includes(i)) { hint.textContent = 'Exposed dice stay out of the cup: take the die back first.'; return; }
      sel.reroll = sel.reroll.includes(i) ? sel.reroll.filter((j) => j !== i) : [...sel.reroll, i];
      sync();
    });
    dieButtons.push(button);
    const toggle = stage === 'aces' ? null : h('button', {
      type: 'button', class: 'btn btn-ghost btn-tiny', testid: 'poker-expose', dataset: { index: String(i) },
      onclick: () => {
        if (exposedNow.includes(i)) {
          sel.unexpose = sel.unexpose.includes(i) ? sel.unexpose.filter((j) => j !== i) : [...sel.unexpose, i];
        } else {
          sel.expose = sel.expose.includes(i) ? sel.expose.filter((j) => j !== i) : [...sel.expose, i];
          sel.reroll = sel.reroll.filter((j) => j !== i);
        }
        rebuild();
      },
    }, out ? 'Take back' : 'Expose');
    return h('span', { class: 'cup-slot' }, button, toggle);
  });
  const holder = table.holder_id;
  const cupBox = h('div', { class: 'poker-cup', testid: 'poker-cup', dataset: { stage: stage || '' } },
    h('div', { class: 'row-between' },
      h('span', { class: 'field-label' }, holder === me.player_id ? 'The cup (you hold it)' : `The cup (${playerName(room, holder)} holds it)`),
      table.aces_rolls_left !== null && table.aces_rolls_left !== undefined && stage === 'aces'
        ? h('span', { class: 'pill pill-muted', testid: 'poker-aces-left' }, `${table.aces_rolls_left} ${table.aces_rolls_left === 1 ? 'roll' : 'rolls'} left`) : null),
    h('div', { class: 'cup-picker' }, cupTiles),
    hint);

  function sync() {
    for (const b of dieButtons) b.setAttribute('aria-pressed', String(sel.reroll.includes(Number(b.dataset.index))));
    const k = sel.reroll.length;
    if (rerollButton) {
      rerollButton.disabled = k === 0;
      rerollButton.textContent = k ? `Reroll ${diceWord(k)}` : 'Reroll';
    }
    if (stage === 'reroll') hint.textContent = 'Click dice to reroll them. Exposed dice are seen by everyone and stay out of the cup.';
    else if (stage === 'aces') hint.textContent = 'Click dice to roll them again, or stop.';
    else if (stage === 'claim' && cup) hint.textContent = 'Expose dice to show them to everyone; your claim must include them.';
    else hint.textContent = cup ? 'Only you see the dice in the cup.' : '';
  }
  let rerollButton = null;
  function rebuild() {
    // Exposure changes alter the legal claims: redraw the whole panel with the same selection.
    const host = panelNode.parentNode;
    if (host) host.replaceChildren(pokerPanel(room, { countdown, active }));
  }

  const controls = [];
  const exposureFields = () => ({
    ...(sel.expose.length ? { expose: [...sel.expose].sort() } : {}),
    ...(sel.unexpose.length ? { unexpose: [...sel.unexpose].sort() } : {}),
  });
  if (myTurn && stage === 'respond') {
    const fiveAces = current && current.category === 'five_of_a_kind' && current.hand[0] === 'A';
    controls.push(h('p', {}, fiveAces
      ? 'Five aces! Accept and roll for them yourself, or call Liar!'
      : 'Accept the claim and take the cup, or call Liar! and lift it.'));
    controls.push(h('div', { class: 'button-row' },
      h('button', { class: 'btn btn-primary', testid: 'poker-accept', onclick: (e) => send({ type: 'accept' }, e.currentTarget) }, 'Accept'),
      h('button', { class: 'btn btn-danger', testid: 'poker-liar', onclick: (e) => send({ type: 'liar' }, e.currentTarget) }, 'Liar!')));
  } else if (myTurn && stage === 'reroll') {
    rerollButton = h('button', {
      class: 'btn btn-primary', testid: 'poker-reroll',
      onclick: (e) => send({ type: 'reroll', dice: [...sel.reroll].sort(), ...exposureFields() }, e.currentTarget),
    }, 'Reroll');
    controls.push(h('div', { class: 'button-row' }, rerollButton,
      h('button', {
        class: 'btn btn-secondary', testid: 'poker-keep', title: 'Reroll nothing (announced as 0 dice), then claim',
        onclick: (e) => send({ type: 'reroll', dice: [], ...exposureFields() }, e.currentTarget),
      }, 'Keep all, no reroll')));
  } else if (myTurn && stage === 'aces') {
    if (!sel.touched) { sel.reroll = cup ? [0, 1, 2, 3, 4].filter((i) => cup[i] !== 'A') : []; sel.touched = true; }
    rerollButton = h('button', {
      class: 'btn btn-primary', testid: 'poker-reroll',
      onclick: (e) => send({ type: 'reroll', dice: [...sel.reroll].sort() }, e.currentTarget),
    }, 'Reroll');
    controls.push(h('div', { class: 'button-row' }, rerollButton,
      h('button', { class: 'btn btn-secondary', testid: 'poker-stop', onclick: (e) => send({ type: 'stop' }, e.currentTarget) }, 'Stop')));
  } else if (myTurn && stage === 'claim') {
    const exposedValues = exposedAfter().map((i) => value(cup ? cup[i] : table.exposed[i]));
    controls.push(claimBuilder(room, sel, {
      current: current ? rank(current.hand.map(value)) : null,
      exposed: exposedValues,
      cup,
      submit: (hand, button) => send({ type: 'claim', hand, ...exposureFields() }, button),
    }));
  }
  sync();
  const turnLine = myTurn
    ? h('p', { class: 'turn-line is-mine' }, 'Time left ', countdown(g.turn.deadline, 'big'))
    : h('p', { class: 'turn-line' }, `${playerName(room, turnPlayer)} ${STAGE_WAIT[stage] || 'is to act'}`, turnClock(g.turn));
  const watching = !active ? h('p', { class: 'muted' }, me.player_id ? 'You are out of lives: you keep watching.' : 'You are watching this game.') : null;
  const panelNode = h('section', { class: ['card', 'bid-panel', 'poker-panel', myTurn ? 'is-my-turn' : ''], testid: 'bid-panel', dataset: { stage: stage || '' } },
    header, claimLine, rerolls, turnLine, watching, cupBox, controls);
  return panelNode;
}

/**
 * The claim builder: a category and its faces (largest group first; "lowest" leaves the rest to
 * the server), a "Better" shortcut (the lowest hand that beats the claim), "My dice", a preview.
 */
function claimBuilder(room, sel, { current, exposed, cup, submit }) {
  const lowest = lowestClaim(current, exposed);
  if (sel.category === null) {
    // Start from the dice when they beat the claim, else from the lowest legal hand.
    const truth = cup && includes(cup.map(value), exposed) && (current === null || rank(cup.map(value)) > current) ? canonical(cup.map(value)) : null;
    const start = truth || lowest;
    if (start) { sel.category = categoryIndex(start); sel.faces = [...new Set(start)]; } else { sel.category = 1; sel.faces = []; }
  }
  const categorySelect = h('select', {
    testid: 'poker-category', 'aria-label': 'Hand', value: String(sel.category),
    onchange: (e) => { sel.category = Number(e.target.value); sel.faces = []; draw(); },
  }, CATEGORY_LABELS.map((label, i) => h('option', { value: String(i) }, label)));
  const faceRow = h('div', { class: 'claim-faces', testid: 'poker-claim-faces' });
  const preview = h('p', { class: 'bid-preview', testid: 'poker-preview', 'aria-live': 'polite' });
  const claimButton = h('button', { class: 'btn btn-primary', type: 'button', testid: 'poker-claim' }, 'Claim');
  const better = h('button', {
    class: 'btn btn-secondary', type: 'button', testid: 'poker-better', disabled: !lowest,
    title: 'The lowest hand that beats the claim and shows the exposed dice',
    onclick: () => { sel.category = categoryIndex(lowest); sel.faces = [...new Set(lowest)]; draw(); },
  }, 'Better');
  const mine = cup ? h('button', {
    class: 'btn btn-ghost', type: 'button', testid: 'poker-truth', title: 'Fill in the hand in the cup',
    onclick: () => { const hand = canonical(cup.map(value)); sel.category = categoryIndex(hand); sel.faces = [...new Set(hand)]; draw(); },
  }, 'My dice') : null;
  const resolved = () => lowestClaim(current, exposed, sel.category, sel.faces);

  function draw() {
    categorySelect.value = String(sel.category);
    const groups = GROUPS[sel.category];
    const labels = groupLabels(sel.category);
    const selects = [];
    for (let k = 0; k < groups; k += 1) {
      const select = h('select', {
        testid: 'poker-claim-face', 'aria-label': labels[k], dataset: { group: String(k) },
        value: k < sel.faces.length ? String(sel.faces[k]) : '',
        disabled: k > sel.faces.length,
        onchange: (e) => {
          const v = e.target.value;
          sel.faces = v === '' ? sel.faces.slice(0, k) : [...sel.faces.slice(0, k), Number(v)];
          draw();
        },
      }, h('option', { value: '' }, 'lowest'), POKER_FACES.map((f, i) => h('option', { value: String(i + 1) }, f === 'T' ? '10' : f)));
      selects.push(h('label', { class: 'claim-face' }, h('span', { class: 'field-label' }, labels[k]), select));
    }
    faceRow.replaceChildren(...selects);
    const hand = resolved();
    if (hand) {
      const faces = hand.map(faceOf);
      preview.classList.remove('is-invalid');
      preview.replaceChildren(`You claim ${handWords(faces)} `, pokerHand(faces, { size: 'small' }));
    } else {
      preview.classList.add('is-invalid');
      preview.replaceChildren(exposed.length
        ? 'No such hand beats the claim and shows the exposed dice.'
        : 'No such hand beats the claim.');
    }
    claimButton.disabled = !hand;
  }
  claimButton.addEventListener('click', () => {
    const hand = resolved();
    if (!hand) return;
    submit({ category: CATEGORIES[sel.category], faces: sel.faces.slice(0, GROUPS[sel.category]).map(faceOf) }, claimButton);
  });
  draw();
  return h('div', { class: 'claim-builder', testid: 'poker-claim-builder' },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Claim a hand'), categorySelect),
    faceRow, preview,
    h('div', { class: 'button-row bid-buttons' }, claimButton, better, mine));
}

function groupLabels(cat) {
  return [
    ['High', '2nd', '3rd', '4th', '5th'],
    ['Pair of', 'Kicker', '2nd kicker', '3rd kicker'],
    ['High pair', 'Low pair', 'Kicker'],
    ['Three', 'Kicker', '2nd kicker'],
    ['Three', 'Pair'],
    ['Four', 'Kicker'],
    ['Five'],
  ][cat];
}

// ---- reveal -------------------------------------------------------------------

/** The poker reveal: the lifted cup, the claim, who challenged and lost, every player's claims. */
function pokerReveal(room, reveal, { previous }) {
  const bid = reveal.bid;
  const claimant = playerName(room, bid.player_id);
  const challenger = playerName(room, reveal.challenger_id);
  const cup = reveal.cup || [];
  const lost = reveal.lost || {};
  const lines = [];
  if (reveal.five_aces) {
    lines.push(h('p', {}, h('strong', {}, claimant), ' claimed ', claimBadge(bid), '. ',
      h('strong', {}, challenger), ' accepted five aces and rolled for them.'));
    lines.push(h('p', { testid: 'poker-five-aces' }, 'The cup: ', pokerHand(cup, { size: 'medium' }), ' ',
      reveal.count ? h('strong', { class: 'ok' }, 'Five aces again: nobody loses a life.') : h('strong', {}, 'No five aces.')));
  } else {
    lines.push(h('p', {}, h('strong', {}, claimant), ' claimed ', claimBadge(bid), '. ',
      h('strong', {}, challenger), ' called Liar!'));
    lines.push(h('p', {}, 'The cup: ', h('span', { testid: 'poker-reveal-cup' }, pokerHand(cup, { size: 'medium', exposed: reveal.exposed || [] })),
      ' ', reveal.hand ? `${handWords(reveal.hand.hand)}` : '',
      reveal.count ? ': the claim stood.' : ': the claim was a lie.'));
  }
  for (const id of Object.keys(lost)) {
    lines.push(h('p', { testid: 'poker-lost-life' }, h('strong', {}, playerName(room, id)), ' loses a life.'));
  }
  if (reveal.dogs_life) {
    lines.push(h('p', { class: 'ok', testid: 'poker-dogs-life' }, h('strong', {}, playerName(room, reveal.dogs_life)), " takes the dog's life: one more life, once per game."));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, `${playerName(room, id)} is out.`));
  if (reveal.next_id && !reveal.final) lines.push(h('p', { class: 'muted' }, `${playerName(room, reveal.next_id)} starts the next hand.`));
  const rows = (reveal.rows || []).map((row) => h('tr', { class: lost[row.player_id] ? 'is-loser' : '', dataset: { playerId: row.player_id } },
    h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
      row.player_id === bid.player_id ? h('span', { class: 'pill pill-muted' }, 'claimant') : null,
      row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, reveal.five_aces ? 'rolled' : 'challenger') : null,
      lost[row.player_id] ? h('span', { class: 'pill pill-bad', testid: 'reveal-lost' }, '−1 life') : null),
    h('td', { class: 'reveal-bids' }, (row.bids || []).length
      ? h('ol', { class: 'claim-list' }, row.bids.map((b) => h('li', {}, claimBadge(b))))
      : h('span', { class: 'muted', testid: 'no-bids' }, '—'))));
  return h('section', { class: 'card reveal-panel poker-reveal', testid: 'reveal' },
    h('div', { class: 'row-between' }, h('h2', {}, `Hand ${reveal.round} reveal`),
      previous ? h('span', { class: 'pill pill-muted' }, 'previous hand') : null),
    h('div', { class: 'reveal-summary' }, lines),
    h('div', { class: 'table-wrap' }, h('table', { class: 'reveal-table', testid: 'reveal-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Username'), h('th', {}, 'Claims, in order'))),
      h('tbody', {}, rows))),
    h('p', { class: 'muted small' }, 'Dice with a dashed frame were exposed.'));
}

// ---- the player card --------------------------------------------------------------

/** A player's line: holds the cup, and the dice they rerolled this hand. */
function cardLine(room, player) {
  const g = room.game;
  const table = g.table || {};
  const reroll = lastReroll(room, player.id);
  return h('span', { class: 'poker-card-line small' },
    g.phase === 'bidding' && table.holder_id === player.id ? h('span', { class: 'pill pill-playing', testid: 'holds-cup' }, 'holds the cup') : null,
    reroll ? h('span', { class: 'muted', testid: 'card-reroll' }, reroll.count ? ` rerolled ${reroll.count}` : ' rerolled none') : null);
}

function card(room, player, { out }) {
  const g = room.game;
  const bid = g.current_bid && g.current_bid.player_id === player.id ? g.current_bid : null;
  return {
    count: h('span', { class: 'dice-count', title: 'Lives' }, out ? '' : livesBadge(player.dice_count, (g.table && g.table.lives) || room.settings.lives)),
    dice: out ? h('span', { class: 'muted small' }, player.resigned ? 'Resigned' : 'Out of lives') : cardLine(room, player),
    bid: bid ? h('span', { class: 'card-bid', testid: 'card-bid' }, 'claims ', claimBadge(bid)) : null,
  };
}

// ---- the system ---------------------------------------------------------------------

const LIVES = { name: 'lives', label: 'Lives', default: 3, options: [1, 2, 3, 4, 5].map((n) => [n, `${n} per player`]) };
const DOGS_LIFE = { name: 'dogs_life', label: "Dog's life", default: false, options: [[false, 'Off'], [true, 'On: one extra life, once per game']] };

const MOVE_WORDS = {
  claim_accepted: () => 'accepts',
  dice_rerolled: (e) => (e.count ? `rerolls ${e.count}` : 'rerolls none'),
  rolls_stopped: () => 'stops',
  bid_placed: (e) => `claims ${handWords(e.hand)}`,
};

const ACTION_WORDS = {
  claim: () => 'the cup was passed with a better claim',
  accept: () => 'the claim was accepted',
  reroll: (action) => `${action.count ?? (action.dice || []).length} dice were rerolled`,
  stop: () => 'the rolls were stopped',
};

export default {
  rules: 'poker',
  label: 'Poker Liar Dice',
  short: 'Poker',
  summary: 'Pass one cup of five poker dice (9 T J Q K A) with a claimed hand; accept and reroll, or call Liar! and risk a life.',
  note: 'Poker uses one cup of five dice and lives: starting dice, wildcard chance and penalty do not apply.',
  fields: [LIVES, DOGS_LIFE],
  chips(v) {
    const chips = ['Poker', `${v.lives ?? LIVES.default} lives`, `${v.turn_seconds ?? '?'}s turns`];
    if (v.dogs_life) chips.push("dog's life");
    return chips;
  },
  help: {
    goal: 'Keep a life. Everyone starts with the room’s lives (3 by default).',
    steps: [
      'One cup of five dice, faces 9 10 J Q K A, goes round the table.',
      'Whoever holds the cup claims a poker hand (pair, two pairs, three of a kind, full house, four, five of a kind; no straights) and passes it on. Only they have seen the dice.',
      'The next player either calls Liar!, or accepts: looks at the dice, rerolls any of them (everyone hears how many), may leave dice exposed, and passes with a higher claim.',
      'On Liar! the cup is lifted: if the hand is at least the claim, the caller loses a life; otherwise the claimer does.',
      'Accepting five aces means rolling for five aces yourself, with up to two rerolls: make it and nobody loses a life; miss and you do.',
    ],
    tips: ['If your time runs out you accept and pass the cup unrolled, claiming “better”.',
      'Dog’s life (a room option): the first player to lose their last life gets one more, once.'],
  },
  stylesheet: 'poker.css',
  errors: {
    not_accepted: 'First accept the claim (or call Liar!): then you may look, reroll and claim.',
  },
  terms: {
    round: 'hand',
    pieces: 'lives',
    bids: 'claims',
    loss: 'a life',
    revealHint: 'When someone calls Liar!, the cup is lifted here.',
  },
  panel: pokerPanel,
  card,
  reveal: pokerReveal,
  moveEvents: ['claim_accepted', 'dice_rerolled', 'rolls_stopped'],
  moveWords: (e) => (MOVE_WORDS[e.type] ? MOVE_WORDS[e.type](e) : null),
  actionWords: (action) => (ACTION_WORDS[action.type] ? ACTION_WORDS[action.type](action) : null),
  bidFromEvent(e) {
    const bid = { player_id: e.player_id };
    for (const k of ['hand', 'category']) if (e[k] !== undefined && e[k] !== null) bid[k] = e[k];
    return bid;
  },
  replay: {
    bidWords: (bid) => `${bid.hand.join(' ')} (${String(bid.category || '').replace(/_/g, ' ')})`,
    hands: (history, record) => [h('div', { testid: 'replay-hand', dataset: { playerId: 'cup' } }, h('strong', {}, 'The cup: '),
      (record.reveal.cup || []).join(' '), record.reveal.hand ? ` (${String(record.reveal.hand.category).replace(/_/g, ' ')})` : '')],
    verdict: (reveal) => (reveal.count ? 'The claim held' : 'The claim was a lie'),
    loss: () => 'a life',
  },
};
