// Lobby: open rooms, invitations, and the create-room form.

import { api } from './api.js';
import { h, mount } from './dom.js';
import { attempt, navigate, state } from './core.js';
import { errorMessage } from './messages.js';
import { authCard } from './auth.js';
import { defaultSettings, settingsChips, settingsForm } from './settings.js';
import { howToPlayButton } from './help.js';
import { myGamesCard } from './mygames.js';
import { pushCard } from './push.js';

const STATUS_TABS = [['waiting', 'Waiting'], ['playing', 'Playing'], ['finished', 'Finished']];
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
  return h('li', { class: 'lobby-room', testid: 'lobby-room', dataset: { roomId: room.id } },
    h('div', { class: 'lobby-room-main' },
      h('div', { class: 'lobby-room-title' },
        h('strong', {}, `${room.host_name || 'Someone'}'s room`),
        h('span', { class: ['pill', `pill-${room.status}`] }, room.status),
        room.created_by_guest ? h('span', { class: 'pill pill-muted' }, 'guest') : null),
      h('div', { class: 'muted small' },
        `${room.players ?? humans + bots} seated · ${humans} human${humans === 1 ? '' : 's'} · ${bots} bot${bots === 1 ? '' : 's'}`),
      settingsChips(room.settings)),
    h('a', { class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(room.id)}`, testid: 'open-room' },
      room.status === 'waiting' ? 'Open' : 'Watch'));
}

async function loadRooms(list) {
  try {
    const answer = await api('GET', `/rooms?status=${encodeURIComponent(state.lobbyStatus)}`);
    const rooms = (answer && answer.rooms) || [];
    if (!list.isConnected) return;
    if (rooms.length === 0) {
      mount(list, h('li', { class: 'empty muted' }, `No ${state.lobbyStatus} rooms right now.`));
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
      if (room && room.id) navigate(`#/rooms/${encodeURIComponent(room.id)}`);
    },
  }, 'Create room');
  const passcode = h('input', {
    type: 'text', inputmode: 'numeric', pattern: '[0-9]{4}', maxlength: '4', placeholder: '4 digits',
    testid: 'create-passcode', value: createSettings.passcode || '',
    oninput: (event) => { createSettings.passcode = event.target.value.replace(/\D/g, '').slice(0, 4); },
  });
  const passcodeField = h('label', { class: 'field', hidden: createSettings.joining !== 'passcode' },
    h('span', { class: 'field-label' }, 'Passcode'), passcode);
  const guest = state.user && state.user.guest;
  const form = settingsForm(createSettings, (name, value) => {
    createSettings[name] = value;
    passcodeField.hidden = createSettings.joining !== 'passcode';
  }, 'create-setting', { guestRoom: guest });
  return h('section', { class: 'card create-card' },
    h('h2', {}, 'New room'),
    h('p', { class: 'muted small' }, guest
      ? 'As a guest you play an unrated game against bots.'
      : 'You host the room: add bots or share the link with friends.'),
    form, passcodeField, button);
}

function invitationsCard() {
  const invitations = (state.me && state.me.invitations) || [];
  if (invitations.length === 0) return null;
  return h('section', { class: 'card' },
    h('h2', {}, 'Invitations'),
    h('ul', { class: 'plain-list' }, invitations.map((inv) => h('li', { class: 'row-between', testid: 'invitation' },
      h('span', {}, `${inv.host_name || 'A host'} invited you`),
      h('a', { class: 'btn btn-secondary', href: `#/rooms/${encodeURIComponent(inv.room_id)}` }, 'Open')))));
}

/** Render the lobby screen into container. */
export function renderLobby(container) {
  stopLobby();
  const list = h('ul', { class: 'lobby-list' }, h('li', { class: 'empty muted' }, 'Loading rooms…'));
  const tabs = h('div', { class: 'tabs', role: 'tablist' }, STATUS_TABS.map(([status, label]) => h('button', {
    class: 'tab', type: 'button', role: 'tab', 'aria-selected': String(state.lobbyStatus === status),
    testid: `lobby-tab-${status}`,
    onclick: (event) => {
      state.lobbyStatus = status;
      for (const b of tabs.children) b.setAttribute('aria-selected', String(b === event.currentTarget));
      loadRooms(list);
    },
  }, label)));
  const side = state.user
    ? [myGamesCard(), createCard(), invitationsCard(), pushCard()]
    : [authCard({ title: 'Play Liar\'s Lies', subtitle: 'Bid on everyone\'s dice, call the liars, be the last one with dice.' })];
  mount(container, h('div', { class: 'lobby-layout', testid: 'lobby' },
    h('div', { class: 'lobby-side' }, side),
    h('section', { class: 'card lobby-rooms' },
      h('div', { class: 'row-between' }, h('h2', {}, 'Rooms'),
        h('span', { class: 'button-row' }, howToPlayButton(() => (createSettings && createSettings.rules) || defaultSettings().rules),
          h('button', { class: 'btn btn-ghost', testid: 'refresh-lobby', onclick: () => loadRooms(list) }, 'Refresh'))),
      tabs, list)));
  loadRooms(list);
  pollTimer = setInterval(() => {
    if (!list.isConnected) { stopLobby(); return; }
    if (!document.hidden) loadRooms(list);
  }, 5000);
}
