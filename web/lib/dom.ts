/**
 * DOM helpers. Study content (transcript text, names, codes) only ever goes in through
 * `textContent` (here) or d3's `.text()`: never innerHTML, so a transcript holding
 * `<script>` or `onerror=` stays visible text and never runs.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A labelled <select>; calls `onChange` with the chosen value. */
export function select(
  label: string,
  options: { value: string; label: string }[],
  value: string,
  onChange: (v: string) => void,
  name?: string,
): HTMLLabelElement {
  const sel = el("select", { "data-control": name ?? label.toLowerCase() });
  for (const o of options) {
    const opt = el("option", { value: o.value }, o.label);
    if (o.value === value) opt.selected = true;
    sel.append(opt);
  }
  sel.addEventListener("change", () => onChange(sel.value));
  return el("label", { class: "control" }, label + " ", sel);
}

/** A labelled checkbox; calls `onChange` with whether it is ticked. */
export function checkbox(label: string, checked: boolean, onChange: (on: boolean) => void, name: string): HTMLLabelElement {
  const box = el("input", { type: "checkbox", "data-control": name, checked });
  box.addEventListener("change", () => onChange(box.checked));
  return el("label", { class: "control" }, box, " " + label);
}

export function emptyState(message: string): HTMLElement {
  return el("div", { class: "empty", "data-empty": "true" }, message);
}
