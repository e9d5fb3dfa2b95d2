// The client's state, in named parts (issue 28): each screen and each rule system reads the
// part it needs, nothing else.
//
//   session    who is signed in and how the connection is: {user, me, connection}
//   room       the room on screen: {id, view (latest room view, highest version wins), chat,
//              chatIds, lobbyStatus (the lobby tab)}
//   table      the live table's playback (web/table.js registers its own part here)
//   selection  what the player is choosing this turn: `bid` (quantity and face of the shared
//              dice panel) and one part per rule system (`selectionOf(rules)`), which is what
//              a system module receives as `helpers.selection`; all of it is dropped when the
//              room changes.
//
// Room views come from the server and are authoritative; nothing here is sent back as is.

export const session = { user: null, me: null, connection: 'offline' };

export const room = { id: null, view: null, chat: [], chatIds: new Set(), lobbyStatus: 'waiting' };

export const table = { live: null };

export const selection = { bid: { quantity: null, face: null }, systems: new Map() };

/** A rule system's own part of the selection (its module keeps its turn's choices there). */
export function selectionOf(rules) {
  if (!selection.systems.has(rules)) selection.systems.set(rules, {});
  return selection.systems.get(rules);
}

/** A new room on screen: its selections start empty. */
export function resetSelection() {
  selection.bid = { quantity: null, face: null };
  selection.systems.clear();
}
