/** A tiny element builder: the panel is small enough that a UI library would not earn its place. */
type Child = Node | string | null | undefined | false;

export function h(
  tag: string,
  attributes: Record<string, string | boolean | ((event: Event) => void) | undefined> = {},
  ...children: Array<Child | Child[]>
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}
