// Game screen: bidding controls, player cards, metrics, round reveal, resign.

import { h, mount, panel } from './dom.js';
import { api, serverNow } from './api.js';
import { attempt, formatSeconds, hooks, playerById, playerName, roomCall, state } from './core.js';
import { bidBadge, bidMeaning, bidWords, diceRow, die, hiddenDice, isRaise, minimumWithFace } from './dice.js';
import { eloPreviewCard, resultsCard } from './results.js';
import { botMark } from './settings.js';

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

// ---- bidding controls -------------------------------------------------------

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

function bidProblem(quantity, face, current, total) {
  if (!Number.isInteger(quantity) || quantity < 1) return 'Choose a quantity of at least 1.';
  if (quantity > total) return `Only ${total} dice are in play.`;
  if (!isRaise(quantity, face, current)) {
    return `${capitalize(bidWords(quantity, face))} does not beat ${bidWords(current.quantity, current.face)}.`;
  }
  return null;
}

function bidPanel(room) {
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
  if (g.phase !== 'bidding') {
    const note = g.phase === 'break' ? 'The round is over. The next round starts after the break.' : 'Final reveal…';
    return h('section', { class: 'card bid-panel', testid: 'bid-panel' }, header, h('p', { class: 'muted' }, note));
  }

  // Keep the player's selection while it is still legal; start fresh each round.
  const total = g.total_dice;
  let selection = state.bid;
  if (selection.round !== g.round || bidProblem(selection.quantity, selection.face, current, total)) {
    selection = { ...defaultBid(room), round: g.round };
  }
  state.bid = selection;

  const quantityInput = h('input', {
    type: 'number', min: '1', max: String(total), step: '1', value: String(selection.quantity),
    testid: 'bid-quantity', id: 'bid-quantity', inputmode: 'numeric', 'aria-label': 'Quantity',
  });
  const faceButtons = [1, 2, 3, 4, 5, 6].map((face) => h('button', {
    type: 'button', class: 'face-button', testid: `bid-face-${face}`, dataset: { face: String(face) },
    role: 'radio', 'aria-checked': String(face === selection.face), 'aria-label': `Face ${face}`,
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
    for (const button of faceButtons) button.setAttribute('aria-checked', String(Number(button.dataset.face) === face));
    const problem = bidProblem(quantity, face, current, total);
    if (problem) {
      preview.classList.add('is-invalid');
      preview.replaceChildren(problem);
    } else {
      preview.classList.remove('is-invalid');
      preview.replaceChildren(`You bid ${bidWords(quantity, face)}: ${bidMeaning(quantity, face).replace(/\*$/, '')}`,
        h('span', { class: 'star-glyph' }, '*'));
    }
    submit.disabled = !myTurn || Boolean(problem);
  }

  quantityInput.addEventListener('input', refresh);
  for (const button of faceButtons) {
    button.addEventListener('click', () => {
      const face = Number(button.dataset.face);
      state.bid = { ...state.bid, face };
      // Jump to the smallest legal quantity for this face when the current one no longer fits.
      const quantity = Number(quantityInput.value);
      if (bidProblem(quantity, face, current, total)) {
        const least = minimumWithFace(face, current, total);
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

  const form = h('form', {
    class: 'bid-form',
    onsubmit: (event) => {
      event.preventDefault();
      const quantity = Number(quantityInput.value);
      const { face } = state.bid;
      if (!myTurn || bidProblem(quantity, face, current, total)) return;
      roomCall('POST', actionPath(room), { type: 'bid', quantity, face, turn: g.turn.number }, submit);
    },
  },
  h('div', { class: 'bid-inputs' },
    h('label', { class: 'field-label', for: 'bid-quantity' }, 'Quantity'),
    h('div', { class: 'stepper-row' }, step(-1), quantityInput, step(1)),
    h('span', { class: 'field-label' }, 'Face'),
    faceGroup),
  preview,
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
  let dice;
  if (out) {
    dice = h('span', { class: 'muted small' }, player.resigned ? 'Resigned' : 'Eliminated');
  } else if (isMe && Array.isArray(me.dice)) {
    dice = diceRow(me.dice, { size: 'medium' });
  } else {
    dice = hiddenDice(player.dice_count);
  }
  return h('li', {
    class: ['player-card', isMe ? 'is-me' : '', onTurn ? 'on-turn' : '', out ? 'is-out' : ''],
    testid: 'player-card', dataset: { playerId: player.id },
  },
  h('div', { class: 'player-card-head' },
    h('span', { class: ['avatar', bot ? 'avatar-bot' : ''], 'aria-hidden': 'true' }, bot ? botMark(player) : (player.name || '?').slice(0, 1).toUpperCase()),
    h('span', { class: 'player-card-name' },
      h('strong', {}, player.name),
      isMe ? h('span', { class: 'pill pill-me' }, 'You') : null,
      bot ? h('span', { class: 'pill pill-muted' }, player.level ? `bot · ${player.level}` : 'bot') : null),
    h('span', { class: 'dice-count', title: 'Dice' }, out ? '' : `${player.dice_count} ${player.dice_count === 1 ? 'die' : 'dice'}`)),
  h('div', { class: 'player-card-dice' }, dice),
  h('div', { class: 'player-card-foot' },
    bid ? h('span', { class: 'card-bid', testid: 'card-bid' }, 'bid ', bidBadge(bid), ` ${bidWords(bid.quantity, bid.face)}`) : null,
    onTurn ? h('span', { class: 'turn-chip' }, isMe ? 'Your turn ' : 'Thinking ', countdown(g.turn.deadline)) : null,
    agreed ? h('span', { class: 'pill pill-ok' }, 'Agreed ✓') : null,
    player.rank ? h('span', { class: 'pill pill-muted' }, `Rank #${player.rank}`) : null));
}

function playersPanel(room) {
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  return h('section', { class: 'card players-panel', testid: 'player-cards' },
    h('h2', {}, 'Players'),
    h('ul', { class: 'player-cards' }, players.map((p) => playerCard(room, p))));
}

// ---- metrics ----------------------------------------------------------------

function continueMode() {
  const fromProfile = state.me && state.me.preferences && state.me.preferences.continue_mode;
  const fromRoom = state.room && state.room.me && state.room.me.continue_mode;
  return fromProfile || fromRoom || 'auto';
}

async function setContinueMode(mode, button) {
  const answer = await attempt(() => api('PATCH', '/me/preferences', { continue_mode: mode }), button);
  if (answer && answer.preferences && state.me) {
    state.me.preferences = answer.preferences;
    hooks.render();
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
    metric('Round', String(g.round), 'metric-round'),
    metric(timeLabel, g.phase === 'final_reveal' ? 'Final reveal' : countdown(deadline, 'big'), 'metric-time'),
    metric('Dice in play', String(g.total_dice), 'metric-dice'),
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

function revealSummary(room, reveal) {
  const bid = reveal.bid;
  const bidder = playerName(room, bid.player_id);
  const challenger = playerName(room, reveal.challenger_id);
  const stood = reveal.count >= bid.quantity;
  const lines = [
    h('p', {}, h('strong', {}, bidder), ` bid ${bidWords(bid.quantity, bid.face)} `, bidBadge(bid), '. ',
      h('strong', {}, challenger), ' called Liar!'),
    h('p', {}, `There ${reveal.count === 1 ? 'was' : 'were'} `, h('strong', { testid: 'reveal-count' }, String(reveal.count)),
      ` ${reveal.count === 1 ? 'die' : 'dice'} showing ${bid.face} or `, h('span', { class: 'star-glyph' }, '*'),
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
      h('p', { class: 'muted' }, 'When someone calls Liar!, every hand is revealed here.'));
  }
  const previous = g.phase === 'bidding' && reveal.round < g.round;
  const rows = (reveal.rows || []).map((row) => h('tr', {
    class: [row.player_id === reveal.loser_id ? 'is-loser' : ''], dataset: { playerId: row.player_id },
  },
  h('td', { class: 'reveal-name' }, row.name || playerName(room, row.player_id),
    row.player_id === reveal.bid.player_id ? h('span', { class: 'pill pill-muted' }, 'bidder') : null,
    row.player_id === reveal.challenger_id ? h('span', { class: 'pill pill-muted' }, 'challenger') : null,
    row.player_id === reveal.loser_id ? h('span', { class: 'pill pill-bad' }, '−1 die') : null),
  h('td', {}, (row.dice || []).length ? diceRow(row.dice, { counted: row.counted || [], size: 'small' }) : h('span', { class: 'muted' }, '—')),
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
    h('p', { class: 'muted small' }, 'Highlighted dice counted toward the challenged bid.'));
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
    panel(slot('bid'), JSON.stringify([g.round, g.phase, turn.number, turn.player_id, g.current_bid, g.total_dice, me, myPlayer(room)]), () => bidPanel(room));
    panel(slot('players'), JSON.stringify([room.players, g.phase, turn, g.current_bid, me.dice, g.break]), () => playersPanel(room));
    panel(slot('metrics'), JSON.stringify([g.round, g.phase, turn.deadline, g.break, g.total_dice, me.player_id, myPlayer(room), continueMode(), Boolean(state.user)]), () => metricsPanel(room));
  }
  panel(slot('reveal'), JSON.stringify([g && g.last_reveal, g && g.round, g && g.phase, room.players]), () => (g ? revealPanel(room) : null));
  panel(slot('extras'), JSON.stringify([room.status, me.player_id, room.players]),
    () => (!finished && me.player_id ? eloPreviewCard(room, { collapsible: true }) : null));
}
