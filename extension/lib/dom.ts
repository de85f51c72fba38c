/**
 * A tiny element builder and a DOM morph: the panel is small enough that a UI library would not
 * earn its place. Events are delegated (`data-action`), so built elements carry no listeners.
 * Design: docs/design.md §7.
 */
type Child = Node | string | null | undefined | false;

export function h(
  tag: string,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Array<Child | Child[]>
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** Stand-ins for live elements that have not changed (keep), and what to tell when a built one is placed (onPlaced). */
const standIns = new WeakMap<Node, HTMLElement>();
const placedHooks = new WeakMap<Node, (live: HTMLElement) => void>();

/**
 * A stand-in for `live`, an element drawn before whose inputs have not changed: morph puts `live`
 * itself there (moving it if need be) and does not look inside it. Building and diffing a
 * 500-row list on every change was the panel's main cost (bench/panel-browser.js).
 */
export function keep(live: HTMLElement): HTMLElement {
  const standIn = document.createElement(live.tagName);
  standIns.set(standIn, live);
  return standIn;
}

/** Calls `hook` with the live element that `built` ends up as (itself, or the one morphed into its shape). */
export function onPlaced(built: HTMLElement, hook: (live: HTMLElement) => void): void {
  placedHooks.set(built, hook);
}

function sameSlot(existing: Node, node: Node): boolean {
  return (
    existing.nodeType === node.nodeType &&
    existing.nodeName === node.nodeName &&
    !(existing instanceof HTMLElement && node instanceof HTMLElement && existing.dataset.key !== node.dataset.key)
  );
}

/**
 * Makes `current` look like `next` while keeping the nodes that stay (so focus, hover and a click
 * in progress survive a refresh). Elements are matched by position, tag and `data-key`; a stand-in
 * (`keep`) is its live element, untouched.
 */
export function morph(current: Element, next: Element): void {
  for (const { name } of [...current.attributes]) if (!next.hasAttribute(name)) current.removeAttribute(name);
  for (const { name, value } of [...next.attributes])
    if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  // A checkbox the person clicked no longer follows its attribute: set what the state says.
  if (current instanceof HTMLInputElement && current.type === "checkbox")
    current.checked = next.hasAttribute("checked");
  const wanted = [...next.childNodes];
  // Live positions: a kept element may move here from further on.
  for (let i = 0; i < wanted.length; i++) {
    const node = wanted[i] as Node;
    const existing = current.childNodes[i] ?? null;
    const live = standIns.get(node);
    if (live) {
      if (live !== existing) current.insertBefore(live, existing);
      continue;
    }
    let placed: Node = node;
    if (!existing) current.append(node);
    else if (!sameSlot(existing, node)) existing.replaceWith(node);
    else if (existing instanceof Element) {
      morph(existing, node as Element);
      placed = existing;
    } else if (existing.nodeValue !== node.nodeValue) existing.nodeValue = node.nodeValue;
    placedHooks.get(node)?.(placed as HTMLElement);
  }
  while (current.childNodes.length > wanted.length) current.lastChild?.remove();
}
