// Game screen: bidding controls, player cards, metrics, round reveal, resign.

import { h, mount, panel } from './dom.js';
import { api, serverNow } from './api.js';
import { attempt, formatSeconds, hooks, playerById, playerName, roomCall, state } from './core.js';
import {
  WILD_FACES, bidBadge, bidMeaning, bidWords, diceRow, die, hiddenDice, isRaise, minimumWithFace,
  wildBidMeaning, wildBidWords, wildIsRaise, wildMinimumWithFace,
} from './dice.js';
import { lastReroll, livesBadge, pokerPanel, pokerReveal, claimBadge } from './poker.js';
import { eloPreviewCard, resultsCard } from './results.js';
import { botMark } from './settings.js';
import { initial } from './text.js';

function actionPath(room) {
  return `/rooms/${encodeURIComponent(room.id)}/actions`;
}

function myPlayer(room) {
  const me = room.me || {};
  return me.player_id ? playerById(room, me.player_id) : null;
}

function isActive(player) {
  return Boolean(player && !player.eliminated && !player.resigned && player.dice_count > 0);
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A live countdown to an ISO deadline (the app's timer loop updates it). */
function countdown(deadline, extraClass = '') {
  if (!deadline) return h('span', { class: 'countdown muted' }, '—');
  // Filled at once (the timer loop keeps it current), so a fresh screen never shows a blank.
  const left = Date.parse(deadline) - serverNow();
  const text = Number.isNaN(left) ? '—' : formatSeconds(left);
  return h('span', { class: ['countdown', extraClass], dataset: { deadline }, testid: 'countdown' }, text);
}

// ---- rule systems -------------------------------------------------------------

const CLASSIC = {
  wild: false, faces: [1, 2, 3, 4, 5, 6], words: bidWords, meaning: bidMeaning, isRaise, minimum: minimumWithFace,
};
const WILD_STARS = {
  wild: true, faces: WILD_FACES, words: wildBidWords, meaning: wildBidMeaning, isRaise: wildIsRaise, minimum: wildMinimumWithFace,
};

/** The bidding rules of the room: classic, or Wild Stars (star bids on one track). */
function rulesOf(room) {
  return room.settings && room.settings.rules === 'wild-stars' ? WILD_STARS : CLASSIC;
}

/** Classic rooms with a 0 % wildcard chance have no * dice: no "or *" anywhere. */
function hasWildcards(room) {
  return !(room.settings && room.settings.wildcard_chance === 0);
}

function isPokerRoom(room) {
  return Boolean(room.settings && room.settings.rules === 'poker');
}

/** A face from a data attribute: '*' stays the star, anything else is a number. */
function parseFace(value) {
  return value === '*' ? '*' : Number(value);
}

/** Dice a player has set out in the open this round (Wild Stars; public). */
function shownDice(room, playerId) {
  const table = room.game && room.game.table;
  return (table && table.shown && table.shown[playerId]) || [];
}

// ---- bidding controls -------------------------------------------------------

function defaultWildBid(room) {
  const g = room.game;
  const me = room.me || {};
  const known = [...(me.dice || []), ...shownDice(room, me.player_id)];
  const stars = known.filter((d) => d === '*').length;
  const count = (face) => (face === '*' ? stars : stars + known.filter((d) => d === face).length);
  const faces = [...WILD_FACES].sort((a, b) => count(b) - count(a) || (b === '*' ? 1 : b) - (a === '*' ? 1 : a));
  for (const face of faces) {
    const quantity = wildMinimumWithFace(face, g.current_bid, g.total_dice);
    if (quantity !== null) return { quantity, face };
  }
  return { quantity: g.total_dice, face: 6 };
}

function defaultBid(room) {
  if (rulesOf(room).wild) return defaultWildBid(room);
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

function bidProblem(quantity, face, current, total, rules = CLASSIC) {
  if (!rules.faces.includes(face)) return 'Choose a face.';
  if (!Number.isFinite(quantity) || quantity < 1) return 'Choose a quantity of at least 1.';
  if (!Number.isInteger(quantity)) return 'The quantity is a whole number of dice.';
  if (quantity > total) return `Only ${total} dice are in play.`;
  if (!rules.isRaise(quantity, face, current)) {
    return `${capitalize(rules.words(quantity, face))} does not beat ${rules.words(current.quantity, current.face)}.`;
  }
  return null;
}

/**
 * Wild Stars "Show & reroll": click dice of the cup to set them out in the open (at least one
 * stays in the cup); the rest of the cup is rerolled with the bid. With no die picked nothing
 * is rerolled (a reroll without showing is not a move). Returns the controls and a function
 * giving the extra fields of the bid action ({show: [...]} or {}).
 */
function showRerollControls(room, myTurn) {
  const g = room.game;
  const cup = (room.me && room.me.dice) || [];
  const key = `${g.round}:${g.turn ? g.turn.number : ''}`;
  if (!state.show || state.show.key !== key) state.show = { key, on: false, picked: [] };
  const sel = state.show;
  const toggle = h('button', {
    type: 'button', class: 'btn btn-ghost btn-small show-toggle', testid: 'show-reroll',
    'aria-pressed': String(sel.on), disabled: !myTurn,
    title: 'Set dice of your cup out in the open and reroll the rest with your bid',
  }, 'Show & reroll');
  const hint = h('p', { class: 'muted small show-hint', testid: 'show-reroll-hint', 'aria-live': 'polite' });
  const dice = cup.map((value, index) => {
    const button = h('button', {
      type: 'button', class: 'cup-die', testid: 'cup-die', dataset: { index: String(index) },
      'aria-pressed': String(sel.picked.includes(index)), disabled: !myTurn || cup.length < 2,
      'aria-label': `Set out die ${index + 1}`,
    }, die(value, { size: 'medium' }));
    button.addEventListener('click', () => {
      if (sel.picked.includes(index)) sel.picked = sel.picked.filter((i) => i !== index);
      else if (sel.picked.length < cup.length - 1) sel.picked = [...sel.picked, index];
      else { hint.textContent = 'Keep at least one die in your cup.'; return; }
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
      hint.textContent = 'Optional: click dice of your cup to set them out in the open; the rest are rerolled with your bid.';
    } else if (k === 0) {
      hint.textContent = 'Click the dice to set out (at least one); the rest of your cup is rerolled with your bid.';
    } else {
      hint.textContent = `With your bid you set out ${k} ${k === 1 ? 'die' : 'dice'} for everyone to see and reroll the other ${n - k}.`;
    }
  }
  let box = null;
  sync();
  box = h('div', { class: ['show-reroll', sel.on ? 'is-on' : ''], testid: 'show-reroll-box' },
    h('div', { class: 'row-between' }, h('span', { class: 'field-label' }, 'Your cup'), toggle),
    h('div', { class: 'cup-picker', role: 'group', 'aria-label': 'Your cup' }, dice),
    hint);
  const extra = () => {
    if (!sel.on) return {};
    // A reroll without showing anything is not a move: nothing picked, nothing rerolled.
    return sel.picked.length ? { show: [...sel.picked].sort((a, b) => a - b) } : {};
  };
  return { box, extra };
}

/** Between rounds and during the final reveal: one short line, not a big empty card. */
function idleBidPanel(room, mine = myPlayer(room)) {
  const g = room.game;
  const note = g.phase === 'break'
    ? [`${isPokerRoom(room) ? 'Hand' : 'Round'} ${g.round} is over. Next ${isPokerRoom(room) ? 'hand' : 'round'} in `, countdown(g.break && g.break.deadline)]
    : ['Final reveal: results in a moment…'];
  const role = !mine ? ' You are watching.' : !isActive(mine) ? ' You keep watching.' : '';
  return h('section', { class: 'card bid-panel is-idle', testid: 'bid-panel', dataset: { phase: g.phase } },
    h('p', { class: 'idle-line' }, note, role));
}

function bidPanel(room) {
  if (room.game.phase !== 'bidding') return idleBidPanel(room);
  if (isPokerRoom(room)) return pokerPanel(room, { countdown, active: isActive(myPlayer(room)) });
  const g = room.game;
  const me = room.me || {};
  const mine = myPlayer(room);
  const current = g.current_bid;
  const turnPlayer = g.turn ? g.turn.player_id : null;
  const myTurn = g.phase === 'bidding' && turnPlayer && turnPlayer === me.player_id;
  const header = h('h2', {}, myTurn ? 'Your turn' : 'Bidding');
  const currentLine = current
    ? h('p', { class: 'current-bid-line', testid: 'current-bid' }, 'Current bid: ', bidBadge(current),
      ` by ${playerName(room, current.player_id)}`)
    : h('p', { class: 'current-bid-line muted', testid: 'current-bid' }, 'No bid yet this round.');

  if (!mine || !isActive(mine)) {
    const why = !mine ? 'You are watching this game.' : mine.resigned ? 'You resigned: you keep watching.' : 'You are out of dice: you keep watching.';
    return h('section', { class: 'card bid-panel', testid: 'bid-panel' }, header, currentLine, h('p', { class: 'muted' }, why),
      g.phase === 'bidding' && turnPlayer ? h('p', {}, `${playerName(room, turnPlayer)} to act `, countdown(g.turn.deadline)) : null);
  }

  // Keep the player's selection while it is still legal; start fresh each round.
  const rules = rulesOf(room);
  const total = g.total_dice;
  let selection = state.bid;
  if (selection.round !== g.round || bidProblem(selection.quantity, selection.face, current, total, rules)) {
    selection = { ...defaultBid(room), round: g.round };
  }
  state.bid = selection;

  const quantityInput = h('input', {
    type: 'number', min: '1', max: String(total), step: '1', value: String(selection.quantity),
    testid: 'bid-quantity', id: 'bid-quantity', inputmode: 'numeric', 'aria-label': 'Quantity',
  });
  const faceButtons = rules.faces.map((face) => h('button', {
    type: 'button', class: 'face-button', testid: `bid-face-${face === '*' ? 'star' : face}`, dataset: { face: String(face) },
    role: 'radio', 'aria-checked': String(face === selection.face), 'aria-label': face === '*' ? 'Stars' : `Face ${face}`,
  }, die(face)));
  const faceGroup = h('div', { class: 'face-picker', role: 'radiogroup', 'aria-label': 'Face', testid: 'bid-face', dataset: { value: String(selection.face) } }, faceButtons);
  const preview = h('p', { class: 'bid-preview', testid: 'bid-preview', 'aria-live': 'polite' });
  const submit = h('button', { class: 'btn btn-primary', type: 'submit', testid: 'bid-submit' }, 'Bid');
  const liar = h('button', {
    class: 'btn btn-danger', type: 'button', testid: 'call-liar',
    disabled: !myTurn || !current,
    title: current ? 'Challenge the current bid' : 'There is no bid to challenge yet',
    onclick: (event) => roomCall('POST', actionPath(room), { type: 'liar', turn: g.turn.number }, event.currentTarget),
  }, 'Liar!');

  function refresh() {
    const quantity = Number(quantityInput.value);
    const face = state.bid.face;
    state.bid = { ...state.bid, quantity };
    faceGroup.dataset.value = String(face);
    for (const button of faceButtons) button.setAttribute('aria-checked', String(parseFace(button.dataset.face) === face));
    const problem = bidProblem(quantity, face, current, total, rules);
    if (problem) {
      preview.classList.add('is-invalid');
      preview.replaceChildren(problem);
    } else if (rules.wild) {
      preview.classList.remove('is-invalid');
      preview.replaceChildren(`You bid ${wildBidWords(quantity, face)}: ${wildBidMeaning(quantity, face)}`);
    } else {
      preview.classList.remove('is-invalid');
      const wilds = hasWildcards(room);
      preview.replaceChildren(`You bid ${bidWords(quantity, face)}: ${bidMeaning(quantity, face, wilds).replace(/\*$/, '')}`,
        ...(wilds ? [h('span', { class: 'star-glyph' }, '*')] : []));
    }
    submit.disabled = !myTurn || Boolean(problem);
  }

  quantityInput.addEventListener('input', refresh);
  for (const button of faceButtons) {
    button.addEventListener('click', () => {
      const face = parseFace(button.dataset.face);
      state.bid = { ...state.bid, face };
      // Jump to the smallest legal quantity for this face when the current one no longer fits.
      const quantity = Number(quantityInput.value);
      if (bidProblem(quantity, face, current, total, rules)) {
        const least = rules.minimum(face, current, total);
        if (least !== null) quantityInput.value = String(least);
      }
      refresh();
    });
  }
  const step = (delta) => h('button', {
    type: 'button', class: 'btn btn-ghost stepper', testid: delta > 0 ? 'bid-quantity-up' : 'bid-quantity-down',
    'aria-label': delta > 0 ? 'More' : 'Fewer',
    onclick: () => {
      const next = Math.min(total, Math.max(1, (Number(quantityInput.value) || 0) + delta));
      quantityInput.value = String(next);
      refresh();
    },
  }, delta > 0 ? '+' : '−');

  const showReroll = rules.wild ? showRerollControls(room, myTurn) : null;
  const form = h('form', {
    class: 'bid-form',
    onsubmit: (event) => {
      event.preventDefault();
      const quantity = Number(quantityInput.value);
      const { face } = state.bid;
      if (!myTurn || bidProblem(quantity, face, current, total, rules)) return;
      const extra = showReroll ? showReroll.extra() : {};
      roomCall('POST', actionPath(room), { type: 'bid', quantity, face, turn: g.turn.number, ...extra }, submit);
    },
  },
  h('div', { class: 'bid-inputs' },
    h('label', { class: 'field-label', for: 'bid-quantity' }, 'Quantity'),
    h('div', { class: 'stepper-row' }, step(-1), quantityInput, step(1)),
    h('span', { class: 'field-label' }, 'Face'),
    faceGroup),
  preview,
  showReroll ? showReroll.box : null,
  h('div', { class: 'button-row bid-buttons' }, submit, liar));
  refresh();

  const turnLine = myTurn
    ? h('p', { class: 'turn-line is-mine' }, 'Time left ', countdown(g.turn.deadline, 'big'))
    : h('p', { class: 'turn-line' }, `Waiting for ${playerName(room, turnPlayer)} `, countdown(g.turn && g.turn.deadline));
  return h('section', { class: ['card', 'bid-panel', myTurn ? 'is-my-turn' : ''], testid: 'bid-panel' }, header, currentLine, turnLine, form);
}

// ---- player cards -----------------------------------------------------------

function playerCard(room, player) {
  const g = room.game;
  const me = room.me || {};
  const isMe = player.id === me.player_id;
  const bot = player.kind === 'bot';
  const onTurn = g.phase === 'bidding' && g.turn && g.turn.player_id === player.id;
  const bid = g.current_bid && g.current_bid.player_id === player.id ? g.current_bid : null;
  const agreed = g.phase === 'break' && g.break && (g.break.agreed || []).includes(player.id);
  const out = player.eliminated || player.resigned;
  const poker = isPokerRoom(room);
  const shown = out || poker ? [] : shownDice(room, player.id);
  let dice;
  if (poker) {
    dice = out ? h('span', { class: 'muted small' }, player.resigned ? 'Resigned' : 'Out of lives') : pokerCardLine(room, player);
  } else if (out) {
    dice = h('span', { class: 'muted small' }, player.resigned ? 'Resigned' : 'Eliminated');
  } else if (isMe && Array.isArray(me.dice)) {
    dice = diceRow(me.dice, { size: 'medium' });
  } else {
    dice = hiddenDice(Math.max(0, player.dice_count - shown.length));
  }
  const shownRow = shown.length
    ? h('span', { class: 'shown-dice', testid: 'shown-dice', title: 'Shown: set out in the open for everyone to see' },
      h('span', { class: 'shown-label' }, 'shown'),
      diceRow(shown, { size: isMe ? 'medium' : 'small', shown: shown.map(() => true) }))
    : null;
  return h('li', {
    class: ['player-card', isMe ? 'is-me' : '', onTurn ? 'on-turn' : '', out ? 'is-out' : ''],
    testid: 'player-card', dataset: { playerId: player.id },
  },
  h('div', { class: 'player-card-head' },
    h('span', { class: ['avatar', bot ? 'avatar-bot' : ''], 'aria-hidden': 'true' }, bot ? botMark(player) : initial(player.name)),
    h('span', { class: 'player-card-name' },
      h('strong', {}, player.name),
      isMe ? h('span', { class: 'pill pill-me' }, 'You') : null,
      bot ? h('span', { class: 'pill pill-muted' }, player.level ? `bot · ${player.level}` : 'bot') : null),
    poker
      ? h('span', { class: 'dice-count', title: 'Lives' }, out ? '' : livesBadge(player.dice_count, (g.table && g.table.lives) || room.settings.lives))
      : h('span', { class: 'dice-count', title: 'Dice' }, out ? '' : `${player.dice_count} ${player.dice_count === 1 ? 'die' : 'dice'}`)),
  h('div', { class: 'player-card-dice' }, dice, shownRow),
  h('div', { class: 'player-card-foot' },
    bid && poker ? h('span', { class: 'card-bid', testid: 'card-bid' }, 'claims ', claimBadge(bid)) : null,
    bid && !poker ? h('span', { class: 'card-bid', testid: 'card-bid' }, 'bid ', bidBadge(bid), ` ${rulesOf(room).words(bid.quantity, bid.face)}`) : null,
    onTurn ? h('span', { class: 'turn-chip' }, isMe ? 'Your turn ' : 'Thinking ', countdown(g.turn.deadline)) : null,
    agreed ? h('span', { class: 'pill pill-ok' }, 'Agreed ✓') : null,
    player.rank ? h('span', { class: 'pill pill-muted' }, `Rank #${player.rank}`) : null));
}

/** A poker player's line: holds the cup, and the dice they rerolled this hand. */
function pokerCardLine(room, player) {
  const g = room.game;
  const table = g.table || {};
  const reroll = lastReroll(room, player.id);
  return h('span', { class: 'poker-card-line small' },
    g.phase === 'bidding' && table.holder_id === player.id ? h('span', { class: 'pill pill-playing', testid: 'holds-cup' }, 'holds the cup') : null,
    reroll ? h('span', { class: 'muted', testid: 'card-reroll' }, reroll.count ? ` rerolled ${reroll.count}` : ' rerolled none') : null);
}

function playersPanel(room) {
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  return h('section', { class: 'card players-panel', testid: 'player-cards' },
    h('h2', {}, 'Players'),
    h('ul', { class: 'player-cards' }, players.map((p) => playerCard(room, p))));
}

// ---- metrics ----------------------------------------------------------------

function continueMode() {
  // The seat's mode is what this game uses; the profile's is the remembered preference.
  const fromRoom = state.room && state.room.me && state.room.me.continue_mode;
  const fromProfile = state.me && state.me.preferences && state.me.preferences.continue_mode;
  return fromRoom || fromProfile || 'auto';
}

async function setContinueMode(mode, button) {
  // Naming the room applies the switch there at once (switching to Auto during a break agrees).
  const body = { continue_mode: mode };
  if (state.room && state.room.me && state.room.me.player_id) body.room_id = state.room.id;
  const answer = await attempt(() => api('PATCH', '/me/preferences', body), button);
  if (answer && answer.preferences && state.me) {
    state.me.preferences = answer.preferences;
    hooks.render();
    if (body.room_id) hooks.refreshRoom();
  }
}

function resignControl(room) {
  const g = room.game;
  const box = h('div', { class: 'resign-box' });
  const ask = h('button', {
    class: 'btn btn-ghost btn-small', testid: 'resign',
    onclick: () => {
      const confirm = h('button', {
        class: 'btn btn-danger btn-small', testid: 'resign-confirm',
        onclick: (event) => roomCall('POST', actionPath(room), { type: 'resign' }, event.currentTarget),
      }, 'Yes, resign');
      const cancel = h('button', { class: 'btn btn-ghost btn-small', testid: 'resign-cancel', onclick: () => mount(box, ask) }, 'Cancel');
      mount(box, h('span', { class: 'small' }, 'Resign this game? '), confirm, cancel);
    },
  }, 'Resign');
  void g;
  return mount(box, ask);
}

function metricsPanel(room) {
  const g = room.game;
  const mine = myPlayer(room);
  let timeLabel = 'Time';
  let deadline = null;
  if (g.phase === 'bidding' && g.turn) { timeLabel = 'Turn time'; deadline = g.turn.deadline; }
  if (g.phase === 'break' && g.break) { timeLabel = 'Break'; deadline = g.break.deadline; }
  const metric = (label, value, testid) => h('div', { class: 'metric', testid },
    h('span', { class: 'metric-label' }, label), h('span', { class: 'metric-value' }, value));
  const parts = [
    metric(isPokerRoom(room) ? 'Hand' : 'Round', String(g.round), 'metric-round'),
    metric(timeLabel, g.phase === 'final_reveal' ? 'Final reveal' : countdown(deadline, 'big'), 'metric-time'),
    metric(isPokerRoom(room) ? 'Lives in play' : 'Dice in play', String(g.total_dice), 'metric-dice'),
  ];
  if (mine && state.user) {
    const mode = continueMode();
    const seg = (value, label) => h('button', {
      type: 'button', class: 'seg', testid: `continue-${value}`, 'aria-pressed': String(mode === value),
      onclick: (event) => { if (mode !== value) setContinueMode(value, event.currentTarget); },
    }, label);
    const agreed = g.break && (g.break.agreed || []).includes(mine.id);
    let agree = null;
    if (g.phase === 'break' && isActive(mine)) {
      agree = agreed
        ? h('span', { class: 'pill pill-ok', testid: 'agreed' }, 'Agreed ✓')
        : h('button', {
          class: 'btn btn-primary btn-small', testid: 'agree',
          onclick: (event) => roomCall('POST', actionPath(room), { type: 'agree' }, event.currentTarget),
        }, 'Agree to next round');
    }
    parts.push(h('div', { class: 'metric metric-continue', testid: 'metric-continue' },
      h('span', { class: 'metric-label' }, 'Continue'),
      h('div', { class: 'segmented', role: 'group', 'aria-label': 'Continue mode' }, seg('auto', 'Auto'), seg('manual', 'Manual')),
      agree));
  }
  if (mine && isActive(mine) && room.status === 'playing') parts.push(resignControl(room));
  return h('section', { class: 'card metrics-panel', testid: 'metrics' }, h('div', { class: 'metrics' }, parts));
}

// ---- round reveal -----------------------------------------------------------

function diceWord(n) {
  return `${n} ${n === 1 ? 'die' : 'dice'}`;
}

function wildRevealSummary(room, reveal) {
  const bid = reveal.bid;
  const bidder = playerName(room, bid.player_id);
  const challenger = playerName(room, reveal.challenger_id);
  const d = reveal.count - bid.quantity;
  const lines = [
    h('p', {}, h('strong', {}, bidder), ` bid ${wildBidWords(bid.quantity, bid.face)} `, bidBadge(bid), '. ',
      h('strong', {}, challenger), ' called Liar!'),
    h('p', {}, `There ${reveal.count === 1 ? 'was' : 'were'} `, h('strong', { testid: 'reveal-count' }, String(reveal.count)),
      ` ${reveal.count === 1 ? 'die' : 'dice'} showing ${bid.face === '*' ? '★' : `${bid.face} or ★`}`,
      d < 0 ? `: ${diceWord(-d)} short, the bid was a lie.` : d > 0 ? `: ${diceWord(d)} more than bid, the bid stood.` : ': exactly the bid.'),
  ];
  if (reveal.perfect) {
    lines.push(h('p', { class: 'ok', testid: 'reveal-perfect' }, h('strong', {}, 'Perfect bid! '),
      `Everyone but ${bidder} loses a die.`));
  }
  const lost = Object.entries(reveal.lost || {}).filter(([, n]) => n > 0);
  if (!reveal.perfect) {
    for (const [id, n] of lost) lines.push(h('p', {}, h('strong', {}, playerName(room, id)), ` loses ${diceWord(n)}.`));
  }
  for (const id of reveal.die_hard || []) {
    lines.push(h('p', { testid: 'reveal-die-hard' }, h('strong', {}, playerName(room, id)), ' keeps the last die: Die Hard!'));
  }
  for (const id of reveal.eliminated || []) lines.push(h('p', { class: 'warn' }, `${playerName(room, id)} is eliminated.`));
  return h('div', { class: 'reveal-summary' }, lines);
}

function revealSummary(room, reveal) {
  if (rulesOf(room).wild) return wildRevealSummary(room, reveal);
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

function revealPanel(room) {
  const g = room.game;
  const reveal = g && g.last_reveal;
  if (!reveal) {
    return h('section', { class: 'card reveal-panel', testid: 'reveal' }, h('h2', {}, 'Round reveal'),
      h('p', { class: 'muted' }, isPokerRoom(room)
        ? 'When someone calls Liar!, the cup is lifted here.'
        : 'When someone calls Liar!, every hand is revealed here.'));
  }
  const previous = g.phase === 'bidding' && reveal.round < g.round;
  if (isPokerRoom(room)) return pokerReveal(room, reveal, { previous });
  const wild = rulesOf(room).wild;
  const lost = reveal.lost || {};
  const lossPill = (row) => {
    if (!wild) return row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, '−1 die') : null;
    const n = lost[row.player_id] || 0;
    return n > 0 ? h('span', { class: 'pill pill-bad', testid: 'reveal-lost' }, `−${diceWord(n)}`) : null;
  };
  const rows = (reveal.rows || []).map((row) => h('tr', {
    class: [(wild ? (lost[row.player_id] || 0) > 0 : row.player_id === reveal.loser_id) ? 'is-loser' : ''], dataset: { playerId: row.player_id },
  },
  h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
    row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-muted' }, 'bidder') : null,
    row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, 'challenger') : null,
    wild && reveal.perfect && row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-ok', testid: 'perfect-bid' }, 'perfect bid') : null,
    wild && (reveal.die_hard || []).includes(row.player_id) ? h('span', { class: 'pill pill-ok', testid: 'die-hard' }, 'Die Hard') : null,
    lossPill(row)),
  h('td', {}, (row.dice || []).length
    ? diceRow(row.dice, { counted: row.counted || [], size: 'small', shown: (reveal.shown || {})[row.player_id] || [] })
    : h('span', { class: 'muted' }, '—')),
  h('td', { class: 'reveal-bids' }, (row.bids || []).length
    ? h('span', { class: 'bid-list' }, row.bids.map((b) => bidBadge(b)))
    : h('span', { class: 'muted', testid: 'no-bids' }, '—'))));
  return h('section', { class: 'card reveal-panel', testid: 'reveal' },
    h('div', { class: 'row-between' }, h('h2', {}, `Round ${reveal.round} reveal`),
      previous ? h('span', { class: 'pill pill-muted' }, 'previous round') : null),
    revealSummary(room, reveal),
    h('div', { class: 'table-wrap' }, h('table', { class: 'reveal-table', testid: 'reveal-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Username'), h('th', {}, 'Dice'), h('th', {}, 'Bids'))),
      h('tbody', {}, rows))),
    h('p', { class: 'muted small' }, 'Highlighted dice counted toward the challenged bid.',
      wild ? ' Dice with a dashed frame were shown (set out in the open).' : ''));
}

// ---- screen -----------------------------------------------------------------

function bannerPanel(room) {
  const g = room.game;
  if (room.status === 'finished') return resultsCard(room);
  if (g && g.phase === 'final_reveal') {
    return h('section', { class: 'card banner', testid: 'final-reveal' }, h('strong', {}, 'Final reveal'), ' — results in a moment…');
  }
  return null;
}

/** Render (or update) the game screen into container. */
export function renderGame(container, room) {
  if (container.dataset.kind !== 'game') {
    container.dataset.kind = 'game';
    mount(container, h('div', { class: 'game', testid: 'game-screen' },
      h('div', { dataset: { slot: 'banner' } }),
      h('div', { class: 'game-row', dataset: { slot: 'row' } },
        h('div', { class: 'slot-bid', dataset: { slot: 'bid' } }),
        h('div', { class: 'slot-players', dataset: { slot: 'players' } }),
        h('div', { class: 'slot-metrics', dataset: { slot: 'metrics' } })),
      h('div', { dataset: { slot: 'reveal' } }),
      h('div', { dataset: { slot: 'extras' } })));
  }
  const slot = (name) => container.querySelector(`[data-slot="${name}"]`);
  // Tests and tools wait on this to know a new view was rendered.
  container.firstElementChild.dataset.version = String(room.version);
  const g = room.game;
  const me = room.me || {};
  const finished = room.status === 'finished' || !g;
  panel(slot('banner'), JSON.stringify([room.status, g && g.phase, room.results, room.players, room.recreated_as, me.player_id]), () => bannerPanel(room));
  slot('row').hidden = finished;
  if (!finished) {
    const turn = g.turn || {};
    const rules = room.settings && room.settings.rules;
    panel(slot('bid'), JSON.stringify([g.round, g.phase, turn.number, turn.player_id, g.current_bid, g.total_dice, me, myPlayer(room), rules, g.table || null]), () => bidPanel(room));
    panel(slot('players'), JSON.stringify([room.players, g.phase, turn, g.current_bid, me.dice, g.break, g.table || null]), () => playersPanel(room));
    panel(slot('metrics'), JSON.stringify([g.round, g.phase, turn.deadline, g.break, g.total_dice, me.player_id, myPlayer(room), continueMode(), Boolean(state.user)]), () => metricsPanel(room));
  }
  panel(slot('reveal'), JSON.stringify([g && g.last_reveal, g && g.round, g && g.phase, room.players, room.settings && room.settings.rules]), () => (g ? revealPanel(room) : null));
  panel(slot('extras'), JSON.stringify([room.status, me.player_id, room.players]),
    () => (!finished && me.player_id ? eloPreviewCard(room, { collapsible: true }) : null));
}
