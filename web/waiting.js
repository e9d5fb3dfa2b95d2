// Waiting room: players, bots, ready, start, settings, joining, share link.

import { h, mount, panel } from './dom.js';
import { attempt, isRegistered, roomCall, state, toast } from './core.js';
import { authCard } from './auth.js';
import { botMark, settingsForm, settingsSummary } from './settings.js';
import { defaultSystem, roomSystem, systemLabel } from './systems/index.js';
import { initial } from './text.js';
import { t } from './i18n/index.js';

let botLevel = 'strong';
const BOT_LEVELS = ['strong', 'medium', 'easy'];
const botLevelHint = (value) => t(`waiting.botHint.${BOT_LEVELS.includes(value) ? value : BOT_LEVELS[0]}`);
/** A bot level in words (an unknown level as the server named it). */
const levelWords = (level) => (BOT_LEVELS.includes(level) ? t(`waiting.level.${level}`) : String(level));

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
    isMe ? h('span', { class: 'pill pill-me' }, t('waiting.you')) : null,
    isHost ? h('span', { class: 'pill pill-host' }, t('waiting.host')) : null,
  ];
  let status;
  if (bot) {
    // Phones keep the level and drop the words: "strong bot" rather than "Automatic bot · strong".
    status = player.level
      ? h('span', { class: 'muted small player-row-status', title: t('waiting.autoBot') },
        h('span', { class: 'wide-only' }, t('waiting.autoBotLevel', { level: levelWords(player.level) })),
        h('span', { class: 'narrow-only' }, t('waiting.levelBot', { level: levelWords(player.level) })))
      : h('span', { class: 'muted small player-row-status' }, t('waiting.autoBot'));
  } else {
    status = h('span', { class: ['ready-state', player.ready ? 'is-ready' : 'not-ready'] }, player.ready ? t('waiting.ready') : t('waiting.notReady'));
  }
  const remove = bot && me.is_host
    ? h('button', {
      class: 'btn btn-ghost btn-small', testid: 'remove-bot', dataset: { playerId: player.id },
      'aria-label': t('waiting.removeBot', { name: player.name }),
      onclick: (event) => roomCall('DELETE', roomPath(room, `/bots/${encodeURIComponent(player.id)}`), undefined, event.currentTarget),
    }, t('waiting.remove'))
    : null;
  return h('li', { class: ['player-row', bot ? 'is-bot' : ''], testid: 'player-row', dataset: { playerId: player.id } },
    h('span', { class: ['avatar', bot ? 'avatar-bot' : ''], 'aria-hidden': 'true' }, bot ? botMark(player) : initial(player.name)),
    h('span', { class: 'player-row-name' }, h('strong', {}, player.name), ...badges),
    status, remove);
}

function startBlocker(room) {
  const players = room.players || [];
  if (players.length < 2) return t('waiting.blockTwo');
  const system = roomSystem(room);
  if (system.maxPlayers && players.length > system.maxPlayers) {
    return t('waiting.blockMax', { system: systemLabel(system), max: system.maxPlayers, fallback: systemLabel(defaultSystem()) });
  }
  const waitingFor = players.filter((p) => p.kind === 'human' && !p.ready);
  if (waitingFor.length) return t('waiting.blockReady', { names: waitingFor.map((p) => p.name) });
  return null;
}

function playersCard(room) {
  const me = room.me || {};
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  const myPlayer = players.find((p) => p.id === me.player_id);
  const actions = [];
  if (me.is_host) {
    const levelHint = h('p', { class: 'muted small', testid: 'bot-level-hint' }, botLevelHint(botLevel));
    const level = h('select', { testid: 'bot-level', 'aria-label': t('waiting.botLevel'), value: botLevel, onchange: (e) => { botLevel = e.target.value; levelHint.textContent = botLevelHint(botLevel); } },
      ...BOT_LEVELS.map((value) => h('option', { value }, t(`waiting.bot.${value}`))));
    const botCount = players.filter((p) => p.kind === 'bot').length;
    const add = h('button', {
      class: 'btn btn-secondary', testid: 'add-bot', disabled: botCount >= 9,
      title: botCount >= 9 ? t('waiting.maxBots') : '',
      onclick: (event) => roomCall('POST', roomPath(room, '/bots'), { level: level.value }, event.currentTarget),
    }, t('waiting.addBot'));
    const blocker = startBlocker(room);
    const start = h('button', {
      class: 'btn btn-primary', testid: 'start-game', disabled: Boolean(blocker), title: blocker || t('waiting.startTitle'),
      onclick: (event) => roomCall('POST', roomPath(room, '/start'), undefined, event.currentTarget,
        { focusAfter: ["[data-testid='bid-quantity']:not([disabled])", "[data-testid='bid-heading']"] }),
    }, t('waiting.start'));
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
      }, myPlayer.ready ? t('waiting.notReady') : t('waiting.imReady')));
    }
    memberButtons.push(h('button', {
      class: 'btn btn-ghost', testid: 'leave-room',
      onclick: (event) => roomCall('POST', roomPath(room, '/leave'), undefined, event.currentTarget),
    }, t('waiting.leave')));
    actions.push(h('div', { class: 'member-actions' }, memberButtons));
  }
  return h('section', { class: 'card' },
    h('div', { class: 'row-between' }, h('h2', { tabindex: '-1', 'data-focus-fallback': '' }, t('waiting.players')), h('span', { class: 'muted small' }, t('waiting.seated', { count: players.length }))),
    h('ul', { class: 'player-list', testid: 'player-list' }, players.map((p) => playerRow(room, p))),
    actions);
}

function joinCard(room) {
  const me = room.me || {};
  if (me.player_id) return null;
  if (!state.user) {
    return authCard({ title: t('waiting.signInToJoin'), subtitle: t('waiting.signInSub') });
  }
  if (room.created_by_guest) {
    return h('section', { class: 'card notice' }, h('p', {}, t('waiting.guestRoom')));
  }
  if (state.user.guest) {
    return h('section', { class: 'card notice' }, h('p', {}, t('waiting.guestNoJoin')));
  }
  if (me.request === 'pending') {
    return h('section', { class: 'card notice', testid: 'join-request-pending' }, h('p', {}, t('waiting.requestPending')));
  }
  const joining = (room.settings || {}).joining;
  const parts = [h('h2', {}, t('waiting.join'))];
  const error = h('p', { class: 'form-error', role: 'alert', testid: 'join-error', hidden: true });
  const say = (text) => { error.textContent = text || ''; error.hidden = !text; };
  if (me.invited) {
    // An invitation skips approval and the passcode (docs/RULES.md, "Rooms, turns and the end of a game").
    parts.push(h('p', { class: 'ok', testid: 'join-invited' }, t('waiting.invited')));
  } else if (joining === 'approval' && me.request === 'denied') {
    // The server refuses a second request: say so rather than offer a button that cannot work.
    parts.push(h('p', { class: 'warn', testid: 'join-request-denied' },
      t('waiting.denied')));
    return h('section', { class: 'card' }, parts);
  }
  const needsCode = joining === 'passcode' && !me.invited;
  const passcode = needsCode
    ? h('input', {
      type: 'text', inputmode: 'numeric', maxlength: '4', pattern: '[0-9]{4}', placeholder: t('waiting.passcodePlaceholder'), testid: 'join-passcode',
      autocomplete: 'off', 'aria-label': t('waiting.passcode'), oninput: (event) => { event.target.value = event.target.value.replace(/\D/g, '').slice(0, 4); say(''); },
    })
    : null;
  const button = h('button', { class: 'btn btn-primary', type: 'submit', testid: 'join-room' },
    joining === 'approval' && !me.invited ? t('waiting.requestJoin') : t('waiting.joinRoom'));
  parts.push(h('form', {
    class: 'inline-form',
    novalidate: true,
    onsubmit: (event) => {
      event.preventDefault();
      const code = passcode ? passcode.value.trim() : '';
      // An empty or short code is not sent: it would only use up one of the limited attempts.
      if (passcode && !/^\d{4}$/.test(code)) { say(t('waiting.enterDigits')); passcode.focus(); return; }
      say('');
      roomCall('POST', roomPath(room, '/join'), passcode ? { passcode: code } : {}, button, { action: 'join', inline: say });
    },
  }, passcode, button));
  parts.push(error);
  if (needsCode) parts.push(h('p', { class: 'muted small' }, t('waiting.codeWarning')));
  if (joining === 'approval' && !me.invited) parts.push(h('p', { class: 'muted small' }, t('waiting.approvalNote')));
  return h('section', { class: 'card' }, parts);
}

function requestsCard(room) {
  const requests = room.pending_requests || [];
  if (!room.me || !room.me.is_host || requests.length === 0) return null;
  return h('section', { class: 'card', testid: 'pending-requests' },
    h('h2', {}, t('waiting.requests')),
    h('ul', { class: 'plain-list' }, requests.map((req) => h('li', { class: 'row-between' },
      h('strong', {}, req.name),
      h('span', { class: 'button-row' },
        h('button', {
          class: 'btn btn-primary btn-small', testid: 'approve-request', 'aria-label': t('waiting.approveName', { name: req.name }),
          onclick: (event) => roomCall('POST', roomPath(room, `/requests/${encodeURIComponent(req.user_id)}/approve`), undefined, event.currentTarget),
        }, t('waiting.approve')),
        h('button', {
          class: 'btn btn-ghost btn-small', testid: 'deny-request', 'aria-label': t('waiting.denyName', { name: req.name }),
          onclick: (event) => roomCall('POST', roomPath(room, `/requests/${encodeURIComponent(req.user_id)}/deny`), undefined, event.currentTarget),
        }, t('waiting.deny')))))));
}

function settingsCard(room) {
  const settings = room.settings || {};
  const me = room.me || {};
  if (!me.is_host) {
    return h('section', { class: 'card' }, h('h2', {}, t('waiting.settings')), settingsSummary(settings));
  }
  const patch = (body) => roomCall('PATCH', roomPath(room, '/settings'), body);
  const passcodeInput = h('input', {
    type: 'text', inputmode: 'numeric', maxlength: '4', pattern: '[0-9]{4}', testid: 'setting-passcode',
    value: settings.passcode || '', placeholder: t('lobby.passcodePlaceholder'),
    onchange: (event) => {
      const code = event.target.value.trim();
      if (!/^\d{4}$/.test(code)) { toast(t('field.passcode')); return; }
      patch({ passcode: code });
    },
  });
  return h('section', { class: 'card' },
    h('h2', {}, t('waiting.settings')),
    settingsForm(settings, (name, value) => {
      const body = { [name]: value };
      if (name === 'joining' && value === 'passcode' && !settings.passcode) {
        body.passcode = String(Math.floor(Math.random() * 10000)).padStart(4, '0');
      }
      patch(body);
    }, 'setting', { guestRoom: room.created_by_guest }),
    settings.joining === 'passcode'
      ? h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('waiting.passcodeYours')), passcodeInput)
      : null);
}

function shareCard(room) {
  const url = shareUrl(room);
  const input = h('input', { type: 'text', readonly: true, value: url, testid: 'share-link', 'aria-label': t('waiting.shareLink'), onfocus: (e) => e.target.select() });
  const copy = h('button', {
    class: 'btn btn-secondary', testid: 'copy-link',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        toast(t('waiting.copied'), 'info');
      } catch {
        input.select();
        toast(t('waiting.selectCopy'), 'info');
      }
    },
  }, t('waiting.copy'));
  const parts = [h('h2', {}, t('waiting.share')), h('div', { class: 'inline-form' }, input, copy)];
  if (room.created_by_guest) parts.push(h('p', { class: 'muted small' }, t('waiting.guestShare')));
  if (room.me && room.me.is_host && !room.created_by_guest && isRegistered()) {
    const username = h('input', { type: 'text', placeholder: t('auth.username'), testid: 'invite-username', 'aria-label': t('waiting.inviteUser') });
    const invite = h('button', { class: 'btn btn-secondary', type: 'submit', testid: 'invite-submit' }, t('waiting.invite'));
    parts.push(h('form', {
      class: 'inline-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const name = username.value.trim();
        if (!name) return;
        const done = await roomCall('POST', roomPath(room, '/invitations'), { username: name }, invite);
        if (done) { username.value = ''; toast(t('waiting.invitedName', { name }), 'info'); }
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

