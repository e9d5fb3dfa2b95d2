// Waiting room: players, bots, ready, start, settings, joining, share link.

import { h, mount, panel } from './dom.js';
import { attempt, isRegistered, roomCall, state, toast } from './core.js';
import { authCard } from './auth.js';
import { botMark, settingsForm, settingsSummary } from './settings.js';
import { defaultSystem, roomSystem } from './systems/index.js';
import { initial } from './text.js';

let botLevel = 'strong';
const BOT_LEVELS = [
  ['strong', 'Strong bot', 'Strong: plays the odds, reads how each player bids and calls, and bluffs now and then.'],
  ['medium', 'Medium bot', 'Medium: plays sound odds from what it sees and takes bids at face value; it never bluffs by choice.'],
  ['easy', 'Easy bot', 'Easy: plays rough odds from its own dice, with habits that are easy to exploit.'],
];
const botLevelHint = (value) => (BOT_LEVELS.find(([v]) => v === value) || BOT_LEVELS[0])[2];

function roomPath(room, suffix = '') {
  return `/rooms/${encodeURIComponent(room.id)}${suffix}`;
}

/** The host's player record (host_id names the host's seat; older views named the user). */
export function hostPlayer(room) {
  const players = room.players || [];
  return players.find((p) => p.id === room.host_id)
    || players.find((p) => p.user_id && p.user_id === room.host_id) || null;
}

/** The share link of a room (join by link). */
export function shareUrl(room) {
  return `${location.origin}${location.pathname}#/rooms/${encodeURIComponent(room.id)}`;
}

function playerRow(room, player) {
  const me = room.me || {};
  const isMe = me.player_id && player.id === me.player_id;
  const isHost = hostPlayer(room) === player;
  const bot = player.kind === 'bot';
  const badges = [
    isMe ? h('span', { class: 'pill pill-me' }, 'You') : null,
    isHost ? h('span', { class: 'pill pill-host' }, 'Host') : null,
  ];
  let status;
  if (bot) {
    // Phones keep the level and drop the words: "strong bot" rather than "Automatic bot · strong".
    status = player.level
      ? h('span', { class: 'muted small player-row-status', title: 'Automatic bot' },
        h('span', { class: 'wide-only' }, 'Automatic bot · '), player.level, h('span', { class: 'narrow-only' }, ' bot'))
      : h('span', { class: 'muted small player-row-status' }, 'Automatic bot');
  } else {
    status = h('span', { class: ['ready-state', player.ready ? 'is-ready' : 'not-ready'] }, player.ready ? 'Ready' : 'Not ready');
  }
  const remove = bot && me.is_host
    ? h('button', {
      class: 'btn btn-ghost btn-small', testid: 'remove-bot', dataset: { playerId: player.id },
      onclick: (event) => roomCall('DELETE', roomPath(room, `/bots/${encodeURIComponent(player.id)}`), undefined, event.currentTarget),
    }, 'Remove')
    : null;
  return h('li', { class: ['player-row', bot ? 'is-bot' : ''], testid: 'player-row', dataset: { playerId: player.id } },
    h('span', { class: ['avatar', bot ? 'avatar-bot' : ''], 'aria-hidden': 'true' }, bot ? botMark(player) : initial(player.name)),
    h('span', { class: 'player-row-name' }, h('strong', {}, player.name), ...badges),
    status, remove);
}

function startBlocker(room) {
  const players = room.players || [];
  if (players.length < 2) return 'Add a bot or wait for another player';
  const system = roomSystem(room);
  if (system.maxPlayers && players.length > system.maxPlayers) {
    return `${system.label} is for 2–${system.maxPlayers} players: remove a seat or choose ${defaultSystem().label}`;
  }
  const waitingFor = players.filter((p) => p.kind === 'human' && !p.ready);
  if (waitingFor.length) return `Waiting for ${waitingFor.map((p) => p.name).join(', ')} to be ready`;
  return null;
}

function playersCard(room) {
  const me = room.me || {};
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  const myPlayer = players.find((p) => p.id === me.player_id);
  const actions = [];
  if (me.is_host) {
    const levelHint = h('p', { class: 'muted small', testid: 'bot-level-hint' }, botLevelHint(botLevel));
    const level = h('select', { testid: 'bot-level', 'aria-label': 'Bot level', value: botLevel, onchange: (e) => { botLevel = e.target.value; levelHint.textContent = botLevelHint(botLevel); } },
      ...BOT_LEVELS.map(([value, label]) => h('option', { value }, label)));
    const botCount = players.filter((p) => p.kind === 'bot').length;
    const add = h('button', {
      class: 'btn btn-secondary', testid: 'add-bot', disabled: botCount >= 9,
      title: botCount >= 9 ? 'At most 9 bots per room' : '',
      onclick: (event) => roomCall('POST', roomPath(room, '/bots'), { level: level.value }, event.currentTarget),
    }, 'Add bot');
    const blocker = startBlocker(room);
    const start = h('button', {
      class: 'btn btn-primary', testid: 'start-game', disabled: Boolean(blocker), title: blocker || 'Start the game',
      onclick: (event) => roomCall('POST', roomPath(room, '/start'), undefined, event.currentTarget),
    }, 'Start Game');
    actions.push(h('div', { class: 'host-actions', testid: 'host-actions' }, level, add, start));
    actions.push(levelHint);
    if (blocker) actions.push(h('p', { class: 'muted small' }, blocker));
  }
  if (myPlayer) {
    const memberButtons = [];
    if (myPlayer.kind === 'human') {
      memberButtons.push(h('button', {
        class: ['btn', myPlayer.ready ? 'btn-secondary' : 'btn-primary'], testid: 'ready-toggle',
        'aria-pressed': String(Boolean(myPlayer.ready)),
        onclick: (event) => roomCall('PUT', roomPath(room, '/ready'), { ready: !myPlayer.ready }, event.currentTarget),
      }, myPlayer.ready ? 'Not ready' : 'I\'m ready'));
    }
    memberButtons.push(h('button', {
      class: 'btn btn-ghost', testid: 'leave-room',
      onclick: (event) => roomCall('POST', roomPath(room, '/leave'), undefined, event.currentTarget),
    }, 'Leave room'));
    actions.push(h('div', { class: 'member-actions' }, memberButtons));
  }
  return h('section', { class: 'card' },
    h('div', { class: 'row-between' }, h('h2', {}, 'Players'), h('span', { class: 'muted small' }, `${players.length} seated`)),
    h('ul', { class: 'player-list', testid: 'player-list' }, players.map((p) => playerRow(room, p))),
    actions);
}

function joinCard(room) {
  const me = room.me || {};
  if (me.player_id) return null;
  if (!state.user) {
    return authCard({ title: 'Sign in to join', subtitle: 'Anyone can watch; registered players can join.' });
  }
  if (room.created_by_guest) {
    return h('section', { class: 'card notice' }, h('p', {}, 'This room was created by a guest: only its creator plays in it. You can watch.'));
  }
  if (state.user.guest) {
    return h('section', { class: 'card notice' }, h('p', {}, 'Guests can watch but cannot join other players\' rooms. Register to join.'));
  }
  if (me.request === 'pending') {
    return h('section', { class: 'card notice', testid: 'join-request-pending' }, h('p', {}, 'Your request to join is waiting for the host\'s approval.'));
  }
  const joining = (room.settings || {}).joining;
  const parts = [h('h2', {}, 'Join this room')];
  const error = h('p', { class: 'form-error', role: 'alert', testid: 'join-error', hidden: true });
  const say = (text) => { error.textContent = text || ''; error.hidden = !text; };
  if (me.invited) {
    // An invitation skips approval and the passcode (docs/RULES.md, "Rooms, turns and the end of a game").
    parts.push(h('p', { class: 'ok', testid: 'join-invited' }, 'You are invited: join straight away, no passcode or approval needed.'));
  } else if (joining === 'approval' && me.request === 'denied') {
    // The server refuses a second request: say so rather than offer a button that cannot work.
    parts.push(h('p', { class: 'warn', testid: 'join-request-denied' },
      'The host declined your request. You cannot ask again in this room; you can still watch, or ask the host to invite you.'));
    return h('section', { class: 'card' }, parts);
  }
  const needsCode = joining === 'passcode' && !me.invited;
  const passcode = needsCode
    ? h('input', {
      type: 'text', inputmode: 'numeric', maxlength: '4', pattern: '[0-9]{4}', placeholder: '4-digit passcode', testid: 'join-passcode',
      autocomplete: 'off', 'aria-label': 'Passcode', oninput: (event) => { event.target.value = event.target.value.replace(/\D/g, '').slice(0, 4); say(''); },
    })
    : null;
  const button = h('button', { class: 'btn btn-primary', type: 'submit', testid: 'join-room' },
    joining === 'approval' && !me.invited ? 'Request to join' : 'Join room');
  parts.push(h('form', {
    class: 'inline-form',
    novalidate: true,
    onsubmit: (event) => {
      event.preventDefault();
      const code = passcode ? passcode.value.trim() : '';
      // An empty or short code is not sent: it would only use up one of the limited attempts.
      if (passcode && !/^\d{4}$/.test(code)) { say('Enter the four digits the host gave you.'); passcode.focus(); return; }
      say('');
      roomCall('POST', roomPath(room, '/join'), passcode ? { passcode: code } : {}, button, { action: 'join', inline: say });
    },
  }, passcode, button));
  parts.push(error);
  if (needsCode) parts.push(h('p', { class: 'muted small' }, 'Ask the host for the code: a few wrong tries lock the room for you for up to 15 minutes.'));
  if (joining === 'approval' && !me.invited) parts.push(h('p', { class: 'muted small' }, 'The host approves each request.'));
  return h('section', { class: 'card' }, parts);
}

function requestsCard(room) {
  const requests = room.pending_requests || [];
  if (!room.me || !room.me.is_host || requests.length === 0) return null;
  return h('section', { class: 'card', testid: 'pending-requests' },
    h('h2', {}, 'Join requests'),
    h('ul', { class: 'plain-list' }, requests.map((req) => h('li', { class: 'row-between' },
      h('strong', {}, req.name),
      h('span', { class: 'button-row' },
        h('button', {
          class: 'btn btn-primary btn-small', testid: 'approve-request',
          onclick: (event) => roomCall('POST', roomPath(room, `/requests/${encodeURIComponent(req.user_id)}/approve`), undefined, event.currentTarget),
        }, 'Approve'),
        h('button', {
          class: 'btn btn-ghost btn-small', testid: 'deny-request',
          onclick: (event) => roomCall('POST', roomPath(room, `/requests/${encodeURIComponent(req.user_id)}/deny`), undefined, event.currentTarget),
        }, 'Deny'))))));
}

function settingsCard(room) {
  const settings = room.settings || {};
  const me = room.me || {};
  if (!me.is_host) {
    return h('section', { class: 'card' }, h('h2', {}, 'Settings'), settingsSummary(settings));
  }
  const patch = (body) => roomCall('PATCH', roomPath(room, '/settings'), body);
  const passcodeInput = h('input', {
    type: 'text', inputmode: 'numeric', maxlength: '4', pattern: '[0-9]{4}', testid: 'setting-passcode',
    value: settings.passcode || '', placeholder: '4 digits',
    onchange: (event) => {
      const code = event.target.value.trim();
      if (!/^\d{4}$/.test(code)) { toast('The passcode is exactly four digits.'); return; }
      patch({ passcode: code });
    },
  });
  return h('section', { class: 'card' },
    h('h2', {}, 'Settings'),
    settingsForm(settings, (name, value) => {
      const body = { [name]: value };
      if (name === 'joining' && value === 'passcode' && !settings.passcode) {
        body.passcode = String(Math.floor(Math.random() * 10000)).padStart(4, '0');
      }
      patch(body);
    }, 'setting', { guestRoom: room.created_by_guest }),
    settings.joining === 'passcode'
      ? h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Passcode (only you see it)'), passcodeInput)
      : null);
}

function shareCard(room) {
  const url = shareUrl(room);
  const input = h('input', { type: 'text', readonly: true, value: url, testid: 'share-link', 'aria-label': 'Share link', onfocus: (e) => e.target.select() });
  const copy = h('button', {
    class: 'btn btn-secondary', testid: 'copy-link',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        toast('Link copied.', 'info');
      } catch {
        input.select();
        toast('Select the link and copy it.', 'info');
      }
    },
  }, 'Copy');
  const parts = [h('h2', {}, 'Share'), h('div', { class: 'inline-form' }, input, copy)];
  if (room.created_by_guest) parts.push(h('p', { class: 'muted small' }, 'Others can watch this guest room through the link, but not join.'));
  if (room.me && room.me.is_host && !room.created_by_guest && isRegistered()) {
    const username = h('input', { type: 'text', placeholder: 'Username', testid: 'invite-username' });
    const invite = h('button', { class: 'btn btn-secondary', type: 'submit', testid: 'invite-submit' }, 'Invite');
    parts.push(h('form', {
      class: 'inline-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const name = username.value.trim();
        if (!name) return;
        const done = await roomCall('POST', roomPath(room, '/invitations'), { username: name }, invite);
        if (done) { username.value = ''; toast(`Invited ${name}.`, 'info'); }
      },
    }, username, invite));
  }
  return h('section', { class: 'card' }, parts);
}

/** Render (or update) the waiting room into container. */
export function renderWaiting(container, room) {
  if (container.dataset.kind !== 'waiting') {
    container.dataset.kind = 'waiting';
    mount(container, h('div', { class: 'waiting-layout', testid: 'waiting-room' },
      h('div', { class: 'waiting-main' }, h('div', { dataset: { slot: 'players' } }), h('div', { dataset: { slot: 'join' } }), h('div', { dataset: { slot: 'requests' } })),
      h('div', { class: 'waiting-side' }, h('div', { dataset: { slot: 'settings' } }), h('div', { dataset: { slot: 'share' } }))));
  }
  const slot = (name) => container.querySelector(`[data-slot="${name}"]`);
  const me = room.me || {};
  const user = state.user ? state.user.id : null;
  panel(slot('players'), JSON.stringify([room.players, me, room.host_id, room.version]), () => playersCard(room));
  panel(slot('join'), JSON.stringify([me, room.settings && room.settings.joining, user, room.created_by_guest]), () => joinCard(room));
  panel(slot('requests'), JSON.stringify([room.pending_requests, me.is_host]), () => requestsCard(room));
  panel(slot('settings'), JSON.stringify([room.settings, me.is_host]), () => settingsCard(room));
  panel(slot('share'), JSON.stringify([room.id, me.is_host, user]), () => shareCard(room));
}

