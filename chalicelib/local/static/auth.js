// Sign-in card: play as guest, sign in, or register.

import { api } from './api.js';
import { h } from './dom.js';
import { attempt, hooks } from './core.js';

let activeTab = 'guest';

/** The sign-in card; after success the app re-renders the current route. */
export function authCard({ title = 'Play Liar\'s Lies', subtitle = '' } = {}) {
  const body = h('div', { class: 'auth-body' });
  const tabs = h('div', { class: 'tabs', role: 'tablist' });

  async function finish(promise) {
    const answer = await promise;
    if (answer && answer.token) await hooks.signedIn(answer);
  }

  function show(tab) {
    activeTab = tab;
    for (const button of tabs.children) button.setAttribute('aria-selected', String(button.dataset.tab === tab));
    if (tab === 'guest') {
      const name = h('input', { type: 'text', maxlength: '32', placeholder: 'Nickname (optional)', testid: 'guest-name', autocomplete: 'nickname' });
      const go = h('button', { class: 'btn btn-primary btn-block', type: 'submit', testid: 'guest-signin' }, 'Play as guest');
      body.replaceChildren(h('form', {
        class: 'stack',
        onsubmit: (event) => {
          event.preventDefault();
          const payload = name.value.trim() ? { name: name.value.trim() } : {};
          finish(attempt(() => api('POST', '/auth/guest', payload), go));
        },
      }, name, go, h('p', { class: 'muted small' }, 'Guests can create a room and play unrated games against bots, and watch any room.')));
    } else {
      const register = tab === 'register';
      const prefix = register ? 'register' : 'login';
      const username = h('input', { type: 'text', required: true, placeholder: 'Username', testid: `${prefix}-username`, autocomplete: 'username' });
      const password = h('input', { type: 'password', required: true, placeholder: 'Password', testid: `${prefix}-password`, autocomplete: register ? 'new-password' : 'current-password' });
      const go = h('button', { class: 'btn btn-primary btn-block', type: 'submit', testid: `${prefix}-submit` }, register ? 'Create account' : 'Sign in');
      body.replaceChildren(h('form', {
        class: 'stack',
        onsubmit: (event) => {
          event.preventDefault();
          const payload = { username: username.value.trim(), password: password.value };
          finish(attempt(() => api('POST', register ? '/auth/register' : '/auth/login', payload), go));
        },
      }, username, password, go, register ? h('p', { class: 'muted small' }, 'Registered players join rooms, chat, and earn an ELO rating.') : null));
    }
  }

  for (const [tab, label] of [['guest', 'Guest'], ['login', 'Sign in'], ['register', 'Register']]) {
    tabs.append(h('button', { class: 'tab', type: 'button', role: 'tab', dataset: { tab }, testid: `auth-tab-${tab}`, onclick: () => show(tab) }, label));
  }
  show(activeTab);
  return h('section', { class: 'card auth-card', testid: 'auth-card' },
    h('h2', {}, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null, tabs, body);
}
