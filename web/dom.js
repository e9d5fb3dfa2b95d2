// Tiny DOM helpers. All text goes through textContent: user-provided strings
// (names, chat) are never parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function setProps(el, props) {
  let value;
  for (const [key, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (key === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else if (key === 'testid') el.setAttribute('data-testid', v);
    else if (key === 'dataset') Object.assign(el.dataset, v);
    else if (key === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (key.startsWith('on') && typeof v === 'function') el.addEventListener(key.slice(2), v);
    else if (key === 'value') value = v;
    else if (key === 'checked' || key === 'disabled' || key === 'selected') el[key] = Boolean(v);
    else el.setAttribute(key, v === true ? '' : String(v));
  }
  return value;
}

/** Append children (strings become text nodes; arrays are flattened; null skipped). */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Create an HTML element: h('button', {class: 'btn', onclick}, 'Text'). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  const value = setProps(el, props);
  append(el, children);
  if (value !== undefined) el.value = value;
  return el;
}

/** Create an SVG element. */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, v] of Object.entries(props || {})) {
    if (v === null || v === undefined) continue;
    el.setAttribute(key, String(v));
  }
  append(el, children);
  return el;
}

/** Replace all children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

const panelKeys = new WeakMap();

/** What names a control across a redraw: its test id and the data that tells equal ones apart. */
export function focusKey(el) {
  if (!el || !el.dataset || !el.dataset.testid) return null;
  const { testid, playerId, index, face } = el.dataset;
  return { testid, playerId, index, face };
}

function selectorOf(key) {
  let selector = `[data-testid='${CSS.escape(key.testid)}']`;
  for (const [name, attr] of [['playerId', 'data-player-id'], ['index', 'data-index'], ['face', 'data-face']]) {
    if (key[name] !== undefined) selector += `[${attr}='${CSS.escape(key[name])}']`;
  }
  return selector;
}

/** Whether a control can take the focus now. */
export function focusable(el) {
  return Boolean(el && el.isConnected && !el.disabled && !el.closest('[hidden]') && el.getClientRects().length);
}

/**
 * Put the focus back on the same control after a redraw (issue 28: focus never drops to the
 * top of the page): the control with the same key, else the first of `fallbacks` (selectors)
 * that can take it, else the container's `[data-focus-fallback]`.
 */
export function refocus(root, key, fallbacks = []) {
  const same = key ? root.querySelector(selectorOf(key)) : null;
  if (focusable(same)) { same.focus({ preventScroll: false }); return same; }
  for (const selector of [...fallbacks, '[data-focus-fallback]']) {
    const el = root.querySelector(selector);
    if (focusable(el)) { el.focus(); return el; }
  }
  return null;
}

/**
 * Re-render a container only when its key changed, so that inputs the user is
 * typing into survive unrelated pushes. The focus, if it was inside, stays on the same control.
 */
export function panel(container, key, build) {
  if (panelKeys.get(container) === key) return false;
  panelKeys.set(container, key);
  const active = document.activeElement;
  const inside = active && active !== document.body && container.contains(active);
  const was = inside ? focusKey(active) : null;
  mount(container, build());
  if (inside && !container.contains(document.activeElement)) refocus(container, was);
  return true;
}

/** Forget a panel's key so the next panel() call rebuilds it. */
export function invalidate(container) {
  panelKeys.delete(container);
}
