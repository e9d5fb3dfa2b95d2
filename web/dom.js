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

/**
 * Re-render a container only when its key changed, so that inputs the user is
 * typing into survive unrelated pushes.
 */
export function panel(container, key, build) {
  if (panelKeys.get(container) === key) return false;
  panelKeys.set(container, key);
  mount(container, build());
  return true;
}

/** Forget a panel's key so the next panel() call rebuilds it. */
export function invalidate(container) {
  panelKeys.delete(container);
}
