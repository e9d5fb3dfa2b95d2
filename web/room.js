// Room screen: header, status-specific body (waiting room or game), chat.

import { h, mount, panel } from './dom.js';
import { state, toast } from './core.js';
import { howToPlayButton } from './help.js';
import { chatPanel } from './chat.js';
import { renderGame } from './game.js';
import { decorate, displayRoom } from './table.js';
import { hostPlayer, renderWaiting, shareUrl } from './waiting.js';
import { rulesLabel } from './settings.js';
import { defaultSystem } from './systems/index.js';
import { t } from './i18n/index.js';

let els = null;

/** Build the room screen skeleton for state.roomId. */
export function renderRoomScreen(container) {
  const head = h('div', { class: 'room-head' });
  const body = h('div', { class: 'room-body' }, h('div', { class: 'card loading', role: 'status' }, t('room.loading')));
  const chat = h('div', { class: 'room-chat' });
  els = { head, body, chat, roomId: state.roomId, signedAs: state.user ? state.user.id : null };
  mount(container, h('div', { class: 'room-screen', testid: 'room-screen', dataset: { roomId: state.roomId } }, head, body, chat));
  mount(chat, chatPanel(state.roomId));
}

function headPanel(room) {
  const statusLabel = ['waiting', 'playing', 'finished', 'closed'].includes(room.status) ? t(`room.status.${room.status}`) : room.status;
  const host = hostPlayer(room);
  return h('div', { class: 'room-head-inner' },
    h('a', { class: 'back-link', href: '#/', testid: 'back-to-lobby' }, h('span', { 'aria-hidden': 'true' }, '← '), t('room.back')),
    h('h1', {}, host ? t('room.title', { name: host.name }) : t('room.titlePlain')),
    h('span', { class: ['pill', `pill-${room.status}`], testid: 'room-status', dataset: { status: room.status } }, statusLabel),
    room.settings && room.settings.rules && room.settings.rules !== defaultSystem().rules ? h('span', { class: 'pill pill-muted', testid: 'room-rules' }, rulesLabel(room.settings.rules)) : null,
    h('span', { class: 'room-head-actions' },
      howToPlayButton(() => (state.room && state.room.settings && state.room.settings.rules) || defaultSystem().rules),
      h('button', {
        class: 'btn btn-ghost btn-small chat-jump', testid: 'chat-jump', type: 'button',
        onclick: () => {
          const chat = document.querySelector("[data-testid='chat']");
          if (!chat) return;
          chat.scrollIntoView({ block: 'start' });
          const input = chat.querySelector('input');
          if (input) input.focus({ preventScroll: true });
        },
      }, t('room.chat')),
      room.status !== 'closed' ? h('button', {
        class: 'btn btn-ghost btn-small share-button', testid: 'share-room', type: 'button',
        onclick: () => shareRoom(room),
      }, t('room.shareLink')) : null));
}

/** Share the room's link: the phone's share sheet, else the clipboard; always say what happened. */
async function shareRoom(room) {
  const url = shareUrl(room);
  if (navigator.share) {
    try {
      await navigator.share({ title: t('app.name'), url });
      return;
    } catch (err) {
      if (err && err.name === 'AbortError') return;
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    toast(t('room.copied'), 'info');
  } catch {
    window.prompt(t('room.copyPrompt'), url);
  }
}

/** Update the room screen from state.room. */
export function updateRoomScreen(container) {
  if (!els || !els.head.isConnected || els.roomId !== state.roomId) renderRoomScreen(container);
  const room = state.room;
  if (!room) return;
  panel(els.head, JSON.stringify([room.status, room.players, room.host_id, room.settings && room.settings.rules]), () => headPanel(room));
  if (room.status === 'waiting') {
    renderWaiting(els.body, room);
  } else if (room.status === 'closed') {
    els.body.dataset.kind = 'closed';
    mount(els.body, h('section', { class: 'card notice', testid: 'room-closed' },
      h('p', {}, t('room.closed')),
      room.recreated_as ? h('a', { class: 'btn btn-primary', href: `#/rooms/${encodeURIComponent(room.recreated_as)}` }, t('room.goNew')) : null,
      h('a', { class: 'btn btn-ghost', href: '#/' }, t('common.backToLobby'))));
  } else {
    // The live table: the room as it stands at this moment of the push's events.
    const shown = displayRoom(room);
    renderGame(els.body, shown);
    decorate(els.body, shown);
  }
}

/** Show a load failure (e.g. unknown room) in the room body. */
export function showRoomError(container, message) {
  if (!els || !els.head.isConnected) renderRoomScreen(container);
  els.body.dataset.kind = 'error';
  // One message: no chat beside a room that is not there.
  els.chat.hidden = true;
  mount(els.body, h('section', { class: 'card notice', testid: 'room-error' }, h('p', {}, message),
    h('a', { class: 'btn btn-secondary', href: '#/' }, t('common.backToLobby'))));
}
