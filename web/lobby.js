// Lobby: open rooms, invitations, and the create-room form.

import { api } from './api.js';
import { h, mount } from './dom.js';
import { attempt, keepFocus, navigate, state } from './core.js';
import { errorMessage } from './messages.js';
import { authCard } from './auth.js';
import { defaultSettings, settingsChips, settingsForm } from './settings.js';
import { howToPlayButton } from './help.js';
import { t } from './i18n/index.js';
import { myGamesCard } from './mygames.js';
import { pushCard } from './push.js';
import { quickplayCard } from './quickplay.js';

const STATUS_TABS = [['waiting', 'lobby.tabWaiting'], ['playing', 'lobby.tabPlaying'], ['finished', 'lobby.tabFinished']];
let pollTimer = null;
let createSettings = null; // the new room's settings, from the default system once it is loaded

/** Stop lobby polling (when leaving the lobby). */
export function stopLobby() {
  clearInterval(pollTimer);
  pollTimer = null;
}

function roomRow(room) {
  const humans = room.humans ?? 0;
  const bots = room.bots ?? 0;
  const host = room.host_name || t('lobby.someone');
  return h('li', { class: 'lobby-room', testid: 'lobby-room', dataset: { roomId: room.id } },
    h('div', { class: 'lobby-room-main' },
      h('div', { class: 'lobby-room-title' },
        h('strong', {}, t('lobby.roomOf', { name: host })),
        h('span', { class: ['pill', `pill-${room.status}`] }, t(`lobby.status.${room.status}`)),
        room.created_by_guest ? h('span', { class: 'pill pill-muted' }, t('app.guest')) : null),
      h('div', { class: 'muted small' }, t('lobby.roomCounts', {
        seated: t('lobby.seated', { count: room.players ?? humans + bots }),
        humans: t('lobby.humans', { count: humans }),
        bots: t('lobby.bots', { count: bots }),
      })),
      settingsChips(room.settings)),
    h('a', {
      class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(room.id)}`, testid: 'open-room',
      'aria-label': t(room.status === 'waiting' ? 'lobby.openRoomOf' : 'lobby.watchRoomOf', { name: host }),
    }, room.status === 'waiting' ? t('lobby.open') : t('lobby.watch')));
}

async function loadRooms(list) {
  try {
    const answer = await api('GET', `/rooms?status=${encodeURIComponent(state.lobbyStatus)}`);
    const rooms = (answer && answer.rooms) || [];
    if (!list.isConnected) return;
    if (rooms.length === 0) {
      mount(list, h('li', { class: 'empty muted' }, t(`lobby.noRooms.${state.lobbyStatus}`)));
    } else {
      mount(list, rooms.map(roomRow));
    }
  } catch (err) {
    if (list.isConnected) mount(list, h('li', { class: 'empty muted' }, errorMessage(err)));
  }
}

function createCard() {
  createSettings = createSettings || defaultSettings();
  const button = h('button', {
    class: 'btn btn-primary btn-block',
    testid: 'create-room',
    onclick: async () => {
      const settings = { ...createSettings };
      if (settings.joining !== 'passcode') delete settings.passcode;
      const room = await attempt(() => api('POST', '/rooms', { settings }), button);
      if (room && room.id) {
        navigate(`#/rooms/${encodeURIComponent(room.id)}`);
        // The next thing to do in a new room: add a bot (or say you are ready).
        keepFocus(button, ["[data-testid='add-bot']", "[data-testid='ready-toggle']"]);
      }
    },
  }, t('lobby.create'));
  const passcode = h('input', {
    type: 'text', inputmode: 'numeric', pattern: '[0-9]{4}', maxlength: '4', placeholder: t('lobby.passcodePlaceholder'),
    testid: 'create-passcode', value: createSettings.passcode || '',
    oninput: (event) => { createSettings.passcode = event.target.value.replace(/\D/g, '').slice(0, 4); },
  });
  const passcodeField = h('label', { class: 'field', hidden: createSettings.joining !== 'passcode' },
    h('span', { class: 'field-label' }, t('lobby.passcode')), passcode);
  const guest = state.user && state.user.guest;
  const form = settingsForm(createSettings, (name, value) => {
    createSettings[name] = value;
    passcodeField.hidden = createSettings.joining !== 'passcode';
  }, 'create-setting', { guestRoom: guest });
  return h('section', { class: 'card create-card' },
    h('h2', {}, t('lobby.newRoom')),
    h('p', { class: 'muted small' }, guest ? t('lobby.guestNote') : t('lobby.hostNote')),
    form, passcodeField, button);
}

function invitationsCard() {
  const invitations = (state.me && state.me.invitations) || [];
  if (invitations.length === 0) return null;
  return h('section', { class: 'card' },
    h('h2', {}, t('lobby.invitations')),
    h('ul', { class: 'plain-list' }, invitations.map((inv) => h('li', { class: 'row-between', testid: 'invitation' },
      h('span', {}, t('lobby.invitedBy', { name: inv.host_name || t('lobby.aHost') })),
      h('a', { class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(inv.room_id)}` }, t('lobby.open'))))));
}

/** Render the lobby screen into container. */
export function renderLobby(container) {
  stopLobby();
  const list = h('ul', { class: 'lobby-list' }, h('li', { class: 'empty muted' }, t('lobby.loading')));
  const tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': t('lobby.roomStatus') }, STATUS_TABS.map(([status, label]) => h('button', {
    class: 'tab', type: 'button', role: 'tab', 'aria-selected': String(state.lobbyStatus === status),
    testid: `lobby-tab-${status}`,
    onclick: (event) => {
      state.lobbyStatus = status;
      for (const b of tabs.children) b.setAttribute('aria-selected', String(b === event.currentTarget));
      loadRooms(list);
    },
  }, t(label))));
  const side = state.user
    ? [myGamesCard(), quickplayCard(), createCard(), invitationsCard(), pushCard()]
    : [authCard({ title: t('auth.title'), subtitle: t('auth.subtitle') }), quickplayCard()];
  mount(container, h('h1', { class: 'sr-only' }, t('lobby.title')), h('div', { class: 'lobby-layout', testid: 'lobby' },
    h('div', { class: 'lobby-side' }, side),
    h('section', { class: 'card lobby-rooms' },
      h('div', { class: 'row-between' }, h('h2', {}, t('lobby.rooms')),
        h('span', { class: 'button-row' }, howToPlayButton(() => (createSettings && createSettings.rules) || defaultSettings().rules),
          h('button', { class: 'btn btn-ghost', testid: 'refresh-lobby', onclick: () => loadRooms(list) }, t('lobby.refresh')))),
      tabs, list)));
  loadRooms(list);
  pollTimer = setInterval(() => {
    if (!list.isConnected) { stopLobby(); return; }
    if (!document.hidden) loadRooms(list);
  }, 5000);
}
