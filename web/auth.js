// Sign-in card: play as guest, sign in, or register.

import { api } from './api.js';
import { h } from './dom.js';
import { attempt, hooks } from './core.js';
import { NAME_MAX, passwordProblem, passwordRules as passwordRuleWords, usernameProblem, usernameRules } from './messages.js';
import { t } from './i18n/index.js';
import { cutGraphemes, graphemeCount } from './text.js';

let activeTab = 'guest';

/** An inline error line under a form (empty until something goes wrong). */
function formError(testid) {
  return h('p', { class: 'form-error', role: 'alert', testid, hidden: true });
}

function say(node, text) {
  node.textContent = text || '';
  node.hidden = !text;
}

/**
 * A name field that counts and cuts by grapheme (an emoji is one character, never cut in
 * half), with a live "n / 24" counter.
 */
export function nameInput(props, max = NAME_MAX) {
  const counter = h('span', { class: 'field-count muted small', testid: `${props.testid}-count`, 'aria-live': 'off' }, t('auth.count', { n: 0, max }));
  const input = h('input', { type: 'text', ...props });
  input.addEventListener('input', () => {
    const cut = cutGraphemes(input.value, max);
    if (cut !== input.value) input.value = cut;
    counter.textContent = t('auth.count', { n: graphemeCount(input.value), max });
  });
  return { input, counter };
}

/** The sign-in card; after success the app re-renders the current route. */
export function authCard({ title = t('auth.title'), subtitle = '' } = {}) {
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
      const { input: name, counter } = nameInput({ placeholder: t('auth.nickname'), testid: 'guest-name', autocomplete: 'nickname', 'aria-label': t('auth.nicknameLabel') });
      const error = formError('guest-error');
      const go = h('button', { class: 'btn btn-primary btn-block', type: 'submit', testid: 'guest-signin' }, t('auth.playAsGuest'));
      body.replaceChildren(h('form', {
        class: 'stack',
        onsubmit: (event) => {
          event.preventDefault();
          say(error, '');
          const payload = name.value.trim() ? { name: name.value.trim() } : {};
          finish(attempt(() => api('POST', '/auth/guest', payload), go, { action: 'guest', inline: (text) => say(error, text) }));
        },
      }, h('div', { class: 'field' }, name, counter), error, go,
      h('p', { class: 'muted small' }, t('auth.guestNote'))));
    } else {
      const register = tab === 'register';
      const prefix = register ? 'register' : 'login';
      const username = h('input', {
        type: 'text', required: true, placeholder: t('auth.username'), testid: `${prefix}-username`, autocomplete: 'username',
        autocapitalize: 'none', spellcheck: 'false', 'aria-label': t('auth.username'), 'aria-describedby': register ? 'username-rules' : null,
      });
      const password = h('input', {
        type: 'password', required: true, placeholder: t('auth.password'), testid: `${prefix}-password`, 'aria-label': t('auth.password'),
        autocomplete: register ? 'new-password' : 'current-password', 'aria-describedby': register ? 'password-rules' : null,
      });
      const error = formError(`${prefix}-error`);
      const rules = register ? h('p', { class: 'field-help muted small', id: 'username-rules', testid: 'username-rules' }, t('auth.usernameHelp', { rules: usernameRules() })) : null;
      const passwordRules = register ? h('p', { class: 'field-help muted small', id: 'password-rules', testid: 'password-rules' }, t('auth.passwordHelp', { rules: passwordRuleWords() })) : null;
      if (register) {
        // Say what is wrong while typing, once the field has been left or submitted.
        username.addEventListener('blur', () => {
          const problem = username.value ? usernameProblem(username.value.trim()) : null;
          rules.classList.toggle('is-invalid', Boolean(problem));
        });
      }
      const go = h('button', { class: 'btn btn-primary btn-block', type: 'submit', testid: `${prefix}-submit` }, register ? t('auth.createAccount') : t('auth.signIn'));
      body.replaceChildren(h('form', {
        class: 'stack',
        novalidate: true,
        onsubmit: (event) => {
          event.preventDefault();
          const payload = { username: username.value.trim(), password: password.value };
          const problem = register
            ? usernameProblem(payload.username) || passwordProblem(payload.password)
            : (!payload.username || !payload.password ? t('auth.enterBoth') : null);
          say(error, problem);
          if (problem) return;
          finish(attempt(() => api('POST', register ? '/auth/register' : '/auth/login', payload), go,
            { action: prefix, inline: (text) => say(error, text) }));
        },
      }, username, rules, password, passwordRules, error, go,
      register ? h('p', { class: 'muted small' }, t('auth.registerNote')) : null));
    }
  }

  for (const [tab, label] of [['guest', t('auth.tabGuest')], ['login', t('auth.tabLogin')], ['register', t('auth.tabRegister')]]) {
    tabs.append(h('button', { class: 'tab', type: 'button', role: 'tab', dataset: { tab }, testid: `auth-tab-${tab}`, onclick: () => show(tab) }, label));
  }
  show(activeTab);
  return h('section', { class: 'card auth-card', testid: 'auth-card' },
    h('h2', {}, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null, tabs, body);
}
