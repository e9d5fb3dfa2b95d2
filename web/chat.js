// Room chat: history over REST, new messages pushed over the WebSocket.

import { h } from './dom.js';
import { api } from './api.js';
import { attempt, authorName, isRegistered, state } from './core.js';
import { formatTime, t } from './i18n/index.js';

let listEl = null;

function timeLabel(at) {
  return formatTime(at);
}

function messageNode(message) {
  const mine = state.user && message.user && typeof message.user === 'object' && message.user.id === state.user.id;
  return h('li', { class: ['chat-message', mine ? 'is-mine' : ''], testid: 'chat-message' },
    h('span', { class: 'chat-meta' }, h('strong', {}, authorName(message.user)), ' ', h('time', { datetime: message.at || '' }, timeLabel(message.at))),
    h('span', { class: 'chat-text' }, message.text));
}

function scrollToEnd() {
  if (listEl) listEl.scrollTop = listEl.scrollHeight;
}

/** Add a message once (pushes and history may overlap). */
export function addChatMessage(message) {
  if (!message || !message.id || state.chatIds.has(message.id)) return;
  state.chatIds.add(message.id);
  state.chat.push(message);
  if (listEl && listEl.isConnected) {
    const atEnd = listEl.scrollHeight - listEl.scrollTop - listEl.clientHeight < 40;
    listEl.querySelector('.empty')?.remove();
    listEl.append(messageNode(message));
    if (atEnd) scrollToEnd();
  }
}

/** Fetch messages newer than the last one we have. */
export async function loadChat(roomId) {
  const last = state.chat.length ? state.chat[state.chat.length - 1].id : null;
  try {
    const query = last ? `?after=${encodeURIComponent(last)}` : '';
    const answer = await api('GET', `/rooms/${encodeURIComponent(roomId)}/chat${query}`);
    if (state.roomId !== roomId) return;
    for (const message of (answer && answer.messages) || []) addChatMessage(message);
  } catch { /* chat is secondary: the room keeps working */ }
}

/** The chat panel for the current room. */
export function chatPanel(roomId) {
  listEl = h('ol', { class: 'chat-list', testid: 'chat-list', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-label': t('chat.title'), tabindex: '0' });
  if (state.chat.length === 0) listEl.append(h('li', { class: 'empty muted small' }, t('chat.empty')));
  for (const message of state.chat) listEl.append(messageNode(message));
  let form;
  if (isRegistered()) {
    const input = h('input', { type: 'text', maxlength: '500', placeholder: t('chat.placeholder'), testid: 'chat-input', 'aria-label': t('chat.label') });
    const send = h('button', { class: 'btn btn-secondary', type: 'submit', testid: 'chat-send' }, t('chat.send'));
    form = h('form', {
      class: 'inline-form chat-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        const message = await attempt(() => api('POST', `/rooms/${encodeURIComponent(roomId)}/chat`, { text }), send, { action: 'chat' });
        if (message) {
          input.value = '';
          addChatMessage(message);
          scrollToEnd();
          input.focus();
        }
      },
    }, input, send);
  } else {
    form = h('p', { class: 'muted small' }, state.user ? t('chat.guests') : t('chat.signIn'));
  }
  const node = h('section', { class: 'card chat-panel', testid: 'chat' }, h('h2', {}, t('chat.title')), listEl, form);
  requestAnimationFrame(scrollToEnd);
  return node;
}

