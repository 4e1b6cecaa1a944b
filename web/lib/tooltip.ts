/**
 * One tooltip for the whole page. Charts stay pure: they only put the tooltip text on marks as a
 * `data-tip` attribute (lines separated by "\n"); this delegated handler shows it, as text.
 */
let tip: HTMLDivElement | null = null;
let override: TipProvider | null = null;

/** Text for a hovered mark, from the mark and the pointer (a mark may cover several items, e.g. a row of cells). */
export type TipProvider = (target: Element, event: MouseEvent) => string | null;

export function showTip(x: number, y: number, text: string): void {
  if (!tip) return;
  tip.replaceChildren();
  text.split("\n").forEach((line, i) => {
    const div = document.createElement("div");
    if (i === 0) div.className = "tip-head";
    div.textContent = line;
    tip!.append(div);
  });
  tip.hidden = false;
  const pad = 14;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  const left = x + pad + w > window.innerWidth ? x - pad - w : x + pad;
  const top = y + pad + h > window.innerHeight ? y - pad - h : y + pad;
  tip.style.left = `${Math.max(0, left)}px`;
  tip.style.top = `${Math.max(0, top)}px`;
}

export function hideTip(): void {
  if (tip) tip.hidden = true;
}

/** Let a view compute richer text for some marks (e.g. turn text loaded on demand). */
export function setTipProvider(fn: TipProvider | null): void {
  override = fn;
}

export function installTooltip(): void {
  tip = document.createElement("div");
  tip.className = "tooltip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.append(tip);
  document.addEventListener("mousemove", (event) => {
    const target = (event.target as Element | null)?.closest?.("[data-tip]");
    if (!target) return hideTip();
    const text = override?.(target, event) ?? target.getAttribute("data-tip");
    if (text) showTip(event.clientX, event.clientY, text);
    else hideTip();
  });
  document.addEventListener("mouseleave", hideTip);
}
