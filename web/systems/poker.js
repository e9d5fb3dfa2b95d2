// Poker Liar Dice (docs/RULES.md, "Poker Liar Dice"): hands of five poker dice, their words, the
// cup and the stage controls (respond, reroll, claim, five aces), and the poker reveal.

import { h } from '../dom.js';
import { playerName, roomCall } from '../core.js';
import { turnClock } from '../play.js';
import { numberWord } from '../dice.js';
import { t, tList, tNodes } from '../i18n/index.js';

/** The faces, low to high, as the server names them. */
const POKER_FACES = ['9', 'T', 'J', 'Q', 'K', 'A'];
const CATEGORIES = ['high_card', 'pair', 'two_pairs', 'three_of_a_kind', 'full_house', 'four_of_a_kind', 'five_of_a_kind'];
/** How many distinct faces a hand of each category names (its groups, largest first). */
const GROUPS = [5, 4, 3, 3, 2, 2, 1];
/** A poker face in words: "jack" (count 1), "jacks" (count 2). */
const faceName = (face, count = 1) => t(`poker.face.${face}`, { count });

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
  const cat = categoryIndex(faces.map(value));
  const twoGroups = cat === 2 || cat === 4;
  return t(`poker.hand.${cat}`, {
    face: faceName(groups[0]), a: faceName(groups[0], 2), b: faceName(groups[1], 2), rest: rest(twoGroups ? 2 : 1),
  });
}

/** A poker die tile: 9 T J Q K A (T is shown as 10), or hidden (null). */
function pokerDie(face, { size = '', exposed = false, testid = null } = {}) {
  const classes = ['pdie', size, exposed ? 'is-exposed' : ''];
  if (!face) return h('span', { class: [...classes, 'pdie-hidden'], role: 'img', 'aria-label': t('poker.hidden'), testid }, '?');
  const label = face === 'T' ? '10' : face;
  const name = faceName(face);
  return h('span', {
    class: [...classes, `pdie-${face}`], role: 'img', testid, dataset: { face },
    'aria-label': exposed ? t('poker.exposedLabel', { face: name }) : name,
    title: capitalize(exposed ? t('poker.exposedTitle', { face: name }) : name),
  }, label);
}

/** A row of poker dice tiles. */
function pokerHand(faces, { size = 'small', exposed = [] } = {}) {
  return h('span', { class: 'dice-row pdice-row' }, faces.map((f, i) => pokerDie(f, { size, exposed: exposed.includes(i) })));
}

/** A claim as tiles and words. */
function claimBadge(claim, size = 'small') {
  const tiles = pokerHand(claim.hand, { size });
  tiles.setAttribute('aria-hidden', 'true');
  return h('span', { class: 'claim-badge', title: handWords(claim.hand) }, tiles,
    h('span', { class: 'claim-words' }, handWords(claim.hand)));
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function diceWord(n) {
  return t('poker.dice', { count: n, number: numberWord(n) });
}

/** "Bot 1 rerolled 2 dice", "You rerolled nothing". */
function rerollWords(room, entry) {
  const me = room.me || {};
  if (entry.player_id === me.player_id) {
    return entry.count === 0 ? t('poker.youRerolledNothing') : t('poker.youRerolled', { dice: diceWord(entry.count) });
  }
  const who = playerName(room, entry.player_id);
  return entry.count === 0 ? t('poker.rerolledNothing', { who }) : t('poker.rerolled', { who, dice: diceWord(entry.count) });
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
  return h('span', { class: 'lives', testid: 'lives', title: t('poker.lives', { count: n }), dataset: { lives: String(n) } },
    hearts, h('span', { class: 'lives-count' }, t('poker.lives', { count: n })));
}

const STAGES = ['claim', 'respond', 'reroll', 'aces'];

// ---- the stage controls -------------------------------------------------------

/** The selection of the current turn: dice to reroll, exposure changes, the claim builder. */
function selection(room, part) {
  const g = room.game;
  const key = `${room.id}:${g.round}:${g.turn ? g.turn.number : ''}`;
  if (!part.turn || part.turn.key !== key) {
    part.turn = { key, reroll: [], expose: [], unexpose: [], category: null, faces: [] };
  }
  return part.turn;
}

/**
 * The poker panel in the bid slot: current claim, announcements, the cup, and the controls
 * of the stage the turn is at. helpers: {countdown, active} from the game screen.
 */
function pokerPanel(room, { countdown, active, selection: part }) {
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
  const sel = selection(room, part);

  const header = h('h2', { testid: 'bid-heading', tabindex: '-1', 'data-focus-fallback': '' }, myTurn ? t('poker.yourTurn') : t('poker.label'));
  const claimLine = current
    ? h('p', { class: 'current-bid-line', testid: 'poker-current-claim' },
      tNodes('poker.currentClaim', { claim: claimBadge(current, 'small'), name: playerName(room, current.player_id) }))
    : h('p', { class: 'current-bid-line muted', testid: 'poker-current-claim' }, t('poker.noClaim'));
  const rerolls = (table.rerolls || []).length
    ? h('ul', { class: 'poker-rerolls', testid: 'poker-rerolls' },
      table.rerolls.length > 4 ? h('li', { class: 'muted' }, t('poker.earlier', { n: table.rerolls.length - 4 })) : null,
      table.rerolls.slice(-4).map((r) => h('li', { testid: 'poker-reroll-note' }, rerollWords(room, r))))
    : null;

  if (!bidding) {
    const note = g.phase === 'break' ? t('poker.handOver') : t('poker.finalReveal');
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
        holderOnly ? h('span', { class: 'cup-slot-note muted' }, t('poker.onlyYou')) : out ? h('span', { class: 'cup-slot-note' }, t('poker.exposed')) : null);
    }
    const button = h('button', {
      type: 'button', class: 'cup-die poker-cup-die', testid: 'poker-die', dataset: { index: String(i), face: face || '' },
      'aria-pressed': String(sel.reroll.includes(i)), disabled: !canReroll,
      'aria-label': t('poker.rerollDie', { n: i + 1, shown: face ? (face === 'T' ? '10' : face) : '?', face: face ? faceName(face) : t('poker.hidden') }),
    }, tile);
    button.addEventListener('click', () => {
      if (exposedAfter().includes(i)) { hint.textContent = t('poker.exposedStay'); return; }
      sel.reroll = sel.reroll.includes(i) ? sel.reroll.filter((j) => j !== i) : [...sel.reroll, i];
      sync();
    });
    dieButtons.push(button);
    const toggle = stage === 'aces' ? null : h('button', {
      type: 'button', class: 'btn btn-ghost btn-tiny', testid: 'poker-expose', dataset: { index: String(i) },
      'aria-label': out ? t('poker.takeBackN', { n: i + 1 }) : t('poker.exposeN', { n: i + 1 }),
      onclick: () => {
        if (exposedNow.includes(i)) {
          sel.unexpose = sel.unexpose.includes(i) ? sel.unexpose.filter((j) => j !== i) : [...sel.unexpose, i];
        } else {
          sel.expose = sel.expose.includes(i) ? sel.expose.filter((j) => j !== i) : [...sel.expose, i];
          sel.reroll = sel.reroll.filter((j) => j !== i);
        }
        rebuild();
      },
    }, out ? t('poker.takeBack') : t('poker.expose'));
    return h('span', { class: 'cup-slot' }, button, toggle);
  });
  const holder = table.holder_id;
  const cupBox = h('div', { class: 'poker-cup', testid: 'poker-cup', dataset: { stage: stage || '' } },
    h('div', { class: 'row-between' },
      h('span', { class: 'field-label' }, holder === me.player_id ? t('poker.cupYou') : t('poker.cupOf', { name: playerName(room, holder) })),
      table.aces_rolls_left !== null && table.aces_rolls_left !== undefined && stage === 'aces'
        ? h('span', { class: 'pill pill-muted', testid: 'poker-aces-left' }, t('poker.rollsLeft', { count: table.aces_rolls_left })) : null),
    h('div', { class: 'cup-picker' }, cupTiles),
    hint);

  function sync() {
    for (const b of dieButtons) b.setAttribute('aria-pressed', String(sel.reroll.includes(Number(b.dataset.index))));
    const k = sel.reroll.length;
    if (rerollButton) {
      rerollButton.disabled = k === 0;
      rerollButton.textContent = k ? t('poker.rerollN', { count: k, number: numberWord(k) }) : t('poker.reroll');
    }
    if (stage === 'reroll') hint.textContent = t('poker.hint.reroll');
    else if (stage === 'aces') hint.textContent = t('poker.hint.aces');
    else if (stage === 'claim' && cup) hint.textContent = t('poker.hint.claim');
    else hint.textContent = cup ? t('poker.hint.cup') : '';
  }
  let rerollButton = null;
  function rebuild() {
    // Exposure changes alter the legal claims: redraw the whole panel with the same selection.
    const host = panelNode.parentNode;
    if (host) host.replaceChildren(pokerPanel(room, { countdown, active, selection: part }));
  }

  const controls = [];
  const exposureFields = () => ({
    ...(sel.expose.length ? { expose: [...sel.expose].sort() } : {}),
    ...(sel.unexpose.length ? { unexpose: [...sel.unexpose].sort() } : {}),
  });
  if (myTurn && stage === 'respond') {
    const fiveAces = current && current.category === 'five_of_a_kind' && current.hand[0] === 'A';
    controls.push(h('p', {}, fiveAces
      ? t('poker.fiveAcesQ')
      : t('poker.acceptQ')));
    controls.push(h('div', { class: 'button-row' },
      h('button', { class: 'btn btn-primary', testid: 'poker-accept', onclick: (e) => send({ type: 'accept' }, e.currentTarget) }, t('poker.accept')),
      h('button', { class: 'btn btn-danger', testid: 'poker-liar', 'aria-keyshortcuts': 'L', onclick: (e) => send({ type: 'liar' }, e.currentTarget) }, t('poker.liar'))));
  } else if (myTurn && stage === 'reroll') {
    rerollButton = h('button', {
      class: 'btn btn-primary', testid: 'poker-reroll',
      onclick: (e) => send({ type: 'reroll', dice: [...sel.reroll].sort(), ...exposureFields() }, e.currentTarget),
    }, t('poker.reroll'));
    controls.push(h('div', { class: 'button-row' }, rerollButton,
      h('button', {
        class: 'btn btn-secondary', testid: 'poker-keep', title: t('poker.keepTitle'),
        onclick: (e) => send({ type: 'reroll', dice: [], ...exposureFields() }, e.currentTarget),
      }, t('poker.keep'))));
  } else if (myTurn && stage === 'aces') {
    if (!sel.touched) { sel.reroll = cup ? [0, 1, 2, 3, 4].filter((i) => cup[i] !== 'A') : []; sel.touched = true; }
    rerollButton = h('button', {
      class: 'btn btn-primary', testid: 'poker-reroll',
      onclick: (e) => send({ type: 'reroll', dice: [...sel.reroll].sort() }, e.currentTarget),
    }, t('poker.reroll'));
    controls.push(h('div', { class: 'button-row' }, rerollButton,
      h('button', { class: 'btn btn-secondary', testid: 'poker-stop', onclick: (e) => send({ type: 'stop' }, e.currentTarget) }, t('poker.stop'))));
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
    ? h('p', { class: 'turn-line is-mine' }, tNodes('poker.timeLeft', { time: countdown(g.turn.deadline, 'big') }))
    : h('p', { class: 'turn-line' }, t(`poker.wait.${STAGES.includes(stage) ? stage : 'other'}`, { name: playerName(room, turnPlayer) }), turnClock(g.turn));
  const watching = !active ? h('p', { class: 'muted' }, me.player_id ? t('poker.outOfLives') : t('poker.watching')) : null;
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
    testid: 'poker-category', value: String(sel.category),
    onchange: (e) => { sel.category = Number(e.target.value); sel.faces = []; draw(); },
  }, tList('poker.categories').map((label, i) => h('option', { value: String(i) }, label)));
  const faceRow = h('div', { class: 'claim-faces', testid: 'poker-claim-faces' });
  const preview = h('p', { class: 'bid-preview', testid: 'poker-preview', 'aria-live': 'polite' });
  const claimButton = h('button', { class: 'btn btn-primary', type: 'button', testid: 'poker-claim', 'aria-keyshortcuts': 'B' }, t('poker.claim'));
  const better = h('button', {
    class: 'btn btn-secondary', type: 'button', testid: 'poker-better', disabled: !lowest,
    title: t('poker.betterTitle'),
    onclick: () => { sel.category = categoryIndex(lowest); sel.faces = [...new Set(lowest)]; draw(); },
  }, t('poker.better'));
  const mine = cup ? h('button', {
    class: 'btn btn-ghost', type: 'button', testid: 'poker-truth', title: t('poker.truthTitle'),
    onclick: () => { const hand = canonical(cup.map(value)); sel.category = categoryIndex(hand); sel.faces = [...new Set(hand)]; draw(); },
  }, t('poker.myDice')) : null;
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
      }, h('option', { value: '' }, t('poker.lowest')), POKER_FACES.map((f, i) => h('option', { value: String(i + 1) }, f === 'T' ? '10' : f)));
      selects.push(h('label', { class: 'claim-face' }, h('span', { class: 'field-label' }, labels[k]), select));
    }
    faceRow.replaceChildren(...selects);
    const hand = resolved();
    if (hand) {
      const faces = hand.map(faceOf);
      preview.classList.remove('is-invalid');
      preview.replaceChildren(...tNodes('poker.youClaim', { hand: handWords(faces), tiles: pokerHand(faces, { size: 'small' }) }));
    } else {
      preview.classList.add('is-invalid');
      preview.replaceChildren(exposed.length
        ? t('poker.noSuchExposed')
        : t('poker.noSuch'));
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
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('poker.claimHand')), categorySelect),
    faceRow, preview,
    h('div', { class: 'button-row bid-buttons' }, claimButton, better, mine));
}

function groupLabels(cat) {
  return tList(`poker.groups.${cat}`);
}

// ---- reveal -------------------------------------------------------------------

/** The poker reveal: the lifted cup, the claim, who challenged and lost, every player's claims. */
function pokerReveal(room, reveal, { previous, byClock = false }) {
  const bid = reveal.bid;
  const strong = (id) => h('strong', {}, playerName(room, id));
  const cup = reveal.cup || [];
  const lost = reveal.lost || {};
  const lines = [];
  if (reveal.five_aces) {
    lines.push(h('p', { testid: 'reveal-call' }, tNodes('poker.reveal.fiveAces', { claimant: strong(bid.player_id), claim: claimBadge(bid), challenger: strong(reveal.challenger_id) })));
    lines.push(h('p', { testid: 'poker-five-aces' }, tNodes('poker.reveal.cup', { cup: pokerHand(cup, { size: 'medium' }) }), ' ',
      reveal.count ? h('strong', { class: 'ok' }, t('poker.reveal.fiveAgain')) : h('strong', {}, t('poker.reveal.noFive'))));
  } else {
    lines.push(h('p', { testid: 'reveal-call' }, tNodes(byClock ? 'poker.reveal.clock' : 'poker.reveal.called', {
      claimant: strong(bid.player_id), claim: claimBadge(bid), challenger: strong(reveal.challenger_id),
    })));
    lines.push(h('p', {}, tNodes('poker.reveal.cup', { cup: h('span', { testid: 'poker-reveal-cup' }, pokerHand(cup, { size: 'medium', exposed: reveal.exposed || [] })) }),
      ' ', reveal.hand ? `${handWords(reveal.hand.hand)}` : '',
      t(reveal.count ? 'poker.reveal.stood' : 'poker.reveal.lie')));
  }
  for (const id of Object.keys(lost)) {
    lines.push(h('p', { testid: 'poker-lost-life' }, tNodes('poker.reveal.losesLife', { name: strong(id) })));
  }
  if (reveal.dogs_life) {
    lines.push(h('p', { class: 'ok', testid: 'poker-dogs-life' }, tNodes('poker.reveal.dogsLife', { name: strong(reveal.dogs_life) })));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, t('poker.reveal.out', { name: playerName(room, id) })));
  if (reveal.next_id && !reveal.final) lines.push(h('p', { class: 'muted' }, t('poker.reveal.next', { name: playerName(room, reveal.next_id) })));
  const rows = (reveal.rows || []).map((row) => h('tr', { class: lost[row.player_id] ? 'is-loser' : '', dataset: { playerId: row.player_id } },
    h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
      row.player_id === bid.player_id ? h('span', { class: 'pill pill-muted' }, t('poker.reveal.claimant')) : null,
      row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, t(reveal.five_aces ? 'poker.reveal.rolled' : 'poker.reveal.challenger')) : null,
      lost[row.player_id] ? h('span', { class: 'pill pill-bad', testid: 'reveal-lost' }, t('poker.reveal.lostPill')) : null),
    h('td', { class: 'reveal-bids' }, (row.bids || []).length
      ? h('ol', { class: 'claim-list' }, row.bids.map((b) => h('li', {}, claimBadge(b))))
      : h('span', { class: 'muted', testid: 'no-bids' }, '—'))));
  return h('section', { class: 'card reveal-panel poker-reveal', testid: 'reveal' },
    h('div', { class: 'row-between' }, h('h2', {}, t('poker.reveal.title', { n: reveal.round })),
      previous ? h('span', { class: 'pill pill-muted' }, t('poker.reveal.previous')) : null),
    h('div', { class: 'reveal-summary' }, lines),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('poker.reveal.title', { n: reveal.round }) },
      h('table', { class: 'reveal-table', testid: 'reveal-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('poker.reveal.username')), h('th', { scope: 'col' }, t('poker.reveal.claims')))),
        h('tbody', {}, rows))),
    h('p', { class: 'muted small' }, t('poker.reveal.footnote')));
}

// ---- the player card --------------------------------------------------------------

/** A player's line: holds the cup, and the dice they rerolled this hand. */
function cardLine(room, player) {
  const g = room.game;
  const table = g.table || {};
  const reroll = lastReroll(room, player.id);
  return h('span', { class: 'poker-card-line small' },
    g.phase === 'bidding' && table.holder_id === player.id ? h('span', { class: 'pill pill-playing', testid: 'holds-cup' }, t('poker.holdsCup')) : null,
    reroll ? h('span', { class: 'muted', testid: 'card-reroll' }, reroll.count ? t('poker.rerolledCount', { n: reroll.count }) : t('poker.rerolledNone')) : null);
}

function card(room, player, { out }) {
  const g = room.game;
  const bid = g.current_bid && g.current_bid.player_id === player.id ? g.current_bid : null;
  return {
    count: h('span', { class: 'dice-count', title: t('poker.livesTitle') }, out ? '' : livesBadge(player.dice_count, (g.table && g.table.lives) || room.settings.lives)),
    dice: out ? h('span', { class: 'muted small' }, player.resigned ? t('poker.resigned') : t('poker.outOfLivesCard')) : cardLine(room, player),
    bid: bid ? h('span', { class: 'card-bid', testid: 'card-bid' }, tNodes('poker.claims', { claim: claimBadge(bid) })) : null,
  };
}

// ---- the system ---------------------------------------------------------------------

const LIVES = { name: 'lives', label: 'poker.livesField', default: 3, options: [1, 2, 3, 4, 5].map((n) => [n, 'settings.perPlayer', { count: n }]) };
const DOGS_LIFE = { name: 'dogs_life', label: 'poker.dogsLifeField', default: false, options: [[false, 'poker.off'], [true, 'poker.dogsOn']] };

const MOVE_WORDS = {
  claim_accepted: () => t('poker.move.accepts'),
  dice_rerolled: (e) => (e.count ? t('poker.move.rerolls', { n: e.count }) : t('poker.move.rerollsNone')),
  rolls_stopped: () => t('poker.move.stops'),
  bid_placed: (e) => t('poker.move.claims', { hand: handWords(e.hand) }),
};

const ACTION_WORDS = {
  claim: () => t('poker.action.claim'),
  accept: () => t('poker.action.accept'),
  reroll: (action) => t('poker.action.reroll', { count: action.count ?? (action.dice || []).length }),
  stop: () => t('poker.action.stop'),
};

/** The terms of the shared screens: hands and lives (web/README.md). */
const TERMS = Object.fromEntries(['round', 'rounds', 'Round', 'roundN', 'piecesInPlay', 'finalPieces', 'progress', 'pieces',
  'bidsInOrder', 'replayRounds', 'loss', 'revealHint', 'revealTitle', 'revealN', 'previous', 'roundOver']
  .map((term) => [term, `poker.terms.${term}`]));

export default {
  rules: 'poker',
  label: 'Poker Liar Dice',
  short: 'Poker',
  fields: [LIVES, DOGS_LIFE],
  chips(v) {
    const chips = [t('poker.short'), t('poker.chip.lives', { count: v.lives ?? LIVES.default }), t('settings.chip.turns', { n: v.turn_seconds ?? 30 })];
    if (v.dogs_life) chips.push(t('poker.chip.dogs'));
    return chips;
  },
  // Its words (label, summary, note, How to play, the reveal, its error codes) are in poker.i18n.json.
  stylesheet: 'poker.css',
  errors: ['not_accepted'],
  terms: TERMS,
  revealWords: (e) => t(e.count ? 'poker.table.stood' : 'poker.table.lie'),
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
    bidWords: (bid) => `${bid.hand.join(' ')} (${handWords(bid.hand)})`,
    hands: (history, record) => [h('div', { testid: 'replay-hand', dataset: { playerId: 'cup' } }, h('strong', {}, t('poker.replay.cup')), ' ',
      (record.reveal.cup || []).join(' '), record.reveal.hand ? ` (${handWords(record.reveal.hand.hand)})` : '')],
    verdict: (reveal) => t(reveal.count ? 'poker.replay.held' : 'poker.replay.lie'),
    loss: () => t('poker.replay.loss'),
  },
};
