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

/**
 * Makes `current` look like `next` while keeping the nodes that stay (so focus, hover and a click
 * in progress survive a refresh). Elements are matched by position, tag and `data-key`.
 */
export function morph(current: Element, next: Element): void {
  for (const { name } of [...current.attributes]) if (!next.hasAttribute(name)) current.removeAttribute(name);
  for (const { name, value } of [...next.attributes])
    if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  // A checkbox the person clicked no longer follows its attribute: set what the state says.
  if (current instanceof HTMLInputElement && current.type === "checkbox")
    current.checked = next.hasAttribute("checked");
  const now = [...current.childNodes];
  const wanted = [...next.childNodes];
  wanted.forEach((node, i) => {
    const existing = now[i];
    if (!existing) {
      current.append(node);
    } else if (
      existing.nodeType !== node.nodeType ||
      existing.nodeName !== node.nodeName ||
      (existing instanceof HTMLElement && node instanceof HTMLElement && existing.dataset.key !== node.dataset.key)
    ) {
      existing.replaceWith(node);
    } else if (existing instanceof Element) {
      morph(existing, node as Element);
    } else if (existing.nodeValue !== node.nodeValue) {
      existing.nodeValue = node.nodeValue;
    }
  });
  for (const extra of now.slice(wanted.length)) extra.remove();
}
