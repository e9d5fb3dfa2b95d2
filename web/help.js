// "How to play": a short panel per rule system, opened from the lobby and from a room.
// The full rules, in the same words, are in docs/RULES.md.

import { h } from './dom.js';

const SYSTEMS = [
  {
    rules: 'classic',
    name: 'Classic',
    goal: 'Be the last player with dice.',
    steps: [
      'Everyone rolls their dice in secret. You see only your own.',
      'On your turn, bid on all the dice on the table, yours and everyone else’s: “four 3s” means at least four dice show a 3 or a ★ (a wild die).',
      'Each bid must beat the last one: more dice (any face), or the same number of dice with a higher face. Over four 3s you may bid four 4s or five 1s, not three 6s.',
      'Or call Liar! on the last bid. All dice are shown: if there are fewer than bid, the bidder loses a die; otherwise the caller does.',
      'The loser discards the die, or gives it to the winner if the room says so. The loser opens the next round.',
    ],
    tips: ['How often a ★ comes up is a room setting (0, 5 or 10 %). With 0 % nothing is wild.',
      'If your time runs out, the game calls Liar! for you (or bids “one 1” to open).'],
  },
  {
    rules: 'wild-stars',
    name: 'Wild Stars',
    goal: 'Be the last player with dice. 2 to 6 players.',
    steps: [
      'The dice show ★ 2 3 4 5 6: the ★ replaces the 1 and is always wild.',
      'A number bid like “four 3s” counts 3s and ★s. A star bid like “two stars” counts ★s only.',
      'All bids sit on one ladder: 1, 1★, 2, 3, 2★, 4, 5, 3★ … (k stars sit just above 2k − 1 dice). Move up the ladder, or keep the number and raise the face.',
      'After your bid you may Show & reroll: set some dice out in the open (keep at least one in your cup) and reroll the rest. Shown dice stay visible for the round.',
      'On Liar!, the side that was wrong loses the difference: three short means the bidder loses three dice; two over means the caller loses two.',
      'Exactly right is a perfect bid: everyone but the bidder loses a die, except a player on their last die who did not call Liar! (Die Hard).',
    ],
    tips: ['The winner of the challenge opens the next round.'],
  },
  {
    rules: 'poker',
    name: 'Poker Liar Dice',
    tab: 'Poker',
    goal: 'Keep a life. Everyone starts with the room’s lives (3 by default).',
    steps: [
      'One cup of five dice, faces 9 10 J Q K A, goes round the table.',
      'Whoever holds the cup claims a poker hand (pair, two pairs, three of a kind, full house, four, five of a kind; no straights) and passes it on. Only they have seen the dice.',
      'The next player either calls Liar!, or accepts: looks at the dice, rerolls any of them (everyone hears how many), may leave dice exposed, and passes with a higher claim.',
      'On Liar! the cup is lifted: if the hand is at least the claim, the caller loses a life; otherwise the claimer does.',
      'Accepting five aces means rolling for five aces yourself, with up to two rerolls: make it and nobody loses a life; miss and you do.',
    ],
    tips: ['If your time runs out you accept and pass the cup unrolled, claiming “better”.',
      'Dog’s life (a room option): the first player to lose their last life gets one more, once.'],
  },
];

let dialog = null;

function panelFor(system) {
  return h('section', { class: 'howto-panel', testid: `how-to-panel-${system.rules}`, dataset: { rules: system.rules } },
    h('h3', { class: 'howto-title' }, system.name),
    h('p', { class: 'howto-goal' }, h('strong', {}, 'Goal: '), system.goal),
    h('ol', { class: 'howto-steps' }, system.steps.map((step) => h('li', {}, step))),
    h('ul', { class: 'howto-tips muted small' }, system.tips.map((tip) => h('li', {}, tip))));
}

/** Open the How to play panel, on the tab of `rules` (the room's rules, or classic). */
export function openHowToPlay(rules = 'classic') {
  if (dialog) dialog.remove();
  const body = h('div', { class: 'howto-body' });
  const tabs = h('div', { class: 'tabs howto-tabs', role: 'tablist' });
  function show(value) {
    const system = SYSTEMS.find((s) => s.rules === value) || SYSTEMS[0];
    for (const tab of tabs.children) tab.setAttribute('aria-selected', String(tab.dataset.rules === system.rules));
    body.replaceChildren(panelFor(system));
  }
  for (const system of SYSTEMS) {
    tabs.append(h('button', {
      type: 'button', class: 'tab', role: 'tab', dataset: { rules: system.rules }, testid: `how-to-tab-${system.rules}`,
      onclick: () => show(system.rules),
    }, system.tab || system.name));
  }
  const close = h('button', { type: 'button', class: 'btn btn-ghost btn-small', testid: 'how-to-close', onclick: () => dialog.close() }, 'Close');
  dialog = h('dialog', { class: 'howto', testid: 'how-to-play-dialog', 'aria-label': 'How to play' },
    h('div', { class: 'row-between' }, h('h2', {}, 'How to play'), close), tabs, body);
  dialog.addEventListener('close', () => { dialog.remove(); dialog = null; });
  dialog.addEventListener('click', (event) => { if (event.target === dialog) dialog.close(); });
  document.body.append(dialog);
  show(rules);
  dialog.showModal();
}

/** A "How to play" button opening the panel on the given rules. */
export function howToPlayButton(rules = 'classic', extraClass = '') {
  return h('button', {
    type: 'button', class: ['btn', 'btn-ghost', 'btn-small', 'howto-button', extraClass], testid: 'how-to-play',
    onclick: () => openHowToPlay(typeof rules === 'function' ? rules() : rules),
  }, 'How to play');
}
